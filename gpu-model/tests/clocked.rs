//! The clocked mode (issue 16) against published measurements: pointer-chase load-to-use
//! latencies of the MI300X and MI210 presets within 10% of the mt4g figures, plateau edges
//! at the configured capacities, VALU and MFMA throughput within 5% of the configured
//! peak, LDS bank-conflict serialization, results identical to functional mode and
//! identical on 1 and 2 threads.
//!
//! The kernels are `tests/ubench/*.cl`, built by `tests/ubench/build.sh` (clang-22).

use gpu_model::config::{ExecMode, GpuConfig};
use gpu_model::soc::{timing::mfma_passes, LaunchRequest, Soc, SocOptions};
use gpu_model::Target;
use std::path::Path;

fn object(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn corpus(name: &str) -> Vec<u8> {
    object(&format!("../../corpus/build/gfx942/{name}.hsaco"))
}

/// A one-XCD, `cus`-CU version of `preset` in `mode`, with `overrides` (RON map).
fn config(preset: &str, cus: u32, mode: ExecMode, overrides: &str) -> GpuConfig {
    let mut c = GpuConfig::preset(preset)
        .unwrap()
        .with_overrides_ron(&format!(
            r#"{{"xcds": 1, "iods": 1, "xcd.shader_engines": 1, "xcd.active_cus": {cus}{overrides}}}"#
        ))
        .unwrap();
    c.exec_mode = mode;
    c.validate().unwrap();
    c
}

struct Run {
    cycles: f64,
}

/// Runs one launch of `kernel` in `code` on a fresh SoC; `setup` writes buffers and
/// returns the argument bytes.
fn run(
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
    soc.submit(
        m,
        &LaunchRequest {
            kernel,
            grid,
            workgroup: wg,
            dynamic_lds: 0,
            args: &args,
        },
    )
    .unwrap();
    soc.run().unwrap();
    let c = soc.completions().last().cloned().expect("a completion");
    assert!(c.fault.is_none(), "{kernel}: {:?}", c.fault);
    let cycles = (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64;
    eprintln!("{kernel}: {cycles:.0} cycles");
    Run { cycles }
}

fn p64(x: u64) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}
fn u32b(x: u32) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}

/// Cycles of a vector (`scalar` false) or scalar pointer chase of `steps` loads over a
/// ring of `bytes` bytes with elements `stride` bytes apart, one work-item.
fn chase(cfg: &GpuConfig, scalar: bool, bytes: u64, stride: u64, steps: u32) -> f64 {
    let code = object("ubench/ubench_gfx942.hsaco");
    let code = if cfg.target == Target::Gfx90a {
        object("ubench/ubench_gfx90a.hsaco")
    } else {
        code
    };
    let kernel = if scalar {
        "chase_scalar"
    } else {
        "chase_vector"
    };
    let r = run(cfg, 1, &code, kernel, [1, 1, 1], [1, 1, 1], &mut |soc| {
        let base = soc.alloc(bytes).unwrap();
        let n = bytes / stride;
        let mut img = vec![0u8; bytes as usize];
        for i in 0..n {
            let next = base + ((i + 1) % n) * stride;
            let at = (i * stride) as usize;
            img[at..at + 8].copy_from_slice(&next.to_le_bytes());
        }
        soc.write(base, &img).unwrap();
        let start = soc.alloc(64).unwrap();
        soc.write(start, &base.to_le_bytes()).unwrap();
        let out = soc.alloc(64).unwrap();
        vec![p64(start), p64(out), u32b(steps)]
    });
    r.cycles
}

/// Load-to-use latency per step between `s1` and `s2` steps.
fn chase_latency(cfg: &GpuConfig, scalar: bool, bytes: u64, stride: u64, s1: u32, s2: u32) -> f64 {
    let a = chase(cfg, scalar, bytes, stride, s1);
    let b = chase(cfg, scalar, bytes, stride, s2);
    (b - a) / f64::from(s2 - s1)
}

fn lds_latency(cfg: &GpuConfig) -> f64 {
    let code = object(if cfg.target == Target::Gfx90a {
        "ubench/ubench_gfx90a.hsaco"
    } else {
        "ubench/ubench_gfx942.hsaco"
    });
    let t = |steps: u32| {
        run(
            cfg,
            1,
            &code,
            "chase_lds",
            [1, 1, 1],
            [1, 1, 1],
            &mut |soc| {
                let out = soc.alloc(64).unwrap();
                vec![p64(out), u32b(256), u32b(4), u32b(steps)]
            },
        )
        .cycles
    };
    (t(512) - t(256)) / 256.0
}

