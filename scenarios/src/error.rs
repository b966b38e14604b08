//! Errors the command line reports, with exit codes that tell bad input from a kernel fault.

/// An error from a `gfxsim` subcommand.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The user's input (file, scenario, argument) is wrong. Exit code 2.
    #[error("{0}")]
    BadInput(String),
    /// Reading or writing a file failed. Exit code 2.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A code object could not be translated (`gfxsim dbt`). Exit code 2.
    #[error("{path}: {source}")]
    Translate {
        /// The input file.
        path: String,
        /// The first diagnostic.
        source: dbt::TranslateError,
    },
    /// A simulated kernel faulted. Exit code 3.
    #[error("kernel fault: {0}")]
    KernelFault(String),
    /// Outputs did not match their expected values. Exit code 4.
    #[error("check failed: {0}")]
    CheckFailed(String),
    /// Started as one of several MPI processes for a command that runs in one. Exit code 2.
    #[error("{0}")]
    MultiProcess(#[from] crate::launcher::MultiProcessError),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::BadInput(_)
            | CliError::Io { .. }
            | CliError::Translate { .. }
            | CliError::MultiProcess(_) => 2,
            CliError::KernelFault(_) => 3,
            CliError::CheckFailed(_) => 4,
        }
    }
}
