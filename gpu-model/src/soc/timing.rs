//! The clocked mode's per-instruction facts and small timing parts: what each instruction
//! slot of a program costs ([`SlotTable`], from the ISA tables' issue class and wait
//! counters), matrix-core passes ([`mfma_passes`]), `s_waitcnt` thresholds, LDS bank
//! conflicts ([`lds_cycles`]) and bandwidth-limited servers ([`Server`]).
//!
//! How a CU uses them is in `soc::cu` (the issue model), how requests travel in
//! `soc::memsys` (L2 and IOD).

use crate::exec::{Inst as XInst, Program};
use crate::isa::{self, Counter, Counters, IssueClass};
use crate::target::{Family, Target};
use serde::{Deserialize, Serialize};
use simkit::time::Tick;

/// Number of wait counters ([`Counter::ALL`]).
pub(crate) const COUNTERS: usize = 9;

/// A threshold that waits for nothing.
pub(crate) const NO_WAIT: u8 = u8::MAX;

/// What the issue model needs about one instruction slot.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    /// Issue class (from the ISA tables).
    pub class: IssueClass,
    /// Counters the instruction increments (from the ISA tables).
    pub counters: Counters,
    /// Matrix instructions: passes on the matrix core.
    pub passes: u8,
    /// `s_nop N`: N + 1 wait states.
    pub nops: u8,
    /// `s_delay_alu`: its operand (bits 3:0 ID0, 6:4 SKIP, 10:7 ID1; see [`DelayAlu`]).
    pub delay: Option<DelayAlu>,
    /// Wait instructions: the most outstanding operations per counter that let the wave
    /// go on ([`NO_WAIT`]: not waited on).
    pub wait: [u8; COUNTERS],
}

impl Slot {
    /// A control slot that waits for nothing (what an undecodable slot gets).
    pub(crate) const NONE: Slot = Slot {
        class: IssueClass::Control,
        counters: Counters::NONE,
        passes: 0,
        nops: 0,
        delay: None,
        wait: [NO_WAIT; COUNTERS],
    };
}

/// Per-slot timing facts of one program (one entry per dword of `.text`, like the
/// program's own table).
#[derive(Debug)]
pub(crate) struct SlotTable {
    slots: Vec<Slot>,
}

impl SlotTable {
    /// Decodes every slot of `prog` with the shared decoder (slots that do not decode get
    /// a control slot: a wave that reaches them faults in the executor anyway).
    pub(crate) fn new(prog: &Program) -> SlotTable {
        let target = prog.target();
        let text = prog.text();
        let slots = (0..text.len().div_ceil(4))
            .map(|k| {
                let Ok(i) = isa::decode(target, &text[4 * k..], false) else {
                    return Slot::NONE;
                };
                let class = i.issue_class();
                let mut s = Slot {
                    class,
                    counters: i.wait_counters(),
                    passes: 0,
                    nops: 0,
                    delay: None,
                    wait: [NO_WAIT; COUNTERS],
                };
                if class == IssueClass::Matrix {
                    s.passes = mfma_passes(target, i.mnemonic()).unwrap_or(1) as u8;
                }
                if let Ok(x) = prog.fetch(prog.base() + 4 * k as u64) {
                    if class == IssueClass::Wait {
                        s.wait = wait_thresholds(target, x);
                    }
                    if x.op == isa::Op::SNop {
                        s.nops = (x.imm & 0xf) as u8;
                    }
                    if x.op == isa::Op::SDelayAlu {
                        s.delay = Some(DelayAlu::from_imm(x.imm));
                    }
                }
                s
            })
            .collect();
        SlotTable { slots }
    }

    /// The slot at `pc` (a control slot outside the program).
    #[inline(always)]
    pub(crate) fn at(&self, base: u64, pc: u64) -> &Slot {
        let k = (pc.wrapping_sub(base) >> 2) as usize;
        self.slots.get(k).unwrap_or(&Slot::NONE)
    }
}

