//! Whether `gfxsim` was started as one of several processes by an MPI launcher, and the
//! refusal of commands that cannot be spread over such processes (`exec`, `sweep`; `run`
//! runs across them in a build with the `mpi` feature).
//!
//! Found from the environment, without linking MPI: OpenMPI's `mpirun` gives every process
//! `OMPI_COMM_WORLD_SIZE` and `OMPI_COMM_WORLD_RANK` (observed with Debian's OpenMPI 4.1.4,
//! `mpirun -np 2 env`).

use crate::CliError;

/// Where this process is among the launcher's processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranks {
    /// This process's rank.
    pub rank: usize,
    /// Number of processes started.
    pub size: usize,
}

const SIZE_VAR: &str = "OMPI_COMM_WORLD_SIZE";
const RANK_VAR: &str = "OMPI_COMM_WORLD_RANK";

/// The ranks the launcher says this process is one of, when it started more than one.
/// An unreadable value counts as not started by a launcher.
pub fn from_env() -> Option<Ranks> {
    let num = |v: &str| std::env::var(v).ok()?.trim().parse::<usize>().ok();
    let size = num(SIZE_VAR)?;
    (size > 1).then(|| Ranks {
        rank: num(RANK_VAR).unwrap_or(0),
        size,
    })
}

/// Why `command` cannot run as one of several MPI processes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MultiProcessError {
    /// A run driven by a host program through the KFD emulation.
    #[error(
        "gfxsim exec: runs driven by a host program through the KFD emulation stay in one \
         process (the program's own memory is the GPU's memory); this is rank {rank} of \
         {size} ({SIZE_VAR}={size}): start it without mpirun"
    )]
    HostProgram {
        /// This rank.
        rank: usize,
        /// Ranks started.
        size: usize,
    },
    /// A scenario command that does not run across processes (`sweep`; `run` in a
    /// `gfxsim` built without the `mpi` feature).
    #[error(
        "gfxsim {command}: does not run across MPI processes{why} (this is rank {rank} of \
         {size}, {SIZE_VAR}={size}); start it without mpirun and use --threads to spread it \
         over cores"
    )]
    Scenario {
        /// Why not, when it could be.
        why: &'static str,
        /// The subcommand.
        command: &'static str,
        /// This rank.
        rank: usize,
        /// Ranks started.
        size: usize,
    },
    /// An option that a run across MPI processes does not support.
    #[error("gfxsim run: {what} is not supported across MPI processes (this is rank {rank})")]
    Unsupported {
        /// The option.
        what: &'static str,
        /// This rank.
        rank: usize,
    },
    /// The run across MPI processes failed to start or to agree (a scenario that differs
    /// between ranks is a mismatch of the "configuration").
    #[cfg(feature = "mpi")]
    #[error("gfxsim run across MPI processes: {0}")]
    Mpi(#[from] simkit::mpi::DistError),
}

/// Refuses `gfxsim exec` under a launcher that started several processes.
pub fn refuse_for_exec() -> Result<(), CliError> {
    match from_env() {
        Some(Ranks { rank, size }) => Err(MultiProcessError::HostProgram { rank, size }.into()),
        None => Ok(()),
    }
}

/// Refuses a scenario subcommand (`run`, `sweep`) under a launcher that started several
/// processes, rather than have every process run the whole scenario and write the report.
pub fn refuse_for_scenario(command: &'static str) -> Result<(), CliError> {
    refuse(command, "")
}

/// Refuses `gfxsim run` under a launcher that started several processes when this
/// `gfxsim` is built without MPI (the `mpi` feature).
pub fn refuse_without_mpi() -> Result<(), CliError> {
    if cfg!(feature = "mpi") {
        return Ok(());
    }
    refuse(
        "run",
        " in this build (build gfxsim with `--features mpi` for that)",
    )
}

fn refuse(command: &'static str, why: &'static str) -> Result<(), CliError> {
    match from_env() {
        Some(Ranks { rank, size }) => Err(MultiProcessError::Scenario {
            why,
            command,
            rank,
            size,
        }
        .into()),
        None => Ok(()),
    }
}