fn within(what: &str, got: f64, lo: f64, hi: f64) {
    eprintln!("{what}: {got:.1} cycles (published {lo}-{hi})");
    assert!(
        got >= lo * 0.9 && got <= hi * 1.1,
        "{what}: {got:.1} cycles, published {lo}-{hi} (10% allowed)"
    );
}

#[test]
fn mi300x_pointer_chase_matches_mt4g() {
    let cfg = config("mi300x", 2, ExecMode::Clocked, "");
    // Vector L1 (32 KiB): 8 KiB ring, warm after one pass.
    let l1 = chase_latency(&cfg, false, 8192, 128, 64, 320);
    within("vector L1", l1, 116.0, 116.0);
    // Scalar L1 (16 KiB): 4 KiB ring of 64-byte lines.
    let k = chase_latency(&cfg, true, 4096, 64, 64, 320);
    within("scalar L1", k, 48.0, 48.0);
    within("LDS", lds_latency(&cfg), 52.0, 52.0);
    // L2: a 64 KiB ring misses the 4-way 32 KiB L1 every time (LRU), hits the L2 once warm.
    let l2 = chase_latency(&cfg, false, 65536, 128, 512, 1024);
    within("L2", l2, 288.0, 288.0);
    // Memory: first touches of a 16 MiB ring.
    let mem = chase_latency(&cfg, false, 16 << 20, 128, 256, 768);
    within("memory", mem, 880.0, 880.0);
}

#[test]
fn mi210_pointer_chase_matches_mt4g() {
    let cfg = config("mi210", 2, ExecMode::Clocked, "");
    within(
        "vector L1",
        chase_latency(&cfg, false, 8192, 128, 64, 320),
        124.0,
        124.0,
    );
    within(
        "scalar L1",
        chase_latency(&cfg, true, 4096, 64, 64, 320),
        50.0,
        50.0,
    );
    within("LDS", lds_latency(&cfg), 48.0, 50.0);
    // 16 KiB vector L1 on the MI210: a 32 KiB ring misses it.
    within(
        "L2",
        chase_latency(&cfg, false, 32768, 128, 256, 768),
        292.0,
        302.0,
    );
    within(
        "memory",
        chase_latency(&cfg, false, 16 << 20, 128, 256, 768),
        684.0,
        741.0,
    );
}

#[test]
fn plateau_edges_follow_the_configured_capacities() {
    // A 256 KiB L2: a warm 128 KiB ring hits it, a warm 512 KiB ring does not.
    let cfg = config(
        "mi210",
        2,
        ExecMode::Clocked,
        r#", "xcd.l2.size_bytes": 262144"#,
    );
    let inside = chase_latency(&cfg, false, 128 << 10, 128, 1024, 2048);
    let outside = chase_latency(&cfg, false, 512 << 10, 128, 4096, 4608);
    within("L2 plateau", inside, 297.0, 297.0);
    within("past the L2", outside, 712.0, 712.0);
    // The vector L1 edge: 8 KiB fits the 16 KiB L1, 32 KiB does not.
    let l1 = chase_latency(&cfg, false, 8 << 10, 128, 64, 192);
    let past = chase_latency(&cfg, false, 32 << 10, 128, 256, 512);
    within("L1 plateau", l1, 124.0, 124.0);
    within("past the L1", past, 297.0, 297.0);
}

/// VALU lane-instructions per cycle of 2 CUs running `valu_fma` with 4 waves per SIMD:
/// CUs x SIMDs x lanes.
#[test]
fn valu_throughput_reaches_the_configured_peak() {
    for preset in ["mi300x", "mi210"] {
        let cfg = config(preset, 2, ExecMode::Clocked, "");
        let code = object(if cfg.target == Target::Gfx90a {
            "ubench/ubench_gfx90a.hsaco"
        } else {
            "ubench/ubench_gfx942.hsaco"
        });
        let items = 4 * 8 * 64;
        let t = |iters: u32| {
            run(
                &cfg,
                1,
                &code,
                "valu_fma",
                [items, 1, 1],
                [256, 1, 1],
                &mut |soc| {
                    let out = soc.alloc(4 * u64::from(items)).unwrap();
                    vec![p64(out), u32b(iters)]
                },
            )
            .cycles
        };
        let (a, b) = (t(8), t(40));
        // The loop body is 32 v_pk_fma_f32 (two FMAs per lane each) on both targets
        // (llvm-objdump-22 of the objects); 2 CUs.
        let lane_insts = f64::from(items) * 32.0 * 32.0;
        let rate = lane_insts / (b - a);
        let peak = f64::from(2 * cfg.xcd.cu.simds * cfg.timing.unwrap().simd_lanes);
        assert!(
            (rate - peak).abs() <= peak * 0.05,
            "{preset}: {rate:.1} VALU lane-instructions per cycle, peak {peak}"
        );
    }
}

