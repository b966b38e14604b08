//! simkit across MPI ranks: `simkit-mpi` (PHOLD) under OpenMPI's `mpirun` on loopback gives
//! the single-process results, and failures end every rank with an error, never a hang.
//!
//! Needs `mpirun` (Debian's openmpi-bin, installed by scripts/install-deps.sh): without it
//! these tests fail. Every run is under `timeout`, so a hang fails the test too.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

#[path = "support/mpi_session.rs"]
mod mpi_session;
use mpi_session::MpiSession;

const BIN: &str = env!("CARGO_BIN_EXE_simkit-mpi");
/// Small PHOLD (about 25 thousand events): the runs take milliseconds, mpirun's start most
/// of the time.
const MODEL: &[&str] = &[
    "--lps",
    "64",
    "--events-per-lp",
    "4",
    "--end-tick",
    "200000",
    "--probe",
];

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (is openmpi-bin installed?)"));
    assert_ne!(out.status.code(), Some(124), "{cmd:?} hung: {out:?}");
    out
}

/// `mpirun -np <np> simkit-mpi <args>`, as root too, with a hard time limit.
fn mpirun(np: usize, mpi_args: &[&str], args: &[&str]) -> Output {
    let mut c = Command::new("timeout");
    c.args([
        "-k",
        "5",
        "60",
        "mpirun",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ])
    .args(mpi_args)
    .arg(BIN)
    .args(args)
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    let tmp = MpiSession::new();
    run(tmp.apply(&mut c))
}

fn single(args: &[&str]) -> Output {
    run(Command::new("timeout")
        .args(["60", BIN, "--single"])
        .args(args))
}

/// The `key=value` words of a successful run's output.
fn results(out: &Output) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    text.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// What must not depend on processes, threads or partitioning.
const SAME: &[&str] = &[
    "status",
    "trace_hash",
    "lp_state",
    "stats",
    "events",
    "probe_fired",
];

fn assert_same(
    got: &BTreeMap<String, String>,
    want: &BTreeMap<String, String>,
    keys: &[&str],
    what: &str,
) {
    for k in keys {
        assert_eq!(
            got.get(*k),
            want.get(*k),
            "{what}: {k} differs\n got {got:?}\nwant {want:?}"
        );
        assert!(got.contains_key(*k), "{what}: no {k} in {got:?}");
    }
}

fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    MODEL.iter().chain(extra).copied().collect()
}

#[test]
fn phold_gives_the_single_process_results_on_1_2x1_2x2_3x1() {
    let one = results(&single(MODEL));
    assert_eq!(one["status"], "max_tick@200000");
    // A host file naming loopback, as a run over several machines names them.
    let dir = tempdir("hosts");
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, "localhost slots=4\n").unwrap();
    let hostfile = hosts.to_str().unwrap();
    let cases: &[(usize, usize, &str)] = &[
        (1, 1, "balanced"),
        (2, 1, "balanced"),
        (2, 2, "round-robin"),
        (3, 1, "manual:2,0,1"),
    ];
    for &(np, threads, placement) in cases {
        let t = threads.to_string();
        let args = with(&["--threads", &t, "--placement", placement]);
        let got = results(&mpirun(np, &["--hostfile", hostfile], &args));
        let what = format!("{np} ranks x {threads} threads, {placement}");
        assert_same(&got, &one, SAME, &what);
        assert_eq!(got["partitions"], (np * threads).to_string(), "{what}");
        // Epochs and cross-partition messages depend on the partitioning only: the same as
        // the same partitions on threads of one process (which, on one partition, takes the
        // sequential path without epochs).
        let p = (np * threads).to_string();
        let threaded = results(&single(&with(&["--partitions", &p])));
        assert_same(&got, &threaded, &["cross"], &what);
        if np * threads > 1 {
            assert_same(&got, &threaded, &["epochs"], &what);
            assert_ne!(got["cross"], "0", "{what}: nothing crossed partitions");
        }
    }
}

#[test]
fn a_borrowed_simulation_gives_the_single_process_results_and_is_handed_back() {
    let one = results(&single(MODEL));
    for (np, threads) in [(2, "1"), (2, "2"), (3, "1")] {
        let args = with(&["--threads", threads, "--borrowed"]);
        let got = results(&mpirun(np, &[], &args));
        let what = format!("borrowed, {np} ranks x {threads} threads");
        assert_same(&got, &one, SAME, &what);
        // Every rank's owner gets its simulation back at the end of the run.
        for r in 0..np {
            assert_eq!(
                got.get(&format!("borrowed_now_rank{r}"))
                    .map(String::as_str),
                Some("200000"),
                "{what}: rank {r}: {got:?}"
            );
        }
    }
}

#[test]
fn exits_and_primaries_are_the_single_process_ones() {
    for stop in [["--exit-at", "90000"], ["--release-at", "120000"]] {
        let args = with(&stop);
        let one = results(&single(&args));
        let got = results(&mpirun(3, &[], &args));
        assert_same(&got, &one, SAME, &format!("{stop:?}"));
        let s = &got["status"];
        // The probe (last component) is on the last rank: its reason crossed ranks.
        assert!(
            s.starts_with("exit:3:probe_exit_at_") || s.starts_with("completed:PrimariesReleased@"),
            "{s}"
        );
    }
}

