//! A fresh OpenMPI session directory for each `mpirun` a test starts (shared by the MPI
//! tests of simkit, gpu-model and scenarios): concurrent `mpirun`s sharing the default
//! `/tmp/ompi.<host>.<uid>` can collide.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The session directory of one `mpirun` (its `TMPDIR` and OpenMPI's `orte_tmpdir_base`),
/// removed when dropped.
pub struct MpiSession(pub PathBuf);

impl MpiSession {
    /// A new empty directory, unique to this process and call.
    pub fn new() -> MpiSession {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("mpi-session-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        MpiSession(d)
    }

    /// Points `cmd`'s MPI session directory here.
    pub fn apply<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env("TMPDIR", &self.0)
            .env("OMPI_MCA_orte_tmpdir_base", &self.0)
    }
}

impl Drop for MpiSession {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
