//! What an instruction does besides its syntax: the registers it reads and writes
//! ([`Inst::accesses`]), how it issues ([`Inst::issue_class`]), the wait counters it
//! increments ([`Inst::wait_counters`]) and whether it belongs to the graphics pipeline
//! ([`Inst::is_graphics`]).
//!
//! ```
//! use gpu_model::isa::{self, AccessKind, IssueClass, RegFile};
//! use gpu_model::Target;
//! // v_fmac_f32_e32 v0, v1, v2 (gfx942): the accumulator is read and written.
//! let i = isa::decode(Target::Gfx942, &[0x01, 0x05, 0x00, 0x76], false).unwrap();
//! assert_eq!(i.to_string(), "v_fmac_f32_e32 v0, v1, v2");
//! let dst = i.accesses().next().unwrap();
//! assert_eq!((dst.kind, dst.file, dst.first, dst.count), (AccessKind::ReadWrite, RegFile::Vgpr, 0, 1));
//! assert_eq!(i.issue_class(), IssueClass::VectorAlu);
//! ```
//!
//! # Where the facts come from
//!
//! Per opcode, `tools/isa-gen` (module `meta`) asks `llvm-mca-22` about the opcode's
//! base probe (see the generator's module doc): the scheduling resources and
//! may-load/may-store (issue class), the number of registers it defines, which
//! registers it waits on (reads; a destination it waits on is read-write) and, where
//! LLVM's latencies allow, which registers a later reader waits on (writes), implicit
//! SCC, VCC, EXEC and MODE included. What LLVM cannot be asked (M0, GFX9 implicit
//! registers of one-cycle operations, wait counters, the graphics flag) follows rules
//! written next to the generator's code with their sources (AMD's CDNA3/RDNA4 ISA
//! guides, LLVM's `SIInsertWaitcnts.cpp`). `tests/isa_meta.rs` checks every opcode of
//! every target against llvm-mca.
//!
//! What depends on a decoded instruction's fields is computed here: tuple sizes (image
//! data from dmask/d16/tfe/lwe, image addresses from dim/a16, `*_f8f6f4` sources from
//! cbsz/blgp, GFX12 buffer tfe), returning atomics (GFX9 `glc`/`sc0`, GFX12
//! `TH_ATOMIC_RETURN`: the data register is read-write, FLAT/GLOBAL/SCRATCH write
//! `vdst`; GFX12 counts them on loadcnt instead of storecnt), GFX9 buffer/global `lds`
//! forms (no data register, M0 read), GFX9 DS `gds` (M0 read, expcnt), SDWA compares
//! that write an SGPR pair instead of VCC.
//!
//! Partial writes are read-write: a 16-bit destination half (GFX12 `v0.h`/`v0.l`,
//! GFX9 VOP3 `op_sel` destination high half, SDWA `UNUSED_PRESERVE`) and DPP16 (lanes
//! the row/bank masks disable keep their value) keep the rest of the register, so a
//! 32-bit liveness must see the old value as used.
//!
//! VCC, EXEC and M0 are reported as the SGPR codes an explicit operand naming them has
//! (VCC 106, EXEC 126, M0 124 on GFX9 and 125 on GFX12; two registers on wave64, one on
//! wave32), so that explicit and implicit uses meet in one liveness; SCC and MODE,
//! which have no code, are [`RegFile::Special`].

use super::decode::{decode, table, Inst};
use super::layout::{self, Format, F};
use super::table::{Meta, Opnd};
use super::{Ext, Operand};
use crate::target::{Family, Target};

