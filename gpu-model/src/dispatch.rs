//! Kernel dispatch: the AQL packet, the hardware/firmware ABI that initialises each wave
//! (user and system SGPRs, work-item ids, EXEC, scratch, LDS) and the workgroup runner.
//!
//! ```text
//!  DispatchPacket ──► for each workgroup (x, y, z):
//!                       waves = ceil(work-items / wave size), last one partial (EXEC)
//!                       SGPRs: user SGPRs in kernel_code_properties order, kernarg preload,
//!                              then workgroup ids / info / private wave offset
//!                       v0 = x | y << 10 | z << 20 (packed work-item ids)
//!                       run waves round-robin in quanta; s_barrier waits for all live waves
//! ```
//!
//! Which wave runs when, when a workgroup has ended and when its barrier opens are decided
//! by one scheduler ([`schedule`]), which the SoC's compute units use too, in functional and
//! clocked mode; each runner gives it only its own timing policy.

pub mod kernarg;
pub(crate) mod schedule;

use crate::exec::{describe, ExecCtx, FaultReason, Program, Stop, Wave, WaveState, WorkgroupSync};
use crate::loader::KernelDescriptor;
use crate::memory::DeviceMemory;
use crate::service::DispatchServices;
use crate::{Family, Target};
use std::fmt;

/// Size of an AQL packet.
pub const PACKET_SIZE: usize = 64;
/// AQL packet type of a kernel dispatch.
pub const PACKET_TYPE_KERNEL_DISPATCH: u16 = 2;

/// An HSA AQL kernel dispatch packet (64 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DispatchPacket {
    /// Header: packet type in 7:0, barrier bit 8, fence scopes.
    pub header: u16,
    /// Dimensions (1..=3) in bits 1:0.
    pub setup: u16,
    /// Workgroup size per dimension.
    pub workgroup_size: [u16; 3],
    /// Grid size in work-items per dimension.
    pub grid_size: [u32; 3],
    /// Private bytes per work-item.
    pub private_segment_size: u32,
    /// Total LDS bytes per workgroup (static + dynamic).
    pub group_segment_size: u32,
    /// Device address of the kernel descriptor.
    pub kernel_object: u64,
    /// Device address of the kernel arguments.
    pub kernarg_address: u64,
    /// Completion signal handle (0: none).
    pub completion_signal: u64,
}

impl DispatchPacket {
    /// The packet's 64 bytes as the command processor reads them.
    pub fn to_bytes(&self) -> [u8; PACKET_SIZE] {
        let mut b = [0u8; PACKET_SIZE];
        b[0..2].copy_from_slice(&self.header.to_le_bytes());
        b[2..4].copy_from_slice(&self.setup.to_le_bytes());
        for d in 0..3 {
            b[4 + 2 * d..6 + 2 * d].copy_from_slice(&self.workgroup_size[d].to_le_bytes());
            b[12 + 4 * d..16 + 4 * d].copy_from_slice(&self.grid_size[d].to_le_bytes());
        }
        b[24..28].copy_from_slice(&self.private_segment_size.to_le_bytes());
        b[28..32].copy_from_slice(&self.group_segment_size.to_le_bytes());
        b[32..40].copy_from_slice(&self.kernel_object.to_le_bytes());
        b[40..48].copy_from_slice(&self.kernarg_address.to_le_bytes());
        b[56..64].copy_from_slice(&self.completion_signal.to_le_bytes());
        b
    }

    /// Number of workgroups per dimension.
    pub fn workgroup_counts(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.grid_size[d].div_ceil(self.workgroup_size[d].max(1) as u32))
    }
}

/// Knobs of the workgroup runner.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Instructions a wave runs before the next wave gets a turn.
    pub quantum: u64,
    /// Maximum wave-instructions for the whole dispatch (a runaway kernel faults).
    pub budget: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            quantum: 1024,
            budget: 20_000_000_000,
        }
    }
}

/// What a completed dispatch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DispatchStats {
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions retired.
    pub instructions: u64,
}

