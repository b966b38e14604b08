//! GFX12 VSAMPLE (`image_sample*`, `image_gather4*`) and VIMAGE (`image_load*`,
//! `image_store*`, `image_atomic_*`): address length, validity and the text LLVM prints. Opcodes, per-(dim, a16) address lengths and the names of the
//! descriptor operands are learned by `tools/isa-gen`; the rules here (data register
//! count, modifier order) are checked by `tests/isa_sweep.rs`.

use super::decode::{table, DecodeError, Inst};
use super::layout::{self, Layout, F};
use super::table::{Entry, Opnd};
use std::fmt::{self, Write};

/// The address fields, in order (VSAMPLE has the first four, VIMAGE all five).
const VADDR: [F; 5] = [F::Vaddr, F::Vaddr1, F::Vaddr2, F::Vaddr3, F::Vaddr4];

/// How many address fields the format has.
fn nfields(i_format: super::layout::Format) -> u32 {
    if i_format == super::layout::Format::Vimage {
        5
    } else {
        4
    }
}

/// GFX12 BVH ray intersection (`image_bvh*_intersect_ray`): the learned sizes (data
/// tuple, then the five address tuples without a16 and with it; 0: field unused, all
/// 0: no a16 form), `None` for other operations.
fn bvh(e: &Entry) -> Option<&'static [u8]> {
    (e.format == super::layout::Format::Vimage && e.addr.len() == 11).then_some(e.addr)
}

/// BVH: LLVM 22 accepts one shape only: dim 0, dmask 0xF, no d16, nv, th, scope or tfe
/// (r128 set is the operand-syntax variant; a16 where the operation has an a16 form,
/// whose unused address fields must be zero).
fn check_bvh(sizes: &[u8], lay: &Layout, bits: u128) -> Result<(), DecodeError> {
    let g = |f: F| lay.field(f).map_or(0, |fl| layout::get(bits, fl));
    let bad = |field: &'static str| DecodeError::InvalidField {
        word: bits as u32,
        offset: 0,
        field,
    };
    if g(F::Dim) != 0 {
        return Err(bad("dim"));
    }
    if g(F::Dmask) != 0xF {
        return Err(bad("dmask"));
    }
    for (f, name) in [
        (F::D16, "d16"),
        (F::Nv, "nv"),
        (F::Th, "th"),
        (F::Scope, "scope"),
        (F::Tfe, "tfe"),
    ] {
        if g(f) != 0 {
            return Err(bad(name));
        }
    }
    if g(F::A16) != 0 {
        let a = &sizes[6..11];
        if a.iter().all(|&n| n == 0) {
            return Err(bad("a16"));
        }
        for (f, &n) in VADDR.iter().zip(a) {
            if n == 0 && g(*f) != 0 {
                return Err(DecodeError::InvalidField {
                    word: (bits >> 64) as u32,
                    offset: 8,
                    field: "vaddr",
                });
            }
        }
    }
    Ok(())
}

/// BVH: data tuple, the address tuples, the resource, `a16`.
fn write_bvh(w: &mut dyn Write, i: &Inst, sizes: &[u8]) -> fmt::Result {
    w.write_char(' ')?;
    regs(w, i.field(F::Vdata), u32::from(sizes[0]))?;
    w.write_str(", [")?;
    let a16 = i.field(F::A16) != 0;
    let a = if a16 { &sizes[6..11] } else { &sizes[1..6] };
    for (j, (f, &n)) in VADDR.iter().zip(a).filter(|(_, &n)| n != 0).enumerate() {
        if j > 0 {
            w.write_str(", ")?;
        }
        regs(w, i.field(*f), u32::from(n))?;
    }
    w.write_char(']')?;
    write_descriptors(w, i)?;
    if a16 {
        w.write_str(" a16")?;
    }
    Ok(())
}

/// A gather4 with tfe and d16: LLVM 22 then prints two data registers and the address
/// as the four vaddr fields, whatever the dim (and accepts all four set).
fn gather4_tfe_d16(e: &Entry, bits: u128) -> bool {
    e.mnemonic.starts_with("image_gather4") && (bits >> 3) & 1 != 0 && (bits >> 5) & 1 != 0
}

