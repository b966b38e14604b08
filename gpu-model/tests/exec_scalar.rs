//! Scalar ALU and program-control instructions: sign-bit counts, quad masks, packs,
//! wave32 wrexec, M0-relative SGPR moves, GFX9 fork/join, return from a trap handler, the
//! conditional-debug branches, GFX9 GPR indexing and VSKIP (applied to the vector
//! instructions that follow), the clocks, `s_sendmsg_rtn`, sleeps, the GFX12 split-barrier
//! state, and the instructions that raise the illegal-instruction exception. Assembled by
//! llvm-mc-22, run in the executor on every target that has each instruction.
//!
//! Expected values come from the pseudo-code of the CDNA4 and RDNA4 ISA guides (quoted
//! next to each check), computed here independently of the executor.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::{ExecCtx, FaultReason, Program, Stop, Wave, WaveState, WorkgroupSync};
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

const GFX9: [Target; 3] = [Target::Gfx90a, Target::Gfx942, Target::Gfx950];
const GFX12: [Target; 2] = [Target::Gfx1200, Target::Gfx1201];

/// Runs one wave to its end, resuming it after sleeps and barriers; returns the wave and
/// the fault, if any.
fn run_stops(
    target: Target,
    wave: u32,
    code: &[u8],
    setup: impl FnOnce(&mut Wave),
) -> (Wave, Option<FaultReason>) {
    run_stops_at(target, wave, asm::BASE, code, setup)
}

/// [`run_stops`] with the code placed at `base`.
fn run_stops_at(
    target: Target,
    wave: u32,
    base: u64,
    code: &[u8],
    setup: impl FnOnce(&mut Wave),
) -> (Wave, Option<FaultReason>) {
    let prog = Program::new(target, base, code);
    let mem = DeviceMemory::new();
    let mut lds = vec![0u8; 1024];
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: (&mem).into(),
        lds: &mut lds,
        observer: None,
        group: None,
    };
    let mut w = Wave::new(wave, base);
    w.set_exec(if wave == 32 { 0xffff_ffff } else { u64::MAX });
    setup(&mut w);
    for _ in 0..100 {
        match w.run(&mut ctx, 1000) {
            Stop::Endpgm => return (w, None),
            Stop::Fault(r) => return (w, Some(r)),
            Stop::Barrier => w.state = WaveState::Ready,
            _ => {}
        }
    }
    panic!("{}: the wave did not end", target.name());
}

/// RDNA4 S_CLS_I32 pseudo-code: the first bit (from the MSB, after the sign bit) that
/// differs from the sign bit, counted from the MSB; -1 when every bit is the sign bit.
fn cls(x: u64, bits: u32) -> u32 {
    let sign = x >> (bits - 1) & 1;
    for i in 1..bits {
        if x >> (bits - 1 - i) & 1 != sign {
            return i;
        }
    }
    u32::MAX
}

#[test]
fn sign_bit_counts() {
    let vals: [u64; 10] = [
        0,
        u64::MAX,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0x0000_cccc,
        0xffff_3333,
        0x4000_0000,
        0x0000_0100_8000_0000,
        0xffff_fff0_0000_0000,
    ];
    // The guide's functional examples.
    assert_eq!(cls(0x0000_cccc, 32), 16);
    assert_eq!(cls(0xffff_3333, 32), 16);
    assert_eq!(cls(0x7fff_ffff, 32), 1);
    assert_eq!(cls(0x8000_0000, 32), 1);
    for t in Target::ALL {
        let (op32, op64) = if t.family() == Family::Gfx12 {
            ("s_cls_i32", "s_cls_i32_i64")
        } else {
            ("s_flbit_i32", "s_flbit_i32_i64")
        };
        let mut p = String::new();
        for k in 0..vals.len() {
            p += &format!(
                "{op32} s{}, s{}\n{op64} s{}, s[{}:{}]\n",
                40 + k,
                2 * k,
                60 + k,
                2 * k,
                2 * k + 1
            );
        }
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, &p), |w: &mut Wave| {
            for (k, &v) in vals.iter().enumerate() {
                w.set_sgpr64(2 * k, v);
            }
        });
        for (k, &v) in vals.iter().enumerate() {
            assert_eq!(w.sgpr(40 + k), cls(v & 0xffff_ffff, 32), "{op32} {v:#x}");
            assert_eq!(w.sgpr(60 + k), cls(v, 64), "{op64} {v:#x}");
        }
    }
}

