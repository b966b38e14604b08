//! One module per `gfxsim` subcommand.

pub mod disasm;
pub mod info;
pub mod run;
