//! Functional execution of AMDGPU machine code: wave state and instruction semantics.
//!
//! ```text
//!  CodeObject ──► Program (decoded once, shared by all waves: Arc)
//!                    │  pc ──► Inst (Copy, pre-decoded operands)
//!  Wave ──run(ctx, max)──► Stop { Quantum | Barrier | Sleep | Endpgm | Fault }
//!    sgpr[code]  vgpr[reg][lane] (register-major, lanes contiguous)  scc  exec  mode
//!  ExecCtx: device memory + the workgroup's LDS + memory observer (cache models)
//! ```
//!
//! The executor runs one wave for up to `max` instructions and says why it stopped, so a
//! workgroup runner ([`crate::dispatch`]) or a compute-unit component can interleave waves
//! in quanta. Memory completes immediately (functional mode); the wait counters are still
//! tracked. Everything a kernel controls (addresses, LDS offsets, lane indices, PC) is
//! checked: a bad value becomes a [`FaultReason`], never a host panic.
//!
//! Semantics are split by encoding family: [`sop`](self::sop) (scalar ALU and program
//! control), `smem`, `valu` (VOP1/VOP2/VOPC/VOP3 operations), `vop3p`, `lane` (DPP/SDWA
//! and cross-lane), `ds`, `flat` (FLAT/GLOBAL/SCRATCH), `mubuf` (GFX9 MUBUF and GFX12
//! VBUFFER with both buffer-descriptor layouts), `tbuf` (formatted buffer accesses:
//! typed MTBUF and `buffer_*_format*`), `format` (buffer/image element formats and their
//! conversions), `image` (MIMG/VIMAGE without a sampler, with the image descriptors),
//! `float` (rounding and transcendental helpers), `cvt` (conversions to and from the
//! narrow float formats of `minifloat`).

mod cvt;
mod ds;
mod flat;
mod float;
mod fmode;
mod format;
mod image;
mod inst;
mod lane;
mod lower;
mod matrix;
mod mfma;
mod minifloat;
mod mubuf;
mod regfile;
mod smem;
mod sop;
mod tbuf;
mod valu;
mod valu3;
mod vop3p;
mod wave;

pub use inst::{GraphicsClass, Half, Img, Inst, Mai, Mem, Refusal, Seg, Sub, Unit};
pub use lower::{decode, lower};
pub use sop::WorkgroupSync;
pub use wave::{Wave, WaveInfo, WaveState, LANES};

use crate::isa::DecodeError;
use crate::memory::{MemFault, MemView};
use crate::Target;
use std::fmt;

/// High 32 bits of the LDS (shared) aperture: a flat address whose high dword is this is
/// an LDS offset. Non-canonical, so it can never alias device memory.
pub const SHARED_APERTURE_HI: u32 = 0x1000_0000;
/// High 32 bits of the private (scratch) aperture.
pub const PRIVATE_APERTURE_HI: u32 = 0x2000_0000;

/// Lowered instructions of one code object placed in device memory, indexed by PC.
///
/// One entry per dword of `.text` (instructions are 4-byte aligned), decoded by the shared
/// decoder ([`crate::isa::decode`]) and lowered once ([`lower()`]); entries that start
/// inside a literal or at bytes that are not an instruction hold the decode error,
/// reported only if a wave ever executes there.
#[derive(Debug)]
pub struct Program {
    target: Target,
    base: u64,
    insts: Vec<Result<Inst, DecodeError>>,
    /// The code bytes, for LLVM-identical disassembly in fault reports.
    text: Vec<u8>,
}

impl Program {
    /// Decodes `text` (the `.text` bytes) placed at device address `base`.
    pub fn new(target: Target, base: u64, text: &[u8]) -> Program {
        let insts = (0..text.len().div_ceil(4))
            .map(|i| decode(target, &text[4 * i..]))
            .collect();
        Program {
            target,
            base,
            insts,
            text: text.to_vec(),
        }
    }

    /// The target the code was decoded for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The code bytes it was decoded from.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// Device address of the first instruction slot.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The instruction at device address `pc`.
    #[inline(always)]
    pub fn fetch(&self, pc: u64) -> Result<&Inst, FaultReason> {
        let off = pc.wrapping_sub(self.base);
        if off & 3 != 0 {
            return Err(FaultReason::PcOutOfCode { pc });
        }
        match self.insts.get((off >> 2) as usize) {
            Some(Ok(i)) => Ok(i),
            Some(Err(e)) => Err(FaultReason::Illegal(*e)),
            None => Err(FaultReason::PcOutOfCode { pc }),
        }
    }

