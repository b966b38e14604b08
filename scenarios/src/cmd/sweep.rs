//! `gfxsim sweep`: runs a microbenchmark or the GEMM over a range in clocked mode and writes
//! the results as CSV plus an SVG line plot, so a researcher can look instead of read.
//!
//! - `latency`: pointer chase (`chase_vector` of `gpu-model/tests/ubench`) load-to-use
//!   latency vs working-set size, 4 KiB doubling up to `--max-bytes`, each ring warmed by
//!   one pass first.
//! - `bandwidth`: streaming copy (`stream_copy`) bytes per cycle vs size.
//! - `cus`: the 256^3 `matmul_tiled` GEMM time vs CU count (the preset with 8, 4 and 2
//!   XCDs: 304, 152 and 76 CUs on the MI300X). After the CSV it prints, per CU count, why
//!   the run took what it took: L2 and HBM bandwidth used against the configured peaks,
//!   the L2 hit rate, instructions per CU per cycle, wait-counter stalls, and the verdict
//!   (memory-, issue- or latency-bound; CUs left idle).
//!
//! ```text
//! gfxsim sweep --kind latency --gpu mi300x --out /tmp/lat     # /tmp/lat.csv, /tmp/lat.svg
//! ```
//!
//! The SVG is written here (a few lines of text): the `plotters` crate, the candidate,
//! could not be fetched from this machine's registry mirror.

use crate::error::CliError;
use gpu_model::config::{ExecMode, GpuConfig};
use gpu_model::soc::{LaunchRequest, LevelStats, Soc, SocOptions};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What to sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Pointer-chase latency vs working-set size.
    Latency,
    /// Streaming-copy bandwidth vs size.
    Bandwidth,
    /// GEMM time vs CU count.
    Cus,
}

/// Arguments of `gfxsim sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to sweep.
    #[arg(long, value_enum)]
    pub kind: Kind,
    /// GPU preset (each has a `timing` section; mi300x and mi210 are validated against
    /// published measurements; `--ubench` and `--gemm` must be built for its target).
    #[arg(long, default_value = "mi300x")]
    pub gpu: String,
    /// Microbenchmark code object (built by gpu-model/tests/ubench/build.sh).
    #[arg(long, default_value = "gpu-model/tests/ubench/ubench_gfx942.hsaco")]
    pub ubench: PathBuf,
    /// GEMM code object (corpus matmul_tiled).
    #[arg(long, default_value = "corpus/build/gfx942/matmul_tiled.hsaco")]
    pub gemm: PathBuf,
    /// Largest working set in bytes (latency, bandwidth).
    #[arg(long, default_value_t = 8 << 20)]
    pub max_bytes: u64,
    /// Output prefix: writes PREFIX.csv and PREFIX.svg.
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

fn bad(e: impl std::fmt::Display) -> CliError {
    CliError::BadInput(e.to_string())
}

fn config(gpu: &str, overrides: &str) -> Result<GpuConfig, CliError> {
    let mut c = GpuConfig::preset(gpu)
        .map_err(bad)?
        .with_overrides_ron(overrides)
        .map_err(bad)?;
    c.exec_mode = ExecMode::Clocked;
    c.validate().map_err(|e| bad(format!("--gpu {gpu}: {e}")))?;
    Ok(c)
}

/// Writes a launch's buffers and returns its argument bytes.
type Setup<'a> = &'a mut dyn FnMut(&mut Soc) -> Result<Vec<Vec<u8>>, CliError>;

/// Runs one launch on a fresh SoC; returns its cycles.
fn cycles(
    cfg: &GpuConfig,
    threads: usize,
    code: &[u8],
    kernel: &str,
    grid: [u32; 3],
    wg: [u32; 3],
    setup: Setup<'_>,
) -> Result<f64, CliError> {
    Ok(measure(cfg, threads, code, kernel, grid, wg, setup)?.cycles)
}

/// What one launch took and what it used.
struct Measured {
    cycles: f64,
    /// Instructions issued, over every CU.
    issued: u64,
    /// Issue attempts held back by a wait counter, over every CU.
    wait_stalls: u64,
    levels: LevelStats,
}

