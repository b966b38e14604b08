//! scenarios: RON scenario files and the library behind the `gfxsim` command line.

pub mod cmd;
pub mod error;
pub mod launcher;
pub mod report;
pub mod scenario;
pub mod trace;

pub use error::CliError;
