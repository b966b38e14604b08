//! Wave state (registers, EXEC, SCC, MODE, counters, PC) and the per-wave run loop.

use super::inst::Inst;
use super::inst::Unit;
use super::regfile::RegFile;
use super::{ds, flat, mubuf, smem, sop, valu, vop3p, ExecCtx, FaultReason, Stop};
use super::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};

/// Lanes of the register file (wave64; wave32 uses the low 32).
pub const LANES: usize = 64;

/// SGPR array entries: operand codes 0..127 plus room for tuples that start near the end.
const SGPRS: usize = 144;
/// VGPR rows: 256 architectural VGPRs, 256 AGPRs, and slack so a tuple starting at the
/// last register never indexes out of bounds.
pub(crate) const VGPR_ROWS: usize = 512 + 16;
/// Spare rows past the architectural ones, one per VALU source: the in-place loop reads a
/// source that is not a plain VGPR (a constant, an SDWA select, a DPP permutation) from
/// them (`valu::rows`). No instruction can name them.
pub(crate) const OPERAND_ROWS: usize = VGPR_ROWS;
/// First AGPR row.
pub(crate) const AGPR_BASE: usize = 256;

/// SGPR codes of special registers (GFX9 numbering).
pub(crate) mod code {
    pub const VCC: usize = 106;
    pub const EXEC: usize = 126;
}

/// Where a wave is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveState {
    /// Can run.
    Ready,
    /// Waits at `s_barrier`.
    Barrier,
    /// Executed `s_endpgm`.
    Ended,
    /// Waits for its atomics to be performed at the next memory sync point ([`Stop::SyncWait`]).
    SyncWait,
}

/// Identity of a wave in its dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WaveInfo {
    /// Workgroup id.
    pub workgroup: [u32; 3],
    /// Index of the wave in its workgroup.
    pub wave_in_group: u32,
}

/// Hardware wait counters (functional mode completes memory immediately, so they only
/// record what was issued since the last wait).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Vector memory operations outstanding.
    pub vm: u32,
    /// LDS/scalar memory/message operations outstanding.
    pub lgkm: u32,
}

/// The architectural state of one wave.
#[derive(Clone)]
pub struct Wave {
    pub(crate) s: [u32; SGPRS],
    pub(crate) v: RegFile,
    /// Scalar condition code.
    pub scc: bool,
    /// Program counter (device address).
    pub pc: u64,
    /// MODE register (round modes 3:0, denorm modes 7:4, ...).
    pub mode: u32,
    /// STATUS register (informational).
    pub status: u32,
    /// TRAPSTS register.
    pub trapsts: u32,
    /// Wait counters.
    pub counters: Counters,
    /// 32 or 64.
    pub wave_size: u32,
    /// Where the wave is.
    pub state: WaveState,
    /// Identity.
    pub info: WaveInfo,
    /// Device address of this wave's private segment (swizzled, see [`Wave::scratch_addr`]).
    pub scratch_base: u64,
    /// Private bytes per lane available to this wave.
    pub scratch_per_lane: u64,
    /// Instructions retired.
    pub retired: u64,
    /// Instructions executed by [`super::InstClass`] (index = class as usize).
    pub classes: [u64; super::InstClass::COUNT],
}

impl std::fmt::Debug for Wave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wave")
            .field("pc", &format_args!("{:#x}", self.pc))
            .field("exec", &format_args!("{:#x}", self.exec()))
            .field("state", &self.state)
            .field("info", &self.info)
            .finish()
    }
}

impl Wave {
    /// A wave with zeroed registers, starting at `pc`.
    pub fn new(wave_size: u32, pc: u64) -> Wave {
        Wave {
            s: [0; SGPRS],
            v: RegFile::new(VGPR_ROWS + 3),
            scc: false,
            pc,
            mode: 0,
            status: 0,
            trapsts: 0,
            counters: Counters::default(),
            wave_size,
            state: WaveState::Ready,
            info: WaveInfo::default(),
            scratch_base: 0,
            scratch_per_lane: 0,
            retired: 0,
            classes: [0; super::InstClass::COUNT],
        }
    }

