//! `gfxsim exec`: run an unmodified ROCm program on the simulated GPU.
//!
//! The program runs with the kmd interposer (`libkmd_preload.so`, built next to the
//! `gfxsim` executable) in `LD_PRELOAD`, a private directory holding the KFD sysfs topology
//! of the chosen preset (`GFXSIM_KMD_ROOT`) and an `lsmod` that reports amdgpu first on
//! `PATH`. Its exit status is ours. Each run has its own directory and its own emulated
//! device, so concurrent runs do not see each other.

use crate::report::{KernelReport, RunReport};
use crate::CliError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// File name of the interposer.
pub const PRELOAD_NAME: &str = "libkmd_preload.so";

/// Arguments of `gfxsim exec`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// GPU preset the program sees (Debian's ROCm 5.2.3 accepts only gfx90a: mi210, mi250x).
    #[arg(long, default_value = "mi210")]
    pub gpu: String,
    /// Write, at exit, every dispatch the program made to this file (JSON when it ends in
    /// `.json`, else text), in the forms of `gfxsim run`.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<OsString>,
}

/// Where the interposer is: `$GFXSIM_PRELOAD`, or next to the running executable.
pub fn find_preload() -> Result<PathBuf, CliError> {
    if let Some(p) = std::env::var_os("GFXSIM_PRELOAD") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|source| CliError::Io {
        path: "/proc/self/exe".into(),
        source,
    })?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join(PRELOAD_NAME), dir.join("deps").join(PRELOAD_NAME)];
    // `cargo build` puts it next to the executable, a test build (through the dev-dependency)
    // in deps/: take the newer, so a stale copy never shadows a fresh one.
    let modified = |p: &&PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates
        .iter()
        .filter(|p| p.is_file())
        .max_by_key(modified)
        .cloned()
        .ok_or_else(|| {
            CliError::BadInput(format!(
                "{} not found next to {} (build it: cargo build --release -p kmd-preload, \
             or set GFXSIM_PRELOAD)",
                PRELOAD_NAME,
                exe.display()
            ))
        })
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |source| CliError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Runs `gfxsim exec`; the exit code is the program's (128 + signal when it was killed).
pub fn main(args: Args) -> Result<ExitCode, CliError> {
    crate::launcher::refuse_for_exec()?;
    let gpu = kmd::GpuNode::from_preset(&args.gpu)
        .map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
    let preload = find_preload()?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let root = std::env::temp_dir().join(format!("gfxsim-exec-{}-{nanos}", std::process::id()));
    std::fs::create_dir(&root).map_err(io(&root))?;
    let root = TempDir(root);
    kmd::topology::write(&root.0, &gpu).map_err(io(&root.0))?;

    let mut ld_preload = preload.into_os_string();
    if let Some(prev) = std::env::var_os("LD_PRELOAD").filter(|p| !p.is_empty()) {
        ld_preload.push(":");
        ld_preload.push(prev);
    }
    let mut path = root.0.join("bin").into_os_string();
    if let Some(prev) = std::env::var_os("PATH") {
        path.push(":");
        path.push(prev);
    }
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::BadInput("exec: no command given".into()))?;
    let started = std::time::Instant::now();
    let status = std::process::Command::new(program)
        .args(rest)
        .env("LD_PRELOAD", ld_preload)
        .env("PATH", path)
        .env("GFXSIM_KMD_ROOT", &root.0)
        .env("GFXSIM_KMD_GPU", &args.gpu)
        .status()
        .map_err(|source| CliError::Io {
            path: Path::new(program).display().to_string(),
            source,
        })?;
    let host_seconds = started.elapsed().as_secs_f64();

    if let Some(report_path) = &args.report {
        // Each emulated process wrote what its GPU ran at exit (kmd::report).
        let dispatches = kmd::report::collect(&root.0)
            .map_err(|e| CliError::BadInput(format!("--report: {e}")))?;
        let kernels = dispatches.iter().map(|d| kernel_report(d, &gpu)).collect();
        let stats = kmd::report::collect_stats(&root.0)
            .map_err(|e| CliError::BadInput(format!("--report: {e}")))?;
        let stats = kmd::report::ProcessStats::sum(&stats);
        let report = RunReport {
            scenario: format!("exec {}", display_command(&args.command)),
            gpu: gpu.marketing_name.clone(),
            threads: 1,
            // The program's whole run, the sum of its dispatches' simulated times and of
            // its processes' engine events.
            host_seconds,
            ticks: dispatches.iter().map(|d| d.ticks).sum(),
            events: stats.events,
            epochs: 0,
            kernels,
            checks: Vec::new(),
        };
        let text = if report_path.extension().is_some_and(|e| e == "json") {
            let mut v = serde_json::to_value(&report).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("time_split".into(), time_split_json(&stats));
            }
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| report.to_json())
        } else {
            let mut t = report.to_text();
            t.push_str(&time_split_text(&stats));
            t
        };
        std::fs::write(report_path, text).map_err(io(report_path))?;
    }

    let code = match status.code() {
        Some(c) => c,
        None => {
            use std::os::unix::process::ExitStatusExt as _;
            128 + status.signal().unwrap_or(0)
        }
    };
    Ok(ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1)))
}

