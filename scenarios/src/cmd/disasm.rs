//! `gfxsim disasm`.

use crate::CliError;

/// Arguments of `gfxsim disasm`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `gfxsim disasm`.
pub fn main(_args: Args) -> Result<(), CliError> {
    Err(CliError::BadInput(
        "`gfxsim disasm` is not available yet".into(),
    ))
}
