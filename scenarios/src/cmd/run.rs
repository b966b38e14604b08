//! `gfxsim run`.

use crate::CliError;

/// Arguments of `gfxsim run`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `gfxsim run`.
pub fn main(_args: Args) -> Result<(), CliError> {
    Err(CliError::BadInput(
        "`gfxsim run` is not available yet".into(),
    ))
}
