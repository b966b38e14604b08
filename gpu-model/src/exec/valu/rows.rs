//! VALU operand access: source rows (with SDWA/DPP), result writes under EXEC, and the
//! in-place chunk loop that most 32-bit operations run on.
//!
//! In place: lane `l` of a result depends only on lane `l` of the sources, so the loop
//! reads one chunk of [`CH`] lanes of every source, computes that chunk in registers and
//! writes it straight into the destination row. Reading a chunk of every source before
//! writing it keeps this correct when the destination is also a source, and no 256-byte
//! result row is built on the stack and copied (a profile of the ALU loop showed 17% of
//! the time in those copies). Chunks with no EXEC lane are skipped (the upper half of a
//! wave32 costs nothing). Sources that are not a plain VGPR row (constants, SDWA selects,
//! DPP permutations, which read other lanes) are staged in spare rows first
//! ([`operands`]), so the loop reads every source the same way.

use crate::exec::inst::Unit;
use crate::exec::inst::{Inst, Sub};
use crate::exec::lane;
use crate::exec::wave::{Wave, LANES, OPERAND_ROWS};

pub(crate) type Row = [u32; LANES];
pub(crate) type Row64 = [u64; LANES];

/// Lanes per step of the in-place loop: 16 dwords, one 512-bit vector (four 128-bit
/// ones), small enough to stay in registers.
pub(crate) const CH: usize = 16;

/// One chunk of lanes.
pub(crate) type Chunk = [u32; CH];

/// `[f(0), .., f(CH - 1)]`, always inlined: `std::array::from_fn` is not always, and an
/// outlined call per chunk costs more than the lanes it computes.
#[inline(always)]
pub(crate) fn each<T: Copy + Default>(mut f: impl FnMut(usize) -> T) -> [T; CH] {
    let mut r = [T::default(); CH];
    for (k, x) in r.iter_mut().enumerate() {
        *x = f(k);
    }
    r
}

/// Whether this CPU runs the AVX2+FMA builds of the in-place kernels ([`wide`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_avx2_fma() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