/// FLOPs per cycle of one CU running `mfma_f16` (v_mfma_f32_32x32x8f16) on each SIMD.
#[test]
fn mfma_throughput_reaches_the_whitepaper_rate() {
    // [WP] MI300X: 1307.4 TFLOPS dense f16 / (304 CUs x 2.1 GHz) = 2048 FLOPs per CU per
    // cycle; MI210: 181 TFLOPS / (104 x 1.7 GHz) = 1024.
    for (preset, obj, peak) in [
        ("mi300x", "ubench/mfma_gfx942.hsaco", 2048.0),
        ("mi210", "ubench/mfma_gfx90a.hsaco", 1024.0),
    ] {
        let cfg = config(preset, 2, ExecMode::Clocked, "");
        let code = object(obj);
        let t = |iters: u32| {
            run(
                &cfg,
                1,
                &code,
                "mfma_f16",
                [256, 1, 1],
                [256, 1, 1],
                &mut |soc| {
                    let out = soc.alloc(4 * 256).unwrap();
                    vec![p64(out), u32b(iters)]
                },
            )
            .cycles
        };
        let (a, b) = (t(4), t(36));
        let flops = 4.0 * 32.0 * 16.0 * (32.0 * 32.0 * 8.0 * 2.0);
        let rate = flops / (b - a);
        assert!(
            (rate - peak).abs() <= peak * 0.05,
            "{preset}: {rate:.0} FLOPs per cycle, peak {peak}"
        );
    }
}

#[test]
fn lds_stride_32_serializes_on_one_bank() {
    let cfg = config("mi300x", 2, ExecMode::Clocked, "");
    let code = object("ubench/ubench_gfx942.hsaco");
    let per_iter = |stride: u32| {
        let t = |iters: u32| {
            run(
                &cfg,
                1,
                &code,
                "lds_stride",
                [64, 1, 1],
                [64, 1, 1],
                &mut |soc| {
                    let out = soc.alloc(4 * 64).unwrap();
                    vec![p64(out), u32b(stride), u32b(iters)]
                },
            )
            .cycles
        };
        (t(128) - t(64)) / 64.0
    };
    let (s1, s32) = (per_iter(1), per_iter(32));
    // Stride 1: two 32-lane groups, one cycle each. Stride 32: each group's 32 lanes hit
    // one bank, 32 cycles each: 62 more cycles per load.
    let extra = s32 - s1;
    assert!(
        (extra - 62.0).abs() <= 6.2,
        "stride 1: {s1:.1}, stride 32: {s32:.1} cycles per iteration"
    );
}

/// Output bytes of matmul_tiled, reduce_lds and histogram (atomics), plus the end time.
fn corpus_outputs(mode: ExecMode, threads: usize) -> (Vec<Vec<u8>>, u64) {
    let mut cfg = GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "iods": 2, "xcd.active_cus": 4}"#)
        .unwrap();
    cfg.exec_mode = mode;
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(&cfg, &opts).unwrap();
    let (m, n, k) = (48u32, 40u32, 32u32);
    let mut x = 0x1234_5678u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let a: Vec<u8> = (0..m * k)
        .flat_map(|_| ((rnd() % 1000) as f32 / 500.0 - 1.0).to_le_bytes())
        .collect();
    let b: Vec<u8> = (0..k * n)
        .flat_map(|_| ((rnd() % 1000) as f32 / 500.0 - 1.0).to_le_bytes())
        .collect();
    let r = 3000u32;
    let v: Vec<u8> = (0..r)
        .flat_map(|_| (rnd() % 100_000).to_le_bytes())
        .collect();
    let [pa, pb, pc, pv, pp, ph] = [m * k, k * n, m * n, r, r.div_ceil(256), 256]
        .map(|e| soc.alloc(4 * u64::from(e)).unwrap());
    soc.write(pa, &a).unwrap();
    soc.write(pb, &b).unwrap();
    soc.write(pv, &v).unwrap();
    let mm = soc.load_code_object(&corpus("matmul_tiled")).unwrap();
    let red = soc.load_code_object(&corpus("reduce_lds")).unwrap();
    let hist = soc.load_code_object(&corpus("histogram")).unwrap();
    let args = [p64(pa), p64(pb), p64(pc), u32b(m), u32b(n), u32b(k)];
    let req = |kernel, grid, workgroup, args| LaunchRequest {
        kernel,
        grid,
        workgroup,
        dynamic_lds: 0,
        args,
    };
    soc.submit(
        mm,
        &req(
            "matmul_tiled",
            [n.next_multiple_of(16), m.next_multiple_of(16), 1],
            [16, 16, 1],
            &args,
        ),
    )
    .unwrap();
    let args = [p64(pv), p64(pp), u32b(r)];
    soc.submit(
        red,
        &req(
            "reduce_lds",
            [r.next_multiple_of(256), 1, 1],
            [256, 1, 1],
            &args,
        ),
    )
    .unwrap();
    let args = [p64(pv), p64(ph), u32b(r)];
    soc.submit(hist, &req("histogram", [r, 1, 1], [128, 1, 1], &args))
        .unwrap();
    soc.run().unwrap();
    for c in soc.completions() {
        assert!(c.fault.is_none(), "{:?}", c.fault);
    }
    let outs = [(pc, m * n), (pp, r.div_ceil(256)), (ph, 256)]
        .map(|(p, e)| {
            let mut o = vec![0u8; 4 * e as usize];
            soc.read(p, &mut o).unwrap();
            o
        })
        .to_vec();
    (outs, soc.now().0)
}