/// A VIMAGE word LLVM 22 has no form for, which it prints with the operation's first
/// form instead: one data register (compare-and-swap two) and four address fields
/// whatever the dim. That happens when the data register count (dmask bits, halved with
/// d16, plus tfe) has no form (an atomic with more than 3; compare-and-swap fewer than
/// 2), when the registers would run past v255, and for the (dim, a16) the generator
/// found without a form of their own (bit 7 of the learned address length). VSAMPLE
/// words fall back for the last two reasons (to one data register; gather4 two). An
/// address tuple running past v255 falls back too. Returns the data register count
/// printed.
fn fallback(e: &Entry, bits: u128) -> Option<u32> {
    use super::layout::Format;
    if bvh(e).is_some() || !matches!(e.format, Format::Vimage | Format::Vsample) {
        return None;
    }
    let lay = layout::layout(true, e.format)?;
    let g = |f: F| lay.field(f).map_or(0, |fl| layout::get(bits, fl));
    let gather4 = e.mnemonic.starts_with("image_gather4");
    let n = if gather4 {
        4
    } else {
        g(F::Dmask).count_ones().max(1)
    };
    let n = if g(F::D16) != 0 { n.div_ceil(2) } else { n };
    let n = n + g(F::Tfe);
    // The address's last field holds the rest of a longer address as one tuple.
    let (na, _) = addr(e, bits);
    let nf = nfields(e.format);
    let addr_over = na > nf && g(VADDR[nf as usize - 1]) + (na - (nf - 1)) > 256;
    let over = g(F::Vdata) + n > 256 || addr_over;
    let learned = addr_raw(e, bits).0 & 0x80 != 0;
    if e.format == Format::Vsample {
        // (gather4's first form has two data registers.)
        let first = if gather4 { 2 } else { 1 };
        return (over || learned).then_some(first);
    }
    let first = if e.mnemonic == "image_atomic_cmpswap" {
        2
    } else {
        1
    };
    let atomic = e.mnemonic.starts_with("image_atomic");
    let bad_count = atomic && if first == 2 { n < 2 } else { n > 3 };
    (bad_count || over || learned).then_some(first)
}

/// The learned `[address length, fields]` pair of an instruction's dim and a16.
fn addr_raw(e: &Entry, bits: u128) -> (u32, u32) {
    let dim = (bits & 7) as usize;
    let a16 = ((bits >> 6) & 1) as usize;
    let i = 2 * (2 * dim + a16);
    match (e.addr.get(i), e.addr.get(i + 1)) {
        (Some(&n), Some(&k)) => (u32::from(n), u32::from(k)),
        _ => (0, 0),
    }
}

/// `(address VGPRs, vaddr fields that may be nonzero)` for an instruction's dim and a16.
fn addr(e: &Entry, bits: u128) -> (u32, u32) {
    let (n, k) = addr_raw(e, bits);
    (n & 0x7F, k)
}

/// LLVM rejects a dim the operation has no address form for, and nonzero vaddr fields
/// past the ones the address uses.
pub(crate) fn check(e: &Entry, lay: &Layout, bits: u128) -> Result<(), DecodeError> {
    if let Some(sizes) = bvh(e) {
        return check_bvh(sizes, lay, bits);
    }
    let w0 = bits as u32;
    let (n, k) = addr(e, bits);
    let k = if gather4_tfe_d16(e, bits) || fallback(e, bits).is_some() {
        4
    } else {
        k
    };
    if n == 0 {
        return Err(DecodeError::InvalidField {
            word: w0,
            offset: 0,
            field: "dim",
        });
    }
    for f in VADDR.iter().skip(k as usize) {
        if lay.field(*f).is_some_and(|fl| layout::get(bits, fl) != 0) {
            return Err(DecodeError::InvalidField {
                word: (bits >> 64) as u32,
                offset: 8,
                field: "vaddr",
            });
        }
    }
    Ok(())
}

fn regs(w: &mut dyn Write, first: u32, n: u32) -> fmt::Result {
    if n <= 1 {
        write!(w, "v{first}")
    } else {
        write!(w, "v[{first}:{}]", first + n - 1)
    }
}

/// Data VGPRs: one per dmask bit (gather4: four; at least one), halved (rounded up)
/// with d16, plus one with tfe.
pub(crate) fn data_regs(i: &Inst) -> u32 {
    if let Some(sizes) = bvh(i.entry()) {
        return u32::from(sizes[0]);
    }
    if gather4_tfe_d16(i.entry(), i.bits) {
        return 2;
    }
    if let Some(n) = fallback(i.entry(), i.bits) {
        return n;
    }
    let n = if i.mnemonic().starts_with("image_gather4") {
        4
    } else {
        i.field(F::Dmask).count_ones().max(1)
    };
    let n = if i.field(F::D16) != 0 {
        n.div_ceil(2)
    } else {
        n
    };
    n + u32::from(i.field(F::Tfe) != 0)
}

