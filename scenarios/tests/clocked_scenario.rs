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

/// `gfxsim sweep --kind latency` (the README's documented command) writes the CSV and the
/// SVG plot, and its curve has the MI300X's plateaus with the edge at the configured 32 KiB
/// vector L1: rings up to 32 KiB at the mt4g vector L1 latency (116 cycles), larger ones at
/// the L2's (288), each within 10%.
#[test]
fn sweep_writes_the_latency_curve_and_its_plot() {
    let dir = std::env::temp_dir().join(format!("gfxsim_sweep_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ubench = root.join("gpu-model/tests/ubench/ubench_gfx942.hsaco");
    let prefix = dir.join("lat");
    gfxsim(&[
        "sweep",
        "--kind",
        "latency",
        "--gpu",
        "mi300x",
        "--ubench",
        ubench.to_str().unwrap(),
        "--max-bytes",
        "65536",
        "--out",
        prefix.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(prefix.with_extension("csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("working_set_(bytes),cycles_per_load"));
    let rows: Vec<(u64, f64)> = lines
        .map(|l| {
            let (x, y) = l.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    let sizes: Vec<u64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(sizes, [4096, 8192, 16384, 32768, 65536]);
    for (bytes, cycles) in rows {
        let want = if bytes <= 32 << 10 { 116.0 } else { 288.0 };
        assert!(
            (cycles - want).abs() <= want * 0.1,
            "{bytes} B: {cycles} cycles per load, want {want} (10%)"
        );
    }
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert_eq!(svg.matches("<circle").count(), 5, "one marker per point");
    std::fs::remove_dir_all(&dir).unwrap();
}
