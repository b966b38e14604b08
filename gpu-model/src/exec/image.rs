//! Image instructions without a sampler (GFX9 MIMG, GFX12 VIMAGE): `image_load*`,
//! `image_store*`, `image_atomic_*` and `image_get_resinfo`, on LINEAR images described
//! by the resource descriptor ([`desc`]).
//!
//! Operands. The address is a list of 32-bit VGPRs (GFX9: consecutive from `vaddr`;
//! GFX12: `vaddr0`..`vaddr4`), or with `a16` 16-bit values two per VGPR, low half first.
//! It holds the coordinates the image TYPE has (GFX9 reads as many as the descriptor's
//! TYPE needs: x; x, y; x, y, z; x, y, face; x, slice; x, y, slice; GFX12 as many as the
//! instruction's `dim` says, which must name the descriptor's TYPE), then the mip level
//! for the `_mip` forms (relative to BASE_LEVEL), unsigned. The data tuple holds one
//! register per `dmask` bit (x, y, z, w channels in order), halved with `d16` (two values
//! per register, low half first, the unwritten half of an odd count's last register
//! kept), plus one status register with `tfe`/`lwe`.
//!
//! Semantics (ISA guides: "IMAGE_LOAD: image memory load with format conversion
//! specified in T#. No sampler."; `_pck`: "no format conversion"; `_pck_sgn`: "no format
//! conversion and sign extension"; `IMAGE_STORE`: "with format conversion specified in
//! T#"; RDNA4 pseudocode of the atomics, `addr = CalcImageAddr(v_addr.b128); tmp =
//! MEM[addr].u32; ...; RETURN_DATA.u32 = tmp`; Southern Islands ISA `IMAGE_GET_RESINFO`:
//! "returns 4 integer values into VGPRs 3-0: {num_mip_levels, depth, height, width}"):
//! - loads convert the texel's components ([`super::format`]) and route them through the
//!   descriptor's DST_SEL to the x, y, z, w channels; `dmask` picks the channels written.
//!   The `_pck` forms move each component's raw bits zero-extended (`_sgn`:
//!   sign-extended) instead of converting them.
//! - stores write the texel's components from the channels (`_pck`: raw bits, truncated).
//! - atomics act on a 32-bit texel (`dmask` 0x1; compare-and-swap 0x3: data, compare) or
//!   a 64-bit one (0x3; compare-and-swap 0xf), and return the old value with `glc` /
//!   `th[0]`.
//! - `image_get_resinfo` returns, for the level given by the address, the width, height,
//!   depth (3D: of the level; arrays and cubes: the layers BASE_ARRAY..=DEPTH) and the
//!   number of levels BASE_LEVEL..=LAST_LEVEL, as `dmask` picks.
//!
//! Decisions where the guides are silent: `dmask` 0 acts as 0x1 for loads (LLVM counts
//! one data register for it); the status register (no partially resident textures here)
//! is 0; an out-of-range texel loads as an all-zero texel (then the selects apply), and is
//! neither stored nor atomically updated (returning 0); a store must write every
//! component of the format through identity selects (channels beyond the format are
//! ignored), anything else is refused; atomics need uint/sint/float texels of exactly the
//! data width; an unbound descriptor ([`desc`]) loads 0 into every data register.

use super::format::Num;
use super::inst::{Img, Inst, Mem};
use super::tbuf::{read_element, write_element};
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;
use crate::memory::AtomicOp;

mod desc;

use desc::Desc;

/// What an image operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `mip`: the address ends with a level; `raw`: `_pck` (with `sgn`: `_pck_sgn`).
    Load {
        mip: bool,
        raw: bool,
        sgn: bool,
    },
    Store {
        mip: bool,
        raw: bool,
    },
    Atomic(AtomicOp),
    Resinfo,
}