/// What an `s_delay_alu` asks for: the next instruction waits for the producer named by
/// `id0`; the instruction `skip` after it (0: the same one) waits for `id1`.
///
/// The operand (LLVM's AMDGPU operand syntax, `gfx12_delay`: bits 3:0 ID0, 6:4 SKIP,
/// 10:7 ID1) names a producer by kind and distance: 1..=4 `VALU_DEP_n` (the VALU
/// instruction n back), 5..=7 `TRANS32_DEP_n` (the transcendental n back), 8
/// `FMA_ACCUM_CYCLE_1`, 9..=11 `SALU_CYCLE_n` (n cycles after the last SALU instruction);
/// SKIP 0 `SAME`, 1 `NEXT`, 2..=5 `SKIP_1..4`. Mesa's ACO (`aco_insert_delay_alu.cpp`)
/// explains why the instruction exists: on GFX11+ the SIMD front end does not switch to
/// another wave on an ALU stall, so the compiler says where the wave must wait and the
/// front end issues other waves meanwhile. LLVM's `AMDGPUInsertDelayAlu` counts VALU and
/// TRANS producers apart (a transcendental is not a `VALU_DEP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DelayAlu {
    pub id0: u8,
    pub skip: u8,
    pub id1: u8,
}

impl DelayAlu {
    pub(crate) fn from_imm(imm: u32) -> DelayAlu {
        DelayAlu {
            id0: (imm & 0xf) as u8,
            skip: (imm >> 4 & 7) as u8,
            id1: (imm >> 7 & 0xf) as u8,
        }
    }
}

/// Passes of a matrix-core instruction on `target`, by its LLVM mnemonic.
///
/// From LLVM 22's scheduling models (`SISchedule.td`: `Write{2,4,8,16}PassMAI`, the
/// `gfx90a`/`gfx940`/`gfx950` MFMA classes), as `llvm-mca-22 -mcpu=<cpu>` reports them
/// (reciprocal throughput, in passes of 4 cycles): on gfx90a, `v_mfma_f32_32x32x8f16`
/// 16, `v_mfma_f32_16x16x16f16` 8, `v_mfma_f32_4x4x1f32` 2, `v_mfma_f64_16x16x4f64` 8,
/// `v_mfma_f64_4x4x4f64` 4; on gfx942 the half-precision, bf16, i8 and fp8 shapes take
/// half (32x32: 8, 16x16: 4) while the f32 ones keep theirs (32x32: 16, 16x16: 8); on
/// gfx950 `v_mfma_f64_16x16x4f64` takes 16. AMD's matrix instruction calculator agrees
/// (`v_mfma_f32_32x32x8_f16`: 16 passes on CDNA2, 8 on CDNA3). `tests/clocked.rs` checks
/// this rule against llvm-mca. GFX12 WMMA/SWMMAC: [`wmma_cycles`]. `None`: not a
/// matrix-core mnemonic this rule knows.
pub fn mfma_passes(target: Target, mnemonic: &str) -> Option<u32> {
    if target.family() == Family::Gfx12 {
        return wmma_cycles(mnemonic);
    }
    if target.family() != Family::Gfx9 {
        return None;
    }
    let rest = mnemonic
        .strip_prefix("v_mfma_")
        .or_else(|| mnemonic.strip_prefix("v_smfmac_"))?;
    // The shape: the first `_`-separated part `MxNxK...`; the input type follows K in
    // that part (`32x32x8f16`) or in the next part that is not a block count (`_2b_`).
    let mut parts = rest.split('_');
    let shape =
        parts.find(|p| p.split('x').count() >= 3 && p.starts_with(|c: char| c.is_ascii_digit()))?;
    let m: u32 = shape.split('x').next()?.parse().ok()?;
    let after_k = shape.splitn(3, 'x').nth(2).unwrap_or("");
    let mut input = after_k.trim_start_matches(|c: char| c.is_ascii_digit());
    if input.is_empty() {
        input = parts
            .find(|p| !(p.ends_with('b') && p[..p.len() - 1].parse::<u32>().is_ok()))
            .unwrap_or("");
    }
    let cdna2 = target == Target::Gfx90a;
    let p = if input.starts_with("f64") {
        match m {
            4 => 4,
            _ if target == Target::Gfx950 => 16,
            _ => 8,
        }
    } else if input.starts_with("f32") {
        match m {
            4 => 2,
            16 => 8,
            _ => 16,
        }
    } else {
        match m {
            4 => 2,
            16 if cdna2 => 8,
            16 => 4,
            _ if cdna2 => 16,
            _ => 8,
        }
    };
    Some(p)
}

