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

#[path = "../../simkit/tests/support/mpi_session.rs"]
mod mpi_session;
use mpi_session::MpiSession;

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
    let tmp = MpiSession::new();
    run(tmp.apply(
        Command::new("timeout")
            .args(["-k", "5", "900", "mpirun", "--oversubscribe"])
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
    ))
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

#[test]
fn rank_0_writes_the_trace_of_one_process() {
    let scenario = example("two_xcds.ron");
    let dir = MpiSession::new();
    let (one, two) = (dir.0.join("one.json"), dir.0.join("two.json"));
    let single = run(Command::new("timeout").args([
        "900",
        EXE,
        "run",
        &scenario,
        "--threads",
        "2",
        "--trace",
        one.to_str().expect("a UTF-8 temporary path"),
    ]));
    assert!(single.status.success(), "{single:?}");
    let out = mpirun(&[
        "-np",
        "2",
        EXE,
        "run",
        &scenario,
        "--threads",
        "1",
        "--trace",
        two.to_str().expect("a UTF-8 temporary path"),
    ]);
    assert!(out.status.success(), "{out:?}");
    let (one, two) = (
        std::fs::read_to_string(&one).expect("the single-process trace"),
        std::fs::read_to_string(&two).expect("rank 0's trace"),
    );
    // Wave spans from both XCDs: XCD 1's partition runs on rank 1.
    for xcd in ["\"ph\":\"X\",\"pid\":0,", "\"ph\":\"X\",\"pid\":1,"] {
        assert!(one.contains(xcd), "no {xcd} span in {one}");
    }
    assert_eq!(two, one, "the trace of 2 ranks differs from one process's");
}
