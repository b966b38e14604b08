//! Helpers shared by the clocked-mode tests (`clocked.rs`, `clocked_bandwidth.rs`): the
//! microbenchmark objects, one-XCD preset configs, launching a kernel to its end, argument
//! bytes, tolerance checks and the streaming-read measurement.

// Each test binary that includes this module uses only some of the helpers.
#![allow(dead_code)]

use gpu_model::config::{ExecMode, GpuConfig};
use gpu_model::soc::{Completion, LaunchRequest, LevelStats, ModuleId, Soc, SocOptions};
use std::path::Path;

pub fn object(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A one-XCD, `cus`-CU version of `preset` in `mode`, with `overrides` (RON map).
pub fn config(preset: &str, cus: u32, mode: ExecMode, overrides: &str) -> GpuConfig {
    config_xcds(preset, 1, cus, mode, overrides)
}

/// `xcds` XCDs of `cus` CUs each (one shader engine) sharing one IOD of `preset`, in
/// `mode`, with `overrides` (RON map).
pub fn config_xcds(
    preset: &str,
    xcds: u32,
    cus: u32,
    mode: ExecMode,
    overrides: &str,
) -> GpuConfig {
    let mut c = GpuConfig::preset(preset)
        .unwrap()
        .with_overrides_ron(&format!(
            r#"{{"xcds": {xcds}, "iods": 1, "xcd.shader_engines": 1, "xcd.active_cus": {cus}{overrides}}}"#
        ))
        .unwrap();
    c.exec_mode = mode;
    c.validate().unwrap();
    c
}

pub struct Run {
    pub cycles: f64,
}

/// Runs one launch of `kernel` in `code` on a fresh SoC; `setup` writes buffers and
/// returns the argument bytes.
pub fn run(
    cfg: &GpuConfig,
    threads: usize,
    code: &[u8],
    kernel: &str,
    grid: [u32; 3],
    wg: [u32; 3],
    setup: &mut dyn FnMut(&mut Soc) -> Vec<Vec<u8>>,
) -> Run {
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(cfg, &opts).unwrap();
    let m = soc.load_code_object(code).unwrap();
    let args = setup(&mut soc);
    let c = run_to_end(&mut soc, m, kernel, grid, wg, &args);
    let cycles = (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64;
    eprintln!("{kernel}: {cycles:.0} cycles");
    Run { cycles }
}

/// Submits one launch, runs the SoC until it is idle and returns the launch's
/// completion, which must not hold a fault.
pub fn run_to_end(
    soc: &mut Soc,
    m: ModuleId,
    kernel: &str,
    grid: [u32; 3],
    workgroup: [u32; 3],
    args: &[Vec<u8>],
) -> Completion {
    soc.submit(
        m,
        &LaunchRequest {
            kernel,
            grid,
            workgroup,
            dynamic_lds: 0,
            args,
        },
    )
    .unwrap();
    soc.run().unwrap();
    let c = soc.completions().last().cloned().expect("a completion");
    assert!(c.fault.is_none(), "{kernel}: {:?}", c.fault);
    c
}

pub fn p64(x: u64) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}
pub fn u32b(x: u32) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}

pub fn within(what: &str, got: f64, lo: f64, hi: f64) {
    eprintln!("{what}: {got:.1} cycles (published {lo}-{hi})");
    assert!(
        got >= lo * 0.9 && got <= hi * 1.1,
        "{what}: {got:.1} cycles, published {lo}-{hi} (10% allowed)"
    );
}

/// Work-items of a `stream_read` launch on `cfg`: 8 waves on every CU.
pub fn stream_items(cfg: &GpuConfig) -> u32 {
    cfg.xcds * cfg.xcd.active_cus * 8 * 64
}

/// Cycles and level statistics of one `stream_read` launch over `n` float4s (a multiple
/// of 4 x [`stream_items`], so every element is read), `passes` times; `warm`: after a
/// launch of one pass (not counted).
pub fn stream(cfg: &GpuConfig, n: u32, passes: u32, warm: bool) -> (f64, LevelStats) {
    let items = stream_items(cfg);
    assert_eq!(n % (4 * items), 0);
    let (mut soc, m) = ubench_soc(cfg);
    let a = soc.alloc(16 * u64::from(n)).unwrap();
    let out = soc.alloc(4 * u64::from(items)).unwrap();
    let launch = |soc: &mut Soc, passes: u32| {
        let args = [p64(a), p64(out), u32b(n), u32b(passes)];
        let c = run_to_end(soc, m, "stream_read", [items, 1, 1], [256, 1, 1], &args);
        (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64
    };
    if warm {
        // One pass first, so the measured launch finds the buffer where it fits.
        launch(&mut soc, 1);
        soc.reset_stats();
    }
    let cycles = launch(&mut soc, passes);
    (cycles, soc.level_stats())
}

/// Cycles per loop-body ALU instruction of `kernel` in `hazard_<cpu>.hsaco` (8 per
/// iteration; the difference of two iteration counts removes the rest of the kernel, the
/// same difference of the `empty` kernel the loop's own instructions), one wave of
/// `lanes` lanes.
pub fn hazard_cycles_per_inst(cfg: &GpuConfig, obj: &str, kernel: &str, lanes: u32) -> f64 {
    let code = object(obj);
    let t = |kernel: &str, iters: u32| {
        run(
            cfg,
            1,
            &code,
            kernel,
            [lanes, 1, 1],
            [lanes, 1, 1],
            &mut |soc| {
                let out = soc.alloc(4 * u64::from(lanes)).unwrap();
                vec![p64(out), u32b(iters)]
            },
        )
        .cycles
    };
    // Completions are seen at 100-cycle steps: 1000 iterations keep that under 2%.
    let body = t(kernel, 1008) - t(kernel, 8);
    let lp = t("empty", 1008) - t("empty", 8);
    (body - lp) / (1000.0 * 8.0)
}

/// `got` within 5% of `want` (cycles per instruction).
pub fn near(what: &str, got: f64, want: f64) {
    eprintln!("{what}: {got:.3} cycles per instruction (expected {want})");
    assert!(
        (got - want).abs() <= want * 0.05,
        "{what}: {got:.2} cycles per instruction, expected {want}"
    );
}

/// A one-thread SoC of `cfg` with `tests/ubench/ubench_gfx942.hsaco` loaded.
pub fn ubench_soc(cfg: &GpuConfig) -> (Soc, ModuleId) {
    let opts = SocOptions {
        threads: 1,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(cfg, &opts).unwrap();
    let m = soc
        .load_code_object(&object("ubench/ubench_gfx942.hsaco"))
        .unwrap();
    (soc, m)
}