/// Cycles a GFX12 (RDNA4) WMMA or SWMMAC occupies its SIMD's matrix unit, by its LLVM
/// mnemonic (`v_wmma_f32_16x16x16_f16`, `v_swmmac_i32_16x16x64_iu4`); the RDNA4 presets
/// count a matrix pass as one cycle (`matrix_pass_cycles: 1`).
///
/// LLVM 22 publishes nothing here: its gfx11/gfx12 scheduling models give WMMA the generic
/// VALU write (`llvm-mca-22 -mcpu=gfx1201`: latency 5, reciprocal throughput 1, the same
/// as `v_add_f32`; `tests/clocked.rs` pins that), and only gfx1250 has WMMA classes. So
/// the cycles come from AMD's published peak rates of the RX 9070 XT ([SPEC], 64 CUs at
/// 2970 MHz, two AI accelerators per CU, i.e. one per SIMD32): INT4 1557 TOPS and INT8
/// 779 TOPS with 2:4 structured sparsity, so 778.5 and 389 dense: 4096 and 2048 ops per
/// CU per clock, 2048 and 1024 per SIMD. An instruction of shape MxNxK does 2 M N K
/// operations; a sparse one (SWMMAC, K counting the sparse A) runs at twice the dense rate:
///
/// | inputs | ops per SIMD per clock | 16x16x16 | 16x16x32 | SWMMAC 16x16x32 (x64 iu4) |
/// |---|---|---|---|---|
/// | iu4 | 2048 [SPEC] | 4 | 8 | 4 (8) |
/// | iu8, fp8, bf8 | 1024 [SPEC] (fp8, bf8: ASSUMPTION) | 8 | | 8 |
/// | f16, bf16 | 512 (ASSUMPTION) | 16 | | 16 |
///
/// ASSUMPTION (fp8, bf8): the 8-bit integer rate; (f16, bf16): half of it, as on CDNA3,
/// where LLVM gives an f16 MFMA and the i8/fp8 one of twice its K the same passes.
/// ASSUMPTION: a wave64 WMMA (the same 16x16 tile over 64 lanes) takes as long as a
/// wave32 one: the same operations at the same rate (no source gives a wave64 rate:
/// GPUOpen's "Using the Matrix Cores of AMD RDNA 4 architecture GPUs" gives per-CU
/// rates only, the RDNA4 ISA guide none; searched December 2026). `None`: not a WMMA/SWMMAC mnemonic.
pub fn wmma_cycles(mnemonic: &str) -> Option<u32> {
    let (rest, sparse) = match mnemonic.strip_prefix("v_wmma_") {
        Some(r) => (r, false),
        None => (mnemonic.strip_prefix("v_swmmac_")?, true),
    };
    // `<out>_<M>x<N>x<K>_<in>[_<in>]`: the shape, then the input type.
    let mut parts = rest.split('_').skip(1);
    let mut dims = parts.next()?.split('x').map(|d| d.parse::<u32>().ok());
    let (m, n, k) = (dims.next()??, dims.next()??, dims.next()??);
    let per_clock = match parts.next()? {
        "iu4" => 2048,
        "iu8" | "fp8" | "bf8" => 1024,
        "f16" | "bf16" => 512,
        _ => return None,
    } * if sparse { 2 } else { 1 };
    Some(
        2u32.checked_mul(m)?
            .checked_mul(n)?
            .checked_mul(k)?
            .div_ceil(per_clock),
    )
}

