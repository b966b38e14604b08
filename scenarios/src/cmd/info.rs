//! `gfxsim info`.

use crate::CliError;

/// Arguments of `gfxsim info`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `gfxsim info`.
pub fn main(_args: Args) -> Result<(), CliError> {
    Err(CliError::BadInput(
        "`gfxsim info` is not available yet".into(),
    ))
}
