//! Branch-island pools: SOPP branches that no longer reach their targets after
//! placement, in a kernel that has no free SGPR pair for the long form (`scope::relax`).
//!
//! Such a branch keeps its opcode and hops to its target through islands, unconditional
//! `s_branch`es at most [`STEP`] bytes apart, gathered in pools at instruction boundaries
//! of the body between the branch and its target:
//!
//! ```text
//!     s_branch +n           ; code that falls into the pool skips it
//!     s_branch <next hop>   ; island 1 (a Fixup::Local, or the target's Fixup::Relative)
//!     ...
//!     s_branch <next hop>   ; island n
//! ```
//!
//! Unlike the long form, an island needs no register and leaves SCC alone, so any SOPP
//! transfer (conditional, `s_call_b64`) can take one; what it costs is one `s_branch`
//! per hop taken, and one per pass over a pool that code falls into.

use crate::error::TranslateError;
use crate::scope::{Body, Fixup};
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{self, Inst, Op};
use gpu_model::Target;
use std::collections::{BTreeMap, BTreeSet};

/// Most bytes from a hop to the next: half the SOPP reach (32768 dwords), so that pools
/// inserted between two hops (by this or a later round) keep them in range.
pub(crate) const STEP: u32 = 64 * 1024;

/// Routes the SOPP branches at local offsets `long` of `body` through islands. No pool
/// goes into the local range `keep_out` (exclusive start, inclusive end: the bytes
/// between a kernel's entry and its kernarg-preload entry, which must stay 256 apart).
pub(crate) fn route(
    body: &Body,
    long: &BTreeSet<u32>,
    keep_out: Option<(u32, u32)>,
    kernel: &str,
    host: Target,
) -> Result<Body, TranslateError> {
    let bounds: BTreeSet<u32> = body
        .map
        .values()
        .copied()
        .filter(|&b| b > 0 && keep_out.is_none_or(|(lo, hi)| b <= lo || b > hi))
        .collect();
    // Pools by boundary (islands per pool), and each long branch's hops.
    let mut pools: BTreeMap<u32, u32> = BTreeMap::new();
    let mut hops: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for f in &body.fixups {
        let Fixup::Relative { at, target, pc } = *f else {
            continue;
        };
        if !long.contains(&at) {
            continue;
        }
        let out_of_range = |distance: i64| TranslateError::BranchOutOfRange {
            kernel: kernel.to_string(),
            pc,
            distance,
        };
        let Some(&t) = body.map.get(&target) else {
            return Err(out_of_range(0));
        };
        let mut pos = at;
        let mut mine = Vec::new();
        while t.abs_diff(pos) > STEP {
            let next = if t > pos {
                bounds.range(pos + 1..=pos + STEP).next_back()
            } else {
                bounds.range(pos.saturating_sub(STEP)..pos).next()
            };
            let Some(&b) = next else {
                return Err(out_of_range(i64::from(t) - i64::from(at)));
            };
            let n = pools.entry(b).or_insert(0);
            mine.push((b, *n));
            *n += 1;
            pos = b;
        }
        hops.insert(at, mine);
    }
    let size = |n: u32| 4 + 4 * n;
    // Bytes inserted before `old` (a pool at `old` itself comes before it).
    let shift = |old: u32| old + pools.range(..=old).map(|(_, &n)| size(n)).sum::<u32>();
    let island = |b: u32, k: u32| shift(b) - size(pools[&b]) + 4 + 4 * k;
    let enc = |source| TranslateError::Encode {
        kernel: kernel.to_string(),
        pc: 0,
        source,
    };
    let branch = |simm: u32| -> Result<[u8; 4], TranslateError> {
        let mut b = Inst::build(host, Op::SBranch, Format::Sopp).map_err(enc)?;
        if let Some(f) = b.layout().field(F::Simm16) {
            b.bits = isa::layout::put(b.bits, f, simm);
        }
        let mut buf = [0u8; 20];
        match isa::encode(&b, &mut buf).map_err(enc)? {
            4 => Ok([buf[0], buf[1], buf[2], buf[3]]),
            _ => Err(TranslateError::Unsupported {
                kernel: kernel.to_string(),
                reason: "s_branch did not encode to 4 bytes".into(),
            }),
        }
    };
    let added: u32 = pools.values().map(|&n| size(n)).sum();
    let mut code = Vec::with_capacity(body.code.len() + added as usize);
    let mut prev = 0usize;
    let (skip, hop) = (branch(0)?, branch(0)?);
    for (&b, &n) in &pools {
        code.extend_from_slice(&body.code[prev..b as usize]);
        prev = b as usize;
        // Falling into the pool skips its n islands.
        let mut s = skip;
        s[..2].copy_from_slice(&(n as u16).to_le_bytes());
        code.extend_from_slice(&s);
        for _ in 0..n {
            code.extend_from_slice(&hop);
        }
    }
    code.extend_from_slice(&body.code[prev..]);
    let mut fixups =
        Vec::with_capacity(body.fixups.len() + hops.values().map(Vec::len).sum::<usize>());
    for f in &body.fixups {
        match *f {
            Fixup::Relative { at, target, pc } => match hops.get(&at) {
                Some(mine) => {
                    // The branch to the first island, each island to the next, the last
                    // to the target.
                    let mut from = shift(at);
                    for &(b, k) in mine {
                        let to = island(b, k);
                        fixups.push(Fixup::Local { at: from, to, pc });
                        from = to;
                    }
                    fixups.push(Fixup::Relative {
                        at: from,
                        target,
                        pc,
                    });
                }
                None => fixups.push(f.moved(shift)),
            },
            f => fixups.push(f.moved(shift)),
        }
    }
    Ok(Body {
        code,
        map: body.map.iter().map(|(&k, &v)| (k, shift(v))).collect(),
        fixups,
        entry_local: body.entry_local.map(shift),
        ..*body
    })
}