/// The thresholds of a wait instruction per counter (index `Counter as usize`).
///
/// GFX9 `s_waitcnt simm16`: vmcnt in bits 3:0 and 15:14, expcnt in 6:4, lgkmcnt in 11:8
/// (LLVM `AMDGPUBaseInfo.cpp`, `getVmcntBitShift{Lo,Hi}`, `getExpcntBitShift`,
/// `getLgkmcntBitShift` for GFX9). GFX12: one counter per `s_wait_*`, its value in the
/// immediate; `s_wait_loadcnt_dscnt` and `s_wait_storecnt_dscnt` hold loadcnt/storecnt
/// in bits 13:8 and dscnt in 5:0 (LLVM `encodeLoadcntDscnt`, `encodeStorecntDscnt`);
/// `s_wait_idle` waits for everything.
pub(crate) fn wait_thresholds(target: Target, i: &XInst) -> [u8; COUNTERS] {
    use isa::Op::*;
    let mut w = [NO_WAIT; COUNTERS];
    let imm = i.imm;
    let sat = |v: u32| v.min(u32::from(NO_WAIT - 1)) as u8;
    let mut set = |c: Counter, v: u32| w[c as usize] = sat(v);
    match (target.family(), i.op) {
        (Family::Gfx9, SWaitcnt) => {
            set(Counter::VmCnt, (imm & 0xf) | (imm >> 14 & 3) << 4);
            set(Counter::ExpCnt, imm >> 4 & 7);
            set(Counter::LgkmCnt, imm >> 8 & 0xf);
        }
        (_, SWaitLoadcnt) => set(Counter::LoadCnt, imm & 0x3f),
        (_, SWaitStorecnt) => set(Counter::StoreCnt, imm & 0x3f),
        (_, SWaitDscnt) => set(Counter::DsCnt, imm & 0x3f),
        (_, SWaitKmcnt) => set(Counter::KmCnt, imm & 0x1f),
        (_, SWaitExpcnt) => set(Counter::ExpCnt, imm & 7),
        (_, SWaitSamplecnt) => set(Counter::SampleCnt, imm & 0x3f),
        (_, SWaitBvhcnt) => set(Counter::BvhCnt, imm & 7),
        (_, SWaitLoadcntDscnt) => {
            set(Counter::LoadCnt, imm >> 8 & 0x3f);
            set(Counter::DsCnt, imm & 0x3f);
        }
        (_, SWaitStorecntDscnt) => {
            set(Counter::StoreCnt, imm >> 8 & 0x3f);
            set(Counter::DsCnt, imm & 0x3f);
        }
        (_, SWaitIdle) => w = [0; COUNTERS],
        _ => {}
    }
    w
}

/// Cycles the LDS is busy with one access of the active lanes `exec` at byte addresses
/// `addrs`: lanes are served `lanes_per_cycle` at a time; within a group, lanes that
/// address different dwords of one 4-byte bank serialize (same dword: a broadcast).
pub(crate) fn lds_cycles(addrs: &[u64], exec: u64, banks: u32, lanes_per_cycle: u32) -> u32 {
    let banks = banks.clamp(1, 64) as usize;
    let group = lanes_per_cycle.clamp(1, 64) as usize;
    let mut total = 0;
    let mut start = 0;
    while start < 64 {
        let mask = if group >= 64 {
            u64::MAX
        } else {
            ((1u64 << group) - 1) << start
        };
        let mut m = exec & mask;
        if m != 0 {
            // Distinct dwords per bank; at most 64 lanes, so a fixed array suffices.
            let mut seen = [u64::MAX; 64];
            let mut count = [0u8; 64];
            let mut worst = 1;
            let mut n = 0;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let dword = addrs.get(l).copied().unwrap_or(0) >> 2;
                if seen[..n].contains(&dword) {
                    continue;
                }
                seen[n] = dword;
                n += 1;
                let b = (dword % banks as u64) as usize;
                count[b] += 1;
                worst = worst.max(u32::from(count[b]));
            }
            total += worst;
        }
        start += group;
    }
    total.max(1)
}

/// A bandwidth-limited resource: requests are served one after another, each for
/// `bytes / bytes_per_cycle` cycles.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(crate) struct Server {
    /// When the resource is next free.
    pub free: Tick,
}

impl Server {
    /// Serves `bytes` at `now` at `bytes_per_kcycle` bytes per 1000 cycles (so that
    /// fractional rates such as one HBM channel's 19.7 B/cycle stay exact) with a cycle of
    /// `period` ticks; returns when the transfer ends.
    #[inline]
    pub(crate) fn serve(
        &mut self,
        now: Tick,
        bytes: u64,
        bytes_per_kcycle: u64,
        period: Tick,
    ) -> Tick {
        let start = self.free.max(now);
        let busy =
            (bytes.saturating_mul(period.0).saturating_mul(1000)).div_ceil(bytes_per_kcycle.max(1));
        self.free = Tick(start.0.saturating_add(busy));
        self.free
    }
}