/// How an instruction issues: which pipeline takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueClass {
    /// Scalar ALU (SOP1/SOP2/SOPC/SOPK arithmetic, logic, moves, `s_getreg`/`s_setreg`).
    ScalarAlu,
    /// Vector ALU (VOP1/VOP2/VOPC/VOP3/VOP3P/VOPD/VINTERP, lane moves).
    VectorAlu,
    /// Transcendental vector ALU (exp, log, rcp, rsq, sqrt, sin, cos).
    Transcendental,
    /// Matrix core (MFMA, SMFMAC, WMMA, SWMMAC).
    Matrix,
    /// Scalar memory (SMEM loads, stores, atomics, cache control, `s_memtime`).
    ScalarMemory,
    /// Vector memory load (buffer, global, scratch, flat, image, BVH, loads to LDS,
    /// cache invalidates).
    VectorLoad,
    /// Vector memory store (and cache write-backs).
    VectorStore,
    /// Vector memory atomic.
    VectorAtomic,
    /// LDS (DS, GFX12 LDS parameter/direct loads).
    Lds,
    /// Branches, calls and returns.
    Branch,
    /// Messages (`s_sendmsg*`, `s_ttracedata*`).
    Message,
    /// Waits on counters or events (`s_waitcnt*`, `s_wait_*`).
    Wait,
    /// Exports.
    Export,
    /// Workgroup barriers (`s_barrier*`).
    Barrier,
    /// Other program control (`s_nop`, `s_endpgm`, `s_sleep`, `s_setprio`, `s_trap`, ...).
    Control,
}

/// A wait counter. GFX9 has vmcnt (vector memory loads and stores: gfx90a/gfx94x/gfx950
/// have no separate store counter), lgkmcnt (LDS, GWS, scalar memory, messages) and
/// expcnt; GFX12 splits them into loadcnt, storecnt, samplecnt, bvhcnt, kmcnt, dscnt
/// and expcnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Counter {
    /// GFX9 vector memory count.
    VmCnt,
    /// GFX9 LDS, GWS, constant (scalar memory) and message count.
    LgkmCnt,
    /// Export count (GFX9: GWS/GDS; GFX12: exports, LDS parameter/direct loads).
    ExpCnt,
    /// GFX12 vector memory loads (and returning atomics).
    LoadCnt,
    /// GFX12 vector memory stores (and non-returning atomics).
    StoreCnt,
    /// GFX12 image sample/gather (and MSAA loads).
    SampleCnt,
    /// GFX12 BVH intersection.
    BvhCnt,
    /// GFX12 scalar memory and messages.
    KmCnt,
    /// GFX12 LDS.
    DsCnt,
}

impl Counter {
    /// Every counter, in bit order.
    pub const ALL: [Counter; 9] = [
        Counter::VmCnt,
        Counter::LgkmCnt,
        Counter::ExpCnt,
        Counter::LoadCnt,
        Counter::StoreCnt,
        Counter::SampleCnt,
        Counter::BvhCnt,
        Counter::KmCnt,
        Counter::DsCnt,
    ];

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of [`Counter`]s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Counters(u16);

impl Counters {
    /// The empty set.
    pub const NONE: Counters = Counters(0);

    /// The set with bits `bits` (bit `Counter as u16`).
    pub const fn from_bits(bits: u16) -> Counters {
        Counters(bits)
    }

    /// The bits of the set.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `c` is in the set.
    pub const fn contains(self, c: Counter) -> bool {
        self.0 & c.bit() != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set with `c` added.
    pub const fn with(self, c: Counter) -> Counters {
        Counters(self.0 | c.bit())
    }

    /// The set with `c` removed.
    pub const fn without(self, c: Counter) -> Counters {
        Counters(self.0 & !c.bit())
    }

    /// The counters in the set.
    pub fn iter(self) -> impl Iterator<Item = Counter> {
        Counter::ALL.into_iter().filter(move |c| self.contains(*c))
    }
}

impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Whether an access reads, writes or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Read only.
    Read,
    /// Written only (the old value is dead).
    Write,
    /// Read and written (accumulators, tied destinations, partial writes, returning
    /// atomics' data).
    ReadWrite,
}

impl AccessKind {
    /// Whether the old value is used.
    pub fn reads(self) -> bool {
        matches!(self, AccessKind::Read | AccessKind::ReadWrite)
    }

    /// Whether a new value is written.
    pub fn writes(self) -> bool {
        matches!(self, AccessKind::Write | AccessKind::ReadWrite)
    }

    fn of(read: bool, write: bool) -> AccessKind {
        match (read, write) {
            (true, true) => AccessKind::ReadWrite,
            (false, true) => AccessKind::Write,
            _ => AccessKind::Read,
        }
    }
}

/// Registers without an SGPR code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Special {
    /// The scalar condition code.
    Scc,
    /// The MODE register (float rounding/denormals, GPR indexing, ...).
    Mode,
}

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegFile {
    /// Scalar registers by operand code (VCC 106/107, EXEC 126/127, M0 124 on GFX9 /
    /// 125 on GFX12, trap temporaries 108..123).
    Sgpr,
    /// Vector registers.
    Vgpr,
    /// Accumulation registers (GFX9).
    Agpr,
    /// A register without a code.
    Special(Special),
}

