//! LDS loads, stores and the special-address atomics assembled by llvm-mc-22 and run in the
//! executor on every target whose ISA table has them (GFX12: wave32 and wave64), checked
//! against references written from the guides' pseudocode (Vega / CDNA3 / CDNA4 / RDNA4
//! "LDS instructions"), with a partial EXEC and out-of-range lanes (Vega / CDNA3 / CDNA4
//! "Out-of-Range behavior": out-of-range LDS reads return 0, writes are discarded):
//! - plain loads and stores of every width, the d16 loads (`RETURN_DATA[31:16]` or
//!   `[15:0]` preserved) and `_d16_hi` stores (`MEM.b8 = DATA[23:16]`, `MEM.b16 =
//!   DATA[31:16]`);
//! - `ds_write/read_addtid_b32` (GFX12 `ds_store/load_addtid_b32`): `MEM[offset +
//!   M0[15:0] + laneID * 4]`;
//! - the two-address exchanges `ds_wrxchg2*_rtn_*` (GFX12 `ds_storexchg_2addr*`): both old
//!   values read before either write;
//! - `ds_condxchg32_rtn_b64`: `ADDR0 = (ADDR + offset) & 0xfff8`, a half written (its
//!   bit 31 cleared) only when its bit 31 is set;
//! - `ds_append` / `ds_consume` at `M0 + offset` (LLVM's reading, see `exec/ds/atomic.rs`);
//! - GFX12 `ds_bvh_stack_*` fault as graphics-pipeline work.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/lds.rs"]
mod lds;