fn kind(op: Op) -> Option<Kind> {
    use Op::*;
    let load = |mip, raw, sgn| Kind::Load { mip, raw, sgn };
    Some(match op {
        ImageLoad => load(false, false, false),
        ImageLoadMip => load(true, false, false),
        ImageLoadPck => load(false, true, false),
        ImageLoadPckSgn => load(false, true, true),
        ImageLoadMipPck => load(true, true, false),
        ImageLoadMipPckSgn => load(true, true, true),
        ImageStore => Kind::Store {
            mip: false,
            raw: false,
        },
        ImageStoreMip => Kind::Store {
            mip: true,
            raw: false,
        },
        ImageStorePck => Kind::Store {
            mip: false,
            raw: true,
        },
        ImageStoreMipPck => Kind::Store {
            mip: true,
            raw: true,
        },
        ImageGetResinfo => Kind::Resinfo,
        ImageAtomicSwap => Kind::Atomic(AtomicOp::Swap),
        ImageAtomicCmpswap => Kind::Atomic(AtomicOp::CmpSwap),
        ImageAtomicAdd | ImageAtomicAddUint => Kind::Atomic(AtomicOp::Add),
        ImageAtomicSub | ImageAtomicSubUint => Kind::Atomic(AtomicOp::Sub),
        ImageAtomicSmin | ImageAtomicMinInt => Kind::Atomic(AtomicOp::MinS),
        ImageAtomicUmin | ImageAtomicMinUint => Kind::Atomic(AtomicOp::MinU),
        ImageAtomicSmax | ImageAtomicMaxInt => Kind::Atomic(AtomicOp::MaxS),
        ImageAtomicUmax | ImageAtomicMaxUint => Kind::Atomic(AtomicOp::MaxU),
        ImageAtomicAnd => Kind::Atomic(AtomicOp::And),
        ImageAtomicOr => Kind::Atomic(AtomicOp::Or),
        ImageAtomicXor => Kind::Atomic(AtomicOp::Xor),
        ImageAtomicInc | ImageAtomicIncUint => Kind::Atomic(AtomicOp::IncWrap),
        ImageAtomicDec | ImageAtomicDecUint => Kind::Atomic(AtomicOp::DecWrap),
        ImageAtomicAddFlt => Kind::Atomic(AtomicOp::FAdd),
        ImageAtomicMinFlt => Kind::Atomic(AtomicOp::FMinNum),
        ImageAtomicMaxFlt => Kind::Atomic(AtomicOp::FMaxNum),
        ImageAtomicPkAddF16 => Kind::Atomic(AtomicOp::PkAddF16),
        ImageAtomicPkAddBf16 => Kind::Atomic(AtomicOp::PkAddBf16),
        _ => return None,
    })
}

/// The address values of lane `l`: coordinate/level `k` of `n`.
fn address(w: &Wave, m: &Mem, l: usize, n: usize) -> [u32; 5] {
    let img = &m.img;
    let reg = |k: usize| -> u32 {
        let r = if img.has(Img::NSA) {
            match k {
                0 => m.vaddr as usize,
                _ => img.vaddr.get(k - 1).map_or(0, |&v| v as usize),
            }
        } else {
            m.vaddr as usize + k
        };
        w.vgpr(r, l)
    };
    let mut a = [0u32; 5];
    for (k, v) in a.iter_mut().enumerate().take(n) {
        *v = if img.has(Img::A16) {
            (reg(k / 2) >> (16 * (k % 2))) & 0xffff
        } else {
            reg(k)
        };
    }
    a
}

/// Data registers of `channels` values (`d16`: two per register).
fn data_regs(channels: u32, d16: bool) -> usize {
    if d16 {
        channels.div_ceil(2) as usize
    } else {
        channels as usize
    }
}

/// Writes value `v` of channel slot `j` of lane `l` (d16: into its half).
fn put(w: &mut Wave, base: usize, l: usize, j: usize, v: u32, d16: bool) {
    if d16 {
        let (r, sh) = (base + j / 2, 16 * (j % 2) as u32);
        let old = w.vgpr(r, l) & !(0xffff << sh);
        w.set_vgpr(r, l, old | (v & 0xffff) << sh);
    } else {
        w.set_vgpr(base + j, l, v);
    }
}

/// Reads value slot `j` of lane `l` (d16: its half).
fn get(w: &Wave, base: usize, l: usize, j: usize, d16: bool) -> u32 {
    if d16 {
        (w.vgpr(base + j / 2, l) >> (16 * (j % 2))) & 0xffff
    } else {
        w.vgpr(base + j, l)
    }
}

/// Executes an image instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    let Some(k) = kind(i.op) else {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    };
    let target = ctx.prog.target();
    let family = target.family();
    let m = i.mem;
    let img = m.img;
    let d16 = img.has(Img::D16);
    let dmask = if img.dmask == 0 {
        1
    } else {
        u32::from(img.dmask)
    };
    let channels = dmask.count_ones();
    let vdata = m.data as usize;
    let exec = w.exec();
    w.counters.vm += 1;
    let desc = desc::read(w, i, family, target)?;
    let Some(d) = desc else {
        // Unbound: loads and resinfo read zeros, nothing else happens.
        if matches!(k, Kind::Load { .. } | Kind::Resinfo) {
            let regs = data_regs(channels, d16) + usize::from(img.has(Img::STATUS));
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                for j in 0..channels as usize {
                    put(w, vdata, l, j, 0, d16);
                }
                if img.has(Img::STATUS) {
                    w.set_vgpr(vdata + regs - 1, l, 0);
                }
            }
        }
        return Ok(());
    };
    if family == crate::Family::Gfx12 && d.ty != 8 + img.dim {
        return Err(FaultReason::UnsupportedForm(
            "image instruction dim differs from the resource's type",
        ));
    }
    let ncoord = desc::coords(d.ty);
    match k {
        Kind::Resinfo => resinfo(w, &m, &d, dmask, d16, exec),
        Kind::Load { mip, raw, sgn } => {
            load_texels(w, ctx, i, &d, (ncoord, mip), (raw, sgn), dmask, exec)
        }
        Kind::Store { mip, raw } => store_texels(w, ctx, i, &d, (ncoord, mip), raw, dmask, exec),
        Kind::Atomic(op) => atomic(w, ctx, i, &d, ncoord, op, exec),
    }
}

