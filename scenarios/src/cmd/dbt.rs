//! `gfxsim dbt translate`: translate a code object for another processor (the `dbt`
//! crate) and print a per-kernel report.

use crate::CliError;
use dbt::KernelStatus;
use gpu_model::Target;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `gfxsim dbt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `gfxsim dbt` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Translate a code object (e.g. gfx950) into one for the host processor.
    Translate(TranslateArgs),
}

/// Arguments of `gfxsim dbt translate`.
#[derive(Debug, clap::Args)]
pub struct TranslateArgs {
    /// The guest code object (an AMDGPU ELF file).
    pub input: PathBuf,
    /// The host processor (`gfx942`, or `gfx1201` for RDNA4 in wave64).
    #[arg(long)]
    pub host: String,
    /// Where to write the translated object.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs `gfxsim dbt`.
pub fn main(args: Args) -> Result<(), CliError> {
    match args.command {
        Command::Translate(a) => translate(a),
    }
}

fn translate(a: TranslateArgs) -> Result<(), CliError> {
    let host = Target::from_name(&a.host).ok_or_else(|| {
        CliError::BadInput(format!(
            "--host {}: not a processor (gfx90a, gfx942, gfx950, gfx1200, gfx1201)",
            a.host
        ))
    })?;
    let bytes = super::read_file(&a.input)?;
    let t = dbt::translate(&bytes, host);
    print!("{}", report(&a.input.display().to_string(), host, &t));
    if let Some(e) = t.diagnostics.into_iter().next() {
        return Err(CliError::Translate {
            path: a.input.display().to_string(),
            source: e,
        });
    }
    std::fs::write(&a.output, &t.object).map_err(|source| CliError::Io {
        path: a.output.display().to_string(),
        source,
    })?;
    println!("wrote {}", a.output.display());
    Ok(())
}

/// The per-kernel report: translated or why not, code size and registers before/after.
pub fn report(path: &str, host: Target, t: &dbt::Translation) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{path} -> {host}");
    for k in &t.kernels {
        let status = match &k.status {
            KernelStatus::InPlace => "translated (in place)".to_string(),
            KernelStatus::Relocated => "translated (relocated)".to_string(),
            KernelStatus::Failed(why) => format!("not translated: {why}"),
        };
        let _ = writeln!(
            s,
            "  {}: {status}; code {} -> {} bytes ({} expanded), vgprs {} -> {}, sgprs {} -> {}",
            k.name,
            k.code_before,
            k.code_after,
            k.expanded,
            k.vgprs.0,
            k.vgprs.1,
            k.sgprs.0,
            k.sgprs.1
        );
    }
    if t.translated {
        let (a, b) = t.text_bytes;
        let _ = writeln!(
            s,
            "  .text {a} -> {b} bytes ({:.3}x)",
            b as f64 / a.max(1) as f64
        );
    }
    for d in &t.diagnostics {
        let _ = writeln!(s, "  error: {d}");
    }
    s
}
