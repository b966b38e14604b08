//! Kernel scopes and their translation into a kernel-local buffer.
//!
//! A scope is every instruction reachable from one kernel's entries (branches,
//! fallthrough, validated calls and recovered jumps). Shared helpers are therefore
//! copied into each scope that reaches them, so every branch, call and return of a
//! translated body resolves through that body's own source-to-local map.
//!
//! Emission walks the scope in source-address order (fallthrough stays adjacent; no
//! instruction can sit between an instruction and its fallthrough) and appends each
//! instruction's host form. Control transfers are emitted with a placeholder and a
//! [`Fixup`] that placement resolves once every instruction has its final address.

use crate::cfg::{Cfg, Flow, High, MAX_TARGETS};
use crate::error::TranslateError;
use crate::live::Liveness;
use crate::rules::{self, At, Lowered, Scratch};
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{self, Inst, Op, Operand};
use gpu_model::Target;
use std::collections::{BTreeMap, BTreeSet};

/// A place in the local buffer whose bytes depend on final addresses.
#[derive(Debug, Clone, Copy)]
pub enum Fixup {
    /// A SOPP/SOPK branch or call at local `at` (4 bytes) to source address `target`.
    Relative {
        /// Local offset of the instruction.
        at: u32,
        /// Source address of the target.
        target: u64,
        /// Source address of the branch (diagnostics).
        pc: u64,
    },
    /// A SOPP branch at local `at` to local offset `to` of the same body (a branch
    /// island, `crate::island`).
    Local {
        /// Local offset of the branch.
        at: u32,
        /// Local offset of its target.
        to: u32,
        /// Source address of the branch it routes (diagnostics).
        pc: u64,
    },
    /// A recovered PC builder: the literal of the instruction at `lo` (8 bytes, the
    /// `s_add_u32` or a switch case's `s_mov_b32`) and the high half `hi` must add
    /// `target - (getpc + 4)`.
    Builder {
        /// Local offset of the `s_getpc_b64`.
        getpc: u32,
        /// Local offset of the instruction with the low literal.
        lo: u32,
        /// The high half.
        hi: HighSite,
        /// Source address of the target.
        target: u64,
    },
}

impl Fixup {
    /// The same fixup after the body's bytes moved: every local offset through `shift`.
    pub fn moved(self, shift: impl Fn(u32) -> u32) -> Fixup {
        match self {
            Fixup::Relative { at, target, pc } => Fixup::Relative {
                at: shift(at),
                target,
                pc,
            },
            Fixup::Local { at, to, pc } => Fixup::Local {
                at: shift(at),
                to: shift(to),
                pc,
            },
            Fixup::Builder {
                getpc,
                lo,
                hi,
                target,
            } => Fixup::Builder {
                getpc: shift(getpc),
                lo: shift(lo),
                hi: match hi {
                    HighSite::At(h) => HighSite::At(shift(h)),
                    f => f,
                },
                target,
            },
        }
    }
}

/// The high half of a [`Fixup::Builder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HighSite {
    /// The `s_addc_u32` (8 bytes) at this local offset takes a literal.
    At(u32),
    /// The `s_addc_u32` takes an inline constant: the offset's high half must be this.
    Fixed(u32),
}

/// What an instruction of a recovered builder is.
#[derive(Debug, Clone, Copy)]
enum Role {
    Getpc,
    Lo(usize),
    Hi,
}

/// Where the instructions of a scope's recovered builders land in its body: noted while
/// emitting, turned into [`Fixup::Builder`]s at the end.
#[derive(Debug, Default)]
pub(crate) struct Sites {
    /// Source address -> (consumer, role).
    at: BTreeMap<u64, (u64, Role)>,
    /// Consumer -> local offsets of the getpc, the low sites, the high add.
    local: BTreeMap<u64, [Option<u32>; 2 + MAX_TARGETS]>,
}

