//! Streaming bandwidth in the clocked mode (issue 16): `stream_read` (tests/ubench) reaches
//! the configured HBM, L2 and memory-side cache (MALL) bandwidths of the MI300X preset, and
//! the level statistics show which level served the bytes.
//!
//! The kernels are `tests/ubench/*.cl`, built by `tests/ubench/build.sh` (clang-22).

mod clocked_util;

use clocked_util::{config, config_xcds, stream, stream_items};
use gpu_model::config::{ExecMode, GpuConfig};

/// Streaming reads reach the configured HBM and L2 bandwidths (issue 16).
///
/// The GPU is one XCD of the MI300X preset (38 CUs) with its share of the memory: one IOD
/// with 16 of the 128 HBM channels at the preset's per-channel bandwidth (5300 GB/s /
/// 128), i.e. 662.5 GB/s = 315 bytes per 2.1 GHz cycle. Rates are differences between two
/// sizes (or pass counts), so launch, ramp-up and drain cancel.
///
/// Tolerance 10% (the issue's) either way. The channels and the L2 are servers of exactly
/// the configured rate and the streams spread evenly over them (256 B channel interleave),
/// so with more demand than supply the rate sits at the configured one; what remains is
/// the measurement's own error (the two launches' ramp and drain do not cancel exactly:
/// about 2% here, either way). The MI300X's STREAM figure (about 4.1 TB/s of the 5.3 TB/s peak,
/// 77%) is below what this test accepts: the model has no DRAM page, refresh or bus
/// turnaround costs, which is what separates STREAM from the peak on the real part.
#[test]
fn streaming_reads_reach_the_configured_hbm_and_l2_bandwidth() {
    // HBM: cold first passes over about 7 and 14 MiB (every line misses L2 and MALL).
    let cfg = config(
        "mi300x",
        38,
        ExecMode::Clocked,
        r#", "dram.channels": 16, "dram.bandwidth_gbytes_per_s": 662"#,
    );
    let hbm_peak =
        f64::from(cfg.dram.bandwidth_gbytes_per_s) * 1e9 / (f64::from(cfg.clocks.shader_mhz) * 1e6);
    let group = 4 * stream_items(&cfg);
    let (t1, s1) = stream(&cfg, 6 * group, 1, false);
    let (t2, s2) = stream(&cfg, 12 * group, 1, false);
    assert_eq!(
        s2.hbm_read - s1.hbm_read,
        6 * 16 * u64::from(group),
        "every byte once from HBM"
    );
    let hbm = (s2.hbm_read - s1.hbm_read) as f64 / (t2 - t1);
    eprintln!("HBM: {hbm:.1} B/cycle (configured {hbm_peak:.1})");
    assert!(
        (hbm - hbm_peak).abs() <= hbm_peak * 0.1,
        "HBM streaming: {hbm:.1} B/cycle, configured {hbm_peak:.1}"
    );

    // L2: 2.4 MiB fits the 4 MiB L2 and not the CUs' 32 KiB L1s (62 KiB per CU, LRU), so
    // after a warming launch every pass hits the L2. The preset's 64 L1 MSHRs per CU (an ASSUMPTION)
    // bound 38 CUs to 38 x 64 x 128 B / 288 cycles = 1081 B/cycle, below the L2's 2048:
    // with them the CUs are the limit, which the first check pins (Little's law, within
    // 10%); with 256 (lifting that assumption) the L2's configured bandwidth is.
    let l2_rate = |cfg: &GpuConfig| {
        let n = 2 * group;
        let (a, sa) = stream(cfg, n, 1, true);
        let (b, sb) = stream(cfg, n, 5, true);
        // (The launch's own kernel arguments are a cold line of their own.)
        assert_eq!(sb.hbm_read, sa.hbm_read, "warm passes stay on chip");
        assert_eq!(
            sb.l2.hits - sa.l2.hits,
            4 * u64::from(n) * 16 / 128,
            "every line of the 4 more passes hits the L2"
        );
        f64::from(4 * n * 16) / (b - a)
    };
    let t = cfg.timing.unwrap();
    let bound = 38.0 * f64::from(t.l1_mshrs) * 128.0 / f64::from(t.l2_latency);
    let limited = l2_rate(&cfg);
    eprintln!(
        "L2, {} MSHRs: {limited:.1} B/cycle (bound {bound:.1})",
        t.l1_mshrs
    );
    assert!(
        (limited - bound).abs() <= bound * 0.1,
        "L2 streaming with {} MSHRs: {limited:.1} B/cycle, Little's law {bound:.1}",
        t.l1_mshrs
    );
    let cfg = config(
        "mi300x",
        38,
        ExecMode::Clocked,
        r#", "dram.channels": 16, "dram.bandwidth_gbytes_per_s": 662, "timing.l1_mshrs": 256"#,
    );
    let l2_peak = f64::from(cfg.timing.unwrap().l2_bytes_per_cycle);
    let l2 = l2_rate(&cfg);
    eprintln!("L2: {l2:.1} B/cycle (configured {l2_peak})");
    assert!(
        (l2 - l2_peak).abs() <= l2_peak * 0.1,
        "L2 streaming: {l2:.1} B/cycle, configured {l2_peak}"
    );
}