/// Where a timed request is answered (the level that served it), for statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    /// The L2.
    L2,
    /// The memory-side cache.
    Mall,
    /// DRAM.
    Dram,
}

/// A timed line request (clocked mode), CU -> L2 -> IOD, and its response back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedReq {
    /// Line address.
    pub addr: u64,
    /// Bytes moved.
    pub bytes: u32,
    /// The CU's tag (its pending-request slot).
    pub tag: u32,
    /// The CU (index in its XCD).
    pub cu: u32,
    /// The XCD.
    pub xcd: u32,
    /// When the CU issued it.
    pub issued: Tick,
    /// Read, write or atomic.
    pub kind: crate::cache::AccessKind,
    /// Memory type.
    pub mtype: crate::cache::MType,
    /// No response wanted (a write-back).
    pub posted: bool,
    /// A line fill the L2 asks for to perform an atomic that missed it: the IOD reads the
    /// line and answers; the atomic itself is performed at the L2 and writes nothing
    /// beyond it (the line is dirty there).
    pub atomic_fill: bool,
    /// Set on the way back: who served it.
    pub served: Option<Level>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_32_dwords_hits_one_bank() {
        let mut addrs = [0u64; 64];
        for (l, a) in addrs.iter_mut().enumerate() {
            *a = l as u64 * 4;
        }
        assert_eq!(lds_cycles(&addrs, u64::MAX, 32, 32), 2);
        for (l, a) in addrs.iter_mut().enumerate() {
            *a = l as u64 * 128;
        }
        assert_eq!(lds_cycles(&addrs, u64::MAX, 32, 32), 64);
        // Same dword: broadcast.
        assert_eq!(lds_cycles(&[8; 64], u64::MAX, 32, 32), 2);
    }

    #[test]
    fn server_serializes_by_bandwidth() {
        let mut s = Server::default();
        let p = Tick(10);
        // 64 bytes per cycle.
        assert_eq!(s.serve(Tick(0), 128, 64_000, p), Tick(20));
        assert_eq!(s.serve(Tick(5), 128, 64_000, p), Tick(40));
        assert_eq!(s.serve(Tick(100), 64, 64_000, p), Tick(110));
        // 19.702 bytes per cycle (an HBM channel): 128 bytes take 6.5 cycles.
        assert_eq!(s.serve(Tick(1000), 128, 19_702, p), Tick(1065));
    }

    #[test]
    fn mfma_rule_examples() {
        assert_eq!(
            mfma_passes(Target::Gfx90a, "v_mfma_f32_32x32x8f16"),
            Some(16)
        );
        assert_eq!(
            mfma_passes(Target::Gfx942, "v_mfma_f32_32x32x8_f16"),
            Some(8)
        );
        assert_eq!(
            mfma_passes(Target::Gfx942, "v_mfma_f32_32x32x2_f32"),
            Some(16)
        );
        assert_eq!(
            mfma_passes(Target::Gfx942, "v_mfma_f32_4x4x1_16b_f32"),
            Some(2)
        );
        assert_eq!(
            mfma_passes(Target::Gfx950, "v_mfma_f64_16x16x4_f64"),
            Some(16)
        );
        // GFX12 WMMA from the RX 9070 XT's peak rates (see `wmma_cycles`).
        for (m, c) in [
            ("v_wmma_f32_16x16x16_f16", 16),
            ("v_wmma_bf16_16x16x16_bf16", 16),
            ("v_wmma_i32_16x16x16_iu8", 8),
            ("v_wmma_f32_16x16x16_fp8_bf8", 8),
            ("v_wmma_i32_16x16x16_iu4", 4),
            ("v_wmma_i32_16x16x32_iu4", 8),
            ("v_swmmac_f32_16x16x32_f16", 16),
            ("v_swmmac_i32_16x16x32_iu8", 8),
            ("v_swmmac_i32_16x16x64_iu4", 8),
        ] {
            assert_eq!(mfma_passes(Target::Gfx1201, m), Some(c), "{m}");
        }
        assert_eq!(mfma_passes(Target::Gfx1201, "v_add_f32"), None);
        assert_eq!(
            mfma_passes(Target::Gfx1201, "v_wmma_f32_16x16x16_f64"),
            None
        );
    }
}
