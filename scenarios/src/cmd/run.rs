//! `gfxsim run`: run a scenario (or the embedded default, or a one-off kernel) and report.

use crate::scenario::{
    compare, Arg, BufferSpec, ElemType, Init, LaunchSpec, Modules, Partition, RunError, RunOptions,
    Scenario, Workload,
};
use crate::CliError;
use gpu_model::soc::{LaunchRequest, Soc, SocError, SocOptions, SocPartition};
use simkit::time::Tick;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The embedded default scenario: an MI300X running a few corpus kernels, outputs checked
/// against checksums from the corpus's CPU references.
pub const DEFAULT_SCENARIO: &str = include_str!("../../examples/default.ron");
/// Folder the default scenario's relative paths resolve against.
pub const DEFAULT_BASE: &str = ".";

/// The files [`DEFAULT_SCENARIO`] reads (code objects, expected outputs), built into the
/// binary by the paths the scenario names them with, so the default runs wherever the binary is (a test runs it
/// from an empty directory).
pub const DEFAULT_OBJECTS: &[(&str, &[u8])] = &[
    (
        "../../corpus/build/gfx942/vadd.hsaco",
        include_bytes!("../../../corpus/build/gfx942/vadd.hsaco"),
    ),
    (
        "../../corpus/build/gfx942/saxpy.hsaco",
        include_bytes!("../../../corpus/build/gfx942/saxpy.hsaco"),
    ),
    (
        "../../corpus/build/gfx942/reduce_lds.hsaco",
        include_bytes!("../../../corpus/build/gfx942/reduce_lds.hsaco"),
    ),
    (
        "../../corpus/build/gfx942/matmul_tiled.hsaco",
        include_bytes!("../../../corpus/build/gfx942/matmul_tiled.hsaco"),
    ),
    (
        "../../corpus/build/gfx942/histogram.hsaco",
        include_bytes!("../../../corpus/build/gfx942/histogram.hsaco"),
    ),
    (
        "data/default.matmul_tiled.C.want.bin",
        include_bytes!("../../examples/data/default.matmul_tiled.C.want.bin"),
    ),
];

/// Arguments of `gfxsim run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scenario file (RON). Without one (and without --kernel) the embedded default runs.
    pub scenario: Option<PathBuf>,
    /// One-off launch: `code_object.hsaco:kernel_name` (or `app:kernel_name` for a HIP
    /// binary or offload bundle: the entry for the --gpu preset's target is used).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Grid size in work-items for --kernel: `X[,Y[,Z]]`.
    #[arg(long, default_value = "64")]
    pub grid: String,
    /// Workgroup size for --kernel: `X[,Y[,Z]]`.
    #[arg(long, default_value = "64")]
    pub block: String,
    /// Argument for --kernel, in order: `buf:ELEM:LEN[:zeros|iota|rand]`, a scalar `u32:5`,
    /// `f32:2.5`, ..., `lds:BYTES` (an OpenCL `__local` pointer argument of BYTES bytes) or
    /// `bytes:HEX` (a by-value struct as raw bytes in memory order, e.g. `bytes:0100000002000000`).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Dynamic LDS bytes for --kernel (HIP `extern __shared__`), after the static LDS and
    /// the `lds:` arguments.
    #[arg(long, default_value_t = 0)]
    pub lds: u32,
    /// GPU preset for --kernel.
    #[arg(long, default_value = "mi300x")]
    pub gpu: String,
    /// With --kernel: run a code object compiled for another processor (e.g. gfx950) on
    /// the --gpu preset, translated for its processor by `dbt` (a launch's
    /// `translate: Some(host: ...)`).
    #[arg(long, requires = "kernel")]
    pub translate: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write a Chrome/Perfetto trace of wave lifetimes.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Worker threads (overrides the scenario).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Checkpoint and restore.
    #[command(flatten)]
    pub checkpoint: Box<CheckpointArgs>,
}