/// The VGPRs the address field `f` holds (0: unused), as [`write`] prints them: BVH
/// tuples of their learned sizes; otherwise one register per field, the last field
/// holding the rest of a longer address.
pub(crate) fn addr_regs(i: &Inst, f: F) -> u32 {
    let e = i.entry();
    let Some(j) = VADDR.iter().position(|x| *x == f) else {
        return 0;
    };
    if let Some(sizes) = bvh(e) {
        let a = if i.field(F::A16) != 0 {
            &sizes[6..11]
        } else {
            &sizes[1..6]
        };
        return a.get(j).map_or(0, |&n| u32::from(n));
    }
    let (n, _) = addr(e, i.bits);
    let n = if gather4_tfe_d16(e, i.bits) || fallback(e, i.bits).is_some() {
        4
    } else {
        n
    };
    let nf = nfields(i.format);
    let j = j as u32;
    if j >= n.min(nf) {
        0
    } else if j == nf - 1 && n > nf {
        n - (nf - 1)
    } else {
        1
    }
}

/// The address fields of an image instruction's format.
pub(crate) fn addr_fields(i: &Inst) -> &'static [F] {
    &VADDR[..nfields(i.format) as usize]
}

/// Writes operands and modifiers after the mnemonic.
pub(crate) fn write(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let e = i.entry();
    if let Some(sizes) = bvh(e) {
        return write_bvh(w, i, sizes);
    }
    w.write_char(' ')?;
    regs(w, i.field(F::Vdata), data_regs(i))?;
    w.write_str(", ")?;
    let (n, _) = addr(e, i.bits);
    let n = if gather4_tfe_d16(e, i.bits) || fallback(e, i.bits).is_some() {
        4
    } else {
        n
    };
    let nf = nfields(i.format);
    if n == 1 {
        regs(w, i.field(F::Vaddr), 1)?;
    } else {
        w.write_char('[')?;
        for (j, f) in VADDR.iter().enumerate().take(n.min(nf) as usize) {
            if j > 0 {
                w.write_str(", ")?;
            }
            let last = j as u32 == nf - 1 && n > nf;
            regs(w, i.field(*f), if last { n - (nf - 1) } else { 1 })?;
        }
        w.write_char(']')?;
    }
    write_descriptors(w, i)?;
    image_mods(w, i)
}

/// The resource (and sampler) descriptors, with their learned class names (SGPR
/// tuples, null, and LLVM's comments on the codes it accepts but flags).
fn write_descriptors(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let tab = table(i.target, i.wave32);
    for o in i.syntax() {
        let Opnd::Reg {
            field: field @ (F::ImgRsrc | F::ImgSamp),
            regs: nregs,
            class,
            ..
        } = *o
        else {
            continue;
        };
        w.write_str(", ")?;
        let v = i.field(field);
        if v >= 256 {
            regs(w, v - 256, u32::from(nregs))?;
            write!(
                w,
                "/*Invalid register, operand has 'SReg_{}_XNULL' register class*/",
                32 * u32::from(nregs)
            )?;
        } else {
            let c = tab.classes.get(usize::from(class));
            let s = c
                .and_then(|c| c.names.get(v as usize))
                .copied()
                .unwrap_or(0);
            w.write_str(tab.strings[usize::from(s)])?;
        }
    }
    Ok(())
}

/// dmask, dim and the modifiers.
fn image_mods(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let e = i.entry();
    let m = |p: u32| e.mods & (1 << p) != 0;
    let dmask = i.field(F::Dmask);
    if dmask != 0 {
        write!(w, " dmask:{dmask:#x}")?;
    }
    const DIM: [&str; 8] = [
        "1D",
        "2D",
        "3D",
        "CUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "2D_MSAA",
        "2D_MSAA_ARRAY",
    ];
    write!(w, " dim:SQ_RSRC_IMG_{}", DIM[i.field(F::Dim) as usize & 7])?;
    // Modifier probes: 0 tfe, 1 d16, 2 a16, 3 nv, 4 unorm, 5 lwe, 6 th, 7 scope.
    let flag = |w: &mut dyn Write, f: F, p: u32, name: &str| -> fmt::Result {
        if m(p) && i.field(f) != 0 {
            w.write_char(' ')?;
            w.write_str(name)?;
        }
        Ok(())
    };
    flag(w, F::Unorm, 4, "unorm")?;
    super::sym::th_scope(w, i)?;
    flag(w, F::Nv, 3, "nv")?;
    if i.field(F::R128) != 0 {
        w.write_str(" r128")?;
    }
    flag(w, F::A16, 2, "a16")?;
    flag(w, F::Tfe, 0, "tfe")?;
    flag(w, F::Lwe, 5, "lwe")?;
    flag(w, F::D16, 1, "d16")
}
