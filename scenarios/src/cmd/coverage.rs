//! `gfxsim coverage`: per target, the instructions a set of code objects uses (by default
//! the project's kernel corpus), how many of them the executor implements, and the size
//! of the target's ISA table.

use crate::CliError;
use gpu_model::coverage::Coverage;
use gpu_model::Target;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `gfxsim coverage`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Code objects, offload bundles, HIP host binaries, or folders searched for `*.hsaco`
    /// (default: the corpus, `corpus/build`). A bundle counts every device entry of a
    /// simulated target, or only the one for --target.
    pub paths: Vec<PathBuf>,
    /// For bundles and HIP binaries: only the entry for this target id.
    #[arg(long)]
    pub target: Option<String>,
    /// List every used instruction with its count (default: only refused ones).
    #[arg(long)]
    pub all: bool,
    /// Instead of code objects: instantiate every entry of the ISA tables with the encoder
    /// and execute each once in a sandbox wave (all five targets, or the one named;
    /// GFX12 in wave32 and wave64). Exits with status 4 if any compute instruction is
    /// refused.
    #[arg(long, value_name = "TARGET", num_args = 0..=1, default_missing_value = "all")]
    pub isa: Option<String>,
}

/// The corpus folder: `corpus/build` under the working directory, else the one next to
/// this crate's sources.
fn default_corpus() -> PathBuf {
    let here = PathBuf::from("corpus/build");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build")
}

/// Every `*.hsaco` under `p` (or `p` itself), sorted.
fn collect(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let io = |source| CliError::Io {
        path: p.display().to_string(),
        source,
    };
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(io)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "hsaco") {
                collect(&e, out)?;
            }
        }
    } else {
        std::fs::metadata(p).map_err(io)?;
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// Runs `gfxsim coverage`.
pub fn main(args: Args) -> Result<(), CliError> {
    if let Some(t) = &args.isa {
        return isa(t, args.all);
    }
    let paths = if args.paths.is_empty() {
        vec![default_corpus()]
    } else {
        args.paths
    };
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files)?;
    }
    if files.is_empty() {
        return Err(CliError::BadInput(format!(
            "no code objects (*.hsaco) found in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let target = super::parse_target(args.target.as_deref())?;
    let mut reports: Vec<Coverage> = Target::ALL.iter().map(|&t| Coverage::new(t)).collect();
    for f in &files {
        let objects = match &target {
            Some(t) => super::read_candidates(f, t)?,
            None => super::read_all_code_objects(f)?.0,
        };
        for l in &objects {
            for r in &mut reports {
                r.add(&l.co);
            }
        }
    }
    print!("{}", render(&reports, args.all));
    Ok(())
}

/// The printed report.
pub fn render(reports: &[Coverage], all: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:>7} {:>11} {:>12} {:>9} {:>11}",
        "target", "objects", "used (ops)", "implemented", "isa table", "undecodable"
    );
    for r in reports.iter().filter(|r| r.objects > 0) {
        let _ = writeln!(
            s,
            "{:<8} {:>7} {:>11} {:>12} {:>9} {:>11}",
            r.target.name(),
            r.objects,
            r.used_ops(),
            r.implemented_ops(),
            r.isa_ops,
            r.undecodable
        );
    }
    for r in reports.iter().filter(|r| r.objects > 0) {
        let refused: Vec<_> = r.used.iter().filter(|(_, u)| !u.implemented()).collect();
        if !refused.is_empty() {
            let _ = writeln!(s, "\n{}: used but not implemented", r.target.name());
            for (name, u) in refused {
                let why = u.why.as_deref().unwrap_or("");
                let _ = writeln!(s, "  {name:<32} {:>6}x  {why}", u.count);
            }
        }
        if all {
            let _ = writeln!(s, "\n{}: every used instruction", r.target.name());
            for (name, u) in &r.used {
                let mark = if u.implemented() { "" } else { "  (refused)" };
                let _ = writeln!(s, "  {name:<32} {:>6}x{mark}", u.count);
            }
        }
    }
    s
}

/// `gfxsim coverage --isa [TARGET]`.
fn isa(target: &str, all: bool) -> Result<(), CliError> {
    let targets: Vec<Target> = if target == "all" {
        Target::ALL.to_vec()
    } else {
        vec![Target::from_name(target).ok_or_else(|| {
            CliError::BadInput(format!(
                "unknown target `{target}` (expected one of {})",
                Target::ALL.map(|t| t.name()).join(", ")
            ))
        })?]
    };
    let mut reports = Vec::new();
    for t in targets {
        let waves: &[u32] = if t.family() == gpu_model::Family::Gfx12 {
            &[32, 64]
        } else {
            &[64]
        };
        for &w in waves {
            reports.push(gpu_model::coverage::isa_coverage(t, w));
        }
    }
    print!("{}", render_isa(&reports, all));
    if reports.iter().any(|r| !r.refused.is_empty()) {
        return Err(CliError::CheckFailed(format!(
            "{} instruction forms refused",
            reports.iter().map(|r| r.refused.len()).sum::<usize>()
        )));
    }
    Ok(())
}

/// The printed `--isa` report: a table per target and wave size, then every refusal
/// (and with `all`, every graphics-only form).
pub fn render_isa(reports: &[gpu_model::coverage::IsaCoverage], all: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:>4} {:>7} {:>6} {:>8} {:>8} {:>7}",
        "target", "wave", "entries", "forms", "executed", "graphics", "refused"
    );
    for r in reports {
        let _ = writeln!(
            s,
            "{:<8} {:>4} {:>7} {:>6} {:>8} {:>8} {:>7}",
            r.target.name(),
            r.wave,
            r.entries,
            r.forms,
            r.executed,
            r.graphics.len(),
            r.refused.len()
        );
    }
    for r in reports {
        if !r.refused.is_empty() {
            let _ = writeln!(s, "\n{} wave{}: refused", r.target.name(), r.wave);
            for x in &r.refused {
                let _ = writeln!(s, "  {:<56} {}", x.text, x.reason);
            }
        }
        if all && !r.graphics.is_empty() {
            let _ = writeln!(s, "\n{} wave{}: graphics pipeline", r.target.name(), r.wave);
            for (class, text) in &r.graphics {
                let _ = writeln!(s, "  {text:<56} {class}");
            }
        }
    }
    s
}