/// Runs one launch on a fresh SoC; returns its cycles and statistics.
fn measure(
    cfg: &GpuConfig,
    threads: usize,
    code: &[u8],
    kernel: &str,
    grid: [u32; 3],
    wg: [u32; 3],
    setup: Setup<'_>,
) -> Result<Measured, CliError> {
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(cfg, &opts).map_err(bad)?;
    let m = soc.load_code_object(code).map_err(bad)?;
    let args = setup(&mut soc)?;
    let req = LaunchRequest {
        kernel,
        grid,
        workgroup: wg,
        dynamic_lds: 0,
        args: &args,
    };
    soc.submit(m, &req).map_err(bad)?;
    soc.run().map_err(bad)?;
    let c = soc
        .completions()
        .last()
        .cloned()
        .ok_or_else(|| CliError::KernelFault(format!("{kernel}: no completion")))?;
    if let Some(f) = c.fault {
        return Err(CliError::KernelFault(format!("{kernel}: {f:?}")));
    }
    let (mut issued, mut wait_stalls) = (0, 0);
    for st in soc
        .cus()
        .iter()
        .filter_map(|p| soc.cu(p).and_then(|cu| cu.clocked_stats()))
    {
        issued += st.issued;
        wait_stalls += st.wait_stalls;
    }
    Ok(Measured {
        cycles: (c.completed.0 - c.submitted.0) as f64 / soc.period().0.max(1) as f64,
        issued,
        wait_stalls,
        levels: soc.level_stats(),
    })
}

/// Why a GEMM run on `cfg` took `m.cycles`: how busy each shared resource was against
/// its configured peak, and the verdict. The rule: a level whose bandwidth is at least
/// 70% used bounds the run (memory-bound); else CUs that issue at least 70% of their peak
/// (one instruction per cycle per CU: each SIMD's turn comes every `issue_period` cycles)
/// are issue-bound; else waves mostly wait (on memory counters and barriers: latency-bound).
/// Fewer workgroups than CUs leave CUs idle, which more CUs cannot change.
fn explain(cfg: &GpuConfig, m: &Measured, workgroups: u32) -> String {
    let cus = cfg.total_cus();
    // (config() validated clocked mode, which needs a timing section.)
    let Some(t) = cfg.timing else {
        return String::new();
    };
    let line = f64::from(cfg.xcd.l2.line_bytes);
    let l2 = (m.levels.l2.hits + m.levels.l2.misses) as f64 * line / m.cycles;
    let l2_peak = f64::from(cfg.xcds * t.l2_bytes_per_cycle);
    let hbm = (m.levels.hbm_read + m.levels.hbm_write) as f64 / m.cycles;
    let hbm_peak =
        f64::from(cfg.dram.bandwidth_gbytes_per_s) * 1e3 / f64::from(cfg.clocks.shader_mhz);
    let ipc = m.issued as f64 / m.cycles / f64::from(cus);
    let ipc_peak = f64::from(cfg.xcd.cu.simds) / f64::from(t.issue_period.max(1));
    let waits = m.wait_stalls as f64 / m.issued.max(1) as f64;
    let (l2_use, hbm_use) = (l2 / l2_peak, hbm / hbm_peak);
    // Loads that hit the L2 wait its latency, the others the MALL's or DRAM's: with more
    // XCDs each L2 serves fewer of the workgroups that share a tile, so fewer hits.
    let accesses = m.levels.l2.hits + m.levels.l2.misses;
    let l2_hits = m.levels.l2.hits as f64 / accesses.max(1) as f64;
    let per_cu = f64::from(workgroups) / f64::from(cus);
    let mut verdict = if l2_use.max(hbm_use) >= 0.7 {
        let level = if hbm_use >= l2_use { "HBM" } else { "L2" };
        format!("memory-bound: the {level} bandwidth limits it")
    } else if ipc >= 0.7 * ipc_peak {
        format!("issue-bound: {per_cu:.1} workgroups per CU share its SIMDs")
    } else {
        format!("latency-bound: {per_cu:.1} workgroups per CU, their waves mostly wait")
    };
    if workgroups < cus {
        let _ = write!(verdict, "; {} of {cus} CUs idle", cus - workgroups);
    }
    format!(
        "{cus} CUs: {:.0} cycles; L2 {l2:.0} of {l2_peak:.0} B/cycle ({:.0}%), {:.0}% L2 hits, \
         HBM {hbm:.0} of {hbm_peak:.0} B/cycle ({:.0}%), {ipc:.2} of {ipc_peak:.0} instructions \
         per CU per cycle, {waits:.2} wait-counter stalls per instruction: {verdict}",
        m.cycles,
        100.0 * l2_use,
        100.0 * l2_hits,
        100.0 * hbm_use,
    )
}