    /// Resets the wave for reuse (no reallocation): registers zeroed except VGPR/AGPR rows
    /// at or above `vgprs`, which a kernel allocating `vgprs` registers cannot name.
    pub fn reset(&mut self, wave_size: u32, pc: u64, vgprs: usize) {
        let n = vgprs.min(AGPR_BASE);
        if self.v.len() != VGPR_ROWS + 3 {
            self.v = RegFile::new(VGPR_ROWS + 3);
        }
        self.v[..n].fill([0; LANES]);
        self.v[AGPR_BASE..AGPR_BASE + n].fill([0; LANES]);
        self.s = [0; SGPRS];
        self.scc = false;
        self.pc = pc;
        self.mode = 0;
        self.status = 0;
        self.trapsts = 0;
        self.counters = Counters::default();
        self.wave_size = wave_size;
        self.state = WaveState::Ready;
        self.info = WaveInfo::default();
        self.scratch_base = 0;
        self.scratch_per_lane = 0;
        self.retired = 0;
        self.classes = [0; super::InstClass::COUNT];
    }

    // ---- register access ----

    /// SGPR `n` (operand code numbering: VCC = 106, M0 = 124, EXEC = 126).
    #[inline(always)]
    pub fn sgpr(&self, n: usize) -> u32 {
        self.s[n % SGPRS]
    }

    /// Sets SGPR `n`.
    #[inline(always)]
    pub fn set_sgpr(&mut self, n: usize, v: u32) {
        self.s[n % SGPRS] = v;
    }

    /// VGPR `r` of lane `lane`.
    #[inline(always)]
    pub fn vgpr(&self, r: usize, lane: usize) -> u32 {
        self.v[r % VGPR_ROWS][lane % LANES]
    }

    /// Sets VGPR `r` of lane `lane`.
    #[inline(always)]
    pub fn set_vgpr(&mut self, r: usize, lane: usize, v: u32) {
        self.v[r % VGPR_ROWS][lane % LANES] = v;
    }

    /// The EXEC mask (high half ignored in wave32).
    #[inline(always)]
    pub fn exec(&self) -> u64 {
        let e = self.s[code::EXEC] as u64 | (self.s[code::EXEC + 1] as u64) << 32;
        if self.wave_size == 32 {
            e & 0xffff_ffff
        } else {
            e
        }
    }

    /// Sets EXEC.
    #[inline(always)]
    pub fn set_exec(&mut self, e: u64) {
        self.s[code::EXEC] = e as u32;
        self.s[code::EXEC + 1] = (e >> 32) as u32;
    }

    /// VCC.
    #[inline(always)]
    pub fn vcc(&self) -> u64 {
        self.read_mask(code::VCC as u8)
    }

    /// A lane mask held in SGPR `code` (a pair in wave64).
    #[inline(always)]
    pub fn read_mask(&self, code: u8) -> u64 {
        self.mask_operand(code as u16, 0)
    }

    /// A lane-mask source operand (`v_cndmask` / carry-in `src2`): an SGPR (a pair in
    /// wave64), or a constant read as a 64-bit integer operand (`-1` selects every lane).
    #[inline(always)]
    pub(crate) fn mask_operand(&self, code: u16, lit: u32) -> u64 {
        let c = code as usize;
        let m = if c >= 128 {
            self.sread64(code, lit, false)
        } else if self.wave_size == 32 {
            return self.s[c] as u64;
        } else {
            self.s[c] as u64 | (self.s[c + 1] as u64) << 32
        };
        if self.wave_size == 32 {
            m & 0xffff_ffff
        } else {
            m
        }
    }

    /// Writes a lane mask to SGPR `code` (a pair in wave64). Codes past the SGPRs
    /// (constants, which a random or corrupt encoding can name as a destination) drop the
    /// write.
    #[inline(always)]
    pub fn write_mask(&mut self, code: u8, m: u64) {
        let c = code as usize;
        if c >= 128 {
            return;
        }
        self.s[c] = m as u32;
        if self.wave_size != 32 {
            self.s[c + 1] = (m >> 32) as u32;
        }
    }

    /// A 64-bit value from the SGPR pair at `n`.
    #[inline(always)]
    pub fn sgpr64(&self, n: usize) -> u64 {
        self.sgpr(n) as u64 | (self.sgpr(n + 1) as u64) << 32
    }

    /// Writes the SGPR pair at `n`.
    #[inline(always)]
    pub fn set_sgpr64(&mut self, n: usize, v: u64) {
        self.set_sgpr(n, v as u32);
        self.set_sgpr(n + 1, (v >> 32) as u32);
    }