#[test]
fn quad_masks_and_packs() {
    let vals: [u64; 4] = [0, 0x0000_0000_f000_0001, 0x1234_5678_0000_0080, u64::MAX];
    for t in Target::ALL {
        let gfx12 = t.family() == Family::Gfx12;
        let mut p = String::new();
        for k in 0..vals.len() {
            p += &format!(
                "s_quadmask_b32 s{a}, s{lo}\ns_cselect_b32 s{b}, 1, 0\n\
                 s_quadmask_b64 s[{c}:{c1}], s[{lo}:{hi}]\n\
                 s_wqm_b32 s{d}, s{lo}\ns_cselect_b32 s{e}, 1, 0\n",
                a = 40 + k,
                b = 44 + k,
                c = 48 + 2 * k,
                c1 = 49 + 2 * k,
                d = 56 + k,
                e = 60 + k,
                lo = 2 * k,
                hi = 2 * k + 1,
            );
        }
        if gfx12 {
            p += "s_pack_hl_b32_b16 s64, s2, s4\n";
        }
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, &p), |w: &mut Wave| {
            for (k, &v) in vals.iter().enumerate() {
                w.set_sgpr64(2 * k, v);
            }
        });
        // D[i] = (S0[4i+3:4i] != 0), SCC = D != 0; WQM: every bit of a non-zero quad.
        let quad =
            |v: u64, n: u32| (0..n).fold(0u64, |r, q| r | ((v >> (4 * q) & 0xf != 0) as u64) << q);
        let wqm = |v: u64| {
            (0..8).fold(0u64, |r, q| {
                r | if v >> (4 * q) & 0xf != 0 {
                    0xf << (4 * q)
                } else {
                    0
                }
            })
        };
        for (k, &v) in vals.iter().enumerate() {
            let lo = v & 0xffff_ffff;
            assert_eq!(w.sgpr(40 + k) as u64, quad(lo, 8), "{}", t.name());
            assert_eq!(w.sgpr(44 + k), (quad(lo, 8) != 0) as u32);
            assert_eq!(w.sgpr64(48 + 2 * k), quad(v, 16));
            assert_eq!(w.sgpr(56 + k) as u64, wqm(lo));
            // SCC from the 32-bit result only (the high SGPR of the pair is not read).
            assert_eq!(
                w.sgpr(60 + k),
                (wqm(lo) != 0) as u32,
                "s_wqm_b32 scc {v:#x}"
            );
        }
        if gfx12 {
            // D = { S1[15:0], S0[31:16] }
            let (s0, s1) = (vals[1] as u32, vals[2] as u32);
            assert_eq!(w.sgpr(64), (s1 & 0xffff) << 16 | s0 >> 16);
        }
    }
}