impl Sites {
    /// The builders of the consumers in `scope`.
    pub(crate) fn new(cfg: &Cfg, scope: &BTreeSet<u64>) -> Sites {
        let mut s = Sites::default();
        for (&c, b) in cfg.recovered.iter().filter(|(c, _)| scope.contains(c)) {
            s.at.insert(b.getpc, (c, Role::Getpc));
            for (k, &(a, _)) in b.lo[..usize::from(b.count)].iter().enumerate() {
                s.at.insert(a, (c, Role::Lo(k)));
            }
            s.at.insert(b.add_hi, (c, Role::Hi));
            s.local.insert(c, Default::default());
        }
        s
    }

    /// Notes that the guest instruction `guest` at `pc` became `host` at local offset
    /// `local`. A literal that placement rewrites must stay a literal of the same value
    /// at the same place (offset 4 of an 8-byte instruction).
    pub(crate) fn note(
        &mut self,
        cfg: &Cfg,
        pc: u64,
        local: u32,
        host: &[u8],
        guest: &[u8],
        kernel: &str,
    ) -> Result<(), TranslateError> {
        let Some(&(c, role)) = self.at.get(&pc) else {
            return Ok(());
        };
        let b = &cfg.recovered[&c];
        let slot = match role {
            Role::Getpc => 0,
            Role::Lo(k) => 1 + k,
            Role::Hi => 1 + MAX_TARGETS,
        };
        let literal = match role {
            Role::Getpc => false,
            Role::Lo(_) => true,
            Role::Hi => b.high == High::Literal,
        };
        if literal && (host.len() != 8 || guest.len() != 8 || host[4..] != guest[4..]) {
            return Err(TranslateError::UnsupportedForm {
                kernel: kernel.to_string(),
                pc,
                text: cfg.insts[&pc].inst.to_string(),
                reason: "the literal of a recovered PC builder did not keep its place on the host",
            });
        }
        if let Some(l) = self.local.get_mut(&c) {
            l[slot] = Some(local);
        }
        Ok(())
    }

    /// The fixups, once every instruction was noted.
    pub(crate) fn fixups(&self, cfg: &Cfg, kernel: &str) -> Result<Vec<Fixup>, TranslateError> {
        let mut out = Vec::new();
        for (&c, l) in &self.local {
            let b = &cfg.recovered[&c];
            let missing = || TranslateError::Unsupported {
                kernel: kernel.to_string(),
                reason: format!(
                    "pc {c:#x}: the PC builder of this jump is not all in the kernel scope"
                ),
            };
            let getpc = l[0].ok_or_else(missing)?;
            let hi = match b.high {
                High::Literal => HighSite::At(l[1 + MAX_TARGETS].ok_or_else(missing)?),
                High::Fixed(v) => HighSite::Fixed(v),
            };
            for (k, &(_, target)) in b.lo[..usize::from(b.count)].iter().enumerate() {
                out.push(Fixup::Builder {
                    getpc,
                    lo: l[1 + k].ok_or_else(missing)?,
                    hi,
                    target,
                });
            }
        }
        Ok(out)
    }
}

/// One kernel's translated body before placement.
#[derive(Debug, Default)]
pub struct Body {
    /// The host code, local offsets from 0.
    pub code: Vec<u8>,
    /// Source address of each emitted instruction -> its local offset.
    pub map: BTreeMap<u64, u32>,
    /// Places to patch after placement.
    pub fixups: Vec<Fixup>,
    /// Scratch VGPRs the rules used (first, count).
    pub scratch: (u16, u16),
    /// Instructions that needed an EXPAND rule.
    pub expanded: usize,
    /// Of those, how many took their scratch VGPRs from guest registers dead there
    /// (liveness) instead of above the kernel's.
    pub reused: usize,
    /// Source bytes covered.
    pub source_bytes: usize,
    /// Local offset of the hardware entry when it is not the source entry's (a
    /// virtual-LDS sidecar enters at its prologue, offset 0).
    pub entry_local: Option<u32>,
}

/// A virtual-LDS sidecar variant of a scope (see `crate::vlds`).
#[derive(Debug, Clone)]
pub struct Sidecar {
    /// First SGPR of the slice-base pair.
    pub base: u16,
    /// The entry prologue.
    pub prologue: Vec<Inst>,
    /// The source entry the prologue continues at.
    pub entry: u64,
}

