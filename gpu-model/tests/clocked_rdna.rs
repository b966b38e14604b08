//! The clocked mode (issue 16) on the RDNA4 and CDNA4 presets: a wave64 VALU op takes
//! two issue passes on an RDNA4 SIMD32 (wave32 one) and both wave sizes reach the same
//! VALU peak; LDS bank conflicts serialize by the preset's bank count (64 banks on the
//! MI355X, 32 per CU on the RX 9070 XT in CU mode).
//!
//! The kernels are `tests/ubench/hazard.cl` (built for gfx1201 wave32 and wave64) and
//! `tests/ubench/ubench.cl` (`lds_stride`, built for gfx950 and gfx1201), built by
//! `tests/ubench/build.sh` (clang-22).

mod clocked_util;

use clocked_util::{hazard_cycles_per_inst, near, object, p64, run_to_end, u32b};
use gpu_model::config::{ExecMode, GpuConfig};
use gpu_model::soc::{Soc, SocOptions};

/// A one-shader-engine, `cus`-CU version of `preset` in clocked mode.
fn config(preset: &str, cus: u32) -> GpuConfig {
    clocked_util::config(preset, cus, ExecMode::Clocked, "")
}

/// What one launch gave.
struct Run {
    cycles: f64,
    /// The output buffer's dwords.
    out: Vec<u32>,
    /// LDS cycles spent on bank conflicts, all CUs (`ClockedStats::lds_conflict_cycles`).
    lds_conflicts: u64,
}

/// Runs one launch of `kernel` (arguments: an output buffer of `grid` dwords, then
/// `extra`) on a fresh SoC.
fn run(cfg: &GpuConfig, code: &[u8], kernel: &str, grid: u32, wg: u32, extra: &[u32]) -> Run {
    let mut soc = Soc::new(cfg, &SocOptions::default()).unwrap();
    let m = soc.load_code_object(code).unwrap();
    let out = soc.alloc(4 * u64::from(grid)).unwrap();
    let mut args = vec![p64(out)];
    args.extend(extra.iter().map(|&x| u32b(x)));
    let c = run_to_end(&mut soc, m, kernel, [grid, 1, 1], [wg, 1, 1], &args);
    let cycles = (c.completed.0 - c.submitted.0) as f64 / soc.period().0 as f64;
    let conflicts: u64 = soc
        .cus()
        .iter()
        .filter_map(|p| soc.cu(p).and_then(|cu| cu.clocked_stats()))
        .map(|s| s.lds_conflict_cycles)
        .sum();
    let mut bytes = vec![0u8; 4 * grid as usize];
    soc.read(out, &mut bytes).unwrap();
    let words = bytes
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    Run {
        cycles,
        out: words,
        lds_conflicts: conflicts,
    }
}

const W32: &str = "ubench/hazard_gfx1201.hsaco";
const W64: &str = "ubench/hazard_gfx1201_w64.hsaco";

/// RDNA4 SIMD32 (RX 9070 XT preset): an independent VALU op of a wave32 holds its SIMD
/// one cycle, of a wave64 two (p = `64 / simd_lanes` passes); a dependent one (told by
/// `s_delay_alu` to wait for the VALU result one back) waits the VALU latency L after the
/// producer's last pass, so L' = L + p - 1 per instruction. The first of each iteration
/// waits for the previous iteration's last across the loop's own 8 cycles (the `empty`
/// kernel's, subtracted), which start once the last op's p passes are issued: 8
/// instructions take 7 L' + max(L' - 8, p) cycles (wave32: as
/// `s_delay_alu_waits_for_the_named_producer` of tests/clocked.rs).
#[test]
fn rdna4_wave64_valu_takes_two_passes() {
    let cfg = config("rx9070xt", 2);
    let t = cfg.timing.unwrap();
    assert_eq!(t.simd_lanes, 32, "RDNA4: SIMD32");
    let valu = f64::from(t.valu_latency);
    let chain = |p: f64| {
        let l = valu + p - 1.0;
        (7.0 * l + (l - 8.0).max(p)) / 8.0
    };
    near(
        "wave32 independent",
        hazard_cycles_per_inst(&cfg, W32, "valu_indep", 32),
        1.0,
    );
    near(
        "wave64 independent",
        hazard_cycles_per_inst(&cfg, W64, "valu_indep", 64),
        2.0,
    );
    near(
        "wave32 VALU_DEP_1",
        hazard_cycles_per_inst(&cfg, W32, "valu_indep_delayed", 32),
        chain(1.0),
    );
    near(
        "wave64 VALU_DEP_1",
        hazard_cycles_per_inst(&cfg, W64, "valu_indep_delayed", 64),
        chain(2.0),
    );
}

