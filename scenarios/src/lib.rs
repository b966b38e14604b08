//! scenarios: RON scenario files and the library behind the `gfxsim` command line.

pub mod cmd;
pub mod error;

pub use error::CliError;
