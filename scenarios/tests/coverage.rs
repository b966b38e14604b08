//! `gfxsim coverage` over the kernel corpus: every instruction the corpus uses on every
//! target is implemented by the executor (measured by executing each occurrence), and the
//! report names what is refused when given code it cannot run.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("gfxsim runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn corpus_is_fully_implemented_on_every_target() {
    let (ok, out, err) = run(&["coverage"]);
    assert!(ok, "gfxsim coverage failed: {err}");
    let mut targets = Vec::new();
    for line in out.lines().skip(1).take_while(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 6, "row `{line}`");
        let n = |i: usize| f[i].parse::<usize>().unwrap();
        let (objects, used, implemented, table) = (n(1), n(2), n(3), n(4));
        assert!(objects >= 50, "{line}");
        assert!(used >= 150, "{line}: the corpus uses few instructions");
        assert_eq!(used, implemented, "{line}\n{out}");
        assert!(table > used, "{line}");
        targets.push(f[0].to_string());
    }
    assert_eq!(
        targets,
        ["gfx90a", "gfx942", "gfx950", "gfx1200", "gfx1201"],
        "{out}"
    );
    assert!(!out.contains("not implemented"), "{out}");
}

#[test]
fn listing_names_every_used_instruction() {
    let (ok, out, _) = run(&["coverage", "--all", "corpus/build/gfx1200"]);
    assert!(ok);
    for name in [
        "s_wait_loadcnt",
        "global_load_b32",
        "v_add_nc_u32",
        "s_endpgm",
    ] {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{name} missing from\n{out}"
        );
    }
}

#[test]
fn missing_input_is_a_clear_error() {
    let (ok, _, err) = run(&["coverage", "no/such/dir"]);
    assert!(!ok);
    assert!(err.contains("no/such/dir"), "{err}");
}