/// Streaming reads of a working set bigger than the L2s and inside the memory-side cache
/// reach the configured MALL bandwidth (issue 16), and every byte of the measured passes
/// comes from the MALL: none from an L2, none from HBM.
///
/// The GPU is one IOD of the MI300X preset with its MALL slice (64 MiB, 2048 B/cycle:
/// 17.2 TB/s / 4 IODs / 2.1 GHz) and the two XCDs (38 CUs each) that share an IOD on the
/// real part (8 XCDs over 4 IODs). With the preset's 64 L1 MSHRs per CU (an ASSUMPTION),
/// Little's law caps the demand at 76 x 64 x 128 B / 650 cycles (MALL latency) = 958
/// B/cycle, under half the MALL's supply, so the MALL's bandwidth cannot show. The test
/// lifts the MSHRs to 256, which is what the kernel can use (8 waves per CU, each with 4
/// loads of 8 lines in flight): 76 x 256 x 128 / 650 = 3831 B/cycle of demand, above the
/// supply, while each XCD's L2 (2048 B/cycle) carries only its half. The rate is the
/// difference of two pass counts over the same warm buffer, so launch, ramp-up and drain
/// cancel; tolerance 10% (the issue's).
#[test]
fn streaming_reads_reach_the_configured_mall_bandwidth() {
    let cfg = config_xcds(
        "mi300x",
        2,
        38,
        ExecMode::Clocked,
        r#", "timing.l1_mshrs": 256"#,
    );
    let t = cfg.timing.unwrap();
    let mall = cfg.iod.mall.as_ref().unwrap();
    let line = u64::from(cfg.xcd.l2.line_bytes);
    // About 14 MiB: 7 MiB per XCD, beyond its 4 MiB L2 (16-way LRU: a cyclic stream over
    // more than the capacity misses every time); well inside the 64 MiB MALL.
    let n = 6 * 4 * stream_items(&cfg);
    let bytes = 16 * u64::from(n);
    assert!(bytes > 2 * cfg.xcd.l2.size_bytes && bytes < mall.size_bytes);
    let (a, sa) = stream(&cfg, n, 1, true);
    let (b, sb) = stream(&cfg, n, 3, true);
    let extra = 2 * bytes;
    assert_eq!(sb.hbm_read, sa.hbm_read, "warm passes do not reach HBM");
    assert_eq!(sb.l2.hits, sa.l2.hits, "no line hits an L2");
    // Each L2 line (128 B) looks up every MALL line it covers (64 B on the MI300X).
    assert_eq!(
        sb.mall.hits - sa.mall.hits,
        extra / line * line.div_ceil(u64::from(mall.line_bytes)),
        "every MALL line of the 2 more passes hits the MALL"
    );
    let peak = f64::from(t.mall_bytes_per_cycle);
    let got = extra as f64 / (b - a);
    eprintln!("MALL: {got:.1} B/cycle (configured {peak})");
    assert!(
        (got - peak).abs() <= peak * 0.1,
        "MALL streaming: {got:.1} B/cycle, configured {peak}"
    );
}

/// A cold stream reads every byte from HBM once, in both modes, although the L2 asks for
/// 128 B lines and the MI300X preset's MALL keeps 64 B ones: each request looks up every
/// MALL line it covers (before, only the first was, so HBM reads counted half the bytes
/// and the MALL held one 64 B line per 128 B fetched).
#[test]
fn a_cold_stream_reads_every_byte_from_hbm_once_in_both_modes() {
    for mode in [ExecMode::Functional, ExecMode::Clocked] {
        let cfg = config("mi300x", 4, mode, "");
        let mall = cfg.iod.mall.as_ref().unwrap();
        assert!(
            mall.line_bytes < cfg.xcd.l2.line_bytes,
            "the case this checks"
        );
        let n = 4 * 4 * stream_items(&cfg);
        let bytes = 16 * u64::from(n);
        let (_, s) = stream(&cfg, n, 1, false);
        // Beyond the stream: the kernel's arguments, code-side reads and its output.
        let slack = bytes / 64;
        assert!(
            (bytes..=bytes + slack).contains(&s.hbm_read),
            "{mode:?}: {} HBM bytes read for a {bytes}-byte stream",
            s.hbm_read
        );
        let lines = bytes / u64::from(mall.line_bytes);
        assert!(
            (lines..=lines + slack / 64).contains(&s.mall.misses),
            "{mode:?}: {} MALL misses for {lines} MALL lines",
            s.mall.misses
        );
    }
}
