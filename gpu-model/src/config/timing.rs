//! Timing parameters of the clocked mode ([`ExecMode::Clocked`]): issue, pipeline
//! latencies, load-to-use latencies per memory level, queue sizes and bandwidths. Every
//! value is given in the preset RON with its source next to it.

use serde::{Deserialize, Serialize};

/// How the SoC runs waves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ExecMode {
    /// CUs run waves in instruction quanta at one instruction per cycle; memory completes
    /// inside the instruction (the default).
    #[default]
    Functional,
    /// Cycle-level timing: per-SIMD issue on clock edges, wait counters that block until
    /// timed memory responses come back (see `gpu_model::soc::timing`).
    Clocked,
}

/// Timing of the clocked mode. Latencies are in shader cycles; the memory ones are
/// load-to-use latencies of a dependent load that hits at that level (what a pointer
/// chase measures), from which the model derives the time spent per hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingSpec {
    /// Cycles between two issue opportunities of one SIMD (CDNA: the sequencer visits the
    /// 4 SIMDs round-robin, one per cycle; RDNA: every cycle).
    pub issue_period: u32,
    /// Lanes of a SIMD (CDNA: 16, a wave64 VALU op takes 4 passes; RDNA: 32).
    pub simd_lanes: u32,
    /// Cycles of one matrix-core pass (the passes of an MFMA come from LLVM's
    /// scheduling model, `soc::timing::mfma_passes`; a GFX12 WMMA's from the published
    /// peak rates, `soc::timing::wmma_cycles`, in cycles: 1 here on RDNA4).
    pub matrix_pass_cycles: u32,
    /// Cycles before a wave can issue after a scalar ALU instruction (`s_delay_alu`
    /// `SALU_CYCLE_n` waits n cycles after its issue).
    pub salu_latency: u32,
    /// Cycles from the last issue pass of a vector ALU instruction until a dependent
    /// instruction may use its result (`s_delay_alu` `VALU_DEP_n`); the wave itself may
    /// issue again after its passes.
    pub valu_latency: u32,
    /// The same for a transcendental instruction (`TRANS32_DEP_n`).
    pub trans_latency: u32,
    /// Cycles before a wave can issue after a branch (taken or not).
    pub branch_latency: u32,
    /// Load-to-use latency of a scalar load that hits the scalar L1 (K$).
    pub scalar_l1_latency: u32,
    /// Load-to-use latency of a vector load that hits the vector L1.
    pub vector_l1_latency: u32,
    /// Load-to-use latency of an LDS load without bank conflicts.
    pub lds_latency: u32,
    /// LDS banks (4 bytes each).
    pub lds_banks: u32,
    /// Lanes the LDS serves per cycle (a wave is split in groups of this many lanes;
    /// conflicts are counted per group).
    pub lds_lanes_per_cycle: u32,
    /// Load-to-use latency of a vector load that misses the L1 and hits the L2.
    pub l2_latency: u32,
    /// Load-to-use latency of a load served by the memory-side cache (MALL).
    pub mall_latency: u32,
    /// Load-to-use latency of a load served by DRAM.
    pub dram_latency: u32,
    /// Cycles an atomic holds its cache line at the L2's atomic unit: atomics to one line
    /// are performed one after another, each this long after the one before.
    pub l2_atomic_cycles: u32,
    /// Outstanding L1 misses per CU (MSHRs); a memory instruction does not issue while
    /// they are all in use.
    pub l1_mshrs: u32,
    /// Bytes per cycle the vector L1 returns to its CU.
    pub l1_bytes_per_cycle: u32,
    /// Bytes per cycle of one XCD's L2 (all channels).
    pub l2_bytes_per_cycle: u32,
    /// Bytes per cycle of one IOD's memory-side cache.
    pub mall_bytes_per_cycle: u32,
}
