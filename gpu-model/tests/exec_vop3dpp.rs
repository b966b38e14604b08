//! GFX12 VOP3 with DPP16/DPP8 (`*_e64_dpp`), assembled by llvm-mc-22 for gfx1200/gfx1201
//! and run in wave32 and wave64, against a CPU reference of the DPP lane selection written
//! from the RDNA4 ISA guide (DPP16: quad_perm, row_shr, row_mirror, row_xmask; row_mask,
//! bank_mask, bound_ctrl, fi; DPP8 lane selects, fi) and LLVM's AMDGPUModifierSyntax. DPP
//! applies to src0 only; VOP3 neg/abs apply after the lane selection.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::Target;

const SENTINEL: u32 = 0xdead_0000;

/// The lane src0 is read from, or None (out of row / masked source), per DPP16 control.
fn dpp16_source(ctrl: &str, l: usize) -> Option<usize> {
    let (row, r) = (l & !15, l & 15);
    match ctrl {
        "quad_perm:[1,0,3,2]" => Some((l & !3) | [1, 0, 3, 2][l & 3]),
        "row_shr:1" => (r >= 1).then(|| l - 1),
        "row_mirror" => Some(row + 15 - r),
        "row_xmask:3" => Some(row + (r ^ 3)),
        _ => unreachable!(),
    }
}

fn v1(l: usize) -> u32 {
    0x100 + 5 * l as u32
}

fn run(target: Target, wave: u32, exec: u64) {
    let lanes = wave as usize;
    let (vcc, sd) = if wave == 32 {
        ("s20", "s22")
    } else {
        ("s[20:21]", "s[22:23]")
    };
    let src = format!(
        "v_add3_u32_e64_dpp v10, v1, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n\
         v_add3_u32_e64_dpp v11, v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1\n\
         v_add3_u32_e64_dpp v12, v1, v2, v3 row_shr:1 row_mask:0x5 bank_mask:0xd\n\
         v_fma_f32_e64_dpp v13, -v4, v5, |v6| row_xmask:3 row_mask:0xf bank_mask:0xf\n\
         v_add3_u32_e64_dpp v14, v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]\n\
         v_add3_u32_e64_dpp v15, v1, v2, v3 dpp8:[1,1,1,1,1,1,1,1] fi:1\n\
         v_cmp_gt_u32_e64_dpp {vcc}, v1, v2 row_mirror row_mask:0xf bank_mask:0xf\n\
         v_add_co_u32_e64_dpp v16, {sd}, v1, v7 row_mirror row_mask:0xf bank_mask:0xf\n\
         v_add3_u32_e64_dpp v17, v1, v2, v3 row_xmask:3 row_mask:0xf bank_mask:0xf fi:1"
    );
    let code = asm::assemble_wave(target, wave, &src);
    let f4 = |l: usize| (l as f32) - 7.0;
    let w = asm::run(target, wave, &code, |w: &mut Wave| {
        for l in 0..lanes {
            w.set_vgpr(1, l, v1(l));
            w.set_vgpr(2, l, 3 * l as u32);
            w.set_vgpr(3, l, 1000);
            w.set_vgpr(4, l, f4(l).to_bits());
            w.set_vgpr(5, l, 2.5f32.to_bits());
            w.set_vgpr(6, l, (-0.5f32 * l as f32).to_bits());
            w.set_vgpr(7, l, u32::MAX - 0x180);
            for r in 10..=17 {
                w.set_vgpr(r, l, SENTINEL | l as u32);
            }
        }
        w.set_exec(exec);
    });
    let name = format!("{} wave{wave} exec {exec:#x}", target.name());
    let active = |l: usize| exec >> l & 1 != 0;
    let keep = |l: usize| SENTINEL | l as u32;
    // src0 for lane l under DPP16 `ctrl` (inactive source: None unless fi).
    let dpp =
        |ctrl: &str, l: usize, fi: bool| dpp16_source(ctrl, l).filter(|&s| fi || active(s)).map(v1);
    let mut cmp = 0u64;
    let mut carry = 0u64;
    for l in 0..lanes {
        let add3 = |x: u32| x.wrapping_add(3 * l as u32).wrapping_add(1000);
        let want = |x: Option<u32>| {
            if active(l) {
                x.map_or(keep(l), add3)
            } else {
                keep(l)
            }
        };
        assert_eq!(
            w.vgpr(10, l),
            want(dpp("quad_perm:[1,0,3,2]", l, false)),
            "{name} quad_perm lane {l}"
        );
        // bound_ctrl: an invalid source reads 0 and the lane is written.
        let bc = dpp("row_shr:1", l, false).or(Some(0));
        assert_eq!(
            w.vgpr(11, l),
            want(bc),
            "{name} row_shr bound_ctrl lane {l}"
        );
        // Rows 1 and 3 and bank 1 masked off: those lanes are not written.
        let masked = (0x5 >> (l / 16)) & 1 == 0 || (0xd >> ((l & 15) / 4)) & 1 == 0;
        let e = if masked {
            None
        } else {
            dpp("row_shr:1", l, false)
        };
        assert_eq!(w.vgpr(12, l), want(e), "{name} row/bank mask lane {l}");
        // fma(-src0, 2.5, |v6|) with src0 from lane l ^ 3 of its row.
        let s = dpp16_source("row_xmask:3", l).unwrap();
        let fma = (-f4(s)).mul_add(2.5, (0.5 * l as f32).abs());
        let wf = if active(l) && active(s) {
            fma.to_bits()
        } else {
            keep(l)
        };
        assert_eq!(w.vgpr(13, l), wf, "{name} v_fma_f32 dpp lane {l}");
        // DPP8: inactive source lanes read 0 (fi:0) or their value (fi:1).
        let s8 = (l & !7) | (7 - (l & 7));
        let d8 = if active(s8) { v1(s8) } else { 0 };
        assert_eq!(w.vgpr(14, l), want(Some(d8)), "{name} dpp8 lane {l}");
        assert_eq!(
            w.vgpr(15, l),
            want(Some(v1((l & !7) | 1))),
            "{name} dpp8 fi lane {l}"
        );
        assert_eq!(
            w.vgpr(17, l),
            want(dpp("row_xmask:3", l, true)),
            "{name} fi:1 lane {l}"
        );
        if let (true, Some(x)) = (active(l), dpp("row_mirror", l, false)) {
            cmp |= ((x > 3 * l as u32) as u64) << l;
            let (sum, c) = x.overflowing_add(u32::MAX - 0x180);
            carry |= (c as u64) << l;
            assert_eq!(w.vgpr(16, l), sum, "{name} v_add_co_u32 lane {l}");
        }
    }
    assert_eq!(w.read_mask(20), cmp, "{name} v_cmp_gt_u32_e64_dpp mask");
    assert_eq!(w.read_mask(22), carry, "{name} v_add_co_u32_e64_dpp carry");
}

#[test]
fn vop3_dpp_gfx12() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        run(t, 32, 0xffff_ffff);
        run(t, 32, 0x7bde_ef3d);
        run(t, 64, u64::MAX);
        run(t, 64, 0xf0f0_5a5a_7bde_ef3d);
    }
}