/// VALU lane-operations per cycle of 2 RDNA4 CUs (2 SIMD32 each) running `valu_indep`
/// (8 independent `v_fmac_f32` per iteration) with 8 waves per SIMD: wave32 and wave64
/// both reach CUs x SIMDs x 32 within 5% (a wave64 issues half as often, each op covering
/// twice the lanes), and every lane's result is the CPU's.
#[test]
fn rdna4_wave32_and_wave64_reach_the_same_valu_peak() {
    let cfg = config("rx9070xt", 2);
    let t = cfg.timing.unwrap();
    let peak = f64::from(2 * cfg.xcd.cu.simds * t.simd_lanes);
    for (obj, lanes) in [(W32, 32u32), (W64, 64)] {
        let code = object(obj);
        let waves = 2 * cfg.xcd.cu.simds * 8;
        let items = waves * lanes;
        let first = run(&cfg, &code, "valu_indep", items, 4 * lanes, &[8]);
        let (a, out_a) = (first.cycles, first.out);
        // Completions are seen at 100-cycle steps: 1000 more iterations (over 16 K
        // cycles per SIMD) keep that under 1%.
        let b = run(&cfg, &code, "valu_indep", items, 4 * lanes, &[1008]).cycles;
        // 8 v_fmac_f32 per iteration (inline assembly).
        let rate = f64::from(items) * 8.0 * 1000.0 / (b - a);
        eprintln!("wave{lanes}: {rate:.1} VALU lane-operations per cycle (peak {peak})");
        assert!(
            (rate - peak).abs() <= peak * 0.05,
            "wave{lanes}: {rate:.1} VALU lane-operations per cycle, peak {peak}"
        );
        // The CPU's result of 8 iterations: a_j = fma(0.999, 0.999, a_j) eight times
        // from x + j, then the sum in the kernel's order.
        let k = 0.999f32;
        for (g, &got) in out_a.iter().enumerate() {
            let x = g as f32;
            let mut a = [
                x,
                x + 1.0,
                x + 2.0,
                x + 3.0,
                x + 4.0,
                x + 5.0,
                x + 6.0,
                x + 7.0,
            ];
            for _ in 0..8 {
                for v in &mut a {
                    *v = k.mul_add(k, *v);
                }
            }
            let want = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
            assert_eq!(
                got,
                want.to_bits(),
                "wave{lanes} work-item {g}: {} vs {want}",
                f32::from_bits(got)
            );
        }
    }
}

/// The CPU's count of LDS cycles of one `ds_load_b32` in which lane `l` of `lanes`
/// reads dword `l * stride`: the lanes go in groups of `group`, each group takes as many
/// cycles as the most distinct dwords any one of the `banks` banks holds.
fn conflict_cycles(lanes: u32, stride: u32, banks: u32, group: u32) -> u32 {
    (0..lanes)
        .collect::<Vec<_>>()
        .chunks(group as usize)
        .map(|g| {
            let mut per_bank = vec![Vec::new(); banks as usize];
            for &l in g {
                let dword = (l * stride) % 4096;
                let b = &mut per_bank[(dword % banks) as usize];
                if !b.contains(&dword) {
                    b.push(dword);
                }
            }
            per_bank.iter().map(Vec::len).max().unwrap_or(1) as u32
        })
        .sum()
}