/// Lane `l`'s texel address: coordinates, then the level (`mip`).
fn texel(w: &Wave, m: &Mem, d: &Desc, l: usize, (ncoord, mip): (usize, bool)) -> Option<u64> {
    let a = address(w, m, l, ncoord + usize::from(mip));
    let level = if mip {
        d.base_level.checked_add(a[ncoord])?
    } else {
        d.base_level
    };
    d.texel([a[0], a[1], a[2]], level)
}

fn observe(
    ctx: &mut ExecCtx<'_>,
    m: &Mem,
    kind: AccessKind,
    bytes: usize,
    seen: u64,
    a: &[u64; LANES],
) {
    if let Some(obs) = ctx.observer.as_deref_mut() {
        obs.access(&MemRecord {
            kind,
            bytes: bytes as u32,
            policy: m.policy,
            exec: seen,
            addrs: a,
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn load_texels(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    d: &Desc,
    addr: (usize, bool),
    (raw, sgn): (bool, bool),
    dmask: u32,
    exec: u64,
) -> Result<(), FaultReason> {
    let m = &i.mem;
    let d16 = m.img.has(Img::D16);
    let f = &d.fmt;
    // Validate the channels first: nothing is written when one is refused.
    for ch in (0..4).filter(|c| dmask >> c & 1 != 0) {
        match d.sel[ch] {
            0 | 1 => {}
            s @ 4..=7 if usize::from(s - 4) < f.n => {
                let c = usize::from(s - 4);
                if raw {
                    if d16 && f.bits[c] > 16 {
                        return Err(FaultReason::UnsupportedForm(
                            "d16 image_load_pck of a component wider than 16 bits",
                        ));
                    }
                } else {
                    f.check(c, d16, false)?;
                }
            }
            _ => {
                return Err(FaultReason::UnsupportedForm(
                    "image load whose destination select names a component the format \
                     lacks (or a reserved select)",
                ))
            }
        }
    }
    let vdata = m.data as usize;
    let channels = dmask.count_ones();
    let status = data_regs(channels, d16);
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let mut e = [0u8; 16];
        if let Some(a) = texel(w, m, d, l, addr) {
            read_element(w, ctx, l, a, &mut e[..f.bytes])?;
            addrs[l] = a;
            seen |= 1 << l;
        }
        for (j, ch) in (0..4).filter(|c| dmask >> c & 1 != 0).enumerate() {
            let v = match d.sel[ch] {
                0 => 0,
                1 => f.one(d16),
                s => {
                    let c = usize::from(s - 4);
                    let r = f.raw(&e, c);
                    match (raw, d16) {
                        (true, _) if sgn => {
                            let b = u32::from(f.bits[c]);
                            ((r << (32 - b)) as i32 >> (32 - b)) as u32
                        }
                        (true, _) => r,
                        (false, true) => u32::from(f.load16(c, r)),
                        (false, false) => f.load32(c, r),
                    }
                }
            };
            put(w, vdata, l, j, v, d16);
        }
        if m.img.has(Img::STATUS) {
            w.set_vgpr(vdata + status, l, 0);
        }
    }
    observe(ctx, m, AccessKind::Load, f.bytes, seen, &addrs);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn store_texels(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    d: &Desc,
    addr: (usize, bool),
    raw: bool,
    dmask: u32,
    exec: u64,
) -> Result<(), FaultReason> {
    let m = &i.mem;
    let d16 = m.img.has(Img::D16);
    let f = &d.fmt;
    let full = (1u32 << f.n) - 1;
    if dmask & full != full || d.sel[..f.n] != [4, 5, 6, 7][..f.n] {
        return Err(FaultReason::UnsupportedForm(
            "image store that leaves a component of the format unwritten (dmask) or \
             through non-identity destination selects",
        ));
    }
    for c in 0..f.n {
        if raw {
            if d16 && f.bits[c] > 16 {
                return Err(FaultReason::UnsupportedForm(
                    "d16 image_store_pck to a component wider than 16 bits",
                ));
            }
        } else {
            f.check(c, d16, true)?;
        }
    }
    let vdata = m.data as usize;
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let Some(a) = texel(w, m, d, l, addr) else {
            continue;
        };
        let mut e = [0u8; 16];
        // Channels are consecutive from x (dmask covers the format's components), so
        // component `c` is data slot `c`.
        for c in 0..f.n {
            let v = get(w, vdata, l, c, d16);
            let r = match (raw, d16) {
                (true, _) => v & super::format::mask(u32::from(f.bits[c])),
                (false, true) => f.store16(c, v as u16),
                (false, false) => f.store32(c, v),
            };
            f.put(&mut e, c, r);
        }
        write_element(w, ctx, l, a, &e[..f.bytes])?;
        addrs[l] = a;
        seen |= 1 << l;
    }
    observe(ctx, m, AccessKind::Store, f.bytes, seen, &addrs);
    Ok(())
}

fn atomic(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    d: &Desc,
    ncoord: usize,
    op: AtomicOp,
    exec: u64,
) -> Result<(), FaultReason> {
    let m = &i.mem;
    let cmpswap = op == AtomicOp::CmpSwap;
    let wide = match (m.img.dmask, cmpswap) {
        (0x1, false) | (0x3, true) => false,
        (0x3, false) | (0xf, true) => true,
        _ => {
            return Err(FaultReason::UnsupportedForm(
                "image atomic with a dmask other than one 32- or 64-bit value",
            ))
        }
    };
    let f = &d.fmt;
    let bytes = if wide { 8 } else { 4 };
    let float = matches!(
        op,
        AtomicOp::FAdd
            | AtomicOp::FMinNum
            | AtomicOp::FMaxNum
            | AtomicOp::PkAddF16
            | AtomicOp::PkAddBf16
    );
    let num_ok = if float {
        f.num == Num::Float || matches!(op, AtomicOp::PkAddF16 | AtomicOp::PkAddBf16)
    } else {
        matches!(f.num, Num::Uint | Num::Sint)
    };
    if f.bytes != bytes || !num_ok || (float && wide) {
        return Err(FaultReason::UnsupportedForm(
            "image atomic on a texel other than a uint/sint (float) value of the data width",
        ));
    }
    let vdata = m.data as usize;
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let rd = |k: usize| w.vgpr(vdata + k, l) as u64;
        let (src, cmp) = match (wide, cmpswap) {
            (false, false) => (rd(0), 0),
            (false, true) => (rd(0), rd(1)),
            (true, false) => (rd(0) | rd(1) << 32, 0),
            (true, true) => (rd(0) | rd(1) << 32, rd(2) | rd(3) << 32),
        };
        let mut old = 0u64;
        if let Some(a) = texel(w, m, d, l, (ncoord, false)) {
            let memf = |fault| FaultReason::Memory {
                lane: l as u32,
                fault,
            };
            old = if wide {
                ctx.mem.atomic_u64(a, op, src, cmp).map_err(memf)?
            } else {
                u64::from(
                    ctx.mem
                        .atomic_u32(a, op, src as u32, cmp as u32)
                        .map_err(memf)?,
                )
            };
            addrs[l] = a;
            seen |= 1 << l;
        }
        if m.has(Mem::RETURN) {
            w.set_vgpr(vdata, l, old as u32);
            if wide {
                w.set_vgpr(vdata + 1, l, (old >> 32) as u32);
            }
        }
    }
    observe(ctx, m, AccessKind::Atomic, bytes, seen, &addrs);
    Ok(())
}

/// `image_get_resinfo` (see the module doc).
fn resinfo(
    w: &mut Wave,
    m: &Mem,
    d: &Desc,
    dmask: u32,
    d16: bool,
    exec: u64,
) -> Result<(), FaultReason> {
    let vdata = m.data as usize;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let a = address(w, m, l, 1);
        let level = d.base_level.saturating_add(a[0]);
        let (lw, lh, ld) = d.extent(level);
        let depth = match d.ty {
            10 => ld,
            11..=13 => (d.depth + 1).saturating_sub(d.base_array),
            _ => 1,
        };
        let levels = (d.last_level + 1).saturating_sub(d.base_level);
        let info = [lw, lh, depth, levels];
        for (j, ch) in (0..4).filter(|c| dmask >> c & 1 != 0).enumerate() {
            put(w, vdata, l, j, info[ch], d16);
        }
    }
    Ok(())
}