#[test]
fn wave32_wrexec() {
    // RDNA4: NOT0: EXEC.u32 = ~S0 & EXEC.u32; NOT1: EXEC.u32 = S0 & ~EXEC.u32; D = EXEC;
    // SCC = EXEC != 0. EXEC_HI (wave64) is untouched.
    for t in GFX12 {
        for wave in [32, 64] {
            let p = "s_and_not0_wrexec_b32 s10, s0\ns_cselect_b32 s11, 1, 0\n\
                     s_mov_b32 s16, exec_lo\ns_mov_b32 s17, exec_hi\n\
                     s_mov_b32 exec_lo, s3\n\
                     s_and_not1_wrexec_b32 s12, s0\ns_cselect_b32 s13, 1, 0\n\
                     s_mov_b32 s14, exec_lo\ns_mov_b32 s15, exec_hi\n\
                     s_mov_b32 exec_lo, s3\ns_and_not1_wrexec_b32 s18, s3\ns_cselect_b32 s19, 1, 0";
            let (e0, s0) = (0xf0f0_ff00u32, 0x3333_0f0fu32);
            let w = asm::run(t, wave, &asm::assemble_wave(t, wave, p), |w: &mut Wave| {
                w.set_sgpr(0, s0);
                w.set_sgpr(3, e0);
                w.set_exec(e0 as u64 | if wave == 64 { 0xabcd << 32 } else { 0 });
            });
            let hi = if wave == 64 { 0xabcd } else { 0 };
            assert_eq!(w.sgpr(10), !s0 & e0);
            assert_eq!(w.sgpr(16), !s0 & e0);
            assert_eq!(w.sgpr(11), 1);
            assert_eq!(w.sgpr(12), s0 & !e0);
            assert_eq!(w.sgpr(14), s0 & !e0);
            assert_eq!(w.sgpr(13), 1);
            if wave == 64 {
                assert_eq!((w.sgpr(15), w.sgpr(17)), (hi, hi));
            }
            // S0 == EXEC: the result is empty and SCC clear.
            assert_eq!((w.sgpr(18), w.sgpr(19)), (0, 0));
        }
    }
}

#[test]
fn m0_relative_moves() {
    for t in Target::ALL {
        let gfx12 = t.family() == Family::Gfx12;
        let user = if gfx12 { 106 } else { 102 };
        let mut p = String::from(
            "s_mov_b32 m0, 3\n\
             s_movrels_b32 s40, s10\n\
             s_movrels_b64 s[42:43], s[10:11]\n\
             s_movreld_b32 s20, s5\n\
             s_movreld_b64 s[24:25], s[6:7]\n\
             s_mov_b32 m0, 5\n\
             s_movrels_b32 s44, s98\n\
             s_movreld_b32 s99, s5\n\
             s_mov_b32 m0, 0x80000000\n\
             s_movrels_b32 s45, s10\n",
        );
        if gfx12 {
            // SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]]
            p += "s_mov_b32 m0, 0x00140004\ns_movrelsd_2_b32 s30, s10\n";
        }
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, &p), |w: &mut Wave| {
            for k in 0..100 {
                w.set_sgpr(k, 0x1000 + k as u32);
            }
            w.set_sgpr(0, 0xaaaa);
            w.set_sgpr(1, 0xbbbb);
        });
        let s = |k: u32| if k == 0 { 0xaaaa } else { 0x1000 + k };
        // D = SGPR[S0 + M0] (13), pair at 13.
        assert_eq!(w.sgpr(40), s(13), "{}", t.name());
        assert_eq!(w.sgpr64(42), s(13) as u64 | (s(14) as u64) << 32);
        // SGPR[D + M0] = S0: s23 = s5, s[27:28] = s[6:7]; s20 and s24 unchanged.
        assert_eq!(w.sgpr(23), s(5));
        assert_eq!((w.sgpr(27), w.sgpr(28)), (s(6), s(7)));
        assert_eq!((w.sgpr(20), w.sgpr(24)), (s(20), s(24)));
        // s98 + 5 = 103: past the user SGPRs on GFX9 (reads SGPR0), s103 on GFX12.
        let want = if 103 < user { w.sgpr(103) } else { 0xaaaa };
        assert_eq!(w.sgpr(44), want, "{} movrels past s{}", t.name(), user - 1);
        // s99 + 5 = 104: GFX9 out of range, not written; GFX12 writes s104.
        if gfx12 {
            assert_eq!(w.sgpr(104), s(5));
        } else {
            assert_ne!(w.sgpr(104), s(5));
        }
        // A huge M0: SGPR0.
        assert_eq!(w.sgpr(45), 0xaaaa);
        if gfx12 {
            // s[30 + 20] = s[10 + 4]
            assert_eq!(w.sgpr(50), s(14));
            assert_eq!(w.sgpr(30), s(30));
        }
    }
}

