//! `mpirun -np N gfxsim run S.ron` (feature `mpi`): the SoC's partitions on several
//! processes give the report and the output buffers of a single-process run (the outputs
//! through the scenarios' checks, FNV-1a hashes and CPU references), on 2x1, 3x1 and 2x2; a
//! scenario that differs between ranks is refused at start on every rank.
//!
//! Needs `mpirun` (Debian's openmpi-bin, installed by scripts/install-deps.sh): without it
//! these tests fail. Every run is under `timeout`, so a hang fails them too.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_gfxsim");

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (is openmpi-bin installed?)"));
    assert_ne!(out.status.code(), Some(124), "{cmd:?} hung: {out:?}");
    out
}

fn mpirun(args: &[&str]) -> Output {
    run(Command::new("timeout")
        .args(["-k", "5", "900", "mpirun", "--oversubscribe"])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"))
}

/// The JSON report of a successful run.
fn report(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON report ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn single(scenario: &str, threads: usize) -> Value {
    let t = threads.to_string();
    report(&run(Command::new("timeout").args([
        "900",
        EXE,
        "run",
        scenario,
        "--json",
        "--threads",
        &t,
    ])))
}

/// The report without wall-clock times and what depends on the partition count.
fn simulated(mut v: Value) -> Value {
    for k in ["host_seconds", "threads", "epochs"] {
        v[k] = Value::Null;
    }
    if let Some(ks) = v["kernels"].as_array_mut() {
        for k in ks {
            k["host_seconds"] = Value::Null;
        }
    }
    v
}

fn same_as_one_process(name: &str) {
    let scenario = example(name);
    let one = single(&scenario, 1);
    let checks = one["checks"].as_array().map_or(0, Vec::len);
    for (np, threads) in [(2usize, 1usize), (3, 1), (2, 2)] {
        let (n, t) = (np.to_string(), threads.to_string());
        let out = mpirun(&["-np", &n, EXE, "run", &scenario, "--json", "--threads", &t]);
        let got = report(&out);
        let what = format!("{name}: {np} ranks x {threads} threads");
        assert_eq!(simulated(got.clone()), simulated(one.clone()), "{what}");
        assert_eq!(
            got["checks"].as_array().map_or(0, Vec::len),
            checks,
            "{what}"
        );
        // Partitions and epochs are those of the same partitions on threads of one process.
        let threaded = single(&scenario, np * threads);
        for k in ["threads", "epochs"] {
            assert_eq!(got[k], threaded[k], "{what}: {k}");
        }
        // Every rank says where its time went (the ranks' stderr lines can interleave).
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.matches("state collection").count(),
            np,
            "{what}: not every rank said where its time went:\n{err}"
        );
    }
}

#[test]
fn bench_alu_gives_the_single_process_report() {
    same_as_one_process("bench_alu.ron");
}

#[test]
fn atomics_from_every_xcd_give_the_single_process_report_and_outputs() {
    same_as_one_process("atomics.ron");
}

#[test]
fn a_scenario_that_differs_between_ranks_is_refused_at_start() {
    let scenario = example("two_xcds.ron");
    // Rank 1 is started with another option: the scenario as resolved differs.
    let out = mpirun(&[
        "-np", "1", EXE, "run", &scenario, ":", "-np", "1", EXE, "run", &scenario, "--json",
    ]);
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.matches("rank 1 differs from rank 0 in configuration")
            .count()
            >= 2,
        "both ranks must say it:\n{err}"
    );
}