/// Defines a lane kernel twice, as a baseline build and (x86-64) an AVX2+FMA build chosen
/// at run time (the same source, so the same results: Rust never contracts `a * b + c`).
///
/// Why: the crate is compiled for baseline x86-64 (SSE2: 4 lanes a vector op, no
/// per-lane variable shifts, no 32-bit vector multiply, `mul_add` a libm call); the
/// kernels are where the lanes are, and the closures they take inline into either build.
macro_rules! wide {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn avx2($($arg: $ty),*) {
                body($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            {
                if $crate::exec::valu::rows::has_avx2_fma() {
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    return unsafe { avx2($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}
pub(crate) use wide;

/// A source of an in-place operation: a register file row, either the VGPR it names or
/// one of the [`OPERAND_ROWS`] where [`operands`] staged it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opnd(pub(crate) usize);

impl Opnd {
    /// Lanes `CH * c ..` of the operand.
    #[inline(always)]
    pub(crate) fn chunk(self, w: &Wave, c: usize) -> Chunk {
        w.v[self.0].as_chunks::<CH>().0[c]
    }

    /// `v` in every lane, staged in operand row `n` (which no other source of the
    /// instruction may use).
    #[inline(always)]
    pub(crate) fn splat(w: &mut Wave, n: usize, v: u32) -> Opnd {
        w.v[OPERAND_ROWS + n] = [v; LANES];
        Opnd(OPERAND_ROWS + n)
    }
}

/// Resolves sources `0..N` of `i` for the in-place loop, so that every one is a row the
/// loop reads without a branch: a VGPR source is read where it is; a constant, an SDWA
/// select or a DPP permutation is staged in operand row `n` (writing a 256-byte row costs
/// less than deciding per chunk). Returns them with the lanes that write: EXEC, narrowed
/// by the DPP row/bank masks and bound_ctrl.
#[inline(always)]
pub(crate) fn operands<const N: usize>(w: &mut Wave, i: &Inst) -> ([Opnd; N], u64) {
    let mut exec = w.exec();
    let mut ops = [Opnd(0); N];
    for (n, o) in ops.iter_mut().enumerate() {
        let c = i.src[n];
        let sdwa = i.sub == Sub::Sdwa && n < 2;
        *o = if n == 0 && matches!(i.sub, Sub::Dpp | Sub::Dpp8 | Sub::Dpp8Fi) {
            exec &= stage_dpp(w, i);
            Opnd(OPERAND_ROWS)
        } else if sdwa {
            stage_sdwa(w, i, n)
        } else if c >= 256 {
            Opnd((c - 256) as usize)
        } else {
            let v = w.sread(c, i.lit);
            Opnd::splat(w, n, v)
        };
    }
    (ops, exec)
}

/// Permutes DPP source 0 into operand row 0; returns the DPP write mask.
#[inline(never)]
fn stage_dpp(w: &mut Wave, i: &Inst) -> u64 {
    let (r, en) = src(w, i, 0);
    w.v[OPERAND_ROWS] = r;
    en
}

/// SDWA source `n` (0 or 1) with its select applied, in operand row `n` (a whole-dword
/// select of a VGPR is read in place).
#[inline(never)]
fn stage_sdwa(w: &mut Wave, i: &Inst, n: usize) -> Opnd {
    let c = i.src[n];
    let sel = (i.ctl >> if n == 0 { 16 } else { 24 }) & 7;
    if c >= 256 && sel >= 6 {
        return Opnd((c - 256) as usize);
    }
    let (r, _) = src(w, i, n);
    w.v[OPERAND_ROWS + n] = r;
    Opnd(OPERAND_ROWS + n)
}

/// The in-place loop: for every chunk `c` with a lane in `exec`, computes `f(w, c)` and
/// writes it into row `dst` under `exec`, through the SDWA destination select when `i`
/// has one other than DWORD.
#[inline(always)]
pub(crate) fn lanes(
    w: &mut Wave,
    i: &Inst,
    dst: usize,
    exec: u64,
    mut f: impl FnMut(&Wave, usize) -> Chunk,
) {
    if i.sub == Sub::Sdwa && (i.ctl >> 8) & 7 < 6 {
        // A separate loop, so that the select's masks are not set up for every other
        // instruction.
        for c in 0..LANES / CH {
            let m = (exec >> (c * CH)) as u16;
            if m != 0 {
                let r = f(w, c);
                let d = &mut w.v[dst].as_chunks_mut::<CH>().0[c];
                for k in 0..CH {
                    if m >> k & 1 != 0 {
                        d[k] = lane::sdwa_dst(r[k], d[k], i.ctl);
                    }
                }
            }
        }
        return;
    }
    for c in 0..LANES / CH {
        let m = (exec >> (c * CH)) as u16;
        if m == 0 {
            continue;
        }
        let r = f(w, c);
        let d = &mut w.v[dst].as_chunks_mut::<CH>().0[c];
        if m == u16::MAX {
            *d = r;
        } else {
            for k in 0..CH {
                d[k] = if m >> k & 1 != 0 { r[k] } else { d[k] };
            }
        }
    }
}

/// Float input modifiers of source `n` as bit masks: `(x & and) ^ xor`.
#[inline(always)]
pub(crate) fn fmods(i: &Inst, n: usize) -> (u32, u32) {
    let and = if i.abs >> n & 1 != 0 {
        0x7fff_ffff
    } else {
        u32::MAX
    };
    let xor = if i.neg >> n & 1 != 0 { 0x8000_0000 } else { 0 };
    (and, xor)
}

/// Applies omod/clamp to a finished f32 chunk, only when the instruction has them.
#[inline(always)]
pub(crate) fn finish32(i: &Inst, r: &mut Chunk) {
    if i.omod != 0 || i.clamp {
        for x in r.iter_mut() {
            *x = crate::exec::float::out32(f32::from_bits(*x), i.omod, i.clamp).to_bits();
        }
    }
}

/// Source `n` as a 32-bit row, with SDWA/DPP applied. Returns the DPP write mask too.
#[inline(always)]
pub(crate) fn src(w: &Wave, i: &Inst, n: usize) -> (Row, u64) {
    let c = i.src[n];
    let mut r = if c >= 256 {
        w.v[(c - 256) as usize]
    } else {
        [w.sread(c, i.lit); LANES]
    };
    let mut en = u64::MAX;
    match i.sub {
        Sub::None => {}
        Sub::Sdwa => lane::sdwa_src(&mut r, i, n),
        Sub::Dpp if n == 0 => en = lane::dpp_src(w, &mut r, i),
        Sub::Dpp8 | Sub::Dpp8Fi if n == 0 => lane::dpp8_src(w, &mut r, i),
        Sub::Dpp | Sub::Dpp8 | Sub::Dpp8Fi => {}
    }
    (r, en)
}

/// Source `n` of a packed 16-bit float operand of a VOP2/VOP3 operation (`v_pk_fmac_f16`,
/// the `v_dot2c`/`v_dot2acc` forms, GFX12 `v_dot2_f16_f16`): an SGPR, literal or integer
/// constant as [`src`], a float inline constant as `k` says (the f16 or bf16 value in the
/// low half: [`crate::exec::vop3p::Consts`]).
#[inline(always)]
pub(crate) fn src_pk(w: &Wave, i: &Inst, n: usize, k: crate::exec::vop3p::Consts) -> (Row, u64) {
    let c = i.src[n];
    if (240..=248).contains(&c) {
        (
            [crate::exec::vop3p::sread_pk(w, c, i.lit, k); LANES],
            u64::MAX,
        )
    } else {
        src(w, i, n)
    }
}

/// Source `n` as a 16-bit row (op_sel picks the high half: VOP3, or any GFX12 encoding).
#[inline(always)]
pub(crate) fn src16(w: &Wave, i: &Inst, n: usize) -> (Row, u64) {
    let c = i.src[n];
    let hi = (i.unit == Unit::Vop3 || i.t16) && i.op_sel >> n & 1 != 0;
    let (mut r, en) = if c >= 256 {
        src(w, i, n)
    } else {
        ([w.sread16(c, i.lit); LANES], u64::MAX)
    };
    for v in r.iter_mut() {
        *v = if hi { *v >> 16 } else { *v & 0xffff };
    }
    (r, en)
}

/// Source `n` as a 64-bit row (`float`: f64 inline constants / literal in the high dword).
#[inline(always)]
pub(crate) fn src64(w: &Wave, i: &Inst, n: usize, float: bool) -> Row64 {
    let c = i.src[n];
    if c >= 256 {
        let r = (c - 256) as usize;
        let (lo, hi) = (&w.v[r], &w.v[r + 1]);
        std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
    } else {
        [w.sread64(c, i.lit, float); LANES]
    }
}

/// Writes a 32-bit result row under EXEC (and `en`), applying the SDWA destination select.
#[inline(always)]
pub(crate) fn put(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    let exec = w.exec() & en;
    let dst = i.dst as usize;
    let row = &mut w.v[dst];
    if i.sub == Sub::Sdwa {
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                row[l] = lane::sdwa_dst(r[l], row[l], i.ctl);
            }
        }
    } else if exec == u64::MAX {
        *row = *r;
    } else {
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                row[l] = r[l];
            }
        }
    }
}

/// Writes a 64-bit result row (a VGPR pair) under EXEC.
#[inline(always)]
pub(crate) fn put64(w: &mut Wave, dst: usize, r: &Row64) {
    let exec = w.exec();
    // Both rows at once, so the lane loop has no per-lane bounds checks (a pair past the
    // register file cannot be named: the rows after the last AGPR are slack).
    let Ok([lo, hi]) = w.v.get_disjoint_mut([dst, dst + 1]) else {
        return;
    };
    for (l, &x) in r.iter().enumerate() {
        let on = exec >> l & 1 != 0;
        lo[l] = if on { x as u32 } else { lo[l] };
        hi[l] = if on { (x >> 32) as u32 } else { hi[l] };
    }
}

/// Writes a 16-bit result: with op_sel[3] (VOP3, or any GFX12 encoding) the high half,
/// preserving the low one; otherwise the low half, zeroing the high half on GFX9 and
/// preserving it on GFX12 (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`: "On gfx10, all
/// 16-bit instructions preserve the high bits").
#[inline(always)]
pub(crate) fn put16(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    if (i.unit == Unit::Vop3 || i.t16) && i.op_sel & 8 != 0 {
        let old = w.v[i.dst as usize];
        let merged: Row = std::array::from_fn(|l| (old[l] & 0xffff) | (r[l] & 0xffff) << 16);
        put(w, i, &merged, en);
    } else if i.t16 {
        let old = w.v[i.dst as usize];
        let merged: Row = std::array::from_fn(|l| (old[l] & 0xffff_0000) | (r[l] & 0xffff));
        put(w, i, &merged, en);
    } else {
        let lo: Row = std::array::from_fn(|l| r[l] & 0xffff);
        put(w, i, &lo, en);
    }
}

/// Writes a 16-bit result into the half `op_sel[3]` names (VOP3, or any GFX12
/// encoding), keeping the other half, on both families. [`put16`] zeroes the high half on
/// GFX9 for the GFX8-era operations (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest` lists
/// them, "mostly derived from experimentation": `v_add_f16`, `v_mad_legacy_f16`, ...);
/// the 16-bit operations gfx9 added with `op_sel` (`v_mad_f16`, `v_fma_f16`,
/// `v_div_fixup_f16`, `v_mad_u16/i16`, `v_min3/max3/med3_*16`, ...) are not in that list
/// and write only their half ("In gfx9, ... Some instructions changed to preserving the
/// high bits", same source).
#[inline(always)]
pub(crate) fn put16_keep(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    let hi = (i.unit == Unit::Vop3 || i.t16) && i.op_sel & 8 != 0;
    let old = w.v[i.dst as usize % w.v.len()];
    let merged: Row = std::array::from_fn(|l| {
        if hi {
            (old[l] & 0xffff) | (r[l] & 0xffff) << 16
        } else {
            (old[l] & 0xffff_0000) | (r[l] & 0xffff)
        }
    });
    put(w, i, &merged, en);
}

/// Lane mask of a per-lane predicate over active lanes.
#[inline(always)]
pub(crate) fn mask_of(w: &Wave, f: impl Fn(usize) -> bool) -> u64 {
    let exec = w.exec();
    let mut m = 0u64;
    for l in 0..LANES {
        m |= (f(l) as u64) << l;
    }
    m & exec
}