/// GFX9 fork/join (CDNA4 guide 4.6): the side with fewer lanes runs first, the other is
/// pushed as `{PC, EXEC}` to SGPR[CSP*4..+3] (EXEC low); JOIN pops it until CSP is back at
/// the saved value.
#[test]
fn fork_and_join() {
    // Layout (dword offsets): 0 getreg, 1 v_cmp, 2 fork, 3-4 FAIL: v_mov (literal),
    // 5 s_branch JOIN, 6-7 PASS: v_mov (literal), 8 JOIN, 9.. after.
    let fork = |kind: &str| {
        format!(
            "s_getreg_b32 s20, hwreg(HW_REG_MODE, 29, 3)\n\
             v_cmp_gt_u32 vcc, s21, v0\n\
             {kind}\n\
             v_mov_b32 v1, 0x6f\n\
             s_branch 2\n\
             v_mov_b32 v1, 0xde\n\
             s_cbranch_join s20\n\
             s_mov_b64 s[30:31], exec\n\
             s_getreg_b32 s22, hwreg(HW_REG_MODE, 29, 3)"
        )
    };
    let base = asm::BASE;
    for t in GFX9 {
        for kind in ["s_cbranch_i_fork vcc, 3", "s_cbranch_g_fork vcc, s[24:25]"] {
            for pass_lanes in [20u32, 50, 0, 64] {
                let code = asm::assemble_wave(t, 64, &fork(kind));
                let pass_pc = base + 4 * 6;
                let w = asm::run(t, 64, &code, |w: &mut Wave| {
                    for l in 0..64 {
                        w.set_vgpr(0, l, l as u32);
                    }
                    w.set_sgpr(21, pass_lanes);
                    w.set_sgpr64(24, pass_pc);
                });
                let pass = if pass_lanes >= 64 {
                    u64::MAX
                } else {
                    (1u64 << pass_lanes) - 1
                };
                let fail = !pass;
                let ctx = format!("{} {kind} pass {pass_lanes}", t.name());
                for l in 0..64 {
                    let want = if pass >> l & 1 != 0 { 0xde } else { 0x6f };
                    assert_eq!(w.vgpr(1, l), want, "{ctx} lane {l}");
                }
                // CSP is back at its value before the fork.
                assert_eq!((w.sgpr(20), w.sgpr(22)), (0, 0), "{ctx}");
                if pass != 0 && fail != 0 {
                    // The second side runs last, with its own mask; its entry is in s[0:3].
                    let (first_pushed, exec_last) = if fail.count_ones() < pass.count_ones() {
                        (pass, pass)
                    } else {
                        (fail, fail)
                    };
                    assert_eq!(w.sgpr64(30), exec_last, "{ctx}");
                    assert_eq!(w.sgpr64(0), first_pushed, "{ctx}");
                    let pushed_pc = if first_pushed == pass {
                        pass_pc
                    } else {
                        base + 4 * 3
                    };
                    assert_eq!(w.sgpr64(2), pushed_pc, "{ctx}");
                } else {
                    assert_eq!(w.sgpr64(30), u64::MAX, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn return_from_exception_and_debug_branches() {
    for t in Target::ALL {
        // s[0:1] = the address of the s_mov after the skipped one.
        let gfx9 = t.family() == Family::Gfx9;
        let mut p = String::from(
            "s_getpc_b64 s[0:1]\n\
             s_add_u32 s0, s0, 12\n\
             s_rfe_b64 s[0:1]\n\
             s_mov_b32 s10, 1\n\
             s_mov_b32 s11, 2\n",
        );
        if gfx9 {
            p += "s_getpc_b64 s[0:1]\n\
                  s_add_u32 s0, s0, 12\n\
                  s_rfe_restore_b64 s[0:1], s2\n\
                  s_mov_b32 s12, 1\n\
                  s_mov_b32 s13, 2\n";
            for (k, b) in ["cdbgsys", "cdbguser", "cdbgsys_or_user", "cdbgsys_and_user"]
                .iter()
                .enumerate()
            {
                p += &format!(
                    "s_mov_b32 s{r}, 0\ns_cbranch_{b} 1\ns_mov_b32 s{r}, 1\n",
                    r = 20 + k
                );
            }
        }
        let code = asm::assemble_wave(t, 64, &p);
        for status in [0u32, 1 << 20, 1 << 21, 3 << 20] {
            let w = asm::run(t, 64, &code, |w: &mut Wave| {
                w.status = 1 << 5 | status;
            });
            // PRIV = 0; PC = S0: the first s_mov is skipped.
            assert_eq!((w.sgpr(10), w.sgpr(11)), (0, 2), "{}", t.name());
            assert_eq!(w.status & 1 << 5, 0);
            if gfx9 {
                assert_eq!((w.sgpr(12), w.sgpr(13)), (0, 2));
                let (user, sys) = (status >> 20 & 1 != 0, status >> 21 & 1 != 0);
                // Taken: the s_mov 1 is skipped (0 stays).
                let taken = [sys, user, sys || user, sys && user];
                for (k, &tk) in taken.iter().enumerate() {
                    assert_eq!(w.sgpr(20 + k), !tk as u32, "status {status:#x} branch {k}");
                }
            }
        }
    }
}

#[test]
fn gpr_indexing_mode() {
    let p = |mk: &str| {
        format!(
            "s_set_gpr_idx_on s0, gpr_idx(SRC0,DST)\n\
             v_mov_b32 v1, v2\n\
             s_set_gpr_idx_off\n\
             v_mov_b32 v20, v2\n\
             s_set_gpr_idx_on s1, gpr_idx(SRC1)\n\
             v_add_u32 v21, v6, v7\n\
             s_set_gpr_idx_idx s2\n\
             v_add_u32 v22, v6, v7\n\
             s_set_gpr_idx_mode gpr_idx(SRC2)\n\
             v_fma_f32 v23, v10, v11, v12\n\
             {mk} v26, v10, 0x40000000, v11\n\
             s_set_gpr_idx_mode gpr_idx(SRC1)\n\
             {mk} v27, v10, 0x40000000, v11\n\
             s_set_gpr_idx_mode gpr_idx(SRC0,DST)\n\
             v_readlane_b32 s40, v2, 5\n\
             s_set_gpr_idx_mode gpr_idx(DST)\n\
             s_set_gpr_idx_idx s3\n\
             v_mov_b32 v250, v2\n\
             s_set_gpr_idx_mode gpr_idx(SRC0)\n\
             v_mov_b32 v28, v10\n\
             s_getreg_b32 s41, hwreg(HW_REG_MODE, 27, 1)\n\
             s_set_gpr_idx_off\n\
             s_getreg_b32 s42, hwreg(HW_REG_MODE, 27, 1)\n\
             s_mov_b32 s43, m0"
        )
    };
    for t in GFX9 {
        // gfx90a has v_madmk_f32, the later ones v_fmamk_f32: a * 2 is exact, so both
        // round once.
        let mk = if t == Target::Gfx90a {
            "v_madmk_f32"
        } else {
            "v_fmamk_f32"
        };
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, &p(mk)), |w: &mut Wave| {
            for r in 0..32 {
                for l in 0..64 {
                    w.set_vgpr(r, l, (100 * r + l) as u32);
                }
            }
            for l in 0..64 {
                for r in 10..14 {
                    w.set_vgpr(r, l, (1.0f32 + r as f32 + l as f32).to_bits());
                }
                w.set_vgpr(250, l, 7);
                w.set_vgpr(255, l, 8);
            }
            w.set_sgpr(0, 0x103); // index 3 (bits 7:0 only)
            w.set_sgpr(1, 2);
            w.set_sgpr(2, 1);
            w.set_sgpr(3, 10);
            w.set_sgpr(124, 0xabcd_0000);
        });
        let v = |r: usize, l: usize| (100 * r + l) as u32;
        let f = |r: usize, l: usize| 1.0f32 + r as f32 + l as f32;
        for l in 0..64 {
            // v[1+3] = v[2+3]; v1 untouched.
            assert_eq!(w.vgpr(4, l), v(5, l), "{} lane {l}", t.name());
            assert_eq!(w.vgpr(1, l), v(1, l));
            assert_eq!(w.vgpr(20, l), v(2, l));
            // src1 indexed: v6 + v[7+2], then with index 1: v6 + v8.
            assert_eq!(w.vgpr(21, l), v(6, l) + v(9, l));
            assert_eq!(w.vgpr(22, l), v(6, l) + v(8, l));
            // src2 indexed by 1: v10 * v11 + v13.
            assert_eq!(
                f32::from_bits(w.vgpr(23, l)),
                f(10, l).mul_add(f(11, l), f(13, l))
            );
            // fmamk's encoded second operand is the hardware's src2 (guide 6.6.2).
            assert_eq!(
                f32::from_bits(w.vgpr(26, l)),
                f(10, l).mul_add(2.0, f(12, l))
            );
            assert_eq!(
                f32::from_bits(w.vgpr(27, l)),
                f(10, l).mul_add(2.0, f(11, l))
            );
            // Destination v250 + 10 is out of range: not written (no VGPR changes).
            assert_eq!(w.vgpr(250, l), 7);
            assert_eq!(w.vgpr(255, l), 8);
            // Source v10 + 10 = v20 in range.
            assert_eq!(w.vgpr(28, l), v(2, l));
        }
        // v_readlane: src0 indexed (v[2+1] lane 5), its SGPR destination is not.
        assert_eq!(w.sgpr(40), v(3, 5));
        // MODE.gpr_idx_en on, then off; M0[7:0] the index, M0[15:12] the mode, the rest
        // of M0 kept.
        assert_eq!((w.sgpr(41), w.sgpr(42)), (1, 0));
        assert_eq!(w.sgpr(43), 0xabcd_100a);
    }
}

#[test]
fn vskip_skips_vector_instructions() {
    // VSKIP = S0.u[S1.u[4:0]]: vector ALU, LDS and memory instructions are not executed.
    let p = "s_setvskip s0, s1\n\
             v_mov_b32 v1, 7\n\
             v_mov_b32 v4, 0\n\
             ds_write_b32 v4, v5\n\
             s_mov_b32 s10, 5\n\
             s_getreg_b32 s11, hwreg(HW_REG_MODE, 28, 1)\n\
             s_setvskip s0, s2\n\
             v_mov_b32 v2, 9\n\
             s_getreg_b32 s12, hwreg(HW_REG_MODE, 28, 1)";
    for t in GFX9 {
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, p), |w: &mut Wave| {
            w.set_sgpr(0, 1 << 3);
            w.set_sgpr(1, 3 + 32); // only S1[4:0] counts
            w.set_sgpr(2, 0);
            for l in 0..64 {
                w.set_vgpr(1, l, 1);
                w.set_vgpr(4, l, 1);
            }
        });
        for l in 0..64 {
            assert_eq!((w.vgpr(1, l), w.vgpr(4, l), w.vgpr(2, l)), (1, 1, 9));
        }
        assert_eq!(
            (w.sgpr(10), w.sgpr(11), w.sgpr(12)),
            (5, 1, 0),
            "{}",
            t.name()
        );
        assert_eq!(w.counters.lgkm, 0);
    }
}

#[test]
fn clocks_and_messages() {
    // The wave clock counts the instructions issued, the reading one included.
    for t in Target::ALL {
        let p = if t.family() == Family::Gfx12 {
            "s_sendmsg_rtn_b64 s[10:11], sendmsg(MSG_RTN_GET_REALTIME)\n\
             s_nop 0\n\
             s_sendmsg_rtn_b32 s12, sendmsg(MSG_RTN_GET_REALTIME)\n\
             s_sendmsg_rtn_b64 s[14:15], sendmsg(MSG_RTN_GET_TMA)\n\
             s_sendmsg_rtn_b32 s16, sendmsg(MSG_RTN_GET_DOORBELL)\n\
             s_getreg_b32 s17, hwreg(HW_REG_SHADER_CYCLES_HI)\n\
             s_getreg_b32 s18, hwreg(29, 0, 32)\n\
             s_getreg_b32 s19, hwreg(29, 4, 4)"
        } else {
            "s_memtime s[10:11]\n\
             s_nop 0\n\
             s_memrealtime s[12:13]"
        };
        let w = asm::run(t, 64, &asm::assemble_wave(t, 64, p), |w: &mut Wave| {
            for k in 10..20 {
                w.set_sgpr(k, 0xffff_ffff);
            }
        });
        assert_eq!(w.sgpr64(10), 1, "{}", t.name());
        assert_eq!(w.sgpr(12), 3);
        if t.family() == Family::Gfx12 {
            assert_eq!((w.sgpr64(14), w.sgpr(16)), (0, 0));
            // SHADER_CYCLES_HI/LO (hwreg 30/29): the same clock; a field of it.
            assert_eq!((w.sgpr(17), w.sgpr(18), w.sgpr(19)), (0, 7, 0));
        } else {
            assert_eq!(w.sgpr(13), 0);
        }
    }
}

#[test]
fn sleeps_waits_and_illegal_instructions() {
    for t in GFX12 {
        let p = "s_sleep_var s0\ns_sleep_var s1\ns_wait_event 0x2\ns_ttracedata_imm 5\n\
                 s_version 0x10\ns_barrier_init m0\ns_barrier_join m0\ns_barrier_leave\n\
                 s_prefetch_data s[2:3], 0x10, m0, 3\ns_mov_b32 s10, 1";
        let (w, fault) = run_stops(t, 32, &asm::assemble(t, p), |w: &mut Wave| {
            w.set_sgpr(0, 0x80); // S0[6:0] = 0: no sleep
            w.set_sgpr(1, 5);
        });
        assert_eq!((fault, w.sgpr(10)), (None, 1), "{}", t.name());
        for (p, what) in [
            ("s_code_end", "s_code_end"),
            ("s_alloc_vgpr s2", "s_alloc_vgpr outside dynamic-VGPR mode"),
        ] {
            let (_, fault) = run_stops(t, 32, &asm::assemble(t, p), |_: &mut Wave| {});
            assert_eq!(fault, Some(FaultReason::IllegalInstruction(what)));
        }
    }
    for t in GFX9 {
        let p = "s_mov_b32 s10, 1\ns_endpgm_ordered_ps_done\ns_mov_b32 s10, 2";
        let (w, fault) = run_stops(t, 64, &asm::assemble_wave(t, 64, p), |_: &mut Wave| {});
        assert_eq!((fault, w.sgpr(10), w.state), (None, 1, WaveState::Ended));
    }
}

/// GFX12 split barrier (RDNA4 guide S_BARRIER_SIGNAL_ISFIRST, S_GET_BARRIER_STATE): the
/// first signal of a phase sets SCC; the state reads
/// `{signalCnt << 16, memberCnt << 4, valid}`; the barrier completes (signalCnt back to 0)
/// when every member signalled.
#[test]
fn split_barrier_state() {
    let p = "s_barrier_signal_isfirst -1\n\
             s_cselect_b32 s10, 1, 0\n\
             s_get_barrier_state s11, -1\n\
             s_barrier_wait -1\n\
             s_get_barrier_state s12, -1\n\
             s_barrier_signal_isfirst -2\n\
             s_cselect_b32 s13, 1, 0\n\
             s_barrier_signal_isfirst 0\n\
             s_cselect_b32 s14, 1, 0";
    for t in GFX12 {
        let code = asm::assemble(t, p);
        let prog = Program::new(t, asm::BASE, &code);
        let mem = DeviceMemory::new();
        let mut lds = vec![0u8; 64];
        let mut sync = WorkgroupSync::new(2);
        let mut waves: Vec<Wave> = (0..2)
            .map(|k| {
                let mut w = Wave::new(32, asm::BASE);
                w.set_exec(0xffff_ffff);
                w.info.wave_in_group = k;
                w
            })
            .collect();
        {
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: None,
                group: Some(&mut sync),
            };
            // Wave 1 reaches the barrier first, then wave 0; then both run to the end.
            for k in [1, 0] {
                assert_eq!(waves[k].run(&mut ctx, 100), Stop::Barrier);
            }
            for k in [1, 0] {
                waves[k].state = WaveState::Ready;
                assert_eq!(waves[k].run(&mut ctx, 100), Stop::Endpgm);
            }
        }
        let state = |signals: u32, members: u32| signals << 16 | members << 4 | 1;
        // Wave 1 signalled first: SCC = 1, one signal of two members.
        assert_eq!((waves[1].sgpr(10), waves[1].sgpr(11)), (1, state(1, 2)));
        // Wave 0's signal completes the barrier: the count is back at 0.
        assert_eq!((waves[0].sgpr(10), waves[0].sgpr(11)), (0, state(0, 2)));
        // After the wait: wave 1 reads before wave 0 ends, wave 0 after wave 1 ended.
        assert_eq!(waves[1].sgpr(12), state(0, 2));
        assert_eq!(waves[0].sgpr(12), state(0, 1));
        for w in &waves {
            // The trap barrier is privileged, barrier 0 a NOP: SCC = 0.
            assert_eq!((w.sgpr(13), w.sgpr(14)), (0, 0));
        }
        assert_eq!(sync.members, 0);
        // Without workgroup state (a lone wave): not in a workgroup, SCC = 0, state 0.
        let (w, fault) = run_stops(t, 32, &code, |w: &mut Wave| w.set_sgpr(10, 7));
        assert_eq!(fault, None);
        assert_eq!((w.sgpr(10), w.sgpr(11), w.sgpr(12)), (0, 0, 0));
    }
}

/// `s_getpc_b64` returns the 48-bit address of the next instruction: sign-extended on
/// GFX9, zero-extended on GFX12 (LLVM 22 `GCNSubtarget::hasGetPCZeroExtension`, the reason
/// clang-22 follows a gfx12 `s_getpc_b64` with `s_sext_i32_i16` of the high half). Code
/// placed with bit 47 set shows the difference; `s_sext_i32_i16` restores the GFX9 value.
#[test]
fn getpc_extends_the_48_bit_pc_per_family() {
    for t in Target::ALL {
        let code = asm::assemble_wave(
            t,
            64,
            "s_getpc_b64 s[0:1]\n\
             s_getpc_b64 s[2:3]\n\
             s_sext_i32_i16 s3, s3\n\
             s_endpgm\n",
        );
        for base in [asm::BASE, 0x0000_8000_0000_1000, 0x0000_7fff_ffff_f000] {
            let (w, fault) = run_stops_at(t, 64, base, &code, |_| {});
            assert!(fault.is_none(), "{}: {fault:?}", t.name());
            let next = base + 4;
            let sext = if next >> 47 & 1 != 0 {
                next | 0xffff_0000_0000_0000
            } else {
                next
            };
            let first = match t.family() {
                Family::Gfx9 => sext,
                _ => next,
            };
            let ctx = format!("{} base {base:#x}", t.name());
            assert_eq!(w.sgpr64(0), first, "{ctx}");
            assert_eq!(w.sgpr64(2), sext + 4, "{ctx}");
        }
    }
}
