//! `gfxsim` started by an MPI launcher as one of several processes: `exec` (a host program
//! through the KFD emulation) refuses, saying such runs stay in one process; `sweep`
//! refuses too, and `run` in a build without the `mpi` feature (tests/mpi_run.rs runs it
//! across processes), instead of every process running the whole scenario. A launcher that started one process changes nothing.
//!
//! The last test starts gfxsim under OpenMPI's `mpirun` (Debian's openmpi-bin, installed by
//! scripts/install-deps.sh); without it that test fails.

use std::process::{Command, Output};

#[path = "../../simkit/tests/support/mpi_session.rs"]
mod mpi_session;
use mpi_session::MpiSession;

fn gfxsim(size: &str, rank: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .env("OMPI_COMM_WORLD_SIZE", size)
        .env("OMPI_COMM_WORLD_RANK", rank)
        .output()
        .expect("run gfxsim")
}

fn refused(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "not refused: {out:?}");
    assert!(err.contains(what), "stderr does not say {what:?}:\n{err}");
    err
}

#[test]
fn exec_as_one_of_several_ranks_is_refused() {
    let out = gfxsim("2", "1", &["exec", "--", "true"]);
    let err = refused(&out, "stay in one process");
    assert!(err.contains("rank 1 of 2"), "{err}");
}

#[test]
fn scenario_commands_as_one_of_several_ranks_are_refused() {
    // A build with the `mpi` feature runs it (tests/mpi_run.rs).
    if !cfg!(feature = "mpi") {
        let out = gfxsim("3", "2", &["run"]);
        let err = refused(
            &out,
            "gfxsim run: does not run across MPI processes in this build",
        );
        assert!(err.contains("rank 2 of 3"), "{err}");
    }
    let out = gfxsim(
        "2",
        "0",
        &[
            "sweep",
            "--kind",
            "latency",
            "--out",
            "/nonexistent/sweep.csv",
        ],
    );
    refused(&out, "gfxsim sweep: does not run across MPI processes");
}

#[test]
fn checkpoints_across_ranks_are_refused_by_name() {
    // Refused before MPI starts, so the launcher's variables alone exercise it.
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/two_xcds.ron");
    let flags: [&[&str]; 2] = [
        &[
            "--checkpoint-at",
            "1000",
            "--checkpoint-file",
            "/nonexistent/ckpt",
        ],
        &["--restore", "/nonexistent/ckpt"],
    ];
    for flag in flags {
        let mut args = vec!["run", scenario];
        args.extend(flag);
        let out = gfxsim("2", "1", &args);
        if cfg!(feature = "mpi") {
            refused(
                &out,
                "gfxsim run: --checkpoint-at / --restore is not supported across MPI \
                 processes (this is rank 1)",
            );
        } else {
            refused(&out, "does not run across MPI processes in this build");
        }
    }
}

#[test]
fn one_rank_is_not_refused() {
    let out = gfxsim("1", "0", &["exec", "--", "true"]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn exec_under_mpirun_ends_every_rank_with_the_error() {
    let session = MpiSession::new();
    let out = session
        .apply(
            Command::new("timeout")
                .args(["-k", "5", "60", "mpirun", "--oversubscribe", "-np", "2"])
                .arg(env!("CARGO_BIN_EXE_gfxsim"))
                .args(["exec", "--", "true"])
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        )
        .output()
        .expect("run mpirun (is openmpi-bin installed?)");
    assert_ne!(out.status.code(), Some(124), "mpirun hung: {out:?}");
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    for r in ["rank 0 of 2", "rank 1 of 2"] {
        assert!(
            err.contains(r) && err.contains("stay in one process"),
            "no refusal for {r}:\n{err}"
        );
    }
}