fn le64(x: u64) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}
fn le32(x: u32) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}

/// Cycles of `steps` chase steps over a ring of `bytes` (128-byte stride), one lane.
fn chase(
    cfg: &GpuConfig,
    threads: usize,
    code: &[u8],
    bytes: u64,
    steps: u32,
) -> Result<f64, CliError> {
    cycles(
        cfg,
        threads,
        code,
        "chase_vector",
        [1, 1, 1],
        [1, 1, 1],
        &mut |soc| {
            let stride = 128;
            let base = soc.alloc(bytes).map_err(bad)?;
            let n = bytes / stride;
            let mut img = vec![0u8; bytes as usize];
            for i in 0..n {
                let at = (i * stride) as usize;
                img[at..at + 8].copy_from_slice(&(base + (i + 1) % n * stride).to_le_bytes());
            }
            soc.write(base, &img).map_err(bad)?;
            let start = soc.alloc(64).map_err(bad)?;
            soc.write(start, &base.to_le_bytes()).map_err(bad)?;
            let out = soc.alloc(64).map_err(bad)?;
            Ok(vec![le64(start), le64(out), le32(steps)])
        },
    )
}

fn sizes(max: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut s = 4096u64;
    while s <= max.max(4096) {
        v.push(s);
        s *= 2;
    }
    v
}