/// A dispatch in `gfxsim run`'s per-kernel form (what the record does not carry, like
/// cache statistics, is left empty).
fn kernel_report(d: &kmd::report::Dispatch, gpu: &kmd::GpuNode) -> KernelReport {
    let groups: u64 = (0..3)
        .map(|i| u64::from(d.grid[i].div_ceil(d.workgroup[i].max(1))))
        .product();
    let items: u32 = d.workgroup.iter().product();
    KernelReport {
        kernel: d.kernel.clone(),
        code_object: "loaded by the program".into(),
        grid: d.grid,
        workgroup: d.workgroup,
        host_seconds: 0.0,
        ticks: d.ticks,
        // Ticks are picoseconds; the shader clock is in MHz.
        cycles: d.ticks.saturating_mul(u64::from(gpu.engine_mhz)) / 1_000_000,
        workgroups: groups,
        waves: groups * u64::from(items.div_ceil(gpu.wave_size.max(1))),
        instructions: [("total".to_string(), d.instructions)].into(),
        occupancy: Vec::new(),
        caches: Vec::new(),
        hbm_read_bytes: 0,
        hbm_write_bytes: 0,
        // The program's own runtime serves its printf (hostcall) and writes it itself.
        stdout: String::new(),
        stderr: String::new(),
        translated: None,
    }
}

/// The share of the emulated processes' time spent in the model and in the emulation.
fn shares(s: &kmd::report::ProcessStats) -> (f64, f64) {
    let wall = s.wall_ns.max(1) as f64;
    (
        100.0 * s.model_ns as f64 / wall,
        100.0 * s.emulation_ns as f64 / wall,
    )
}

fn time_split_text(s: &kmd::report::ProcessStats) -> String {
    let (m, e) = shares(s);
    format!(
        "time split: {:.3} s in the emulated processes; model {:.3} s ({m:.1}%), \
         emulation (ioctls, service thread) {:.3} s ({e:.1}%), rest (the program's own work, \
         waits, mmap) {:.1}%\n",
        s.wall_ns as f64 / 1e9,
        s.model_ns as f64 / 1e9,
        s.emulation_ns as f64 / 1e9,
        (100.0 - m - e).max(0.0),
    )
}

fn time_split_json(s: &kmd::report::ProcessStats) -> serde_json::Value {
    let (m, e) = shares(s);
    serde_json::json!({
        "wall_seconds": s.wall_ns as f64 / 1e9,
        "model_seconds": s.model_ns as f64 / 1e9,
        "emulation_seconds": s.emulation_ns as f64 / 1e9,
        "model_percent": m,
        "emulation_percent": e,
    })
}

fn display_command(cmd: &[OsString]) -> String {
    cmd.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