#[test]
fn clocked_results_equal_functional_and_do_not_depend_on_threads() {
    let (functional, t_f) = corpus_outputs(ExecMode::Functional, 1);
    let (clocked, t_c) = corpus_outputs(ExecMode::Clocked, 1);
    assert_eq!(functional, clocked, "timing decides when, never what");
    assert_ne!(t_f, t_c, "the clocked mode times differently");
    // The histogram really counted every element.
    let total: u32 = clocked[2]
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .sum();
    assert_eq!(total, 3000);
    let two = corpus_outputs(ExecMode::Clocked, 2);
    assert_eq!((clocked, t_c), two, "1 and 2 threads");
}

#[test]
fn clocked_mode_without_timing_is_a_typed_error() {
    let mut cfg = GpuConfig::preset("rx9070xt").unwrap();
    cfg.exec_mode = ExecMode::Clocked;
    let e = cfg.validate().unwrap_err().to_string();
    assert!(e.contains("timing"), "{e}");
    assert!(Soc::new(&cfg, &SocOptions::default()).is_err());
}

/// The MFMA pass rule against LLVM 22's scheduling model (llvm-mca-22, which must be
/// installed: scripts/install-deps.sh).
#[test]
fn mfma_passes_agree_with_llvm_mca() {
    let cases: &[(&str, &str)] = &[
        (
            "gfx90a",
            "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]",
        ),
        (
            "gfx90a",
            "v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]",
        ),
        ("gfx90a", "v_mfma_f32_32x32x2f32 a[0:15], v0, v1, a[0:15]"),
        ("gfx90a", "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]"),
        (
            "gfx90a",
            "v_mfma_f64_16x16x4f64 a[0:7], v[0:1], v[2:3], a[0:7]",
        ),
        (
            "gfx90a",
            "v_mfma_f64_4x4x4f64 a[0:1], v[0:1], v[2:3], a[0:1]",
        ),
        (
            "gfx942",
            "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]",
        ),
        (
            "gfx942",
            "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]",
        ),
        ("gfx942", "v_mfma_f32_32x32x2_f32 a[0:15], v0, v1, a[0:15]"),
        ("gfx942", "v_mfma_f32_16x16x4_f32 a[0:3], v0, v1, a[0:3]"),
        (
            "gfx942",
            "v_mfma_i32_32x32x16_i8 a[0:15], v[0:1], v[2:3], a[0:15]",
        ),
        (
            "gfx942",
            "v_mfma_f32_32x32x16_fp8_fp8 a[0:15], v[0:1], v[2:3], a[0:15]",
        ),
        (
            "gfx942",
            "v_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7]",
        ),
        (
            "gfx950",
            "v_mfma_f32_32x32x16_f16 a[0:15], v[0:3], v[4:7], a[0:15]",
        ),
        (
            "gfx950",
            "v_mfma_f32_16x16x32_f16 a[0:3], v[0:3], v[4:7], a[0:3]",
        ),
        (
            "gfx950",
            "v_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7]",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("gfxsim-mca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cpu, asm) in cases {
        let f = dir.join("m.s");
        std::fs::write(&f, format!("{asm}\n")).unwrap();
        let out = std::process::Command::new("llvm-mca-22")
            .args(["-mtriple=amdgcn", &format!("-mcpu={cpu}")])
            .arg(&f)
            .output()
            .expect("llvm-mca-22 must be installed (scripts/install-deps.sh)");
        let text = String::from_utf8_lossy(&out.stdout);
        let rthroughput: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("Block RThroughput:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{cpu} {asm}: no RThroughput in\n{text}"));
        let target = match *cpu {
            "gfx90a" => Target::Gfx90a,
            "gfx942" => Target::Gfx942,
            _ => Target::Gfx950,
        };
        let mnemonic = asm.split(' ').next().unwrap();
        assert_eq!(
            mfma_passes(target, mnemonic).map(f64::from),
            Some(rthroughput),
            "{cpu} {mnemonic}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
