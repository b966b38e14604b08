//! Lane permutes assembled by llvm-mc-22 and run in the executor, checked lane by lane
//! against CPU references written from the ISA guides: GFX12 `v_permlane16_b32`,
//! `v_permlanex16_b32`, `v_permlane16_var_b32`, `v_permlanex16_var_b32` (RDNA3/RDNA4 ISA
//! guides; FI = OP_SEL[0], BOUND_CTRL = OP_SEL[1]) in wave32 and wave64, with a partial
//! EXEC, and gfx950 `v_permlane16_swap_b32` / `v_permlane32_swap_b32` (CDNA4 ISA guide,
//! LLVM `llvm.amdgcn.permlane{16,32}.swap`: odd rows of vdst swap with even rows of src0;
//! rows 2-3 of vdst with rows 0-1 of src0).

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::Target;

const SENTINEL: u32 = 0xdead_0000;

/// (asm, cross row, var select, fi, bound_ctrl, destination VGPR)
const GFX12_CASES: &[(&str, bool, bool, bool, bool, usize)] = &[
    (
        "v_permlane16_b32 v1, v0, s0, s1",
        false,
        false,
        false,
        false,
        1,
    ),
    (
        "v_permlanex16_b32 v2, v0, s0, s1 op_sel:[1,0]",
        true,
        false,
        true,
        false,
        2,
    ),
    (
        "v_permlane16_b32 v3, v0, s0, s1 op_sel:[0,1]",
        false,
        false,
        false,
        true,
        3,
    ),
    (
        "v_permlane16_var_b32 v4, v0, v10",
        false,
        true,
        false,
        false,
        4,
    ),
    (
        "v_permlanex16_var_b32 v5, v0, v10 op_sel:[0,1]",
        true,
        true,
        false,
        true,
        5,
    ),
    (
        "v_permlanex16_var_b32 v6, v0, v10 op_sel:[1,1]",
        true,
        true,
        true,
        true,
        6,
    ),
    (
        "v_permlanex16_b32 v7, v0, s0, s1",
        true,
        false,
        false,
        false,
        7,
    ),
    // A literal select (as Triton's reductions use it: with s0 = 0x76543210 it reverses
    // each row) and inline constants.
    (
        "v_permlanex16_b32 v8, v0, s3, 0xfedcba98 op_sel:[1,0]",
        true,
        false,
        true,
        false,
        8,
    ),
    (
        "v_permlane16_b32 v9, v0, -1, 0",
        false,
        false,
        false,
        false,
        9,
    ),
];

/// The select value `{src2, src1}` of a non-`_var` case.
fn selects(text: &str, s0: u32, s1: u32) -> u64 {
    if text.contains("0xfedcba98") {
        0xfedc_ba98_7654_3210u64
    } else if text.contains("-1, 0") {
        0xffff_ffff
    } else {
        s0 as u64 | (s1 as u64) << 32
    }
}

fn src0(l: usize) -> u32 {
    0x100 + 3 * l as u32
}

/// The reference: lane `l` (active) of row `r` reads src0 lane `16 * r' + sel` with
/// `r' = r` or `r ^ 1` (the other row of the same 32-lane half); `sel` is nibble `l % 16`
/// of `{s1, s0}`, or bits 3:0 of v10[l]. A source lane outside EXEC is read anyway with FI,
/// gives 0 with BOUND_CTRL, else the destination lane keeps its value; inactive lanes
/// keep theirs.
#[allow(clippy::too_many_arguments)]
fn reference(
    l: usize,
    exec: u64,
    sel64: u64,
    v10: u32,
    cross: bool,
    var: bool,
    fi: bool,
    bound: bool,
) -> u32 {
    let keep = SENTINEL | l as u32;
    if exec >> l & 1 == 0 {
        return keep;
    }
    let sel = if var {
        (v10 & 0xf) as usize
    } else {
        ((sel64 >> (4 * (l % 16))) & 0xf) as usize
    };
    let row = if cross { (l / 16) ^ 1 } else { l / 16 };
    let s = 16 * row + sel;
    if fi || exec >> s & 1 != 0 {
        src0(s)
    } else if bound {
        0
    } else {
        keep
    }
}