/// Whether the scope calls through a code pointer: an `s_swappc_b64` whose target was not
/// recovered (it may reach any function of [`Cfg::address_taken`]).
pub(crate) fn calls_through_pointers(cfg: &Cfg, sc: &BTreeSet<u64>) -> bool {
    sc.iter().any(|pc| {
        cfg.insts
            .get(pc)
            .is_some_and(|s| s.flow == Flow::SwapPc && !cfg.recovered.contains_key(pc))
    })
}

/// The instructions reachable from `roots`. Fails on an indirect transfer that was
/// neither recovered nor is a validated return nor a call through a function pointer
/// ([`Cfg::address_taken`]).
pub fn scope(cfg: &Cfg, roots: &[u64], kernel: &str) -> Result<BTreeSet<u64>, TranslateError> {
    scope_returning(cfg, roots, kernel, BTreeSet::new())
}

/// [`scope`] of functions that are entered by calls from outside it, which wrote their
/// return addresses to the SGPR pairs `return_pairs`.
pub(crate) fn scope_returning(
    cfg: &Cfg,
    roots: &[u64],
    kernel: &str,
    mut return_pairs: BTreeSet<u16>,
) -> Result<BTreeSet<u64>, TranslateError> {
    let mut seen = BTreeSet::new();
    let mut work: Vec<u64> = roots.to_vec();
    let mut setpcs = Vec::new();
    while let Some(pc) = work.pop() {
        if !seen.insert(pc) {
            continue;
        }
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        let next = cfg.next_pc(pc);
        match s.flow {
            Flow::Next => work.push(next),
            Flow::End => {}
            Flow::Branch(t) => work.push(t),
            Flow::CondBranch(t) => work.extend([t, next]),
            Flow::Call(t) => {
                if let Some(Operand::Sgpr { first, .. }) = s.inst.operand(0) {
                    return_pairs.insert(first);
                }
                work.extend([t, next]);
            }
            Flow::SwapPc => {
                // Recovered, or a call through a function pointer: then any function
                // whose address data holds.
                match cfg.recovered.get(&pc) {
                    Some(b) => work.extend(b.targets()),
                    None if !cfg.address_taken.is_empty() => {
                        work.extend(cfg.address_taken.iter().copied());
                    }
                    None => {
                        return Err(TranslateError::UnrecoveredIndirect {
                            kernel: kernel.to_string(),
                            pc,
                            mnemonic: s.inst.mnemonic(),
                        })
                    }
                }
                if let Some(Operand::Sgpr { first, .. }) = s.inst.operand(0) {
                    return_pairs.insert(first);
                }
                work.push(next);
            }
            Flow::SetPc => match cfg.recovered.get(&pc) {
                Some(b) => work.extend(b.targets()),
                None => setpcs.push(pc),
            },
        }
    }
    // An unrecovered s_setpc_b64 is accepted as a return when it jumps through the
    // register pair a call of this scope wrote its return address to.
    for pc in setpcs {
        let s = &cfg.insts[&pc];
        let pair = match s.inst.operand(0) {
            Some(Operand::Sgpr { first, count: 2 }) => Some(first),
            _ => None,
        };
        if !pair.is_some_and(|p| return_pairs.contains(&p)) {
            return Err(TranslateError::UnrecoveredIndirect {
                kernel: kernel.to_string(),
                pc,
                mnemonic: s.inst.mnemonic(),
            });
        }
    }
    Ok(seen)
}

/// Whether `op` reaches VGPRs through M0 or the GPR-index mode (`v_movrel*`,
/// `s_set_gpr_idx_*`), so that the registers it touches are not in its encoding.
pub fn indexes_vgprs(op: Op) -> bool {
    matches!(
        op,
        Op::VMovrelsB32
            | Op::VMovreldB32
            | Op::VMovrelsdB32
            | Op::VMovrelsd2B32
            | Op::SSetGprIdxOn
            | Op::SSetGprIdxMode
    )
}

/// The highest VGPR index any instruction of the scope touches (plus one), or `None`
/// when the scope indexes VGPRs through M0 (then only the allocation bounds them).
pub fn vgpr_extent(cfg: &Cfg, scope: &BTreeSet<u64>) -> Option<u16> {
    let mut hi = 0u16;
    for s in scope.iter().filter_map(|pc| cfg.insts.get(pc)) {
        if indexes_vgprs(s.inst.op) {
            return None;
        }
        for a in s.inst.accesses() {
            if a.file == isa::RegFile::Vgpr {
                hi = hi.max(a.first + u16::from(a.count));
            }
        }
    }
    Some(hi)
}

