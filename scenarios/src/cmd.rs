//! One module per `gfxsim` subcommand.

pub mod coverage;
pub mod disasm;
pub mod info;
pub mod run;
