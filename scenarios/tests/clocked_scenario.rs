//! `exec_mode: Some(Clocked)` in a scenario file selects the clocked mode: the GEMM example
//! gives the same C as its functional twin, takes more simulated cycles (memory latency is
//! now exposed), and the same on 1 and 2 threads.

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