/// Translates the scope's instructions into a local buffer. `preload` is the kernel's
/// (entry, preload entry) pair when they differ: the hardware enters 256 bytes past the
/// entry when it preloads kernel arguments, so the preload entry is kept exactly 256 bytes
/// after the entry, the unreachable bytes between the stub's end and it (left out of the
/// scope) filled with `s_nop 0`. A stub that grows past 256 bytes cannot be placed
/// (placement reports it). `float_mode` is the kernel's initial MODE bits 7:0 (for the
/// rules that depend on it).
#[allow(clippy::too_many_arguments)]
pub fn emit(
    cfg: &Cfg,
    scope: &BTreeSet<u64>,
    text: &[u8],
    base: u64,
    host: Target,
    scratch_first: u16,
    kernel: &str,
    preload: Option<(u64, u64)>,
    float_mode: u8,
    sidecar: Option<&Sidecar>,
) -> Result<Body, TranslateError> {
    let mut body = Body::default();
    let mut buf = [0u8; 20];
    if let Some(sc) = sidecar {
        for i in &sc.prologue {
            let n = isa::encode(i, &mut buf).map_err(|source| TranslateError::Encode {
                kernel: kernel.to_string(),
                pc: sc.entry,
                source,
            })?;
            body.code.extend_from_slice(&buf[..n]);
        }
        if scope.first() != Some(&sc.entry) {
            // s_branch to the translated entry (GFX9 SOPP opcode 2), patched by placement.
            body.fixups.push(Fixup::Relative {
                at: body.code.len() as u32,
                target: sc.entry,
                pc: sc.entry,
            });
            body.code.extend_from_slice(&0xbf82_0000u32.to_le_bytes());
        }
        body.entry_local = Some(0);
    }
    // M0-indexed VGPR access hides which registers an instruction writes.
    let indexed = scope.iter().filter_map(|pc| cfg.insts.get(pc)).any(|s| {
        matches!(
            s.inst.op,
            Op::SSetGprIdxOn
                | Op::VMovreldB32
                | Op::VMovrelsB32
                | Op::VMovrelsdB32
                | Op::VMovrelsd2B32
        )
    });
    let mut fp8 = rules::Fp8Cache::default();
    fp8.disabled = indexed;
    let mut liveness: Option<Liveness<'_>> = None;
    let mut scratch = Scratch {
        first: scratch_first,
        used: 0,
    };
    let mut sites = Sites::new(cfg, scope);
    for &pc in scope {
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        let off = (pc - base) as usize;
        let bytes = &text[off..off + usize::from(s.inst.len)];
        if let Some((entry, pre)) = preload.filter(|&(_, pre)| pre == pc) {
            if let Some(&e) = body.map.get(&entry) {
                let want = e as usize + usize::from(pre.saturating_sub(entry) == 256) * 256;
                while body.code.len() + 4 <= want {
                    // s_nop 0 (GFX9).
                    body.code.extend_from_slice(&0xbf80_0000u32.to_le_bytes());
                }
            }
        }
        let local = body.code.len() as u32;
        body.map.insert(pc, local);
        body.source_bytes += bytes.len();
        let at = At { kernel, pc };
        match s.flow {
            Flow::Branch(t) | Flow::CondBranch(t) | Flow::Call(t) => {
                body.fixups.push(Fixup::Relative {
                    at: local,
                    target: t,
                    pc,
                });
            }
            _ => {}
        }
        if cfg.leaders.contains(&pc) {
            fp8.clear();
        }
        let virtual_lds = match sidecar {
            Some(sc) => crate::vlds::lower(&s.inst, sc.base, &mut scratch, &at)?,
            None => None,
        };
        let lowered = match virtual_lds {
            Some(seq) => {
                // The scratch VGPRs it used may be the fp8 cache's.
                fp8.clear();
                Lowered::Expand(seq)
            }
            None => {
                let mut own = Scratch {
                    first: scratch.first,
                    used: 0,
                };
                let mut r = rules::lower_in_mode(
                    &s.inst, bytes, host, &mut own, &at, float_mode, &mut fp8,
                )?;
                // Scratch from liveness: the same rule again on guest VGPRs that are dead
                // here, when there are enough; otherwise above the kernel's (the
                // descriptor grows). The fp8 MFMAs keep their cached slots above.
                let free = if own.used > 0 && !indexed && !rules::is_fp8_mfma(s.inst.op) {
                    let live = liveness.get_or_insert_with(|| Liveness::new(cfg, scope));
                    live.free_run(pc, own.used, scratch.first, scratch.first)
                } else {
                    None
                };
                if let Some(start) = free {
                    let mut moved = Scratch {
                        first: start,
                        used: 0,
                    };
                    r = rules::lower_in_mode(
                        &s.inst, bytes, host, &mut moved, &at, float_mode, &mut fp8,
                    )?;
                    if moved.used != own.used {
                        return Err(TranslateError::UnsupportedForm {
                            kernel: kernel.to_string(),
                            pc,
                            text: s.inst.to_string(),
                            reason:
                                "a rule used another number of scratch registers at another base",
                        });
                    }
                    body.reused += 1;
                } else {
                    scratch.used = scratch.used.max(own.used);
                }
                r
            }
        };
        fp8.after(&s.inst);
        if !matches!(s.flow, Flow::Next) {
            fp8.clear();
        }
        match lowered {
            Lowered::Identity => body.code.extend_from_slice(bytes),
            Lowered::Substitute(i) => {
                let n = isa::encode(&i, &mut buf).map_err(|source| TranslateError::Encode {
                    kernel: kernel.to_string(),
                    pc,
                    source,
                })?;
                body.code.extend_from_slice(&buf[..n]);
            }
            Lowered::Expand(seq) => {
                body.expanded += 1;
                for i in &seq {
                    let n = isa::encode(i, &mut buf).map_err(|source| TranslateError::Encode {
                        kernel: kernel.to_string(),
                        pc,
                        source,
                    })?;
                    body.code.extend_from_slice(&buf[..n]);
                }
            }
        }
        sites.note(cfg, pc, local, &body.code[local as usize..], bytes, kernel)?;
    }
    body.fixups.extend(sites.fixups(cfg, kernel)?);
    body.scratch = (scratch.first, scratch.used);
    Ok(body)
}