    /// Reads a scalar source operand (8/9-bit code below 256) as 32 bits; `f16` selects
    /// the half-precision pattern of float inline constants.
    #[inline(always)]
    pub(crate) fn sread(&self, c: u16, lit: u32) -> u32 {
        match c {
            0..=127 => self.s[c as usize],
            128..=192 => (c - 128) as u32,
            193..=208 => (192i32 - c as i32) as u32,
            235 => SHARED_APERTURE_HI,
            237 => PRIVATE_APERTURE_HI,
            236 | 238 => 0xffff_ffff,
            240 => 0x3f00_0000,
            241 => 0xbf00_0000,
            242 => 0x3f80_0000,
            243 => 0xbf80_0000,
            244 => 0x4000_0000,
            245 => 0xc000_0000,
            246 => 0x4080_0000,
            247 => 0xc080_0000,
            248 => 0x3e22_f983,
            251 => (self.vcc() == 0) as u32,
            252 => (self.exec() == 0) as u32,
            253 => self.scc as u32,
            255 => lit,
            256..=511 => self.v[(c - 256) as usize][0],
            _ => 0,
        }
    }

    /// Reads a scalar source as 64 bits. `float` selects f64 inline constants and the
    /// high-dword literal of a 64-bit float operand.
    #[inline(always)]
    pub(crate) fn sread64(&self, c: u16, lit: u32, float: bool) -> u64 {
        match c {
            0..=127 => self.sgpr64(c as usize),
            128..=208 => self.sread(c, lit) as i32 as i64 as u64,
            235 => (SHARED_APERTURE_HI as u64) << 32,
            237 => (PRIVATE_APERTURE_HI as u64) << 32,
            240..=248 => {
                let f = f32::from_bits(self.sread(c, lit));
                if c == 248 {
                    0x3fc4_5f30_6dc9_c882
                } else {
                    (f as f64).to_bits()
                }
            }
            255 if float => (lit as u64) << 32,
            255 => lit as u64,
            _ => self.sread(c, lit) as u64,
        }
    }

    /// Inline constant or register as a bf16 operand pattern (low 16 bits): the float
    /// constants are the bf16 values (LLVM 22 `AMDGPUBaseInfo.cpp`,
    /// `getInlineEncodingV2BF16`: 0x3F80 is 1.0, 0x3E22 is 1/(2*pi)); integer constants and
    /// registers as [`Wave::sread`].
    #[inline(always)]
    pub(crate) fn sread_bf16(&self, c: u16, lit: u32) -> u32 {
        match c {
            240 => 0x3f00,
            241 => 0xbf00,
            242 => 0x3f80,
            243 => 0xbf80,
            244 => 0x4000,
            245 => 0xc000,
            246 => 0x4080,
            247 => 0xc080,
            248 => 0x3e22,
            _ => self.sread(c, lit),
        }
    }

    /// Inline constant or register as an f16 operand pattern (low 16 bits).
    #[inline(always)]
    pub(crate) fn sread16(&self, c: u16, lit: u32) -> u32 {
        match c {
            240 => 0x3800,
            241 => 0xb800,
            242 => 0x3c00,
            243 => 0xbc00,
            244 => 0x4000,
            245 => 0xc000,
            246 => 0x4400,
            247 => 0xc400,
            248 => 0x3118,
            _ => self.sread(c, lit),
        }
    }

    /// Writes a scalar destination code (SGPRs, VCC, M0, EXEC, ...).
    #[inline(always)]
    pub(crate) fn swrite(&mut self, c: u16, v: u32) {
        if (c as usize) < 128 {
            self.s[c as usize] = v;
        }
    }

    /// Writes a 64-bit scalar destination.
    #[inline(always)]
    pub(crate) fn swrite64(&mut self, c: u16, v: u64) {
        self.swrite(c, v as u32);
        self.swrite(c + 1, (v >> 32) as u32);
    }

    /// The wave's clock, read by `s_memtime`, `s_memrealtime` and GFX12
    /// `s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME`: the number of instructions the wave has
    /// issued, the reading one included. The model has no shader clock a wave can see, so
    /// this stands in for both the core clock and the 100 MHz real-time clock: it is
    /// deterministic (the same on any number of host threads), monotonic, and strictly
    /// larger at a later read, but it is per wave, not comparable across waves.
    #[inline]
    pub fn clock(&self) -> u64 {
        self.classes.iter().sum()
    }

    /// Device address of byte `offset` of `lane`'s private memory: the hardware swizzle
    /// interleaves dwords of the lanes of a wave (dword k of lane l at
    /// `base + (k * wave_size + l) * 4`), so consecutive lanes' same-offset dwords are
    /// adjacent.
    #[inline(always)]
    pub(crate) fn scratch_addr(&self, lane: usize, offset: u64) -> u64 {
        let dword = offset >> 2;
        self.scratch_base + (dword * self.wave_size as u64 + lane as u64) * 4 + (offset & 3)
    }

    // ---- running ----