/// One register access of a decoded instruction: registers `first .. first + count` of
/// `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// Read, write or both.
    pub kind: AccessKind,
    /// Register file.
    pub file: RegFile,
    /// First register (SGPR: operand code).
    pub first: u16,
    /// Number of registers.
    pub count: u8,
}

/// The most accesses one instruction has (a VOPD pair: six operands and four implicit
/// registers; an image: data, five address tuples, two descriptors, EXEC, M0).
const MAX: usize = 16;

/// The accesses of one instruction ([`Inst::accesses`]): a fixed-size buffer, no heap.
#[derive(Debug, Clone)]
pub struct Accesses {
    buf: [Access; MAX],
    len: u8,
    pos: u8,
}

impl Accesses {
    fn new() -> Accesses {
        let none = Access {
            kind: AccessKind::Read,
            file: RegFile::Sgpr,
            first: 0,
            count: 0,
        };
        Accesses {
            buf: [none; MAX],
            len: 0,
            pos: 0,
        }
    }

    fn push(&mut self, a: Access) {
        if a.count == 0 {
            return;
        }
        // Bounded by the formats' operand counts; an overflow would drop the access
        // rather than panic.
        if let Some(slot) = self.buf.get_mut(usize::from(self.len)) {
            *slot = a;
            self.len += 1;
        }
    }
}

impl Iterator for Accesses {
    type Item = Access;