    /// Every decodable instruction slot (address, instruction); for coverage reports.
    pub fn instructions(&self) -> impl Iterator<Item = (u64, &Inst)> {
        self.insts
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().ok().map(|x| (self.base + 4 * i as u64, x)))
    }
}

/// Class of an executed instruction, for instruction-mix statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstClass {
    /// Scalar ALU (SOP1, SOP2, SOPC, SOPK).
    Salu,
    /// Program control (SOPP: branches, waits, barriers, s_endpgm, ...).
    Control,
    /// Scalar memory.
    Smem,
    /// Vector ALU (VOP1, VOP2, VOPC, VOP3, VOPD).
    Valu,
    /// Packed math, dot products and matrix cores (VOP3P).
    Vop3p,
    /// LDS (DS).
    Lds,
    /// Vector memory (FLAT, GLOBAL, SCRATCH, buffer).
    Vmem,
}

impl InstClass {
    /// Number of classes.
    pub const COUNT: usize = 7;
    /// Every class, in index order.
    pub const ALL: [InstClass; 7] = [
        InstClass::Salu,
        InstClass::Control,
        InstClass::Smem,
        InstClass::Valu,
        InstClass::Vop3p,
        InstClass::Lds,
        InstClass::Vmem,
    ];

    /// Report name (`salu`, `control`, ...).
    pub fn name(self) -> &'static str {
        match self {
            InstClass::Salu => "salu",
            InstClass::Control => "control",
            InstClass::Smem => "smem",
            InstClass::Valu => "valu",
            InstClass::Vop3p => "vop3p",
            InstClass::Lds => "lds",
            InstClass::Vmem => "vmem",
        }
    }
}

impl Unit {
    /// The instruction class of this encoding.
    #[inline(always)]
    pub fn class(self) -> InstClass {
        match self {
            Unit::Sop1 | Unit::Sop2 | Unit::Sopc | Unit::Sopk => InstClass::Salu,
            Unit::Sopp => InstClass::Control,
            Unit::Smem => InstClass::Smem,
            Unit::Vop1 | Unit::Vop2 | Unit::Vopc | Unit::Vop3 | Unit::Vopd => InstClass::Valu,
            Unit::Vop3p => InstClass::Vop3p,
            Unit::Ds => InstClass::Lds,
            Unit::Flat | Unit::Mubuf | Unit::Image => InstClass::Vmem,
            // Never retired (they fault); counted where they would issue.
            Unit::Graphics(_) | Unit::Refused(_) => InstClass::Control,
        }
    }
}

/// Why a wave stopped running.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// It ran the instruction quantum it was given.
    Quantum,
    /// It reached `s_barrier` and waits for the rest of its workgroup.
    Barrier,
    /// It executed `s_sleep` (or a similar yield): run other waves first.
    Sleep,
    /// It executed `s_endpgm`.
    Endpgm,
    /// It issued atomics that are performed at the next memory sync point (see
    /// [`crate::memory::coherence`]); its PC still points at the instruction, which it
    /// re-executes then with the recorded old values.
    SyncWait,
    /// It faulted; the wave's PC still points at the faulting instruction.
    Fault(FaultReason),
}