/// `gfxsim run` checkpoint options (boxed: they would make every command large).
#[derive(Debug, Default, clap::Args)]
pub struct CheckpointArgs {
    /// Submit every launch at once, stop at this simulated tick (picoseconds) and write a
    /// checkpoint of the whole machine to --checkpoint-file.
    #[arg(long, requires = "checkpoint_file", conflicts_with = "restore")]
    pub checkpoint_at: Option<u64>,
    /// Where --checkpoint-at writes the checkpoint.
    #[arg(long, requires = "checkpoint_at")]
    pub checkpoint_file: Option<PathBuf>,
    /// Continue the scenario from a checkpoint written by --checkpoint-at (same scenario
    /// and GPU; the thread count may differ), run it to the end and check its outputs.
    #[arg(long)]
    pub restore: Option<PathBuf>,
}

fn bad(m: impl Into<String>) -> CliError {
    CliError::BadInput(m.into())
}

fn dim3(s: &str, what: &str) -> Result<[u32; 3], CliError> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad(format!("--{what} {s:?}: expected X[,Y[,Z]]")))?;
    if v.is_empty() || v.len() > 3 {
        return Err(bad(format!("--{what} {s:?}: expected 1 to 3 sizes")));
    }
    Ok(std::array::from_fn(|i| v.get(i).copied().unwrap_or(1)))
}

fn elem(s: &str) -> Result<ElemType, CliError> {
    ron::from_str(&s.to_ascii_uppercase()).map_err(|_| bad(format!("unknown element type {s:?}")))
}

/// Bytes from pairs of hex digits (`0a0b`), `None` if the text is not that.
fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A one-off scenario from `--kernel`, `--grid`, `--block` and `--arg`.
fn one_off(a: &Args, spec: &str) -> Result<(Scenario, PathBuf), CliError> {
    let (path, name) = spec
        .rsplit_once(':')
        .ok_or_else(|| bad(format!("--kernel {spec:?}: expected file.hsaco:kernel")))?;
    let mut buffers = Vec::new();
    let mut args = Vec::new();
    for (i, s) in a.args.iter().enumerate() {
        let parts: Vec<&str> = s.split(':').collect();
        let arg = match parts.as_slice() {
            ["buf", ty, len, rest @ ..] => {
                let bname = format!("arg{i}");
                let init = match rest {
                    [] | ["zeros"] => Init::Zeros,
                    ["iota"] => Init::Iota,
                    ["rand"] => Init::Random {
                        seed: i as u32 + 1,
                        lo: -1.0,
                        hi: 1.0,
                    },
                    _ => return Err(bad(format!("--arg {s:?}: init is zeros, iota or rand"))),
                };
                buffers.push(BufferSpec {
                    name: bname.clone(),
                    elem: elem(ty)?,
                    len: len
                        .parse()
                        .map_err(|_| bad(format!("--arg {s:?}: bad length")))?,
                    init,
                });
                Arg::Buffer(bname)
            }
            ["lds", n] => Arg::Lds(
                n.parse()
                    .map_err(|_| bad(format!("--arg {s:?}: expected lds:BYTES")))?,
            ),
            ["bytes", hex] => Arg::Bytes(parse_hex(hex).ok_or_else(|| {
                bad(format!(
                    "--arg {s:?}: expected bytes:HEX (pairs of hex digits)"
                ))
            })?),
            [ty, v] => ron::from_str::<Arg>(&format!("{}({v})", ty.to_ascii_uppercase())).map_err(
                |_| {
                    bad(format!(
                        "--arg {s:?}: expected TYPE:VALUE (u32:5, f32:2.5, ...)"
                    ))
                },
            )?,
            _ => {
                return Err(bad(format!(
                    "--arg {s:?}: expected buf:ELEM:LEN[:init], TYPE:VALUE, lds:BYTES or bytes:HEX"
                )))
            }
        };
        args.push(arg);
    }
    let s = Scenario {
        gpu: a.gpu.clone(),
        overrides: Default::default(),
        threads: None,
        partition: Default::default(),
        exec_mode: None,
        buffers,
        launches: vec![LaunchSpec {
            code_object: path.to_string(),
            kernel: name.to_string(),
            grid: dim3(&a.grid, "grid")?,
            workgroup: dim3(&a.block, "block")?,
            dynamic_lds: a.lds,
            args,
            elements_per_item: None,
            translate: if a.translate {
                let c = gpu_model::config::GpuConfig::preset(&a.gpu)
                    .map_err(|e| bad(format!("--gpu {}: {e}", a.gpu)))?;
                crate::scenario::Translate::Some {
                    host: c.target.name().to_string(),
                }
            } else {
                crate::scenario::Translate::None
            },
        }],
        outputs: Vec::new(),
    };
    Ok((s, PathBuf::from(".")))
}

