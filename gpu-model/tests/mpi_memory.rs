//! Device memory replicated over MPI ranks (`memory::replica`, feature `mpi`): the
//! `memory-replicas` model (writers with their own memory domains, overlapping writes,
//! reads of each other's published words, atomics whose old values feed later writes) ends
//! with the same bytes on every rank's replica as in one process, on 2x1, 3x1 and 2x2.
//!
//! Needs `mpirun` (Debian's openmpi-bin, installed by scripts/install-deps.sh): without it
//! this test fails. Every run is under `timeout`, so a hang fails it too.

use std::collections::BTreeMap;
use std::process::{Command, Output};

#[path = "../../simkit/tests/support/mpi_session.rs"]
mod mpi_session;
use mpi_session::MpiSession;

const BIN: &str = env!("CARGO_BIN_EXE_memory-replicas");

fn words(out: &Output) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert_ne!(out.status.code(), Some(124), "hung: {out:?}");
    assert!(
        out.status.success(),
        "failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

#[test]
fn replicas_end_with_the_bytes_of_one_process() {
    let one = words(
        &Command::new("timeout")
            .args(["60", BIN, "--single"])
            .output()
            .expect("run memory-replicas"),
    );
    let want = one["memory"].clone();
    // A run with fewer steps ends elsewhere: the hash tells runs apart.
    let shorter = words(
        &Command::new("timeout")
            .args(["60", BIN, "--single", "--steps", "39"])
            .output()
            .expect("run memory-replicas"),
    );
    assert_ne!(shorter["memory"], want);
    for (np, threads) in [(2, "1"), (3, "1"), (2, "2")] {
        let tmp = MpiSession::new();
        let out = tmp
            .apply(
                Command::new("timeout")
                    .args(["-k", "5", "60", "mpirun", "--oversubscribe", "-np"])
                    .arg(np.to_string())
                    .args([BIN, "--threads", threads])
                    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
            )
            .output()
            .expect("run mpirun (is openmpi-bin installed?)");
        let got = words(&out);
        assert_eq!(got["memory"], want, "{np} ranks x {threads}: {got:?}");
        for r in 0..np {
            assert_eq!(
                got.get(&format!("memory_rank{r}")),
                Some(&want),
                "rank {r} of {np} x {threads}: {got:?}"
            );
        }
    }
}
