//! The clocked mode (issue 16) against published measurements: pointer-chase load-to-use
//! latencies of the MI300X and MI210 presets within 10% of the mt4g figures, plateau edges
//! at the configured capacities, VALU and MFMA throughput within 5% of the configured
//! peak, LDS bank-conflict serialization, results identical to functional mode and
//! identical on 1 and 2 threads.
//!
//! The kernels are `tests/ubench/*.cl`, built by `tests/ubench/build.sh` (clang-22).

mod clocked_util;

use clocked_util::{
    config, hazard_cycles_per_inst, near, object, p64, run, run_to_end, u32b, ubench_soc, within,
};
use gpu_model::config::{ExecMode, GpuConfig};
use gpu_model::soc::{timing::mfma_passes, LaunchRequest, Soc, SocOptions};
use gpu_model::Target;

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

/// Operations per cycle of 2 RDNA4 CUs (CU mode: 2 SIMD32 each) running `wmma_f16` and
/// `wmma_iu8` (gfx1201, wave32) with 4 waves per SIMD: the RX 9070 XT's published peak
/// matrix rates per CU per clock (`soc::timing::wmma_cycles`: 1024 f16 FLOPs, 2048 int8
/// ops), within 5%, and the same outputs as functional mode.
#[test]
fn wmma_throughput_reaches_the_published_rate() {
    let code = object("ubench/wmma_gfx1201.hsaco");
    for (kernel, per_cu) in [("wmma_f16", 1024.0), ("wmma_iu8", 2048.0)] {
        let items = 2 * 2 * 4 * 32;
        let t = |mode: ExecMode, iters: u32| {
            let cfg = config("rx9070xt", 2, mode, "");
            let mut soc = Soc::new(&cfg, &SocOptions::default()).unwrap();
            let m = soc.load_code_object(&code).unwrap();
            let out = soc.alloc(4 * u64::from(items)).unwrap();
            let args = [p64(out), u32b(iters)];
            let c = run_to_end(&mut soc, m, kernel, [items, 1, 1], [64, 1, 1], &args);
            let mut bytes = vec![0u8; 4 * items as usize];
            soc.read(out, &mut bytes).unwrap();
            let cycles = (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64;
            (cycles, bytes)
        };
        let (a, out_a) = t(ExecMode::Clocked, 4);
        let (b, out_b) = t(ExecMode::Clocked, 36);
        assert_eq!(
            out_a,
            t(ExecMode::Functional, 4).1,
            "{kernel}: functional mode"
        );
        assert_eq!(
            out_b,
            t(ExecMode::Functional, 36).1,
            "{kernel}: functional mode"
        );
        // 16 WMMAs of 16x16x16 (2 x 4096 operations) per iteration per wave32
        // (llvm-objdump-22 of the object), on 2 CUs.
        let waves = f64::from(items / 32);
        let rate = waves * 32.0 * 16.0 * 8192.0 / (b - a) / 2.0;
        eprintln!("{kernel}: {rate:.0} operations per CU per cycle (published {per_cu})");
        assert!(
            (rate - per_cu).abs() <= per_cu * 0.05,
            "{kernel}: {rate:.0} operations per CU per cycle, published {per_cu}"
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

/// The corpus config: 2 XCDs of 4 CUs, 2 IODs of the MI300X.
fn corpus_config(mode: ExecMode) -> GpuConfig {
    corpus_config_of(
        "mi300x",
        r#"{"xcds": 2, "iods": 2, "xcd.active_cus": 4}"#,
        mode,
    )
}

fn corpus_config_of(preset: &str, overrides: &str, mode: ExecMode) -> GpuConfig {
    let mut cfg = GpuConfig::preset(preset)
        .unwrap()
        .with_overrides_ron(overrides)
        .unwrap();
    cfg.exec_mode = mode;
    cfg
}

/// A SoC with matmul_tiled, reduce_lds and histogram (atomics) submitted; the output
/// buffers (address, dwords).
fn corpus_soc(mode: ExecMode, threads: usize) -> (Soc, [(u64, u32); 3]) {
    corpus_soc_on(&corpus_config(mode), "gfx942", threads)
}

/// [`corpus_soc`] on `cfg` with the corpus objects built for `arch`.
fn corpus_soc_on(cfg: &GpuConfig, arch: &str, threads: usize) -> (Soc, [(u64, u32); 3]) {
    let corpus = |name: &str| object(&format!("../../corpus/build/{arch}/{name}.hsaco"));
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(cfg, &opts).unwrap();
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
    (soc, [(pc, m * n), (pp, r.div_ceil(256)), (ph, 256)])
}

/// Output bytes of the corpus run on `soc`.
fn corpus_read(soc: &Soc, bufs: [(u64, u32); 3]) -> Vec<Vec<u8>> {
    for c in soc.completions() {
        assert!(c.fault.is_none(), "{:?}", c.fault);
    }
    bufs.map(|(p, e)| {
        let mut o = vec![0u8; 4 * e as usize];
        soc.read(p, &mut o).unwrap();
        o
    })
    .to_vec()
}

/// Output bytes of matmul_tiled, reduce_lds and histogram (atomics), plus the end time.
fn corpus_outputs(mode: ExecMode, threads: usize) -> (Vec<Vec<u8>>, u64) {
    let (mut soc, bufs) = corpus_soc(mode, threads);
    soc.run().unwrap();
    (corpus_read(&soc, bufs), soc.now().0)
}

/// Everything a clocked run reports: outputs, completions, end time, every CU's clocked
/// counters, the cache levels' statistics.
#[derive(Debug, PartialEq)]
struct ClockedOutcome {
    outputs: Vec<Vec<u8>>,
    completions: Vec<gpu_model::soc::Completion>,
    now: u64,
    cus: Vec<gpu_model::soc::ClockedStats>,
    levels: gpu_model::soc::LevelStats,
}

fn clocked_outcome(soc: &Soc, bufs: [(u64, u32); 3]) -> ClockedOutcome {
    ClockedOutcome {
        outputs: corpus_read(soc, bufs),
        completions: soc.completions().to_vec(),
        now: soc.now().0,
        cus: soc
            .cus()
            .iter()
            .map(|p| soc.cu(p).unwrap().clocked_stats().unwrap())
            .collect(),
        levels: soc.level_stats(),
    }
}

/// A clocked run checkpointed mid-kernel, with memory instructions in flight, and
/// restored into a fresh SoC on 1 and 2 threads finishes exactly like the uninterrupted
/// run: same outputs, completion times, clocked counters and cache statistics.
#[test]
fn clocked_checkpoint_mid_kernel_continues_identically() {
    let (mut soc, bufs) = corpus_soc(ExecMode::Clocked, 1);
    soc.run().unwrap();
    let want = clocked_outcome(&soc, bufs);
    assert_eq!(want.completions.len(), 3);
    for (k, done) in want.completions.iter().enumerate() {
        let start = match k {
            0 => done.submitted,
            _ => want.completions[k - 1].completed,
        };
        let stop = simkit::time::Tick(start.0 + (done.completed.0 - start.0) / 2);
        for saved_on in [1, 2] {
            let (mut soc, bufs) = corpus_soc(ExecMode::Clocked, saved_on);
            soc.run_until(stop).unwrap();
            // Step on until a memory instruction is in flight somewhere.
            let in_flight = |soc: &Soc| -> usize {
                soc.cus()
                    .iter()
                    .map(|p| soc.cu(p).unwrap().requests_in_flight())
                    .sum()
            };
            let mut steps = 0;
            while in_flight(&soc) == 0 {
                soc.step().unwrap().expect("the kernel is still running");
                steps += 1;
                assert!(steps < 100_000, "kernel {k}: nothing in flight");
            }
            assert_eq!(soc.completions().len(), k, "kernel {k} still runs");
            let bytes = soc.checkpoint().unwrap();
            for restored_on in [1, 2] {
                let opts = SocOptions {
                    threads: restored_on,
                    ..SocOptions::default()
                };
                let mut fresh = Soc::new(&corpus_config(ExecMode::Clocked), &opts).unwrap();
                fresh.restore(&bytes).unwrap();
                assert_eq!(in_flight(&fresh), in_flight(&soc));
                fresh.run().unwrap();
                let got = clocked_outcome(&fresh, bufs);
                assert!(
                    got == want,
                    "kernel {k}, saved on {saved_on} threads, restored on {restored_on}: \
                     {:?} vs {:?} (end), {:?} vs {:?} (completions)",
                    got.now,
                    want.now,
                    got.completions,
                    want.completions
                );
            }
        }
    }
}

/// A clocked checkpoint does not restore into a functional SoC (nor the other way).
#[test]
fn clocked_checkpoint_into_functional_soc_is_refused() {
    let (mut soc, _) = corpus_soc(ExecMode::Clocked, 1);
    soc.run_until(simkit::time::Tick(soc.period().0 * 2000))
        .unwrap();
    let bytes = soc.checkpoint().unwrap();
    let mut other = Soc::new(&corpus_config(ExecMode::Functional), &SocOptions::default()).unwrap();
    let e = other.restore(&bytes).unwrap_err().to_string();
    assert!(e.contains("config"), "{e}");
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

/// RDNA4 (gfx1201, wave32, SIMD32 issuing every cycle, `s_wait_*` counters): clocked
/// results equal functional ones, on 1 and 2 threads.
#[test]
fn rdna4_clocked_results_equal_functional() {
    let run = |mode, threads| {
        let cfg = corpus_config_of("rx9070xt", r#"{"xcd.active_cus": 4}"#, mode);
        let (mut soc, bufs) = corpus_soc_on(&cfg, "gfx1201", threads);
        soc.run().unwrap();
        (corpus_read(&soc, bufs), soc.now().0)
    };
    let (functional, t_f) = run(ExecMode::Functional, 1);
    let (clocked, t_c) = run(ExecMode::Clocked, 1);
    assert_eq!(functional, clocked, "timing decides when, never what");
    assert_ne!(t_f, t_c, "the clocked mode times differently");
    let total: u32 = clocked[2]
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .sum();
    assert_eq!(total, 3000, "the histogram counted every element");
    assert_eq!(run(ExecMode::Clocked, 2), (clocked, t_c), "1 and 2 threads");
}

#[test]
fn clocked_mode_without_timing_is_a_typed_error() {
    let mut cfg = GpuConfig::preset("rx9070xt").unwrap();
    cfg.timing = None;
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
    // LLVM 22 has no WMMA scheduling class for gfx1201: a WMMA gets the generic VALU
    // write (the throughput of v_add_f32), which is why `wmma_cycles` takes the published
    // peak rates instead. If LLVM gains a model, this fails: use it then.
    let rthroughput = |asm: &str| -> String {
        let f = dir.join("w.s");
        std::fs::write(&f, format!("{asm}\n")).unwrap();
        let out = std::process::Command::new("llvm-mca-22")
            .args(["-mtriple=amdgcn", "-mcpu=gfx1201"])
            .arg(&f)
            .output()
            .expect("llvm-mca-22 must be installed (scripts/install-deps.sh)");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find_map(|l| l.strip_prefix("Block RThroughput:"))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("gfx1201 {asm}: no RThroughput in\n{text}"))
    };
    assert_eq!(
        rthroughput("v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]"),
        rthroughput("v_add_f32 v0, v1, v2"),
        "gfx1201 WMMA scheduled as a plain VALU op by LLVM 22"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `n` counters 128 bytes apart; checks the ring is intact (the adds were of 0) and the
/// chain ended where the CPU says.
fn atomic_chain(cfg: &GpuConfig, n: u32, steps: u32) -> (f64, gpu_model::soc::LevelStats) {
    let (mut soc, m) = ubench_soc(cfg);
    // Element k (dword index 32k) holds the index of the next element.
    let words = 32 * n;
    let mut ring = vec![0u32; words as usize];
    for k in 0..n {
        ring[(32 * k) as usize] = 32 * ((k + 1) % n);
    }
    let image: Vec<u8> = ring.iter().flat_map(|w| w.to_le_bytes()).collect();
    let pr = soc.alloc(4 * u64::from(words)).unwrap();
    soc.write(pr, &image).unwrap();
    let out = soc.alloc(64).unwrap();
    let args = [p64(pr), p64(out), u32b(steps), u32b(0)];
    let c = run_to_end(&mut soc, m, "atomic_chain", [1, 1, 1], [1, 1, 1], &args);
    let mut end = [0u8; 4];
    soc.read(out, &mut end).unwrap();
    assert_eq!(
        u32::from_le_bytes(end),
        32 * (steps % n),
        "where the chain ends"
    );
    let mut after = vec![0u8; image.len()];
    soc.read(pr, &mut after).unwrap();
    assert_eq!(after, image, "adds of 0 leave the ring as it was");
    let cycles = (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64;
    (cycles, soc.level_stats())
}

/// Atomics are performed at the L2 (issue 16): a chain of dependent returning atomics
/// that hit the L2 takes the L2's load-to-use latency per step, one whose lines are cold
/// the memory's (the L2 fetches the line, then performs the atomic); no atomic reaches
/// HBM as a write. With `sync_cycles: 1` the wave sees each atomic's old value at the
/// next cycle (the deterministic memory model performs atomics at sync points, see
/// `memory::coherence`; at the presets' 100 cycles each step would also wait for one).
#[test]
fn atomics_are_performed_at_the_l2_with_its_latency() {
    let cfg = config("mi300x", 2, ExecMode::Clocked, r#", "sync_cycles": 1"#);
    let t = cfg.timing.unwrap();
    // Warm: 64 counters (8 KiB) hit the L2 after the first round.
    let (a, _) = atomic_chain(&cfg, 64, 128);
    let (b, sb) = atomic_chain(&cfg, 64, 384);
    let warm = (b - a) / 256.0;
    within(
        "atomic at the L2",
        warm,
        f64::from(t.l2_latency),
        f64::from(t.l2_latency),
    );
    assert_eq!(sb.l2.atomics, 384, "every atomic performed at the L2");
    assert_eq!(
        sb.l2.misses,
        64 + 2,
        "one fill per counter (plus the output's lines)"
    );
    assert_eq!(sb.hbm_write, 0, "no atomic writes through to HBM");
    // Cold: a ring of 4096 counters (512 KiB) is never revisited within 1024 steps.
    let (a, _) = atomic_chain(&cfg, 4096, 256);
    let (b, _) = atomic_chain(&cfg, 4096, 1024);
    let cold = (b - a) / 768.0;
    within(
        "atomic from memory",
        cold,
        f64::from(t.dram_latency),
        f64::from(t.dram_latency),
    );
}

/// Many waves hammering 256 counters with no-return atomics: every add counted (against
/// the CPU's count), all performed at the L2, identical on 1 and 2 threads and in
/// functional mode.
#[test]
fn atomic_heavy_kernel_counts_every_add() {
    let run = |mode: ExecMode, threads: usize| {
        let cfg = corpus_config(mode);
        cfg.validate().unwrap();
        let opts = SocOptions {
            threads,
            ..SocOptions::default()
        };
        let mut soc = Soc::new(&cfg, &opts).unwrap();
        let m = soc
            .load_code_object(&object("ubench/ubench_gfx942.hsaco"))
            .unwrap();
        let (n, iters, items) = (256u32, 16u32, 2048u32);
        let pc = soc.alloc(4 * u64::from(n)).unwrap();
        let args = [p64(pc), u32b(n), u32b(iters)];
        let c = run_to_end(
            &mut soc,
            m,
            "atomic_hammer",
            [items, 1, 1],
            [256, 1, 1],
            &args,
        );
        let mut got = vec![0u8; 4 * n as usize];
        soc.read(pc, &mut got).unwrap();
        let mut want = vec![0u32; n as usize];
        for g in 0..items {
            for i in 0..iters {
                want[((g + i * 7) % n) as usize] += 1;
            }
        }
        let want: Vec<u8> = want.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(got, want, "{mode:?} on {threads} threads against the cpu");
        (soc.level_stats(), c.completed.0 - c.submitted.0)
    };
    let (s1, t1) = run(ExecMode::Clocked, 1);
    assert_eq!(s1.l2.atomics, 2048 * 16, "each lane's add is an L2 atomic");
    assert_eq!(s1.hbm_write, 0, "no atomic writes through to HBM");
    assert_eq!(run(ExecMode::Clocked, 2), (s1, t1), "1 and 2 threads");
    run(ExecMode::Functional, 1);
}

/// Every preset carries a timing section, so every GPU runs in clocked mode.
#[test]
fn every_preset_runs_clocked() {
    for name in gpu_model::config::PRESET_NAMES {
        let mut cfg = GpuConfig::preset(name).unwrap();
        assert!(cfg.timing.is_some(), "{name}: no timing section");
        cfg.exec_mode = ExecMode::Clocked;
        cfg.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// `s_nop N` holds its wave N + 1 cycles; on a CDNA CU a wave issues at most every 4
/// cycles (its SIMD's turn), so `s_nop 0` costs 4 and `s_nop 15` 16.
#[test]
fn s_nop_stalls_n_plus_one_cycles() {
    let cfg = config("mi300x", 2, ExecMode::Clocked, "");
    let obj = "ubench/hazard_gfx942.hsaco";
    let nop15 = hazard_cycles_per_inst(&cfg, obj, "nop15", 64);
    let nop0 = hazard_cycles_per_inst(&cfg, obj, "nop0", 64);
    near("s_nop 15", nop15, 16.0);
    near("s_nop 0", nop0, 4.0);
}

/// GFX12 `s_delay_alu`: independent VALU instructions issue back to back (a wave32 on a
/// SIMD32: one per cycle); told to wait for the VALU result one back, each waits the VALU
/// latency L even though no register needs it; two back (two interleaved chains), a pair
/// per L; a transcendental chain waits the transcendental latency per instruction. The
/// first instruction(s) of each iteration wait for the previous iteration's last ones
/// across the loop's own instructions (SALU, SALU, branch: 8 cycles, which the `empty`
/// kernel measures and the test subtracts): so 8 instructions one back take
/// 7 L + max(L - 8, 1) cycles, and two back (L <= 8) 3 L + 2.
#[test]
fn s_delay_alu_waits_for_the_named_producer() {
    let cfg = config("rx9070xt", 2, ExecMode::Clocked, "");
    let t = cfg.timing.unwrap();
    let (valu, trans) = (f64::from(t.valu_latency), f64::from(t.trans_latency));
    let obj = "ubench/hazard_gfx1201.hsaco";
    let indep = hazard_cycles_per_inst(&cfg, obj, "valu_indep", 32);
    let delayed = hazard_cycles_per_inst(&cfg, obj, "valu_indep_delayed", 32);
    let dep2 = hazard_cycles_per_inst(&cfg, obj, "valu_dep2", 32);
    let exp = hazard_cycles_per_inst(&cfg, obj, "trans_chain", 32);
    near("independent VALU", indep, 1.0);
    let chain = |l: f64| (7.0 * l + (l - 8.0).max(1.0)) / 8.0;
    near("VALU_DEP_1", delayed, chain(valu));
    near("VALU_DEP_2", dep2, (3.0 * valu + 2.0) / 8.0);
    near("TRANS32_DEP_1", exp, chain(trans));
}

/// Cycles of `waves` wave64s running `atomic_contend` with `stride` and `iters`; checks
/// every counter holds exactly its adds.
fn contend(cfg: &GpuConfig, waves: u32, stride: u32, iters: u32) -> f64 {
    let items = 64 * waves;
    let words = if stride == 0 { 1 } else { items * stride };
    let mut soc = Soc::new(cfg, &SocOptions::default()).unwrap();
    let m = soc
        .load_code_object(&object("ubench/ubench_gfx942.hsaco"))
        .unwrap();
    let counters = soc.alloc(4 * u64::from(words)).unwrap();
    soc.write(counters, &vec![0; 4 * words as usize]).unwrap();
    let out = soc.alloc(4 * u64::from(items)).unwrap();
    let args = [p64(counters), p64(out), u32b(stride), u32b(iters)];
    let c = run_to_end(
        &mut soc,
        m,
        "atomic_contend",
        [items, 1, 1],
        [64, 1, 1],
        &args,
    );
    let mut got = vec![0u8; 4 * words as usize];
    soc.read(counters, &mut got).unwrap();
    let got: Vec<u32> = got
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // The CPU's sums: every work-item adds `iters` to its counter.
    let mut want = vec![0u32; words as usize];
    for g in 0..items {
        want[(g * stride) as usize] += iters;
    }
    assert_eq!(got, want, "stride {stride}: the counters' sums");
    (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64
}

/// Same-line atomics serialize at the L2's atomic unit: with every lane of every wave
/// adding to one address (and waiting for the old value), each extra add costs the time
/// an atomic holds its line (`l2_atomic_cycles`): going from 8 to 16 waves adds
/// 8 x 64 x iterations x that. Spread over a line per lane, the same extra adds cost far
/// less. The sums are exact either way. (`sync_cycles: 1`: each old value is seen the
/// next cycle, see `atomics_are_performed_at_the_l2_with_its_latency`.)
#[test]
fn same_line_atomics_serialize_at_the_l2() {
    let cfg = config("mi300x", 2, ExecMode::Clocked, r#", "sync_cycles": 1"#);
    let hold = f64::from(cfg.timing.unwrap().l2_atomic_cycles);
    let t = |waves: u32, stride: u32| {
        contend(&cfg, waves, stride, 40) - contend(&cfg, waves, stride, 8)
    };
    let extra_adds = 8.0 * 64.0 * 32.0;
    let one = (t(16, 0) - t(8, 0)) / extra_adds;
    eprintln!("one address: {one:.3} cycles per extra add (hold {hold})");
    assert!(
        (one - hold).abs() <= hold * 0.05,
        "one address: {one:.3} cycles per extra add, expected {hold}"
    );
    let spread = (t(16, 32) - t(8, 32)) / extra_adds;
    eprintln!("a line per lane: {spread:.3} cycles per extra add");
    assert!(
        spread * 4.0 < one,
        "spread atomics ({spread:.3} cycles per extra add) should be far cheaper than same-line ({one:.3})"
    );
}

/// What a run of a `drain.cl` kernel gives: the completion, the last memory response and
/// the last wave end over every CU, and the output words.
#[derive(Debug, PartialEq)]
struct Drain {
    completion: gpu_model::soc::Completion,
    last_response: u64,
    last_wave_end: u64,
    out: Vec<u32>,
}

/// Runs `kernel` of `ubench/drain_gfx942.hsaco` over `items` work-items (workgroups of
/// 64) on the corpus config with an output of `words` words.
fn drain_run(mode: ExecMode, threads: usize, kernel: &str, items: u32, words: u32) -> Drain {
    let opts = SocOptions {
        threads,
        trace: true,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(&corpus_config(mode), &opts).unwrap();
    let m = soc
        .load_code_object(&object("ubench/drain_gfx942.hsaco"))
        .unwrap();
    let out = soc.alloc(4 * u64::from(words)).unwrap();
    let args = match kernel {
        "store_only" => vec![p64(out)],
        _ => vec![p64(out), u32b(words)],
    };
    soc.submit(
        m,
        &LaunchRequest {
            kernel,
            grid: [items, 1, 1],
            workgroup: [64, 1, 1],
            dynamic_lds: 0,
            args: &args,
        },
    )
    .unwrap();
    soc.run().unwrap();
    let completion = soc.completions().last().cloned().expect("a completion");
    assert!(
        completion.fault.is_none(),
        "{kernel}: {:?}",
        completion.fault
    );
    let cus: Vec<_> = soc.cus().iter().map(|p| soc.cu(p).unwrap()).collect();
    let last_response = cus
        .iter()
        .filter_map(|c| c.clocked_stats())
        .map(|s| s.last_response.0)
        .max()
        .unwrap_or(0);
    let last_wave_end = cus
        .iter()
        .flat_map(|c| c.records.iter().map(|r| r.end.0))
        .max()
        .expect("traced waves");
    let mut bytes = vec![0u8; 4 * words as usize];
    soc.read(out, &mut bytes).unwrap();
    let out = bytes
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Drain {
        completion,
        last_response,
        last_wave_end,
        out,
    }
}

/// A dispatch completes only after its no-return stores and atomics are acknowledged:
/// `store_only` and `add_only` end each wave right after the store (atomic) with nothing
/// waiting for it, so the responses come back after the last wave ended, and the
/// completion is not before the last of them. Results equal the CPU reference and
/// functional mode's, and the run is the same on 1 and 2 threads.
#[test]
fn dispatch_end_waits_for_stores_and_atomics_to_drain() {
    let items = 1024u32;
    let stores: Vec<u32> = (0..items).map(|g| g * 3 + 1).collect();
    let n = 8u32;
    let mut adds = vec![0u32; n as usize];
    for g in 0..items {
        adds[(g % n) as usize] += g + 1;
    }
    for (kernel, words, want) in [("store_only", items, &stores), ("add_only", n, &adds)] {
        let one = drain_run(ExecMode::Clocked, 1, kernel, items, words);
        assert_eq!(&one.out, want, "{kernel}: against the CPU reference");
        assert!(
            one.last_response > one.last_wave_end,
            "{kernel}: the last response ({}) comes after the last wave ended ({})",
            one.last_response,
            one.last_wave_end
        );
        assert!(
            one.completion.completed.0 >= one.last_response,
            "{kernel}: completed at {} before the last response at {}",
            one.completion.completed.0,
            one.last_response
        );
        let two = drain_run(ExecMode::Clocked, 2, kernel, items, words);
        assert_eq!(one, two, "{kernel}: 1 and 2 threads");
        let functional = drain_run(ExecMode::Functional, 1, kernel, items, words);
        assert_eq!(functional.out, one.out, "{kernel}: functional mode");
    }
}
