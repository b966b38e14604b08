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

use crate::cfg::{Cfg, Flow};
use crate::error::TranslateError;
use crate::rules::{self, At, Lowered, Scratch};
use gpu_model::isa::{self, Op, Operand};
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
    /// A recovered PC builder: literals of `s_add_u32` at `lo` and `s_addc_u32` at `hi`
    /// (local offsets of the instructions, 8 bytes each) must add `target - (getpc + 4)`.
    Builder {
        /// Local offset of the `s_getpc_b64`.
        getpc: u32,
        /// Local offset of the `s_add_u32`.
        lo: u32,
        /// Local offset of the `s_addc_u32`.
        hi: u32,
        /// Source address of the target.
        target: u64,
    },
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
    /// Source bytes covered.
    pub source_bytes: usize,
}

/// The instructions reachable from `roots`. Fails on an indirect transfer that was
/// neither recovered nor is a validated return.
pub fn scope(cfg: &Cfg, roots: &[u64], kernel: &str) -> Result<BTreeSet<u64>, TranslateError> {
    let mut seen = BTreeSet::new();
    let mut work: Vec<u64> = roots.to_vec();
    let mut setpcs = Vec::new();
    let mut return_pairs = BTreeSet::new();
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
                let b =
                    cfg.recovered
                        .get(&pc)
                        .ok_or_else(|| TranslateError::UnrecoveredIndirect {
                            kernel: kernel.to_string(),
                            pc,
                            mnemonic: s.inst.mnemonic(),
                        })?;
                if let Some(Operand::Sgpr { first, .. }) = s.inst.operand(0) {
                    return_pairs.insert(first);
                }
                work.extend([b.target, next]);
            }
            Flow::SetPc => match cfg.recovered.get(&pc) {
                Some(b) => work.push(b.target),
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

/// The highest VGPR index any instruction of the scope touches (plus one), or `None`
/// when the scope indexes VGPRs through M0 (then only the allocation bounds them).
pub fn vgpr_extent(cfg: &Cfg, scope: &BTreeSet<u64>) -> Option<u16> {
    let mut hi = 0u16;
    for s in scope.iter().filter_map(|pc| cfg.insts.get(pc)) {
        if matches!(
            s.inst.op,
            Op::VMovrelsB32
                | Op::VMovreldB32
                | Op::VMovrelsdB32
                | Op::VMovrelsd2B32
                | Op::SSetGprIdxOn
                | Op::SSetGprIdxMode
        ) {
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

/// Translates the scope's instructions into a local buffer.
pub fn emit(
    cfg: &Cfg,
    scope: &BTreeSet<u64>,
    text: &[u8],
    base: u64,
    host: Target,
    scratch_first: u16,
    kernel: &str,
) -> Result<Body, TranslateError> {
    let mut body = Body::default();
    let mut scratch = Scratch {
        first: scratch_first,
        used: 0,
    };
    // Builder instructions, by address: (consumer, role 0 getpc / 1 lo / 2 hi).
    let mut builder_at: BTreeMap<u64, (u64, u8)> = BTreeMap::new();
    for (&c, b) in &cfg.recovered {
        if scope.contains(&c) {
            builder_at.insert(b.getpc, (c, 0));
            builder_at.insert(b.add_lo, (c, 1));
            builder_at.insert(b.add_hi, (c, 2));
        }
    }
    let mut builder_local: BTreeMap<u64, [u32; 3]> = BTreeMap::new();
    let mut buf = [0u8; 20];
    for &pc in scope {
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        let off = (pc - base) as usize;
        let bytes = &text[off..off + usize::from(s.inst.len)];
        let local = body.code.len() as u32;
        body.map.insert(pc, local);
        body.source_bytes += bytes.len();
        if let Some(&(c, role)) = builder_at.get(&pc) {
            builder_local.entry(c).or_default()[usize::from(role)] = local;
        }
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
        match rules::lower(&s.inst, bytes, host, &mut scratch, &at)? {
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
    }
    for (c, [getpc, lo, hi]) in builder_local {
        body.fixups.push(Fixup::Builder {
            getpc,
            lo,
            hi,
            target: cfg.recovered[&c].target,
        });
    }
    body.scratch = (scratch.first, scratch.used);
    Ok(body)
}