/// The highest SGPR index below VCC (operand codes 0..=101) any instruction of the scope
/// touches, plus one, or `None` when the scope indexes SGPRs through M0.
pub fn sgpr_extent(cfg: &Cfg, scope: &BTreeSet<u64>) -> Option<u16> {
    let mut hi = 0u16;
    for s in scope.iter().filter_map(|pc| cfg.insts.get(pc)) {
        if matches!(
            s.inst.op,
            Op::SMovrelsB32 | Op::SMovrelsB64 | Op::SMovreldB32 | Op::SMovreldB64
        ) {
            return None;
        }
        for a in s.inst.accesses() {
            if a.file == isa::RegFile::Sgpr && a.first < 102 {
                hi = hi.max(a.first + u16::from(a.count));
            }
        }
    }
    Some(hi)
}

/// The inverse of a GFX9 conditional branch, `None` for `s_branch`; an error for the
/// rest (calls and the debugger conditions have no long form).
fn inverse(op: Op) -> Result<Option<Op>, ()> {
    Ok(Some(match op {
        Op::SBranch => return Ok(None),
        Op::SCbranchScc0 => Op::SCbranchScc1,
        Op::SCbranchScc1 => Op::SCbranchScc0,
        Op::SCbranchVccz => Op::SCbranchVccnz,
        Op::SCbranchVccnz => Op::SCbranchVccz,
        Op::SCbranchExecz => Op::SCbranchExecnz,
        Op::SCbranchExecnz => Op::SCbranchExecz,
        _ => return Err(()),
    }))
}

/// Bytes of the long form of an unconditional branch: `s_getpc_b64` (4), `s_add_u32`
/// and `s_addc_u32` with literals (8 each), `s_setpc_b64` (4).
const LONG: u32 = 24;

