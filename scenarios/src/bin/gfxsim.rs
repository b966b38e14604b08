//! The gfxsim command line: run scenarios, inspect and disassemble code objects.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "gfxsim",
    version,
    about = "Simulate AMD GPUs running their real machine code"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a scenario (with no argument: the embedded default).
    Run(scenarios::cmd::run::Args),
    /// Disassemble every kernel of a code object, like llvm-objdump -d.
    Disasm(scenarios::cmd::disasm::Args),
    /// Describe a code object: kernels, arguments, resources.
    Info(scenarios::cmd::info::Args),
    /// Per target: instructions the corpus (or given code objects) uses, how many the
    /// executor implements, and the size of the ISA table.
    Coverage(scenarios::cmd::coverage::Args),
    /// Run a ROCm program on the simulated GPU through the emulated KFD driver.
    Exec(scenarios::cmd::exec::Args),
    /// Binary translation: `gfxsim dbt translate in.hsaco --host gfx942 -o out.hsaco`.
    Dbt(scenarios::cmd::dbt::Args),
    /// Clocked-mode sweeps (latency vs working set, bandwidth vs size, time vs CUs):
    /// CSV plus an SVG plot.
    Sweep(scenarios::cmd::sweep::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => scenarios::cmd::run::main(a),
        Command::Disasm(a) => scenarios::cmd::disasm::main(a),
        Command::Info(a) => scenarios::cmd::info::main(a),
        Command::Coverage(a) => scenarios::cmd::coverage::main(a),
        Command::Exec(a) => match scenarios::cmd::exec::main(a) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Dbt(a) => scenarios::cmd::dbt::main(a),
        Command::Sweep(a) => scenarios::cmd::sweep::main(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gfxsim: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