    fn next(&mut self) -> Option<Access> {
        if self.pos >= self.len {
            return None;
        }
        self.pos += 1;
        Some(self.buf[usize::from(self.pos - 1)])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::from(self.len - self.pos);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Accesses {}

/// Flag bits of [`Meta::flags`] (written by `tools/isa-gen`).
pub(crate) mod flag {
    /// Graphics pipeline only.
    pub const GRAPHICS: u8 = 1 << 0;
    /// An atomic whose returning form a modifier selects.
    pub const ATOMIC: u8 = 1 << 1;
}

/// Implicit-register bits of [`Meta::imp_rd`] / [`Meta::imp_wr`].
pub(crate) mod imp {
    pub const SCC: u8 = 1 << 0;
    pub const VCC: u8 = 1 << 1;
    pub const EXEC: u8 = 1 << 2;
    pub const M0: u8 = 1 << 3;
    pub const MODE: u8 = 1 << 4;
}

/// SGPR codes of VCC and EXEC.
const VCC: u16 = 106;
const EXEC: u16 = 126;
/// GFX12's NULL: writes are dropped, reads give zero.
const NULL12: u16 = 124;

impl Inst {
    fn meta(&self) -> &'static Meta {
        &self.entry().meta
    }

    /// How the instruction issues (VOPD: the X half's class; both halves are VALU).
    pub fn issue_class(&self) -> IssueClass {
        self.meta().class
    }

    /// Whether the instruction belongs to the graphics pipeline: exports, parameter
    /// interpolation, LDS parameter/direct loads, image operations that take a sampler
    /// (sample, gather4, get_lod), BVH intersection. Image loads, stores and atomics
    /// without a sampler are not (compute uses them).
    pub fn is_graphics(&self) -> bool {
        self.meta().flags & flag::GRAPHICS != 0
    }

    /// Whether a vector memory atomic returns the old value (GFX9 `glc`/`sc0`, GFX12
    /// `TH_ATOMIC_RETURN`).
    pub fn atomic_returns(&self) -> bool {
        if self.meta().flags & flag::ATOMIC == 0 {
            return false;
        }
        match self.target.family() {
            Family::Gfx9 => self.field(F::Glc) != 0,
            Family::Gfx12 => self.field(F::Th) & 1 != 0,
        }
    }

    /// The wait counters the instruction increments. Modifiers count: a GFX12
    /// returning atomic counts on loadcnt (storecnt without return), a GFX9 DS with
    /// `gds` also on expcnt. FLAT-segment instructions count on both the vector memory
    /// counter and the LDS one (GFX9 vmcnt and lgkmcnt, GFX12 loadcnt/storecnt and
    /// dscnt); GLOBAL and SCRATCH only on the former.
    pub fn wait_counters(&self) -> Counters {
        let mut c = self.meta().waits;
        let gfx12 = self.target.family() == Family::Gfx12;
        if gfx12 && self.atomic_returns() && c.contains(Counter::StoreCnt) {
            c = c.without(Counter::StoreCnt).with(Counter::LoadCnt);
        }
        if !gfx12 && self.format == Format::Ds && self.field(F::Gds) != 0 {
            c = c.with(Counter::ExpCnt);
        }
        c
    }

    /// Every register the instruction reads or writes: the explicit operands (with the
    /// tuple sizes of this encoding) and the implicit registers (SCC, VCC, EXEC, M0,
    /// MODE). See the module doc for what is read-write and how special registers are
    /// named. No allocation.
    pub fn accesses(&self) -> Accesses {
        let mut out = Accesses::new();
        let e = self.entry();
        self.explicit_accesses(&e.meta, self.syntax(), false, &mut out);
        let mut imp_rd = e.meta.imp_rd;
        let mut imp_wr = e.meta.imp_wr;
        if let Some(y) = self.entry_y() {
            self.explicit_accesses(&y.meta, self.syntax_y(), true, &mut out);
            imp_rd |= y.meta.imp_rd;
            imp_wr |= y.meta.imp_wr;
        }
        let gfx9 = self.target.family() == Family::Gfx9;
        // GFX12 image addresses print as a list the syntax holds as text.
        if matches!(self.format, Format::Vsample | Format::Vimage) {
            for &f in super::image::addr_fields(self) {
                // (GFX12 BVH dual/BVH8 write the updated ray back over two of them.)
                let bit = 1u128 << (f as u8);
                out.push(Access {
                    kind: AccessKind::of(true, e.meta.wr & bit != 0),
                    file: RegFile::Vgpr,
                    first: self.field(f) as u16,
                    count: super::image::addr_regs(self, f) as u8,
                });
            }
        }
        // Returning FLAT/GLOBAL/SCRATCH atomics write vdst (not in the syntax).
        if matches!(self.format, Format::Flat | Format::Global | Format::Scratch)
            && self.atomic_returns()
        {
            if let Some(n) = self.syntax().iter().find_map(|o| match o {
                Opnd::Reg {
                    field: F::Data,
                    regs,
                    ..
                } => Some(*regs),
                _ => None,
            }) {
                let n = if self.mnemonic().contains("cmpswap") {
                    (n / 2).max(1)
                } else {
                    n
                };
                out.push(Access {
                    kind: AccessKind::Write,
                    file: if self.acc_field(F::Vdst) {
                        RegFile::Agpr
                    } else {
                        RegFile::Vgpr
                    },
                    first: self.field(F::Vdst) as u16,
                    count: n,
                });
            }
        }
        // GFX9 loads to LDS take the LDS address from M0; so do GDS accesses.
        if gfx9
            && ((matches!(
                self.format,
                Format::Mubuf | Format::Global | Format::Scratch
            ) && self.field(F::Lds) != 0)
                || (self.format == Format::Ds && self.field(F::Gds) != 0))
        {
            imp_rd |= imp::M0;
        }
        // An SDWA compare with `sd` writes the SGPR pair in sdst instead of VCC.
        if self.ext() == Some(Ext::Sdwa)
            && self.format == Format::Vopc
            && self.field(F::SdwaSd) != 0
        {
            imp_wr &= !imp::VCC;
            out.push(Access {
                kind: AccessKind::Write,
                file: RegFile::Sgpr,
                first: self.field(F::Sdst) as u16,
                count: 2,
            });
        }
        self.implicit_accesses(imp_rd, imp_wr, &mut out);
        out
    }

    fn lane_mask_regs(&self) -> u8 {
        if self.wave32 {
            1
        } else {
            2
        }
    }

    fn implicit_accesses(&self, rd: u8, wr: u8, out: &mut Accesses) {
        let m0 = match self.target.family() {
            Family::Gfx9 => 124,
            Family::Gfx12 => 125,
        };
        let lanes = self.lane_mask_regs();
        let regs = [
            (imp::SCC, RegFile::Special(Special::Scc), 0, 1),
            (imp::VCC, RegFile::Sgpr, VCC, lanes),
            (imp::EXEC, RegFile::Sgpr, EXEC, lanes),
            (imp::M0, RegFile::Sgpr, m0, 1),
            (imp::MODE, RegFile::Special(Special::Mode), 0, 1),
        ];
        for (bit, file, first, count) in regs {
            let (r, w) = (rd & bit != 0, wr & bit != 0);
            if r || w {
                out.push(Access {
                    kind: AccessKind::of(r, w),
                    file,
                    first,
                    count,
                });
            }
        }
    }

    /// The accesses of the register operands of one syntax (`y`: VOPD's Y half).
    fn explicit_accesses(&self, meta: &Meta, syntax: &[Opnd], y: bool, out: &mut Accesses) {
        let gfx12 = self.target.family() == Family::Gfx12;
        for (i, o) in syntax.iter().enumerate() {
            let Opnd::Reg { field, cls, .. } = *o else {
                continue;
            };
            let op = if y {
                self.operand_y(i)
            } else {
                self.operand(i)
            };
            let bit = 1u128.checked_shl(u32::from(field as u8)).unwrap_or(0);
            let (mut r, mut w) = (meta.rd & bit != 0, meta.wr & bit != 0);
            if !r && !w {
                r = true;
            }
            let (file, first, mut count) = match op {
                Some(Operand::Sgpr { first, count }) => {
                    if gfx12 && first == NULL12 {
                        continue;
                    }
                    (RegFile::Sgpr, first, count)
                }
                Some(Operand::Vgpr { first, count }) => (RegFile::Vgpr, first, count),
                Some(Operand::Agpr { first, count }) => (RegFile::Agpr, first, count),
                Some(Operand::Special(code)) => {
                    self.special_source(code, out);
                    continue;
                }
                _ => continue,
            };
            match field {
                F::Vdata if matches!(self.format, Format::Vsample | Format::Vimage) => {
                    count = super::image::data_regs(self) as u8;
                }
                F::Vdata if self.format == Format::Mimg => count = self.mimg_data_regs(),
                F::Vdata if self.vbuffer_tfe() => count += 1,
                // (Image addresses are added from the fields below.)
                F::Vaddr | F::Vaddr1 | F::Vaddr2 | F::Vaddr3 | F::Vaddr4
                    if matches!(self.format, Format::Vsample | Format::Vimage) =>
                {
                    continue;
                }
                _ => {}
            }
            // Returning buffer/image atomics write the old value over their data
            // (compare-and-swap: over its first half, the value compared).
            if field == F::Vdata && self.atomic_returns() {
                if self.mnemonic().contains("cmpswap") && count >= 2 {
                    let half = count / 2;
                    out.push(Access {
                        kind: AccessKind::ReadWrite,
                        file,
                        first,
                        count: half,
                    });
                    out.push(Access {
                        kind: AccessKind::Read,
                        file,
                        first: first + u16::from(half),
                        count: count - half,
                    });
                    continue;
                }
                r = true;
                w = true;
            }
            if w && !y && self.partial_write(field, cls) {
                r = true;
            }
            out.push(Access {
                kind: AccessKind::of(r, w),
                file,
                first,
                count,
            });
        }
    }

    /// A write to `field` that keeps part of the register (see the module doc).
    fn partial_write(&self, field: F, cls: u8) -> bool {
        if field != F::Vdst {
            return false;
        }
        if cls == b'l' {
            return true;
        }
        match self.ext() {
            Some(Ext::Dpp16) => return true,
            // dst_unused: UNUSED_PRESERVE with a destination select narrower than DWORD.
            Some(Ext::Sdwa) => {
                return self.field(F::SdwaDstUnused) == 2 && self.field(F::SdwaDstSel) != 6
            }
            _ => {}
        }
        // GFX9 VOP3: op_sel bit 3 writes the high half and keeps the low one.
        self.target.family() == Family::Gfx9
            && self.format == Format::Vop3
            && self.field(F::OpSel) & 8 != 0
    }

    /// The registers a special source code reads (VCCZ, EXECZ, SCC, LDS direct).
    fn special_source(&self, code: u16, out: &mut Accesses) {
        let lanes = self.lane_mask_regs();
        let (file, first, count) = match code {
            251 => (RegFile::Sgpr, VCC, lanes),
            252 => (RegFile::Sgpr, EXEC, lanes),
            253 => (RegFile::Special(Special::Scc), 0, 1),
            // LDS direct reads LDS at the address in M0.
            254 => (
                RegFile::Sgpr,
                if self.target.family() == Family::Gfx9 {
                    124
                } else {
                    125
                },
                1,
            ),
            _ => return,
        };
        out.push(Access {
            kind: AccessKind::Read,
            file,
            first,
            count,
        });
    }

    /// GFX9 MIMG data registers the hardware uses: one per dmask bit (at least one;
    /// gather4: four), halved (rounded up) with d16, plus one with lwe.
    fn mimg_data_regs(&self) -> u8 {
        let n = if self.mnemonic().starts_with("image_gather4") {
            4
        } else {
            self.field(F::Dmask).count_ones().max(1)
        };
        let n = if self.field(F::D16) != 0 {
            n.div_ceil(2)
        } else {
            n
        };
        (n + u32::from(self.field(F::Lwe) != 0)) as u8
    }
}

/// One instruction of every entry of a target's opcode tables (GFX12: of the wave
/// size's), with its operand fields zero as [`Inst::build`] makes them (VOPD halves:
/// paired with `v_dual_mov_b32`, distinct registers), decoded back from its bytes:
/// for checks over a whole table and for coverage reports.
pub fn samples(target: Target, wave32: bool) -> impl Iterator<Item = Inst> {
    let wave32 = wave32 && target.family() == Family::Gfx12;
    let n = table(target, wave32).entries.len();
    (0..n).filter_map(move |ei| sample(target, wave32, ei))
}

fn sample(target: Target, wave32: bool, ei: usize) -> Option<Inst> {
    let tab = table(target, wave32);
    let e = tab.entries.get(ei)?;
    let gfx12 = target.family() == Family::Gfx12;
    let lay = layout::layout(gfx12, e.format)?;
    let (bits, len) = if e.format == Format::Vopd {
        let y = tab.lookup(Format::Vopd, u32::from(e.opcode)) != Some(ei as u16);
        let mov = |key: Format| {
            (0..64u32).find(|&op| {
                tab.lookup(key, op)
                    .is_some_and(|i| tab.entries[usize::from(i)].mnemonic == "v_dual_mov_b32")
            })
        };
        let (x_op, y_op) = if y {
            (mov(Format::Vopd)?, u32::from(e.opcode))
        } else {
            (u32::from(e.opcode), mov(Format::VopdY)?)
        };
        let mut bits = 0u128;
        let fx = lay.field(F::Fixed)?;
        bits = layout::put(bits, fx, lay.value >> fx.lo);
        // Registers in distinct banks (as the assembler wants).
        for (f, v) in [
            (F::Op, x_op),
            (F::OpY, y_op),
            (F::Src0, 256 + 1),
            (F::Vsrc1, 2),
            (F::Vdst, 4),
            (F::Src0Y, 256 + 7),
            (F::Vsrc1Y, 10),
            (F::VdstY, 4),
        ] {
            bits = layout::put(bits, lay.field(f)?, v);
        }
        (bits, usize::from(lay.dwords) * 4)
    } else {
        let variant = e.variants.iter().position(|v| v.is_some())?;
        let i = Inst::build_entry(target, wave32, ei, variant).ok()?;
        (
            i.bits,
            usize::from(i.len) - if i.literal.is_some() { 4 } else { 0 },
        )
    };
    // Fields some operations want zero (a VOPD half's unused vsrc1) or set (BVH: all
    // four data channels).
    let clear = |bits: u128, f: F| lay.field(f).map_or(bits, |fl| layout::put(bits, fl, 0));
    let set = |bits: u128, f: F, v: u32| lay.field(f).map_or(bits, |fl| layout::put(bits, fl, v));
    let tries = [
        bits,
        clear(bits, F::Vsrc1),
        clear(bits, F::Vsrc1Y),
        clear(clear(bits, F::Vsrc1), F::Vsrc1Y),
        set(bits, F::Dmask, 0xF),
    ];
    tries.into_iter().find_map(|bits| {
        // The encoding, then a literal dword (1.0) for the operations that take one.
        let mut bytes = [0u8; 20];
        bytes[..16].copy_from_slice(&bits.to_le_bytes());
        bytes[len..len + 4].copy_from_slice(&0x3f80_0000u32.to_le_bytes());
        decode(target, &bytes[..len + 4], wave32).ok()
    })
}