    /// Executes up to `max` instructions; returns why it stopped.
    pub fn run(&mut self, ctx: &mut ExecCtx<'_>, max: u64) -> Stop {
        if self.state == WaveState::Ended {
            return Stop::Endpgm;
        }
        self.state = WaveState::Ready;
        let prog = ctx.prog;
        let mut n = 0;
        while n < max {
            let inst = match prog.fetch(self.pc) {
                Ok(i) => i,
                Err(e) => return Stop::Fault(e),
            };
            n += 1;
            self.classes[inst.unit.class() as usize] += 1;
            match self.step(ctx, inst) {
                Ok(Flow::Next) => self.pc = self.pc.wrapping_add(inst.len as u64),
                Ok(Flow::Jumped) => {}
                Ok(Flow::Stop(Stop::SyncWait)) => {
                    // Not retired: it runs again, whole, once its atomics are performed.
                    self.retired += n - 1;
                    self.classes[inst.unit.class() as usize] -= 1;
                    self.state = WaveState::SyncWait;
                    return Stop::SyncWait;
                }
                Ok(Flow::Stop(s)) => {
                    self.retired += n;
                    if s == Stop::Endpgm {
                        self.state = WaveState::Ended;
                    } else {
                        self.pc = self.pc.wrapping_add(inst.len as u64);
                        if s == Stop::Barrier {
                            self.state = WaveState::Barrier;
                        }
                    }
                    return s;
                }
                Err(e) => {
                    self.retired += n - 1;
                    return Stop::Fault(e);
                }
            }
        }
        self.retired += n;
        Stop::Quantum
    }

    /// Executes one instruction.
    #[inline(always)]
    fn step(&mut self, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
        // GFX9 GPR indexing and VSKIP (MODE[28:27], set by scalar instructions) change
        // how vector instructions execute: off the hot path.
        if self.mode & sop::VECTOR_MODES != 0 {
            match sop::vector_mode(self, ctx.prog.target(), i) {
                sop::Vector::Plain => {}
                sop::Vector::Skip => return Ok(Flow::Next),
                sop::Vector::Indexed(j) => return self.issue(ctx, &j),
            }
        }
        self.issue(ctx, i)
    }

    /// Executes one instruction as given.
    #[inline(always)]
    fn issue(&mut self, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
        match i.unit {
            Unit::Sop1 | Unit::Sop2 | Unit::Sopc | Unit::Sopk | Unit::Sopp => {
                sop::exec(self, ctx, i)
            }
            Unit::Smem => smem::exec(self, ctx, i),
            Unit::Vop1 | Unit::Vop2 | Unit::Vopc | Unit::Vop3 => match valu::exec(self, i) {
                // Off the hot path: operations that need the target come back unhandled.
                Err(FaultReason::Unimplemented(_)) if super::cvt::converts(i.op) => {
                    super::cvt::exec(self, i, ctx.prog.target())
                }
                r => r,
            }
            .map(|_| Flow::Next),
            Unit::Vop3p => vop3p::exec(self, i, ctx.prog.target()).map(|_| Flow::Next),
            Unit::Ds => ds::exec(self, ctx, i).map(|_| Flow::Next),
            Unit::Flat | Unit::Mubuf | Unit::Image => self.vmem(ctx, i),
            Unit::Vopd => valu::exec_vopd(self, i).map(|_| Flow::Next),
            Unit::Graphics(class) => Err(FaultReason::GraphicsOnly(class.name())),
            Unit::Refused(why) => Err(FaultReason::UnsupportedForm(why.reason())),
        }
    }
}

impl Wave {
    /// A vector memory instruction. Under a buffering memory view its atomics may be
    /// deferred to the next sync point: then the wave waits and re-executes it (taking
    /// the recorded old values). Only the first execution, the issue, is shown to the
    /// cache observer, so each access counts once.
    #[inline(always)]
    fn vmem(&mut self, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
        let replay = ctx.mem.replaying();
        let observer = if replay { ctx.observer.take() } else { None };
        let r = match i.unit {
            Unit::Flat => flat::exec(self, ctx, i),
            Unit::Image => super::image::exec(self, ctx, i),
            _ => mubuf::exec(self, ctx, i),
        };
        if replay {
            ctx.observer = observer;
        }
        let deferred = ctx.mem.take_deferred();
        match r {
            Err(e) => Err(e),
            Ok(()) if deferred => Ok(Flow::Stop(Stop::SyncWait)),
            Ok(()) => Ok(Flow::Next),
        }
    }
}

/// What an instruction did to control flow.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Flow {
    /// Fall through to the next instruction.
    Next,
    /// PC was set by the instruction.
    Jumped,
    /// Stop running this wave (after advancing PC, except for `Endpgm`).
    Stop(Stop),
}
