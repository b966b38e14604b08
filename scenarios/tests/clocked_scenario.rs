//! `exec_mode: Some(Clocked)` in a scenario file selects the clocked mode: the GEMM example
//! gives the same C as its functional twin, takes more simulated cycles (memory latency is
//! now exposed), and the same on 1 and 2 threads; checkpointed mid-kernel with `gfxsim run
//! --checkpoint-at` and continued with `--restore` on 2 threads, it ends at the same tick.

use scenarios::scenario::{RunOptions, Scenario};
use std::path::Path;

fn run(name: &str, threads: usize) -> (Vec<Vec<u8>>, u64) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let w = Scenario::load(&dir.join(name))
        .unwrap()
        .resolve(name, &dir)
        .unwrap();
    let opts = RunOptions {
        threads: Some(threads),
        ..RunOptions::default()
    };
    let out = w.run(&opts, &mut |_, _| {}).unwrap();
    let cycles = out.report.kernels.iter().map(|k| k.cycles).sum();
    (out.buffers, cycles)
}

#[test]
fn clocked_gemm_scenario_matches_functional() {
    let (f, fc) = run("gemm_functional.ron", 1);
    let (c, cc) = run("gemm_clocked.ron", 1);
    assert_eq!(f, c, "same C in both modes");
    assert!(cc > fc, "clocked {cc} cycles, functional {fc}");
    assert_eq!(run("gemm_clocked.ron", 2), (c, cc), "1 and 2 threads");
}

fn gfxsim(args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    text
}

/// The number after `word ` in `s`.
fn number_after(s: &str, word: &str) -> u64 {
    let rest = &s[s.find(word).unwrap_or_else(|| panic!("no `{word}` in {s}")) + word.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn clocked_gemm_checkpoint_restores_on_two_threads() {
    let dir = std::env::temp_dir().join(format!("gfxsim_clocked_ckpt_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/gemm_clocked.ron");
    let scenario = scenario.to_str().unwrap();
    let file = dir.join("mid.ckpt");
    let file = file.to_str().unwrap();
    // The uninterrupted run: a checkpoint tick past the end runs everything.
    let out = gfxsim(&[
        "run",
        scenario,
        "--checkpoint-at",
        "1000000000",
        "--checkpoint-file",
        file,
    ]);
    assert!(out.contains("1 of 1 launches complete"), "{out}");
    let end = number_after(&out, "checkpoint at tick");
    let stop = (end / 2).to_string();
    let out = gfxsim(&[
        "run",
        scenario,
        "--checkpoint-at",
        &stop,
        "--checkpoint-file",
        file,
    ]);
    assert!(out.contains("0 of 1 launches complete"), "{out}");
    let out = gfxsim(&["run", scenario, "--threads", "2", "--restore", file]);
    assert_eq!(number_after(&out, "completed at tick"), end, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
