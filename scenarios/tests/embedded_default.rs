//! `gfxsim run` with no arguments runs the default scenario from what is built into the
//! binary: started in an empty directory (nothing of the source tree reachable by a
//! relative path), it still runs every kernel and passes every check.

use std::process::Command;

#[test]
fn the_default_scenario_runs_from_an_empty_directory() {
    let dir = std::env::temp_dir().join(format!("gfxsim-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .arg("run")
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "{text}");
    for kernel in ["vadd", "saxpy", "reduce_lds", "matmul_tiled", "histogram"] {
        assert!(text.contains(kernel), "{kernel} missing from:\n{text}");
    }
    assert!(left.is_empty(), "the default run wrote files: {left:?}");
}
