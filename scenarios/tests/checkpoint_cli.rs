//! `gfxsim run --checkpoint-at/--checkpoint-file` and `--restore`: a scenario stopped
//! mid-kernel and continued from the file on another thread count passes its checks (CPU
//! reference checksums) and ends at the same tick as the uninterrupted run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn gfxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The number after `word ` in `s`.
fn number_after(s: &str, word: &str) -> f64 {
    let rest = &s[s.find(word).unwrap_or_else(|| panic!("no `{word}` in {s}")) + word.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn checkpoint_mid_kernel_then_restore_on_another_thread_count() {
    let dir = std::env::temp_dir().join(format!("gfxsim_ckpt_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = example("two_xcds.ron");
    let scenario = scenario.to_str().unwrap();
    // The uninterrupted run: a checkpoint tick past the end runs everything.
    let end_file = dir.join("end.ckpt");
    let o = gfxsim(&[
        "run",
        scenario,
        "--checkpoint-at",
        "1000000000",
        "--checkpoint-file",
        end_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("3 of 3 launches complete"),
        "{}",
        text(&o)
    );
    let end_tick = number_after(&text(&o), "checkpoint at tick");

    // Stop in the first kernel (matmul_tiled), on 2 threads.
    let file = dir.join("mid.ckpt");
    let stop = (end_tick as u64 / 4).to_string();
    let o = gfxsim(&[
        "run",
        scenario,
        "--threads",
        "2",
        "--checkpoint-at",
        &stop,
        "--checkpoint-file",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("0 of 3 launches complete"),
        "{}",
        text(&o)
    );

    // Continue on 1 thread and on 2.
    for threads in ["1", "2"] {
        let o = gfxsim(&[
            "run",
            scenario,
            "--threads",
            threads,
            "--restore",
            file.to_str().unwrap(),
        ]);
        let out = text(&o);
        assert!(o.status.success(), "{out}");
        assert_eq!(out.matches("check ok").count(), 3, "{out}");
        assert_eq!(number_after(&out, "completed at tick"), end_tick, "{out}");
    }

    // A checkpoint of another GPU's scenario, and a truncated file, are bad input.
    let o = gfxsim(&[
        "run",
        example("mi210.ron").to_str().unwrap(),
        "--restore",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("differs"), "{}", text(&o));
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.join("cut.ckpt");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let o = gfxsim(&["run", scenario, "--restore", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("decoding checkpoint"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