/// Shows a spinner on stderr if the run takes longer than a second.
fn progress() -> (mpsc::Sender<Option<String>>, std::thread::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<Option<String>>();
    let h = std::thread::spawn(move || {
        let mut current = String::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(Some(k)) => current = k,
                Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => return,
                Err(mpsc::RecvTimeoutError::Timeout) => break,
            }
        }
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{elapsed}] {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar.set_message(current);
        while let Ok(Some(k)) = rx.recv() {
            bar.set_message(k);
        }
        bar.finish_and_clear();
    });
    (tx, h)
}

/// Runs `gfxsim run`.
pub fn main(a: Args) -> Result<(), CliError> {
    let ranks = crate::launcher::from_env();
    if ranks.is_some() {
        crate::launcher::refuse_without_mpi()?;
    }
    let (scenario, origin, base) = match (&a.kernel, &a.scenario) {
        (Some(_), Some(_)) => return Err(bad("give a scenario file or --kernel, not both")),
        (Some(k), None) => {
            let (s, base) = one_off(&a, k)?;
            (s, format!("--kernel {k}"), base)
        }
        (None, Some(p)) => {
            let s = Scenario::load(p).map_err(|e| bad(e.to_string()))?;
            let base = p
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            (s, p.display().to_string(), base)
        }
        (None, None) => {
            let s = Scenario::parse(DEFAULT_SCENARIO, "<embedded default>")
                .map_err(|e| bad(e.to_string()))?;
            (
                s,
                "<embedded default>".to_string(),
                PathBuf::from(DEFAULT_BASE),
            )
        }
    };
    let embedded = match (a.kernel.is_none(), a.scenario.is_none()) {
        (true, true) => DEFAULT_OBJECTS,
        _ => &[],
    };
    let w = scenario
        .resolve_embedded(&origin, &base, embedded)
        .map_err(|e| bad(e.to_string()))?;
    if a.checkpoint.checkpoint_at.is_some() || a.checkpoint.restore.is_some() {
        if let Some(r) = ranks {
            return Err(crate::launcher::MultiProcessError::Unsupported {
                what: "--checkpoint-at / --restore",
                rank: r.rank,
            }
            .into());
        }
        return checkpointed(&a, &w);
    }
    let opts = RunOptions {
        threads: a.threads,
        trace: a.trace.is_some(),
    };
    let (out, root) = match ranks {
        None => {
            let (tx, h) = progress();
            let result = w.run(&opts, &mut |i, k| {
                let _ = tx.send(Some(format!("launch {i}: {k}")));
            });
            let _ = tx.send(None);
            let _ = h.join();
            (result.map_err(run_error)?, true)
        }
        Some(_) => distributed(&a, &w, &opts)?,
    };
    if !root {
        // Rank 0 writes the report and the trace; the others end as it does.
        return match out.report.all_passed() {
            true => Ok(()),
            false => Err(CliError::CheckFailed("(rank 0 says which)".into())),
        };
    }
    if let Some(path) = &a.trace {
        let names: Vec<String> = w.launches.iter().map(|l| l.kernel.clone()).collect();
        let max_se = (0..w.config.xcd.shader_engines)
            .map(|s| w.config.xcd.cus_in_se(s))
            .max()
            .unwrap_or(1);
        let slots = w.config.xcd.cu.simds * w.config.xcd.cu.wave_slots_per_simd;
        let f = std::fs::File::create(path).map_err(|e| CliError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        crate::trace::write_trace(
            std::io::BufWriter::new(f),
            &out.spans,
            &names,
            max_se,
            slots,
        )
        .map_err(|e| CliError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
    }
    if a.json {
        // The printed text is in the report (kernels[i].stdout / stderr).
        println!("{}", out.report.to_json());
    } else {
        // What the kernels printed, in launch order, before the report.
        for k in &out.report.kernels {
            print!("{}", k.stdout);
            eprint!("{}", k.stderr);
        }
        print!("{}", out.report.to_text());
    }
    if !out.report.all_passed() {
        let failed: Vec<&str> = out
            .report
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.buffer.as_str())
            .collect();
        return Err(CliError::CheckFailed(failed.join(", ")));
    }
    Ok(())
}

fn run_error(e: RunError) -> CliError {
    match e {
        RunError::Fault { .. } => CliError::KernelFault(e.to_string()),
        other => bad(other.to_string()),
    }
}

/// The run as one of several MPI processes: the outcome (the same on every rank) and
/// whether this is rank 0. Each rank says on stderr where its time went.
#[cfg(feature = "mpi")]
fn distributed(
    a: &Args,
    w: &Workload,
    opts: &RunOptions,
) -> Result<(crate::scenario::RunOutcome, bool), CliError> {
    use crate::launcher::MultiProcessError;
    let cluster = simkit::mpi::Cluster::init().map_err(MultiProcessError::from)?;
    // What the ranks must agree on: the scenario as resolved (its file and options) and
    // every code object's bytes.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut fold = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    fold(format!("{a:?}").as_bytes());
    if let Some(p) = &a.scenario {
        fold(&std::fs::read(p).map_err(|e| CliError::Io {
            path: p.display().to_string(),
            source: e,
        })?);
    }
    for l in &w.launches {
        fold(&l.code_object_bytes);
    }
    let t0 = std::time::Instant::now();
    let (out, t) = w
        .run_distributed(opts, &cluster, h, &mut |_, _| {})
        .map_err(run_error)?;
    let wall = t0.elapsed().as_secs_f64();
    let s = |d: std::time::Duration| d.as_secs_f64();
    eprintln!(
        "gfxsim: rank {} of {}: {wall:.3} s: start digests {:.3} s, run {:.3} s (epoch \
         exchanges {:.3} s and memory sync points {:.3} s, waiting for the other ranks \
         included; simulating {:.3} s), state collection {:.3} s, packet processor writes \
         {:.3} s, the rest (setup, checks) {:.3} s",
        cluster.rank(),
        cluster.size(),
        s(t.start),
        s(t.run),
        s(t.exchange),
        s(t.sync_points),
        s(t.run.saturating_sub(t.exchange + t.sync_points)),
        s(t.collect),
        s(t.driver_writes),
        (wall - s(t.start + t.run + t.collect + t.driver_writes)).max(0.0),
    );
    Ok((out, cluster.is_root()))
}

#[cfg(not(feature = "mpi"))]
fn distributed(
    _: &Args,
    _: &Workload,
    _: &RunOptions,
) -> Result<(crate::scenario::RunOutcome, bool), CliError> {
    // Refused at the start of `main` (`refuse_without_mpi`).
    Err(bad(
        "gfxsim run: this build cannot run across MPI processes",
    ))
}

/// `--checkpoint-at` / `--restore`: the scenario's launches submitted together (one
/// in-order queue, each starting when the one before completes), stopped at a tick and
/// saved, or continued from such a checkpoint and checked. Per-kernel statistics are not
/// reported in this mode: they are only separable when kernels run one per run.
fn checkpointed(a: &Args, w: &Workload) -> Result<(), CliError> {
    let setup = |e: SocError| bad(e.to_string());
    if a.json || a.trace.is_some() {
        return Err(bad(
            "--json and --trace are not supported with --checkpoint-at or --restore",
        ));
    }
    let opts = SocOptions {
        threads: a.threads.unwrap_or(w.threads).max(1),
        partition: match w.partition {
            Partition::Auto => SocPartition::Auto,
            _ => SocPartition::PerXcd,
        },
        trace: false,
    };
    let mut soc = Soc::new(&w.config, &opts).map_err(setup)?;
    // The same allocations in the same order give the same addresses as in the run that
    // wrote the checkpoint; a restore replaces their contents.
    let addrs = w.place_buffers(&mut soc).map_err(setup)?;
    let c = &a.checkpoint;
    if let Some(path) = &c.restore {
        soc.restore_checkpoint(path)
            .map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let from = soc.now();
        soc.run().map_err(setup)?;
        return finish(w, &soc, &addrs, path, from);
    }
    let (Some(tick), Some(path)) = (c.checkpoint_at, &c.checkpoint_file) else {
        return Err(bad("--checkpoint-at needs --checkpoint-file"));
    };
    let mut modules = Modules::new();
    for l in &w.launches {
        let (m, args) = Workload::launch_parts(&mut soc, &mut modules, l, &addrs).map_err(setup)?;
        let req = LaunchRequest {
            kernel: &l.kernel,
            grid: l.grid,
            workgroup: l.workgroup,
            dynamic_lds: l.dynamic_lds,
            args: &args,
        };
        soc.submit(m, &req).map_err(setup)?;
    }
    soc.run_until(Tick(tick)).map_err(setup)?;
    soc.save_checkpoint(path).map_err(setup)?;
    println!(
        "{}: checkpoint at tick {} ({} of {} launches complete) written to {}",
        w.origin,
        soc.now().0,
        soc.completions().len(),
        w.launches.len(),
        path.display()
    );
    Ok(())
}

/// Reports a run continued from `path`: faults, then the output checks.
fn finish(w: &Workload, soc: &Soc, addrs: &[u64], path: &Path, from: Tick) -> Result<(), CliError> {
    let done = soc.completions();
    if let Some((i, f)) = done
        .iter()
        .enumerate()
        .find_map(|(i, c)| c.fault.as_ref().map(|f| (i, f)))
    {
        return Err(CliError::KernelFault(format!("launch {i}: {f}")));
    }
    if done.len() != w.launches.len() {
        return Err(CliError::KernelFault(format!(
            "{} of {} launches completed (the checkpoint is of another scenario, or a \
             wave waits forever)",
            done.len(),
            w.launches.len()
        )));
    }
    println!(
        "{} on {} ({} thread{}): restored {} at tick {}, completed at tick {} ({:.3} us \
         simulated)",
        w.origin,
        w.config.name,
        soc.partitions(),
        if soc.partitions() == 1 { "" } else { "s" },
        path.display(),
        from.0,
        soc.now().0,
        soc.now().0 as f64 / 1e6
    );
    let mut failed = Vec::new();
    for o in &w.outputs {
        let b = &w.buffers[o.buffer];
        let mut bytes = vec![0u8; b.size() as usize];
        soc.read(addrs[o.buffer], &mut bytes)
            .map_err(|e| bad(e.to_string()))?;
        if let Some(p) = &o.write {
            std::fs::write(p, &bytes).map_err(|e| CliError::Io {
                path: p.display().to_string(),
                source: e,
            })?;
        }
        if let Some(c) = &o.check {
            let r = compare(c, b.elem, &bytes).map_err(|e| bad(e.to_string()))?;
            let verdict = if r.passed { "ok  " } else { "FAIL" };
            println!("  check {verdict} {}: {}", b.name, r.detail);
            if !r.passed {
                failed.push(b.name.as_str());
            }
        }
    }
    if !failed.is_empty() {
        return Err(CliError::CheckFailed(failed.join(", ")));
    }
    Ok(())
}