#[test]
fn sync_points_are_called_at_the_same_points_on_every_rank() {
    let args = with(&["--sync-period", "4999"]);
    let one = results(&single(&args));
    let got = results(&mpirun(
        3,
        &[],
        &with(&["--sync-period", "4999", "--threads", "2"]),
    ));
    assert_same(&got, &one, SAME, "sync points");
    assert!(
        one["sync_points"] != "0000000000000000",
        "the hook never ran: {one:?}"
    );
    for r in 0..3 {
        assert_eq!(
            got.get(&format!("sync_points_rank{r}")),
            one.get("sync_points"),
            "rank {r}: {got:?}"
        );
    }
}

/// Sync-point hooks exchange bytes with every rank (`SyncExchange`): every rank gets every
/// rank's entry for the same point, at every point; outside a hook the exchange is refused.
#[test]
fn sync_point_hooks_exchange_bytes_between_ranks() {
    let args = with(&["--sync-period", "4999", "--sync-exchange", "--threads", "2"]);
    let got = results(&mpirun(3, &[], &args));
    let one = results(&single(&with(&["--sync-period", "4999"])));
    assert_same(&got, &one, SAME, "sync exchange");
    let first = got.get("sync_exchange_rank0").cloned();
    assert!(
        first.as_deref().is_some_and(|h| h != "0000000000000000"),
        "no exchange: {got:?}"
    );
    for r in 0..3 {
        assert_eq!(
            got.get(&format!("sync_exchange_rank{r}")),
            first.as_ref(),
            "rank {r}: {got:?}"
        );
        assert_eq!(
            got[&format!("sync_exchange_bad_rank{r}")],
            "0",
            "rank {r}: {got:?}"
        );
        assert_eq!(
            got[&format!("sync_exchange_outside_rank{r}")],
            "refused",
            "rank {r}"
        );
        assert_eq!(
            got.get(&format!("sync_points_rank{r}")),
            one.get("sync_points")
        );
    }
}

#[test]
fn a_rank_that_dies_ends_the_job_naming_it() {
    let out = mpirun(2, &[], &with(&["--abort-at", "50000"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    // mpirun's own report of the rank that died (the probe lives on the last rank).
    assert!(err.contains("rank 1") && err.contains("signal 6"), "{err}");
}

#[test]
fn a_panicking_component_ends_every_rank_with_an_error_naming_its_rank() {
    let out = mpirun(2, &[], &with(&["--panic-at", "50000"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("simkit-mpi: rank 1: a component panicked in partition 1"),
        "{err}"
    );
}

#[test]
fn a_model_error_is_an_error_on_every_rank() {
    let out = mpirun(2, &[], &with(&["--bad-send-at", "60000"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    // The error crossed from rank 1 (the probe's) to rank 0, which reports it.
    let probe = 64; // after the 64 LPs
    assert!(
        err.contains(&format!(
            "simkit-mpi: rank 1: component ComponentId({probe}) sent over net NetId(0) to ComponentId(0)"
        )),
        "{err}"
    );
}

/// An event injected through the handle before the run (the same injection on every rank,
/// as a driver program makes it) is handled once, by the rank of its partition, as in one
/// process: the results equal a single-process run with the same injection, and differ
/// from one without it.
#[test]
fn an_injection_made_before_the_run_is_handled_once_as_in_one_process() {
    let one = results(&single(&with(&["--inject"])));
    let without = results(&single(MODEL));
    assert_ne!(one["trace_hash"], without["trace_hash"]);
    assert_ne!(one["lp_state"], without["lp_state"]);
    for (np, threads) in [(2, "1"), (3, "1"), (2, "2")] {
        let got = results(&mpirun(np, &[], &with(&["--inject", "--threads", threads])));
        assert_same(
            &got,
            &one,
            SAME,
            &format!("{np} ranks x {threads} with --inject"),
        );
    }
}

#[test]
fn a_panic_outside_the_engine_aborts_the_job_naming_the_rank() {
    let out = mpirun(3, &[], &with(&["--panic-outside-on-rank", "2"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("rank 2 of 3: panicked: told to panic outside the engine; aborting the job"),
        "{err}"
    );
}

#[test]
fn a_model_that_differs_between_ranks_is_refused_at_start() {
    let out = mpirun(2, &[], &with(&["--seed-on-rank", "1:99"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("simkit-mpi: rank 1 differs from rank 0 in component state"),
        "{err}"
    );
    let out = mpirun(2, &[], &with(&["--placement", "manual:0,5"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("bad placement: partition 1 placed on rank 5, but there are 2 ranks"),
        "{err}"
    );
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("simkit-mpi-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn checkpoints_are_written_per_rank_and_restore_onto_the_same_rank_count_only() {
    let dir = tempdir("ckpt");
    let ck = dir.join("at-100000");
    let ck = ck.to_str().unwrap();
    let whole = results(&single(MODEL));
    let saved = results(&mpirun(
        2,
        &[],
        &with(&["--save-at", "100000", "--checkpoint", ck]),
    ));
    assert_same(&saved, &whole, SAME, "run that saved on the way");
    for r in 0..2 {
        assert!(dir
            .join(format!("at-100000/rank-{r}-of-2.simkit"))
            .is_file());
    }
    let restored = results(&mpirun(2, &[], &with(&["--restore", ck])));
    assert_same(&restored, &whole, SAME, "restored run");
    assert_same(&restored, &saved, &["epochs", "cross"], "restored run");
    let out = mpirun(3, &[], &with(&["--restore", ck]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "checkpoint {ck} was written by 2 ranks, this run has 3"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
