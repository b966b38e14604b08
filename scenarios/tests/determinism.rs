//! Every example scenario gives the same results and simulated statistics on 1, 2, 3, 4
//! and 8 host threads, under every partitioning strategy: how components are spread over
//! threads, and how those threads interleave, must never show.

use scenarios::report::RunReport;
use scenarios::scenario::{Partition, RunOptions, RunOutcome, Scenario};
use std::path::Path;

/// The report without what depends on the host (times, threads, epoch barriers).
fn simulated(mut r: RunReport) -> RunReport {
    r.host_seconds = 0.0;
    r.threads = 0;
    r.epochs = 0;
    for k in &mut r.kernels {
        k.host_seconds = 0.0;
    }
    r
}

#[test]
fn every_example_agrees_on_any_thread_count_and_partitioning() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    for name in &names {
        let mut w = Scenario::load(&dir.join(name))
            .unwrap()
            .resolve(name, &dir)
            .unwrap();
        // Outputs stay in memory (some examples write files next to themselves).
        for o in &mut w.outputs {
            o.write = None;
        }
        let mut run = |partition, threads| -> RunOutcome {
            w.partition = partition;
            let opts = RunOptions {
                threads: Some(threads),
                trace: true,
            };
            w.run(&opts, &mut |_, _| {})
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        let base = run(Partition::PerXcd, 1);
        assert!(base.report.all_passed(), "{name}: checks fail");
        let mut partitions = 0;
        for partition in [Partition::PerXcd, Partition::Auto] {
            for threads in [2, 3, 4, 8] {
                let got = run(partition, threads);
                partitions = partitions.max(got.report.threads);
                let what = format!("{name}: {partition:?} on {threads} threads");
                assert!(got.buffers == base.buffers, "{what}: buffers differ");
                assert!(got.spans == base.spans, "{what}: wave spans differ");
                assert_eq!(
                    simulated(got.report),
                    simulated(base.report.clone()),
                    "{what}"
                );
            }
        }
        // Not vacuous: every example is cut into several partitions by one strategy.
        assert!(partitions > 1, "{name}: never ran on more than one thread");
    }
}
