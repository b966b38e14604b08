//! GFX12 M0-relative VGPR moves and v_permlane64_b32, assembled by llvm-mc-22 and run in
//! wave32 and wave64 on gfx1200 and gfx1201, against the RDNA4 ISA guide's pseudocode:
//!
//! ```text
//! V_MOVRELS_B32:    D = VGPR[SRC0 + M0]
//! V_MOVRELD_B32:    VGPR[VDST + M0] = S0
//! V_MOVRELSD_B32:   VGPR[VDST + M0] = VGPR[SRC0 + M0]
//! V_MOVRELSD_2_B32: VGPR[VDST + M0[25:16]] = VGPR[SRC0 + M0[9:0]]
//! V_SWAPREL_B32:    swap VGPR[VDST + M0[25:16]] and VGPR[SRC0 + M0[9:0]]
//! V_PERMLANE64_B32: wave64: lane l takes S0 of lane l ^ 32 (every lane read, EXEC
//!                   masks the write); wave32: no operation
//! ```
//!
//! Out of range (guide 7.2.7): a source VGPR past the last reads VGPR0, a destination
//! past it is not written. Inactive lanes are never written.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/sweep.rs"]
mod sweep;

use gpu_model::exec::Wave;
use gpu_model::isa::Op;
use sweep::targets_with;

/// The initial value of VGPR `r` in lane `l`.
fn init(r: usize, l: usize) -> u32 {
    0x5000_0000 | (r as u32) << 8 | l as u32
}

fn setup(w: &mut Wave, lanes: usize, exec: u64) {
    for r in 0..256 {
        for l in 0..lanes {
            w.set_vgpr(r, l, init(r, l));
        }
    }
    w.set_sgpr(2, 0xdead_beef);
    w.set_exec(exec);
}

/// Asserts that every VGPR of every lane holds `want(r, l)`.
fn check_all(w: &Wave, lanes: usize, what: &str, want: impl Fn(usize, usize) -> u32) {
    for r in 0..256 {
        for l in 0..lanes {
            assert_eq!(w.vgpr(r, l), want(r, l), "{what}: v{r} lane {l}");
        }
    }
}

#[test]
fn movrel_in_range() {
    let src = "s_mov_b32 m0, 5\n\
               v_movrels_b32 v1, v20\n\
               v_movreld_b32 v30, v2\n\
               v_movreld_b32 v31, s2\n\
               v_movrelsd_b32 v40, v50\n\
               s_mov_b32 m0, 0x70003\n\
               v_movrelsd_2_b32 v60, v70\n\
               v_swaprel_b32 v80, v90";
    let ts = targets_with(Op::VMovrelsB32);
    assert_eq!(ts.len(), 4);
    for (t, wave) in ts {
        let lanes = wave as usize;
        let code = asm::assemble_wave(t, wave, src);
        let full = if wave == 32 { 0xffff_ffff } else { u64::MAX };
        for exec in [full, full & 0x5555_5555_5555_5555 & !1 | 2] {
            let w = asm::run(t, wave, &code, |w| setup(w, lanes, exec));
            let what = format!("{} wave{wave} exec {exec:#x}", t.name());
            check_all(&w, lanes, &what, |r, l| {
                if exec >> l & 1 == 0 {
                    return init(r, l);
                }
                match r {
                    1 => init(25, l),
                    35 => init(2, l),
                    36 => 0xdead_beef,
                    45 => init(55, l),
                    67 => init(73, l),
                    87 => init(93, l),
                    93 => init(87, l),
                    _ => init(r, l),
                }
            });
        }
    }
}

#[test]
fn movrel_out_of_range() {
    // M0 = 250: every relative register lands past v255.
    let src = "s_mov_b32 m0, 250\n\
               v_movrels_b32 v1, v20\n\
               v_movreld_b32 v30, v2\n\
               v_movrelsd_b32 v40, v50\n\
               v_movrels_b32 v3, v5\n\
               s_mov_b32 m0, 0xfa00fa\n\
               v_movrelsd_2_b32 v60, v70\n\
               v_swaprel_b32 v80, v90\n\
               s_mov_b32 m0, 0x10\n\
               v_swaprel_b32 v4, v250\n\
               s_mov_b32 m0, 0x100000\n\
               v_swaprel_b32 v250, v6";
    for (t, wave) in targets_with(Op::VMovrelsB32) {
        let lanes = wave as usize;
        let code = asm::assemble_wave(t, wave, src);
        let full = if wave == 32 { 0xffff_ffff } else { u64::MAX };
        let w = asm::run(t, wave, &code, |w| setup(w, lanes, full));
        check_all(
            &w,
            lanes,
            &format!("{} wave{wave}", t.name()),
            |r, l| match r {
                // Sources out of range read v0; destinations out of range are not written,
                // and a swap with one register out of range writes only the other.
                1 => init(0, l),
                3 => init(255, l),
                4 => init(0, l),
                _ => init(r, l),
            },
        );
    }
}

#[test]
fn permlane64() {
    let ts = targets_with(Op::VPermlane64B32);
    assert_eq!(ts.len(), 4);
    for (t, wave) in ts {
        let lanes = wave as usize;
        let code = asm::assemble_wave(
            t,
            wave,
            "v_permlane64_b32 v1, v2\n\
             v_permlane64_b32 v3, v3",
        );
        let full = if wave == 32 { 0xffff_ffff } else { u64::MAX };
        for exec in [full, full & 0x0f0f_00ff_f0f0_ff00] {
            let w = asm::run(t, wave, &code, |w| setup(w, lanes, exec));
            let what = format!("{} wave{wave} exec {exec:#x}", t.name());
            check_all(&w, lanes, &what, |r, l| {
                if wave == 32 || exec >> l & 1 == 0 {
                    return init(r, l);
                }
                match r {
                    1 => init(2, l ^ 32),
                    3 => init(3, l ^ 32),
                    _ => init(r, l),
                }
            });
        }
    }
}