/// Runs the sweep and writes the CSV and the SVG.
pub fn main(args: Args) -> Result<(), CliError> {
    crate::launcher::refuse_for_scenario("sweep")?;
    // Why the curve looks as it does, where the sweep can say (`cus`).
    let mut notes = Vec::new();
    let (title, xlabel, ylabel, log_x, rows) = match args.kind {
        Kind::Latency => {
            let cfg = config(&args.gpu, "{}")?;
            let code = super::read_file(&args.ubench)?;
            let mut rows = Vec::new();
            for b in sizes(args.max_bytes) {
                let n = (b / 128) as u32;
                let warm = chase(&cfg, args.threads, &code, b, n)?;
                let more = chase(&cfg, args.threads, &code, b, n + 256)?;
                rows.push((b as f64, (more - warm) / 256.0));
            }
            (
                format!("{}: pointer-chase load-to-use latency", cfg.name),
                "working set (bytes)",
                "cycles per load",
                true,
                rows,
            )
        }
        Kind::Bandwidth => {
            let cfg = config(&args.gpu, "{}")?;
            let code = super::read_file(&args.ubench)?;
            let items = cfg.total_cus() * 256;
            let mut rows = Vec::new();
            for b in sizes(args.max_bytes).into_iter().filter(|&b| b >= 65536) {
                let n = (b / 16) as u32;
                let t = cycles(
                    &cfg,
                    args.threads,
                    &code,
                    "stream_copy",
                    [items, 1, 1],
                    [256, 1, 1],
                    &mut |soc| {
                        let a = soc.alloc(b).map_err(bad)?;
                        let c = soc.alloc(b).map_err(bad)?;
                        Ok(vec![le64(a), le64(c), le32(n)])
                    },
                )?;
                rows.push((b as f64, 2.0 * b as f64 / t));
            }
            (
                format!("{}: streaming copy (read + write)", cfg.name),
                "bytes copied",
                "bytes per cycle",
                true,
                rows,
            )
        }
        Kind::Cus => {
            let code = super::read_file(&args.gemm)?;
            let base = GpuConfig::preset(&args.gpu).map_err(bad)?;
            let mut rows = Vec::new();
            for div in [1u32, 2, 4] {
                let xcds = (base.xcds / div).max(1);
                let cfg = config(&args.gpu, &format!(r#"{{"xcds": {xcds}}}"#))?;
                let n = 256u32;
                let m = measure(
                    &cfg,
                    args.threads,
                    &code,
                    "matmul_tiled",
                    [n, n, 1],
                    [16, 16, 1],
                    &mut |soc| {
                        let bytes = 4 * u64::from(n * n);
                        let [a, b, c] = [0; 3].map(|_| soc.alloc(bytes));
                        let (a, b, c) = (a.map_err(bad)?, b.map_err(bad)?, c.map_err(bad)?);
                        let ones: Vec<u8> = (0..n * n).flat_map(|_| 1.0f32.to_le_bytes()).collect();
                        soc.write(a, &ones).map_err(bad)?;
                        soc.write(b, &ones).map_err(bad)?;
                        Ok(vec![le64(a), le64(b), le64(c), le32(n), le32(n), le32(n)])
                    },
                )?;
                rows.push((f64::from(cfg.total_cus()), m.cycles));
                notes.push(explain(&cfg, &m, (n / 16) * (n / 16)));
            }
            rows.reverse();
            notes.reverse();
            (
                format!("{}: 256^3 f32 GEMM (matmul_tiled) vs CUs", base.name),
                "CUs",
                "cycles",
                false,
                rows,
            )
        }
    };
    let mut csv = format!(
        "{},{}\n",
        xlabel.replace(' ', "_"),
        ylabel.replace(' ', "_")
    );
    for (x, y) in &rows {
        let _ = writeln!(csv, "{x},{y:.2}");
    }
    write(&args.out.with_extension("csv"), &csv)?;
    write(
        &args.out.with_extension("svg"),
        &svg(&title, xlabel, ylabel, log_x, &rows),
    )?;
    print!("{csv}");
    for n in &notes {
        println!("# {n}");
    }
    Ok(())
}

fn write(p: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(p, text).map_err(|source| CliError::Io {
        path: p.display().to_string(),
        source,
    })
}

/// A line plot with markers, axes and tick labels (x log2 when `log_x`).
pub fn svg(title: &str, xlabel: &str, ylabel: &str, log_x: bool, rows: &[(f64, f64)]) -> String {
    let (w, h, l, r, t, b) = (720.0, 440.0, 80.0, 20.0, 40.0, 60.0);
    let fx = |x: f64| if log_x { x.max(1.0).log2() } else { x };
    let xs: Vec<f64> = rows.iter().map(|p| fx(p.0)).collect();
    let (x0, x1) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let ymax = rows.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1.0) * 1.1;
    let span = (x1 - x0).max(1e-9);
    let px = |x: f64| l + (fx(x) - x0) / span * (w - l - r);
    let py = |y: f64| h - b - y / ymax * (h - t - b);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<line x1="{l}" y1="{}" x2="{}" y2="{}" stroke="black"/>
<line x1="{l}" y1="{t}" x2="{l}" y2="{}" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">{}</text>
"#,
        w / 2.0,
        esc(title),
        h - b,
        w - r,
        h - b,
        h - b,
        w / 2.0,
        h - 15.0,
        esc(xlabel),
        h / 2.0,
        h / 2.0,
        esc(ylabel)
    );
    for k in 0..=5 {
        let y = ymax * f64::from(k) / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{4:.0}</text>"##,
            py(y),
            w - r,
            l - 6.0,
            py(y) + 4.0,
            y
        );
    }
    for &(x, _) in rows {
        let label = if log_x { human(x) } else { format!("{x}") };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            px(x),
            h - b + 18.0,
            label
        );
    }
    let pts: Vec<String> = rows
        .iter()
        .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#c0392b" stroke-width="2"/>"##,
        pts.join(" ")
    );
    for &(x, y) in rows {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#c0392b"><title>{x}: {y:.1}</title></circle>"##,
            px(x),
            py(y)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn human(b: f64) -> String {
    let b = b as u64;
    if b >= 1 << 30 {
        format!("{}G", b >> 30)
    } else if b >= 1 << 20 {
        format!("{}M", b >> 20)
    } else if b >= 1 << 10 {
        format!("{}K", b >> 10)
    } else {
        format!("{b}")
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn svg_has_one_marker_per_point() {
        let s = super::svg("t", "x", "y", true, &[(4096.0, 50.0), (8192.0, 120.0)]);
        assert_eq!(s.matches("<circle").count(), 2);
        assert!(s.contains(">4K<") && s.contains(">8K<"));
    }
}
