//! Example scenarios run on the SoC model and pass their checks (expected values come from
//! the corpus's independent CPU references); 1 and 2 threads give identical results.

use scenarios::scenario::{RunOptions, Scenario, Workload};
use std::path::Path;
use std::process::Command;

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

fn load(name: &str) -> Workload {
    let p = examples().join(name);
    Scenario::load(&p)
        .unwrap()
        .resolve(name, &examples())
        .unwrap()
}

#[test]
fn default_scenario_passes_its_checks() {
    let w = load("default.ron");
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(out.report.kernels.len(), 5);
    assert_eq!(out.report.checks.len(), 5);
    for c in &out.report.checks {
        assert!(c.passed, "{}: {}", c.buffer, c.detail);
    }
    // vadd: 1000 work-items in workgroups of 256 -> 4 workgroups of 4 waves.
    let vadd = &out.report.kernels[0];
    assert_eq!((vadd.workgroups, vadd.waves), (4, 16));
    // Workgroups are dealt round-robin over the 8 XCDs: 4 workgroups -> 4 CUs.
    assert_eq!(vadd.occupancy.len(), 4);
}

#[test]
fn one_and_two_threads_agree() {
    let w = load("two_xcds.ron");
    let run = |threads| {
        let opts = RunOptions {
            threads: Some(threads),
            trace: true,
        };
        w.run(&opts, &mut |_, _| {}).unwrap()
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(b.report.threads, 2);
    assert!(a.report.all_passed() && b.report.all_passed());
    assert_eq!(a.buffers, b.buffers);
    assert_eq!(a.spans, b.spans);
    let strip = |mut r: scenarios::report::RunReport| {
        r.host_seconds = 0.0;
        r.threads = 0;
        r.epochs = 0;
        for k in &mut r.kernels {
            k.host_seconds = 0.0;
        }
        r
    };
    assert_eq!(strip(a.report), strip(b.report));
}

#[test]
fn cli_exit_codes_tell_bad_input_from_failed_checks() {
    let exe = env!("CARGO_BIN_EXE_gfxsim");
    let dir = std::env::temp_dir().join(format!("gfxsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "(gpu: \"mi300x\", bufers: [])").unwrap();
    let o = Command::new(exe).arg("run").arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.ron:1:"), "{err}");

    // A wrong expected checksum: the run succeeds, the check fails with exit code 4.
    let src = std::fs::read_to_string(examples().join("default.ron"))
        .unwrap()
        .replace(
            "../../corpus",
            &format!("{}/../corpus", env!("CARGO_MANIFEST_DIR")),
        );
    let i = src.find("Fnv1a(\"0x").unwrap() + 9;
    let mut wrong = src.clone();
    wrong.replace_range(
        i..i + 4,
        if &src[i..i + 4] == "0000" {
            "1111"
        } else {
            "0000"
        },
    );
    let f = dir.join("wrong.ron");
    std::fs::write(&f, wrong).unwrap();
    let o = Command::new(exe)
        .arg("run")
        .arg(&f)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kernels"].as_array().unwrap().len(), 5);
    assert_eq!(v["checks"][0]["passed"], false);
}