/// Cycles and bank-conflict cycles per iteration of `lds_stride` with `stride` (one wave
/// of `lanes` lanes), by the difference of 64 and 1088 iterations (completions are seen
/// at 100-cycle steps: 0.1 cycle per iteration); checks each lane's sum against the
/// CPU's (`lds[i] = i`, so `iters x ((lane x stride) mod 4096)`).
fn lds_per_iter(cfg: &GpuConfig, code: &[u8], lanes: u32, stride: u32) -> (f64, f64) {
    let t = |iters: u32| {
        let r = run(cfg, code, "lds_stride", lanes, lanes, &[stride, iters]);
        for (l, &got) in r.out.iter().enumerate() {
            let want = iters.wrapping_mul((l as u32 * stride) % 4096);
            assert_eq!(got, want, "stride {stride}, lane {l}");
        }
        r
    };
    let (a, b) = (t(64), t(1088));
    (
        (b.cycles - a.cycles) / 1024.0,
        (b.lds_conflicts - a.lds_conflicts) as f64 / 1024.0,
    )
}

/// One preset of [`lds_conflicts_follow_the_preset_banks`].
struct LdsCase {
    preset: &'static str,
    obj: &'static str,
    /// Lanes of the wave.
    lanes: u32,
    /// The preset's LDS banks.
    banks: u32,
    /// (stride in dwords, LDS cycles of one load: the CPU's count, pinned).
    strides: [(u32, u32); 3],
}

/// LDS bank conflicts by the preset's banks: on the MI355X (gfx950, 64 banks, a wave64
/// served in one group of 64 lanes) stride 1 is conflict-free, stride 2 a 2-way
/// conflict, stride 32 puts the 64 lanes on two banks (32 cycles: half the 64 of the
/// MI300X's 32 banks, which serve two 32-lane groups; `lds_stride_32_serializes_on_one_bank`
/// in tests/clocked.rs) and stride 64 all on one bank (64 cycles); on the RX 9070 XT
/// (gfx1201 wave32, CU mode: the 32 banks of its half of the WGP) stride 2 is a 2-way
/// conflict and strides 32 and 64 serialize the 32 lanes on one bank. A dependent LDS
/// load returns `busy - 1` cycles later than a conflict-free one, and the wave issues
/// again on its SIMD's next issue cycle (every 4 cycles on CDNA, every cycle on RDNA):
/// the measured cycles per iteration are the stride-1 ones plus the CPU's count of
/// extra cycles, rounded up to the issue period, within a quarter cycle; the CU's
/// `lds_conflict_cycles` counts exactly those extra cycles.
#[test]
fn lds_conflicts_follow_the_preset_banks() {
    let cases = [
        LdsCase {
            preset: "mi355x",
            obj: "ubench/ubench_gfx950.hsaco",
            lanes: 64,
            banks: 64,
            strides: [(2, 2), (32, 32), (64, 64)],
        },
        LdsCase {
            preset: "rx9070xt",
            obj: "ubench/ubench_gfx1201.hsaco",
            lanes: 32,
            banks: 32,
            strides: [(2, 2), (32, 32), (64, 32)],
        },
    ];
    for LdsCase {
        preset,
        obj,
        lanes,
        banks,
        strides,
    } in cases
    {
        let cfg = config(preset, 2);
        let t = cfg.timing.unwrap();
        assert_eq!(t.lds_banks, banks, "{preset}: LDS banks");
        let group = t.lds_lanes_per_cycle;
        let period = f64::from(t.issue_period);
        let code = object(obj);
        assert_eq!(conflict_cycles(lanes, 1, banks, group), 1, "{preset}");
        let (base, none) = lds_per_iter(&cfg, &code, lanes, 1);
        let base = base.round();
        assert_eq!(none, 0.0, "{preset} stride 1: conflict cycles counted");
        eprintln!("{preset} stride 1: {base} cycles per iteration");
        for (stride, pinned) in strides {
            let busy = conflict_cycles(lanes, stride, banks, group);
            assert_eq!(busy, pinned, "{preset} stride {stride}: the CPU's count");
            let want = ((base + f64::from(busy - 1)) / period).ceil() * period;
            let (got, conflicts) = lds_per_iter(&cfg, &code, lanes, stride);
            assert_eq!(
                conflicts,
                f64::from(busy - 1),
                "{preset} stride {stride}: conflict cycles counted per load"
            );
            eprintln!(
                "{preset} stride {stride}: {got:.2} cycles per iteration (expected {want}: \
                 {busy} cycles per load)"
            );
            assert!(
                (got - want).abs() <= 0.25,
                "{preset} stride {stride}: {got:.2} cycles per iteration, expected {want}"
            );
        }
    }
}