fn gfx12(target: Target, wave_size: u32, exec: u64) {
    let src: Vec<&str> = GFX12_CASES.iter().map(|c| c.0).collect();
    let code = asm::assemble(target, &src.join("\n"));
    let (s0, s1) = (asm::hash(1), asm::hash(2));
    let lanes = wave_size as usize;
    let v10 = |l: usize| asm::hash(100 + l as u32);
    let w = asm::run(target, wave_size, &code, |w: &mut Wave| {
        w.set_sgpr(0, s0);
        w.set_sgpr(1, s1);
        w.set_sgpr(3, 0x7654_3210);
        for l in 0..lanes {
            w.set_vgpr(0, l, src0(l));
            w.set_vgpr(10, l, v10(l));
            for c in GFX12_CASES {
                w.set_vgpr(c.5, l, SENTINEL | l as u32);
            }
        }
        w.set_exec(exec);
    });
    for &(text, cross, var, fi, bound, d) in GFX12_CASES {
        let sel64 = selects(text, s0, s1);
        for l in 0..lanes {
            let want = reference(l, exec, sel64, v10(l), cross, var, fi, bound);
            assert_eq!(
                w.vgpr(d, l),
                want,
                "{} wave{wave_size} exec {exec:#x}: `{text}` lane {l}",
                target.name()
            );
        }
    }
}

#[test]
fn gfx12_permlane16_wave32() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        gfx12(t, 32, 0xffff_ffff);
        gfx12(t, 32, 0x7bde_ef3d);
    }
}

#[test]
fn gfx12_permlane16_wave64() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        gfx12(t, 64, u64::MAX);
        gfx12(t, 64, 0xf0f0_5a5a_7bde_ef3d);
    }
}

#[test]
fn gfx950_permlane_swaps() {
    let src = "v_permlane16_swap_b32 v1, v2\n\
               v_permlane32_swap_b32 v3, v4\n\
               v_permlane16_swap_b32_e64 v5, v6 bound_ctrl:1 fi:1\n\
               v_permlane32_swap_b32_e64 v7, v8 fi:1";
    let code = asm::assemble(Target::Gfx950, src);
    let val = |r: usize, l: usize| (r as u32) << 16 | l as u32;
    let w = asm::run(Target::Gfx950, 64, &code, |w: &mut Wave| {
        for r in 1..=8 {
            for l in 0..64 {
                w.set_vgpr(r, l, val(r, l));
            }
        }
    });
    for (d, s, half) in [(1, 2, 16), (3, 4, 32), (5, 6, 16), (7, 8, 32)] {
        for l in 0..64 {
            // vdst lane l: lanes in the swapped rows take src0's lane l - half; src0 lane
            // l in the swapped rows takes vdst's lane l + half.
            let upper = (l / half) % 2 == 1;
            let (want_d, want_s) = if upper {
                (val(s, l - half), val(s, l))
            } else {
                (val(d, l), val(d, l + half))
            };
            assert_eq!(w.vgpr(d, l), want_d, "swap{half} v{d} lane {l}");
            assert_eq!(w.vgpr(s, l), want_s, "swap{half} v{s} lane {l}");
        }
    }
}

#[test]
fn permlane_swaps_are_gfx950_only() {
    // gfx942 has no such opcode: llvm-mc-22 rejects the mnemonic there, so the gfx950 bytes
    // must not decode as it on gfx942.
    let code = asm::assemble(Target::Gfx950, "v_permlane16_swap_b32 v1, v2");
    let prog = gpu_model::exec::Program::new(Target::Gfx942, asm::BASE, &code);
    assert!(prog.fetch(asm::BASE).is_err());
}