use gpu_model::exec::{ExecCtx, FaultReason, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::{isa, Family, Target};

fn has(t: Target, name: &str) -> bool {
    isa::ops(t).iter().any(|o| o.name() == name)
}

/// The GFX9 or the GFX12 name of an instruction, whichever `t` has.
fn named<'a>(t: Target, gfx9: &'a str, gfx12: &'a str) -> Option<&'a str> {
    [gfx9, gfx12].into_iter().find(|m| has(t, m))
}

/// Per-lane value of register `r` in test round `k`.
fn val(l: usize, r: u32, k: u32) -> u32 {
    asm::hash(l as u32 * 131 + r * 7 + k * 1013)
}

/// Register tuple text `v[r:r+n-1]` (or `vr`).
fn regs(r: u32, n: u32) -> String {
    if n == 1 {
        format!("v{r}")
    } else {
        format!("v[{r}:{}]", r + n - 1)
    }
}

#[test]
fn loads_and_stores_match_the_pseudocode() {
    // (GFX9 name, GFX12 name, bytes, bit shift of the stored data)
    let stores: &[(&str, &str, usize, u32)] = &[
        ("ds_write_b8", "ds_store_b8", 1, 0),
        ("ds_write_b16", "ds_store_b16", 2, 0),
        ("ds_write_b32", "ds_store_b32", 4, 0),
        ("ds_write_b64", "ds_store_b64", 8, 0),
        ("ds_write_b96", "ds_store_b96", 12, 0),
        ("ds_write_b128", "ds_store_b128", 16, 0),
        ("ds_write_b8_d16_hi", "ds_store_b8_d16_hi", 1, 16),
        ("ds_write_b16_d16_hi", "ds_store_b16_d16_hi", 2, 16),
    ];
    // (GFX9 name, GFX12 name, bytes, signed, d16 half: None, Some(false) low, Some(true) high)
    let loads: &[(&str, &str, usize, bool, Option<bool>)] = &[
        ("ds_read_u8", "ds_load_u8", 1, false, None),
        ("ds_read_i8", "ds_load_i8", 1, true, None),
        ("ds_read_u16", "ds_load_u16", 2, false, None),
        ("ds_read_i16", "ds_load_i16", 2, true, None),
        ("ds_read_b32", "ds_load_b32", 4, false, None),
        ("ds_read_b64", "ds_load_b64", 8, false, None),
        ("ds_read_b96", "ds_load_b96", 12, false, None),
        ("ds_read_b128", "ds_load_b128", 16, false, None),
        ("ds_read_u8_d16", "ds_load_u8_d16", 1, false, Some(false)),
        (
            "ds_read_u8_d16_hi",
            "ds_load_u8_d16_hi",
            1,
            false,
            Some(true),
        ),
        ("ds_read_i8_d16", "ds_load_i8_d16", 1, true, Some(false)),
        (
            "ds_read_i8_d16_hi",
            "ds_load_i8_d16_hi",
            1,
            true,
            Some(true),
        ),
        ("ds_read_u16_d16", "ds_load_u16_d16", 2, false, Some(false)),
        (
            "ds_read_u16_d16_hi",
            "ds_load_u16_d16_hi",
            2,
            false,
            Some(true),
        ),
    ];
    for t in Target::ALL {
        // One llvm-mc run per target and wave size.
        let mut forms = Vec::new();
        for offset in [0, 6] {
            for &(g9, g12, n, _) in stores {
                let m = named(t, g9, g12).unwrap();
                forms.push(format!(
                    "{m} v1, {} offset:{offset}",
                    regs(4, n.div_ceil(4) as u32)
                ));
            }
            for &(g9, g12, n, _, _) in loads {
                if let Some(m) = named(t, g9, g12) {
                    forms.push(format!(
                        "{m} {}, v1 offset:{offset}",
                        regs(4, n.div_ceil(4) as u32)
                    ));
                }
            }
        }
        for &ws in lds::waves(t) {
            lds::prefetch(t, ws, &forms);
            for (k, offset) in [0u64, 6].into_iter().enumerate() {
                let exec = lds::exec_mask(ws);
                let addr = |l: usize, n: usize| lds::lane_addr(l, n.max(4) as u64);
                for &(g9, g12, n, shift) in stores {
                    let m = named(t, g9, g12).unwrap();
                    let dw = n.div_ceil(4) as u32;
                    let src = format!("{m} v1, {} offset:{offset}", regs(4, dw));
                    let mut mem = lds::image(k as u32);
                    let mut model = mem.clone();
                    for l in lds::active(exec, ws) {
                        let a = addr(l, n) as u64 + offset;
                        // Whole access or nothing: the model writes dword by dword for
                        // the multi-dword forms, as the pseudocode does.
                        if n <= 4 {
                            let v = u64::from(val(l, 4, k as u32) >> shift);
                            lds::wr(&mut model, a, n, v);
                        } else {
                            for d in 0..dw {
                                let v = u64::from(val(l, 4 + d, k as u32));
                                lds::wr(&mut model, a + 4 * d as u64, 4, v);
                            }
                        }
                    }
                    lds::run(t, ws, &src, &mut mem, |w| {
                        for l in 0..ws as usize {
                            w.set_vgpr(1, l, addr(l, n));
                            for d in 0..dw {
                                w.set_vgpr(4 + d as usize, l, val(l, 4 + d, k as u32));
                            }
                        }
                    });
                    assert!(mem == model, "{} w{ws} `{src}`: LDS differs", t.name());
                }
                for &(g9, g12, n, signed, d16) in loads {
                    let Some(m) = named(t, g9, g12) else {
                        continue;
                    };
                    let dw = n.div_ceil(4) as u32;
                    let src = format!("{m} {}, v1 offset:{offset}", regs(4, dw));
                    let mut mem = lds::image(7 + k as u32);
                    let model = mem.clone();
                    let w = lds::run(t, ws, &src, &mut mem, |w| {
                        for l in 0..ws as usize {
                            w.set_vgpr(1, l, addr(l, n));
                            for d in 0..dw {
                                w.set_vgpr(4 + d as usize, l, val(l, 40 + d, 0));
                            }
                        }
                    });
                    for l in 0..ws as usize {
                        let a = addr(l, n) as u64 + offset;
                        for d in 0..dw {
                            let old = val(l, 40 + d, 0);
                            let want = if exec >> l & 1 == 0 {
                                old
                            } else if n >= 4 {
                                lds::rd(&model, a + 4 * d as u64, 4) as u32
                            } else {
                                let v = lds::rd(&model, a, n) as u32;
                                let bits = 8 * n as u32;
                                let ext = if signed && v >> (bits - 1) != 0 {
                                    v | !((1u32 << bits) - 1)
                                } else {
                                    v
                                };
                                match d16 {
                                    None => ext,
                                    Some(false) => (old & 0xffff_0000) | (ext & 0xffff),
                                    Some(true) => (old & 0xffff) | ext << 16,
                                }
                            };
                            let got = w.vgpr(4 + d as usize, l);
                            assert_eq!(got, want, "{} w{ws} `{src}` lane {l} dword {d}", t.name());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn addtid_uses_m0_and_the_lane_id() {
    for t in Target::ALL {
        let (Some(st), Some(ld)) = (
            named(t, "ds_write_addtid_b32", "ds_store_addtid_b32"),
            named(t, "ds_read_addtid_b32", "ds_load_addtid_b32"),
        ) else {
            panic!("{}: no addtid forms", t.name());
        };
        for &ws in lds::waves(t) {
            let exec = lds::exec_mask(ws);
            // M0's high half is ignored; the last one runs past the allocation.
            for (m0, offset) in [(0x40u32, 0u64), (0xabcd_0100, 12), (0x0000_0700, 4)] {
                let src = format!("{st} v2 offset:{offset}");
                let mut mem = lds::image(m0);
                let mut model = mem.clone();
                let base = offset + u64::from(m0 & 0xffff);
                for l in lds::active(exec, ws) {
                    lds::wr(&mut model, base + 4 * l as u64, 4, u64::from(val(l, 2, m0)));
                }
                lds::run(t, ws, &src, &mut mem, |w| {
                    w.set_sgpr(124, m0);
                    for l in 0..ws as usize {
                        w.set_vgpr(2, l, val(l, 2, m0));
                    }
                });
                assert!(
                    mem == model,
                    "{} w{ws} `{src}` m0 {m0:#x}: LDS differs",
                    t.name()
                );
                let src = format!("{ld} v3 offset:{offset}");
                let w = lds::run(t, ws, &src, &mut mem, |w| {
                    w.set_sgpr(124, m0);
                    for l in 0..ws as usize {
                        w.set_vgpr(3, l, 0xdead);
                    }
                });
                for l in 0..ws as usize {
                    let want = if exec >> l & 1 != 0 {
                        lds::rd(&model, base + 4 * l as u64, 4) as u32
                    } else {
                        0xdead
                    };
                    assert_eq!(w.vgpr(3, l), want, "{} w{ws} `{src}` lane {l}", t.name());
                }
            }
        }
    }
}

#[test]
fn two_address_exchanges_read_both_before_writing() {
    // (GFX9 name, GFX12 name, element bytes, stride 64)
    let forms: &[(&str, &str, u64, bool)] = &[
        ("ds_wrxchg2_rtn_b32", "ds_storexchg_2addr_rtn_b32", 4, false),
        (
            "ds_wrxchg2st64_rtn_b32",
            "ds_storexchg_2addr_stride64_rtn_b32",
            4,
            true,
        ),
        ("ds_wrxchg2_rtn_b64", "ds_storexchg_2addr_rtn_b64", 8, false),
        (
            "ds_wrxchg2st64_rtn_b64",
            "ds_storexchg_2addr_stride64_rtn_b64",
            8,
            true,
        ),
    ];
    for t in Target::ALL {
        for &ws in lds::waves(t) {
            let exec = lds::exec_mask(ws);
            for &(g9, g12, size, st64) in forms {
                let m = named(t, g9, g12).unwrap();
                let n = (size / 4) as u32;
                // The same location twice; two apart; the second past the allocation.
                for (o0, o1) in [(2u64, 2u64), (1, 3), (0, 255)] {
                    let src = format!(
                        "{m} {}, v1, {}, {} offset0:{o0} offset1:{o1}",
                        regs(8, 2 * n),
                        regs(2, n),
                        regs(6, n)
                    );
                    let scale = if st64 { 64 * size } else { size };
                    let addr = |l: usize| lds::lane_addr(l, 2 * size);
                    let mut mem = lds::image(o1 as u32);
                    let mut model = mem.clone();
                    let data = |l: usize, r: u32| {
                        u64::from(val(l, r, 1))
                            | if n == 2 {
                                u64::from(val(l, r + 1, 1)) << 32
                            } else {
                                0
                            }
                    };
                    let mut ret = vec![None; ws as usize];
                    for l in lds::active(exec, ws) {
                        let a = u64::from(addr(l));
                        let (a1, a2) = (a + o0 * scale, a + o1 * scale);
                        let (t1, t2) = (
                            lds::rd(&model, a1, size as usize),
                            lds::rd(&model, a2, size as usize),
                        );
                        lds::wr(&mut model, a1, size as usize, data(l, 2));
                        lds::wr(&mut model, a2, size as usize, data(l, 6));
                        ret[l] = Some((t1, t2));
                    }
                    let w = lds::run(t, ws, &src, &mut mem, |w| {
                        for l in 0..ws as usize {
                            w.set_vgpr(1, l, addr(l));
                            for r in [2, 3, 6, 7] {
                                w.set_vgpr(r as usize, l, val(l, r, 1));
                            }
                            for r in 8..12 {
                                w.set_vgpr(r, l, 0xbeef);
                            }
                        }
                    });
                    assert!(mem == model, "{} w{ws} `{src}`: LDS differs", t.name());
                    for (l, r) in ret.iter().enumerate() {
                        let got: Vec<u32> = (0..2 * n as usize).map(|k| w.vgpr(8 + k, l)).collect();
                        let want: Vec<u32> = match r {
                            None => vec![0xbeef; 2 * n as usize],
                            Some((t1, t2)) if n == 1 => vec![*t1 as u32, *t2 as u32],
                            Some((t1, t2)) => {
                                vec![*t1 as u32, (t1 >> 32) as u32, *t2 as u32, (t2 >> 32) as u32]
                            }
                        };
                        assert_eq!(got, want, "{} w{ws} `{src}` lane {l}", t.name());
                    }
                }
            }
        }
    }
}

#[test]
fn condxchg32_writes_the_halves_with_bit_31_set() {
    for t in Target::ALL {
        assert!(has(t, "ds_condxchg32_rtn_b64"), "{}", t.name());
        for &ws in lds::waves(t) {
            let exec = lds::exec_mask(ws);
            for offset in [0u32, 13] {
                let src = format!("ds_condxchg32_rtn_b64 v[8:9], v1, v[2:3] offset:{offset}");
                // Addresses above 64 KiB wrap by the 0xfff8 mask; low bits are dropped;
                // lane 9's masked address is past the allocation.
                let addr = |l: usize| {
                    if l == 9 {
                        0x1_fff0
                    } else {
                        (l as u32 % 7) << 16 | (l as u32 * 24 + 5)
                    }
                };
                let data = |l: usize, h: u32| val(l, 2 + h, 3) ^ (((l as u32 >> h) & 1) << 31);
                let mut mem = lds::image(offset);
                let mut model = mem.clone();
                let mut ret = vec![None; ws as usize];
                for l in lds::active(exec, ws) {
                    let a0 = u64::from(addr(l).wrapping_add(offset) & 0xfff8);
                    let mut r = [0u32; 2];
                    for h in 0..2u32 {
                        let a = a0 + 4 * u64::from(h);
                        r[h as usize] = lds::rd(&model, a, 4) as u32;
                        let d = data(l, h);
                        if d >> 31 != 0 {
                            lds::wr(&mut model, a, 4, u64::from(d & 0x7fff_ffff));
                        }
                    }
                    ret[l] = Some(r);
                }
                let w = lds::run(t, ws, &src, &mut mem, |w| {
                    for l in 0..ws as usize {
                        w.set_vgpr(1, l, addr(l));
                        w.set_vgpr(2, l, data(l, 0));
                        w.set_vgpr(3, l, data(l, 1));
                        w.set_vgpr(8, l, 1);
                        w.set_vgpr(9, l, 2);
                    }
                });
                assert!(mem == model, "{} w{ws} `{src}`: LDS differs", t.name());
                for (l, r) in ret.iter().enumerate() {
                    let want = r.unwrap_or([1, 2]);
                    assert_eq!(
                        [w.vgpr(8, l), w.vgpr(9, l)],
                        want,
                        "{} w{ws} lane {l}",
                        t.name()
                    );
                }
            }
        }
    }
}

#[test]
fn append_and_consume_count_active_lanes_at_m0_plus_offset() {
    for t in Target::ALL {
        for &ws in lds::waves(t) {
            let full = if ws == 32 { 0xffff_ffff } else { u64::MAX };
            for (m, add) in [("ds_append", true), ("ds_consume", false)] {
                // (M0, offset, EXEC): the last counter is past the allocation.
                for (m0, offset, exec) in [
                    (0x100u32, 8u64, lds::exec_mask(ws)),
                    (0, 0x40, full),
                    (0x200, 4, 0),
                    (0x1_0000, 0, full),
                ] {
                    let src = format!("{m} v5 offset:{offset}");
                    let mut mem = lds::image(m0 ^ offset as u32);
                    let mut model = mem.clone();
                    let a = u64::from(m0) + offset;
                    let old = lds::rd(&model, a, 4) as u32;
                    if exec != 0 {
                        let n = exec.count_ones();
                        let new = if add {
                            old.wrapping_add(n)
                        } else {
                            old.wrapping_sub(n)
                        };
                        lds::wr(&mut model, a, 4, u64::from(new));
                    }
                    let w = lds::run(t, ws, &src, &mut mem, |w| {
                        w.set_sgpr(124, m0);
                        w.set_exec(exec);
                        for l in 0..ws as usize {
                            w.set_vgpr(5, l, 0x7777);
                        }
                    });
                    assert!(
                        mem == model,
                        "{} w{ws} `{src}` m0 {m0:#x}: LDS differs",
                        t.name()
                    );
                    for l in 0..ws as usize {
                        let want = if exec >> l & 1 != 0 { old } else { 0x7777 };
                        assert_eq!(w.vgpr(5, l), want, "{} w{ws} `{src}` lane {l}", t.name());
                    }
                }
            }
        }
    }
}

#[test]
fn bvh_stack_operations_are_graphics_only() {
    for t in Target::ALL
        .into_iter()
        .filter(|t| t.family() == Family::Gfx12)
    {
        for (ws, src) in [
            (32, "ds_bvh_stack_push4_pop1_rtn_b32 v1, v2, v3, v[4:7]"),
            (64, "ds_bvh_stack_push8_pop1_rtn_b32 v1, v2, v3, v[4:11]"),
            (
                32,
                "ds_bvh_stack_push8_pop2_rtn_b64 v[0:1], v2, v3, v[4:11]",
            ),
        ] {
            let code = asm::assemble_wave(t, ws, src);
            let prog = Program::new(t, asm::BASE, &code);
            let mem = DeviceMemory::new();
            let mut lds = vec![0u8; 256];
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: None,
            };
            let mut w = Wave::new(ws, asm::BASE);
            w.set_exec(u64::MAX);
            assert_eq!(
                w.run(&mut ctx, 10),
                Stop::Fault(FaultReason::GraphicsOnly("ray tracing (bvh)")),
                "{} `{src}`",
                t.name()
            );
        }
    }
}

#[test]
fn ds_nop_changes_nothing() {
    for t in Target::ALL {
        for &ws in lds::waves(t) {
            let mut mem = lds::image(9);
            let before = mem.clone();
            let w = lds::run(t, ws, "ds_nop", &mut mem, |w| w.set_vgpr(0, 0, 5));
            assert!(mem == before && w.vgpr(0, 0) == 5, "{}", t.name());
        }
    }
}