/// Why a wave faulted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FaultReason {
    /// The bytes at PC are not an instruction (the shared decoder's error).
    #[error("illegal instruction: {0}")]
    Illegal(DecodeError),
    /// The instruction decodes but has no semantics in the executor yet.
    #[error("unimplemented instruction `{0}`")]
    Unimplemented(&'static str),
    /// An operand or modifier combination the executor does not support.
    #[error("unsupported operand form: {0}")]
    UnsupportedForm(&'static str),
    /// An instruction of the graphics pipeline, which a compute dispatch cannot run
    /// (the class: export, parameter interpolation, ...).
    #[error("graphics-pipeline instruction ({0}) in a compute dispatch")]
    GraphicsOnly(&'static str),
    /// The instruction raises the illegal-instruction exception on the hardware (GFX12
    /// `s_code_end`, `s_alloc_vgpr` outside dynamic-VGPR mode): behaviour the ISA defines,
    /// not a gap of the executor. The text says which and why.
    #[error("illegal instruction exception: {0}")]
    IllegalInstruction(&'static str),
    /// PC left the code object.
    #[error("pc {pc:#x} is outside the code object")]
    PcOutOfCode {
        /// The PC.
        pc: u64,
    },
    /// A device memory access faulted.
    #[error("memory fault in lane {lane}: {fault}")]
    Memory {
        /// The lane (0 for scalar accesses).
        lane: u32,
        /// The access.
        fault: MemFault,
    },
    /// A private (scratch) access outside the wave's private segment.
    #[error("private access at offset {offset:#x} in lane {lane} is outside the {size}-byte private segment")]
    Scratch {
        /// The lane.
        lane: u32,
        /// Per-lane private offset.
        offset: u64,
        /// Private bytes per lane.
        size: u64,
    },
    /// The kernel executed `s_trap`.
    #[error("s_trap {0}")]
    Trap(u32),
    /// The dispatch ran more instructions than its budget.
    #[error("instruction budget of {0} wave-instructions exceeded")]
    Budget(u64),
    /// Every live wave of a workgroup is asleep or blocked and nothing can make progress.
    #[error("deadlock: waves wait at a barrier that can never complete")]
    Deadlock,
    /// A runtime service the wave waited for failed (the wave is the one that slept
    /// waiting for the answer, see [`crate::service`]).
    #[error("{0}")]
    Service(crate::service::ServiceError),
}

/// Kind of a memory access reported to a [`MemObserver`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// Vector load.
    Load,
    /// Vector store.
    Store,
    /// Vector atomic.
    Atomic,
    /// Scalar (constant cache) load.
    ScalarLoad,
}

/// One wave memory instruction, as a cache model sees it.
#[derive(Debug)]
pub struct MemRecord<'a> {
    /// Load, store or atomic.
    pub kind: AccessKind,
    /// Bytes per lane.
    pub bytes: u32,
    /// Cache policy bits as encoded (GFX9: glc/sc0 bit 0, slc/nt bit 1, scc/sc1 bit 2).
    pub policy: u8,
    /// Active lanes.
    pub exec: u64,
    /// Per-lane device addresses (only active lanes are meaningful).
    pub addrs: &'a [u64; LANES],
}

/// Receives every global-memory access (for cache statistics or a timed model).
pub trait MemObserver {
    /// Called once per executed memory instruction.
    fn access(&mut self, rec: &MemRecord<'_>);

    /// Called once per executed cache-maintenance instruction (`s_dcache_inv`,
    /// `buffer_inv`, `buffer_wbl2`, `buffer_wbinvl1_vol`, `global_inv`, `global_wb`, ...):
    /// its LLVM mnemonic and its cache-policy bits as in [`MemRecord::policy`]. What it
    /// does to which cache is the observer's business ([`crate::cache::maintenance`]).
    fn maintenance(&mut self, _mnemonic: &'static str, _policy: u8) {}
}

/// What a wave executes against: memory, its workgroup's LDS and private segment.
pub struct ExecCtx<'a> {
    /// The code.
    pub prog: &'a Program,
    /// Device memory, directly or through the CU's buffering domain.
    pub mem: MemView<'a>,
    /// The workgroup's LDS.
    pub lds: &'a mut [u8],
    /// Optional observer of global memory accesses.
    pub observer: Option<&'a mut dyn MemObserver>,
    /// The workgroup's barrier state (GFX12 `s_barrier_signal_isfirst`,
    /// `s_get_barrier_state`), lent by a workgroup runner; `None` where waves run alone.
    pub group: Option<&'a mut WorkgroupSync>,
}

impl fmt::Debug for ExecCtx<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecCtx")
            .field("target", &self.prog.target)
            .field("lds_bytes", &self.lds.len())
            .finish()
    }
}

/// Text of the instruction at `pc` for fault reports: the shared disassembler's
/// (llvm-objdump) text when it decodes the bytes, else the executor's mnemonic and the raw
/// dwords.
pub fn describe(prog: &Program, pc: u64) -> String {
    let off = pc.wrapping_sub(prog.base) as usize;
    if let Some(bytes) = prog.text.get(off..) {
        if let Ok(i) = crate::isa::decode(prog.target, bytes, false) {
            return i.to_string();
        }
    }
    match prog.fetch(pc) {
        Ok(i) => i.mnemonic().to_string(),
        Err(e) => format!("<{e}>"),
    }
}