/// A structured fault report: the dispatch stopped here.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct Fault {
    /// Kernel name.
    pub kernel: String,
    /// Workgroup id.
    pub workgroup: [u32; 3],
    /// Wave index within the workgroup.
    pub wave: u32,
    /// PC of the faulting instruction.
    pub pc: u64,
    /// Its text.
    pub instruction: String,
    /// Why.
    pub reason: FaultReason,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}` workgroup ({}, {}, {}) wave {} pc {:#x} `{}`: {}",
            self.kernel,
            self.workgroup[0],
            self.workgroup[1],
            self.workgroup[2],
            self.wave,
            self.pc,
            self.instruction,
            self.reason
        )
    }
}

/// Everything the ABI needs to start the waves of one dispatch.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// Kernel name (for fault reports).
    pub kernel: &'a str,
    /// Target.
    pub target: Target,
    /// The kernel descriptor.
    pub descriptor: &'a KernelDescriptor,
    /// Device address of the first instruction (already + 256 for kernarg preload).
    pub entry_pc: u64,
    /// The packet.
    pub packet: DispatchPacket,
    /// Device address of the packet (dispatch pointer).
    pub packet_address: u64,
    /// Device address of the queue descriptor (queue pointer).
    pub queue_address: u64,
    /// Dispatch id.
    pub dispatch_id: u64,
    /// Device address of the scratch region, at least `scratch_bytes_per_wave` times the
    /// waves of one workgroup (workgroups run one at a time).
    pub scratch_base: u64,
    /// Private bytes per lane (rounded to dwords).
    pub scratch_per_lane: u64,
    /// Kernel argument bytes (for kernarg preload).
    pub kernargs: &'a [u8],
}

impl Launch<'_> {
    /// Wave size of the kernel.
    pub fn wave_size(&self) -> u32 {
        self.descriptor.wave_size(self.target)
    }

    /// Bytes of scratch one wave needs.
    pub fn scratch_bytes_per_wave(&self) -> u64 {
        self.scratch_per_lane * self.wave_size() as u64
    }

    /// Largest number of waves in one workgroup.
    pub fn waves_per_workgroup(&self) -> u32 {
        let items: u32 = self
            .packet
            .workgroup_size
            .iter()
            .map(|&s| s as u32)
            .product();
        items.div_ceil(self.wave_size())
    }
}

/// Initialises wave `wave_idx` of workgroup `wg` per the descriptor's ABI.
pub(crate) fn init_wave(
    l: &Launch<'_>,
    w: &mut Wave,
    wg: [u32; 3],
    wave_idx: u32,
    dims: [u32; 3],
) -> u32 {
    let d = l.descriptor;
    let ws = l.wave_size();
    let fam = l.target.family();
    w.reset(ws, l.entry_pc, d.allocated_vgprs(l.target) as usize);
    w.info.workgroup = wg;
    w.info.wave_in_group = wave_idx;
    let wave_off = wave_idx as u64 * l.scratch_bytes_per_wave();
    w.scratch_base = l.scratch_base + wave_off;
    w.scratch_per_lane = l.scratch_per_lane;
    // MODE: float round/denorm from rsrc1; DX10_CLAMP bit 8, IEEE bit 9 (GFX9); FP16_OVFL
    // bit 23 (LLVM AMDGPUUsage, COMPUTE_PGM_RSRC1.FP16_OVFL: "Wavefront starts execution
    // with specified fp16 overflow mode"; it saturates f32 to fp8/bf8 conversions).
    w.mode = d.float_mode()
        | (d.dx10_clamp(fam) as u32) << 8
        | (d.ieee_mode(fam) as u32) << 9
        | (d.fp16_ovfl() as u32) << 23;

    // User SGPRs, in kernel_code_properties order.
    let lay = d.user_sgpr_layout();
    if let Some(s) = lay.private_segment_buffer {
        let s = s as usize;
        // Swizzled, add-tid private segment buffer: element size 4, index stride 64.
        w.set_sgpr64(s, l.scratch_base | 1u64 << 63);
        w.set_sgpr(s + 2, u32::MAX);
        w.set_sgpr(s + 3, 1 << 23 | 1 << 19 | 3 << 21);
    }
    if let Some(s) = lay.dispatch_ptr {
        w.set_sgpr64(s as usize, l.packet_address);
    }
    if let Some(s) = lay.queue_ptr {
        w.set_sgpr64(s as usize, l.queue_address);
    }
    if let Some(s) = lay.kernarg_segment_ptr {
        w.set_sgpr64(s as usize, l.packet.kernarg_address);
    }
    if let Some(s) = lay.dispatch_id {
        w.set_sgpr64(s as usize, l.dispatch_id);
    }
    if let Some(s) = lay.flat_scratch_init {
        w.set_sgpr64(s as usize, l.scratch_base);
    }
    if let Some(s) = lay.private_segment_size {
        w.set_sgpr(s as usize, l.scratch_per_lane as u32);
    }
    if let Some(s) = lay.kernarg_preload {
        let off = d.kernarg_preload_offset() as usize * 4;
        for k in 0..d.kernarg_preload_length() as usize {
            let b = l.kernargs.get(off + 4 * k..off + 4 * k + 4);
            let v = b.map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            w.set_sgpr(s as usize + k, v.unwrap_or(0));
        }
    }
    // System SGPRs.
    let mut s = d.user_sgpr_count() as usize;
    match fam {
        Family::Gfx9 => {
            for (en, id) in [
                (d.enable_workgroup_id_x(), wg[0]),
                (d.enable_workgroup_id_y(), wg[1]),
                (d.enable_workgroup_id_z(), wg[2]),
            ] {
                if en {
                    w.set_sgpr(s, id);
                    s += 1;
                }
            }
            if d.enable_workgroup_info() {
                w.set_sgpr(s, 0);
                s += 1;
            }
            if d.enable_private_segment() && !l.target.architected_flat_scratch() {
                w.set_sgpr(s, wave_off as u32);
            }
        }
        Family::Gfx12 => {
            // Workgroup ids through TTMP registers: TTMP9 = X, TTMP7 = Y | Z << 16.
            w.set_sgpr(108 + 9, wg[0]);
            w.set_sgpr(108 + 7, (wg[1] & 0xffff) | wg[2] << 16);
            // TTMP8[29:25]: the wave's index in its workgroup (LLVM lowers
            // llvm.amdgcn.wave.id to `s_bfe_u32 ttmp8, 0x50019` on GFX12; Triton 3.9 reads
            // its warp id that way).
            w.set_sgpr(108 + 8, (wave_idx & 0x1f) << 25);
        }
    }
    // Architected flat scratch: FLAT_SCRATCH holds the wave's private base.
    if l.target.architected_flat_scratch() {
        w.set_sgpr64(102, w.scratch_base);
    }
    // Work-item ids, packed in v0; EXEC of a partial wave.
    let items = dims[0] * dims[1] * dims[2];
    let first = wave_idx * ws;
    let mut exec = 0u64;
    let idmode = d.vgpr_workitem_id();
    for lane in 0..ws {
        let flat = first + lane;
        if flat >= items {
            break;
        }
        exec |= 1 << lane;
        let x = flat % dims[0];
        let y = (flat / dims[0]) % dims[1];
        let z = flat / (dims[0] * dims[1]);
        let mut v = x;
        if idmode >= 1 {
            v |= y << 10;
        }
        if idmode >= 2 {
            v |= z << 20;
        }
        w.set_vgpr(0, lane as usize, v);
    }
    w.set_exec(exec);
    ws
}

/// Runs every workgroup of a dispatch to completion (one workgroup at a time).
pub fn run(
    mem: &DeviceMemory,
    prog: &Program,
    l: &Launch<'_>,
    opts: &RunOptions,
) -> Result<DispatchStats, Box<Fault>> {
    run_with_services(mem, prog, l, opts, None)
}

/// [`run`] for a dispatch with runtime service buffers: their hostcall packets are served
/// whenever a wave stops at `s_sleep` (see [`crate::service`]).
pub fn run_with_services(
    mem: &DeviceMemory,
    prog: &Program,
    l: &Launch<'_>,
    opts: &RunOptions,
    mut services: Option<&mut DispatchServices>,
) -> Result<DispatchStats, Box<Fault>> {
    let counts = l.packet.workgroup_counts();
    let mut stats = DispatchStats::default();
    let mut waves: Vec<Wave> = Vec::new();
    let mut lds = vec![0u8; l.packet.group_segment_size as usize];
    let ws = l.wave_size();
    for gz in 0..counts[2] {
        for gy in 0..counts[1] {
            for gx in 0..counts[0] {
                let wg = [gx, gy, gz];
                let dims: [u32; 3] = std::array::from_fn(|d| {
                    let size = l.packet.workgroup_size[d] as u32;
                    size.min(l.packet.grid_size[d] - wg[d] * size)
                });
                let items = dims[0] * dims[1] * dims[2];
                let n = items.div_ceil(ws) as usize;
                if waves.len() < n {
                    waves.resize_with(n, || Wave::new(ws, 0));
                }
                for (k, w) in waves.iter_mut().enumerate().take(n) {
                    init_wave(l, w, wg, k as u32, dims);
                }
                lds.fill(0);
                let svc = services.as_deref_mut();
                let done =
                    run_workgroup(mem, prog, &mut waves[..n], &mut lds, opts, &mut stats, svc)
                        .map_err(|(wave, reason)| {
                            let pc = waves[wave].pc;
                            Box::new(Fault {
                                kernel: l.kernel.to_string(),
                                workgroup: wg,
                                wave: wave as u32,
                                pc,
                                instruction: describe(prog, pc),
                                reason,
                            })
                        })?;
                stats.workgroups += 1;
                stats.waves += done;
            }
        }
    }
    Ok(stats)
}

/// Runs the waves of one workgroup round-robin until all end. Returns the wave count, or
/// the faulting wave's index and the reason.
fn run_workgroup(
    mem: &DeviceMemory,
    prog: &Program,
    waves: &mut [Wave],
    lds: &mut [u8],
    opts: &RunOptions,
    stats: &mut DispatchStats,
    services: Option<&mut DispatchServices>,
) -> Result<u64, (usize, FaultReason)> {
    let services_on = services.as_ref().is_some_and(|s| s.has_hostcall());
    let mut sync = WorkgroupSync::new(waves.len() as u32);
    let mut turn = Standalone {
        waves,
        ctx: ExecCtx {
            prog,
            mem: mem.into(),
            lds,
            observer: None,
            group: Some(&mut sync),
        },
        mem,
        opts,
        stats,
        services: services.filter(|_| services_on),
    };
    loop {
        schedule::issue_round(&mut turn)?;
        if schedule::settle_group(&mut *turn.waves, |w| Some(&mut w.state))
            == schedule::GroupState::Ended
        {
            return Ok(turn.waves.len() as u64);
        }
    }
}

/// The standalone runner's side of the scheduler: one workgroup, functional timing (a
/// quantum per turn), a budget for the whole dispatch, hostcalls served at `s_sleep`.
struct Standalone<'a, 'c> {
    waves: &'a mut [Wave],
    ctx: ExecCtx<'c>,
    mem: &'a DeviceMemory,
    opts: &'a RunOptions,
    stats: &'a mut DispatchStats,
    services: Option<&'a mut DispatchServices>,
}

impl schedule::IssuePolicy for Standalone<'_, '_> {
    type Error = (usize, FaultReason);

    fn waves(&self) -> usize {
        self.waves.len()
    }

    fn wave(&self, i: usize) -> &Wave {
        &self.waves[i]
    }

    fn admit(&mut self, i: usize) -> Option<u64> {
        (self.waves[i].state == WaveState::Ready).then_some(self.opts.quantum)
    }

    fn spent(&self, _: usize) -> (u64, u64) {
        (self.stats.instructions, self.opts.budget)
    }

    fn execute(&mut self, i: usize, n: u64) -> Stop {
        self.waves[i].run(&mut self.ctx, n)
    }

    fn account(&mut self, _: usize, ran: u64, _: &[u64; crate::exec::InstClass::COUNT]) {
        self.stats.instructions += ran;
    }

    fn issued(&mut self, i: usize, stop: &Stop, _: u64) -> Result<bool, Self::Error> {
        if *stop == Stop::Sleep {
            if let Some(s) = self.services.as_deref_mut() {
                s.serve(self.mem)
                    .map_err(|e| (i, FaultReason::Service(e)))?;
            }
        }
        Ok(false)
    }

    fn ended(&mut self, _: usize) -> bool {
        false
    }

    fn faulted(&mut self, i: usize, reason: FaultReason) -> Result<(), Self::Error> {
        Err((i, reason))
    }
}