/// Rewrites the SOPP branches at local offsets `long` into long branches through the
/// SGPR pair `s[pair:pair+1]`:
///
/// ```text
///     s_cbranch_<inverse> +6        ; conditional branches only: skip the long form
///     s_getpc_b64 s[p:p+1]          ; address of the next instruction
///     s_add_u32  s[p],   s[p],   lo ; + (target - that address), patched by placement
///     s_addc_u32 s[p+1], s[p+1], hi ;   as a recovered PC builder (Fixup::Builder)
///     s_setpc_b64 s[p:p+1]
/// ```
///
/// The long form writes SCC; the caller checks that SCC is dead at the target. Every
/// later local offset (map, fixups) moves by the bytes inserted before it.
pub fn relax(
    body: &Body,
    long: &BTreeSet<u32>,
    pair: u16,
    kernel: &str,
) -> Result<Body, TranslateError> {
    relax_for(body, long, pair, kernel, Target::Gfx942)
}

/// [`relax`] for a body encoded for `host`: on GFX12 the adds are `s_add_co_u32` and
/// `s_add_co_ci_u32` (the GFX12 names of the same SOP2 operations, llvm-mc-22), the
/// other instructions and the sizes are the same.
pub fn relax_for(
    body: &Body,
    long: &BTreeSet<u32>,
    pair: u16,
    kernel: &str,
    host: Target,
) -> Result<Body, TranslateError> {
    let (add, addc) = if host.family() == gpu_model::Family::Gfx12 {
        (Op::SAddCoU32, Op::SAddCoCiU32)
    } else {
        (Op::SAddU32, Op::SAddcU32)
    };
    let enc = |pc: u64| {
        move |source| TranslateError::Encode {
            kernel: kernel.to_string(),
            pc,
            source,
        }
    };
    // Growth at each long branch.
    let mut grow: BTreeMap<u32, (Option<Op>, u64)> = BTreeMap::new();
    for f in &body.fixups {
        if let Fixup::Relative { at, pc, .. } = *f {
            if long.contains(&at) {
                let a = at as usize;
                let op = isa::decode(host, &body.code[a..a + 4], false)
                    .map(|i| i.op)
                    .map_err(|_| TranslateError::BranchOutOfRange {
                        kernel: kernel.to_string(),
                        pc,
                        distance: 0,
                    })?;
                let inv = inverse(op).map_err(|()| TranslateError::UnsupportedForm {
                    kernel: kernel.to_string(),
                    pc,
                    text: op_name(op),
                    reason: "out of the SOPP range and without a long form",
                })?;
                grow.insert(at, (inv, pc));
            }
        }
    }
    let size = |inv: &Option<Op>| LONG + if inv.is_some() { 4 } else { 0 };
    let shift = |old: u32| -> u32 {
        old + grow
            .range(..old)
            .map(|(_, (inv, _))| size(inv) - 4)
            .sum::<u32>()
    };
    let mut out = Body {
        code: Vec::with_capacity(body.code.len() + grow.len() * 28),
        map: body.map.iter().map(|(&k, &v)| (k, shift(v))).collect(),
        fixups: Vec::with_capacity(body.fixups.len()),
        ..*body
    };
    let sp = |first: u16, count: u8| Operand::Sgpr { first, count };
    let mut prev = 0usize;
    let mut buf = [0u8; 20];
    for (&at, (inv, pc)) in &grow {
        out.code.extend_from_slice(&body.code[prev..at as usize]);
        prev = at as usize + 4;
        let e = enc(*pc);
        let mut seq = Vec::with_capacity(5);
        if let Some(inv) = inv {
            let mut b = Inst::build(host, *inv, Format::Sopp).map_err(e)?;
            if let Some(f) = b.layout().field(F::Simm16) {
                b.bits = gpu_model::isa::layout::put(b.bits, f, LONG / 4);
            }
            seq.push(b);
        }
        let mut g = Inst::build(host, Op::SGetpcB64, Format::Sop1).map_err(e)?;
        g.set_operand(0, sp(pair, 2)).map_err(e)?;
        seq.push(g);
        for (op, r) in [(add, pair), (addc, pair + 1)] {
            let mut a = Inst::build(host, op, Format::Sop2).map_err(e)?;
            a.set_operand(0, sp(r, 1)).map_err(e)?;
            a.set_operand(1, sp(r, 1)).map_err(e)?;
            a.set_operand(2, Operand::Literal(0)).map_err(e)?;
            seq.push(a);
        }
        let mut s = Inst::build(host, Op::SSetpcB64, Format::Sop1).map_err(e)?;
        s.set_operand(0, sp(pair, 2)).map_err(e)?;
        seq.push(s);
        let start = out.code.len();
        for i in &seq {
            let n = isa::encode(i, &mut buf).map_err(e)?;
            out.code.extend_from_slice(&buf[..n]);
        }
        if out.code.len() - start != size(inv) as usize {
            return Err(TranslateError::UnsupportedForm {
                kernel: kernel.to_string(),
                pc: *pc,
                text: "long branch".into(),
                reason: "the long form did not encode to its expected size",
            });
        }
    }
    out.code.extend_from_slice(&body.code[prev..]);
    for f in &body.fixups {
        out.fixups.push(match *f {
            Fixup::Relative { at, target, .. } => match grow.get(&at) {
                Some((inv, _)) => {
                    let getpc = shift(at) + if inv.is_some() { 4 } else { 0 };
                    Fixup::Builder {
                        getpc,
                        lo: getpc + 4,
                        hi: HighSite::At(getpc + 12),
                        target,
                    }
                }
                None => f.moved(shift),
            },
            f => f.moved(shift),
        });
    }
    Ok(out)
}

fn op_name(op: Op) -> String {
    format!("{op:?}")
}

/// Whether SCC may be read at `target` before it is written (a long branch there would
/// change it): follows fallthrough and branches for a bounded number of instructions
/// and answers `true` when in doubt.
pub fn scc_live_at(cfg: &Cfg, target: u64) -> bool {
    live_at(cfg, target, |inst| {
        read_write(inst, |a| a.file == isa::RegFile::Special(isa::Special::Scc))
    })
}

/// Whether SGPR `reg` (operand code) may be read at `target` before it is written.
pub fn sgpr_live_at(cfg: &Cfg, target: u64, reg: u16) -> bool {
    live_at(cfg, target, |inst| {
        read_write(inst, |a| {
            a.file == isa::RegFile::Sgpr && (a.first..a.first + u16::from(a.count)).contains(&reg)
        })
    })
}

/// Whether `inst` reads, and whether it writes, a register some access of which `this`
/// selects ([`live_at`]'s `uses`).
fn read_write(inst: &isa::Inst, this: impl Fn(&isa::Access) -> bool) -> (bool, bool) {
    let (mut reads, mut writes) = (false, false);
    for a in inst.accesses().filter(|a| this(a)) {
        match a.kind {
            isa::AccessKind::Write => writes = true,
            _ => reads = true,
        }
    }
    (reads, writes)
}

/// Whether some state may be read at `target` before it is all written, along every
/// path: `uses` says of an instruction whether it reads the state and whether it writes
/// all of it (a read counts first). Follows fallthrough and branches for a bounded
/// number of instructions; a call or indirect jump, an instruction outside the CFG or a
/// long search answer `true`, the end of the wave `false`.
pub fn live_at(cfg: &Cfg, target: u64, uses: impl Fn(&isa::Inst) -> (bool, bool)) -> bool {
    let mut work = vec![target];
    let mut seen = BTreeSet::new();
    let mut budget = 256;
    while let Some(pc) = work.pop() {
        if !seen.insert(pc) {
            continue;
        }
        budget -= 1;
        let Some(s) = cfg.insts.get(&pc) else {
            return true;
        };
        if budget == 0 {
            return true;
        }
        let (reads, kills) = uses(&s.inst);
        if reads {
            return true;
        }
        if kills {
            continue;
        }
        let next = cfg.next_pc(pc);
        match s.flow {
            Flow::Next => work.push(next),
            Flow::End => {}
            Flow::Branch(t) => work.push(t),
            Flow::CondBranch(t) => work.extend([t, next]),
            Flow::Call(_) | Flow::SwapPc | Flow::SetPc => return true,
        }
    }
    false
}
