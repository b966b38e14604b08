//! Round trips of generated instructions and typed decode errors.

use gpu_model::isa::{self, DecodeError, Format, Op, Operand};
use gpu_model::Target;
use proptest::prelude::*;

/// Builds `v_add_u32`-style instructions from typed operands, encodes them, and checks
/// that decoding gives back the same operands and that LLVM's text for the bytes (when
/// the oracle is present it is checked by isa_sweep/isa_corpus) is stable.
fn vop2_add(t: Target, vdst: u16, src0: Operand, vsrc1: u16) -> isa::Inst {
    let op = match t {
        Target::Gfx1200 | Target::Gfx1201 => Op::VAddNcU32,
        _ => Op::VAddU32,
    };
    let mut i = isa::Inst::build(t, op, Format::Vop2).expect("v_add in VOP2");
    i.set_operand(
        0,
        Operand::Vgpr {
            first: vdst,
            count: 1,
        },
    )
    .expect("vdst");
    i.set_operand(1, src0).expect("src0");
    i.set_operand(
        2,
        Operand::Vgpr {
            first: vsrc1,
            count: 1,
        },
    )
    .expect("vsrc1");
    i
}

fn src0() -> impl Strategy<Value = Operand> {
    prop_oneof![
        (0u16..256).prop_map(|r| Operand::Vgpr { first: r, count: 1 }),
        (0u16..100).prop_map(|r| Operand::Sgpr { first: r, count: 1 }),
        (128u16..=208).prop_map(Operand::Inline),
        (240u16..=248).prop_map(Operand::Inline),
        any::<u32>().prop_map(Operand::Literal),
    ]
}

proptest! {
    #[test]
    fn built_instructions_round_trip(t in 0usize..5, vdst in 0u16..256, s0 in src0(), v1 in 0u16..256) {
        let t = Target::ALL[t];
        let i = vop2_add(t, vdst, s0, v1);
        let mut buf = [0u8; 16];
        let n = isa::encode(&i, &mut buf).unwrap();
        let d = isa::decode(t, &buf[..n], true).unwrap();
        prop_assert_eq!(d.op, i.op);
        prop_assert_eq!(usize::from(d.len), n);
        prop_assert_eq!(d.operand(0), Some(Operand::Vgpr { first: vdst, count: 1 }));
        prop_assert_eq!(d.operand(1), Some(s0));
        prop_assert_eq!(d.operand(2), Some(Operand::Vgpr { first: v1, count: 1 }));
        let mut again = [0u8; 16];
        let m = isa::encode(&d, &mut again).unwrap();
        prop_assert_eq!(&again[..m], &buf[..n]);
    }

    #[test]
    fn decode_never_panics(t in 0usize..5, bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        let t = Target::ALL[t];
        if let Ok(i) = isa::decode(t, &bytes, false) {
            prop_assert!(usize::from(i.len) <= bytes.len());
            let _ = i.to_string();
            let mut out = [0u8; 16];
            let n = isa::encode(&i, &mut out).unwrap();
            prop_assert_eq!(&out[..n], &bytes[..n]);
        }
    }
}

#[test]
fn truncated_literal_is_a_typed_error() {
    // s_mov_b32 s0, <literal> with the literal missing.
    for t in Target::ALL {
        let e = isa::decode(t, &[0xff, 0x00, 0x80, 0xbe], false).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Truncated {
                word: 0xbe80_00ff,
                offset: 4,
                need: 8
            },
            "{t}"
        );
    }
}

#[test]
fn truncated_encoding_is_a_typed_error() {
    // The first dword of a 64-bit SMEM load (GFX9) / VOP3 (GFX12) alone.
    let e = isa::decode(Target::Gfx942, &[0xc0, 0x00, 0x02, 0xc0], false).unwrap_err();
    assert!(
        matches!(
            e,
            DecodeError::Truncated {
                offset: 4,
                need: 8,
                ..
            }
        ),
        "{e:?}"
    );
    let e = isa::decode(Target::Gfx1201, &[0x00, 0x00, 0x00, 0xd5], true).unwrap_err();
    assert!(
        matches!(e, DecodeError::Truncated { offset: 4, .. }),
        "{e:?}"
    );
    assert!(matches!(
        isa::decode(Target::Gfx90a, &[], false),
        Err(DecodeError::Truncated { offset: 0, .. })
    ));
}

#[test]
fn invalid_opcode_is_a_typed_error() {
    // VOP1 opcode 0xff does not exist on any target (LLVM: invalid instruction encoding).
    for t in Target::ALL {
        let e = isa::decode(t, &[0x00, 0xfe, 0x01, 0x7e], false).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::InvalidOpcode {
                    opcode: 0xff,
                    offset: 0,
                    ..
                }
            ),
            "{t}: {e:?}"
        );
    }
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn vopd_halves_are_exposed() {
    use isa::layout::F;
    // llvm-objdump-22 (gfx1201 corpus): C8601003 08060D07 3A83126F
    // v_dual_fmaak_f32 v8, s3, v8, 0x3a83126f :: v_dual_add_nc_u32 v7, v7, v6
    let b = words(&[0xC860_1003, 0x0806_0D07, 0x3A83_126F]);
    let i = isa::decode(Target::Gfx1201, &b, true).unwrap();
    assert_eq!(
        i.to_string(),
        "v_dual_fmaak_f32 v8, s3, v8, 0x3a83126f :: v_dual_add_nc_u32 v7, v7, v6"
    );
    assert_eq!(i.format, Format::Vopd);
    assert_eq!(i.len, 12);
    assert_eq!(i.op, Op::VFmaakF32);
    assert_eq!(i.vopd(), Some((Op::VFmaakF32, Op::VAddNcU32)));
    assert_eq!(i.mnemonic_y(), Some("v_dual_add_nc_u32"));
    assert_eq!(i.operand(0), Some(Operand::Vgpr { first: 8, count: 1 }));
    assert_eq!(i.operand(1), Some(Operand::Sgpr { first: 3, count: 1 }));
    assert_eq!(i.operand(3), Some(Operand::Literal(0x3A83_126F)));
    assert_eq!(i.num_operands_y(), 3);
    assert_eq!(i.operand_y(0), Some(Operand::Vgpr { first: 7, count: 1 }));
    assert_eq!(i.operand_y(2), Some(Operand::Vgpr { first: 6, count: 1 }));
    assert_eq!(i.field(F::VdstY), 7);
    let mut out = [0u8; 16];
    assert_eq!(isa::encode(&i, &mut out).unwrap(), 12);
    assert_eq!(&out[..12], &b[..]);
    // VOPD is wave32 only (LLVM rejects it with +wavefrontsize64).
    assert!(isa::decode(Target::Gfx1201, &b, false).is_err());
    assert_eq!(
        isa::decode(Target::Gfx942, &b, false)
            .map(|i| i.vopd())
            .ok()
            .flatten(),
        None
    );
}

#[test]
fn dpp_and_sdwa_fields_are_exposed() {
    use isa::layout::F;
    use isa::Ext;
    // llvm-mc-22 --disassemble (gfx1200): 0x4a0406fa 0xff051104
    // v_add_nc_u32_dpp v2, v4, v3 row_shr:1 row_mask:0xf bank_mask:0xf fi:1
    let i = isa::decode(Target::Gfx1200, &words(&[0x4A04_06FA, 0xFF05_1104]), true).unwrap();
    assert_eq!(
        i.to_string(),
        "v_add_nc_u32_dpp v2, v4, v3 row_shr:1 row_mask:0xf bank_mask:0xf fi:1"
    );
    assert_eq!((i.ext(), i.op, i.len), (Some(Ext::Dpp16), Op::VAddNcU32, 8));
    assert_eq!(i.field(F::Src0), 250);
    assert_eq!(i.operand(1), Some(Operand::Vgpr { first: 4, count: 1 }));
    assert_eq!(
        (
            i.field(F::DppCtrl),
            i.field(F::RowMask),
            i.field(F::BankMask)
        ),
        (0x111, 0xF, 0xF)
    );
    assert_eq!((i.field(F::BoundCtrl), i.field(F::Fi)), (0, 1));
    // DPP8 with fetch-inactive (src0 = 234): v_add_f32_dpp v2, v4, v3 dpp8:[7,6,5,4,3,2,1,0] fi:1
    let i = isa::decode(Target::Gfx1200, &words(&[0x0604_06EA, 0x0539_7704]), true).unwrap();
    assert_eq!(
        i.to_string(),
        "v_add_f32_dpp v2, v4, v3 dpp8:[7,6,5,4,3,2,1,0] fi:1"
    );
    assert_eq!(
        (i.ext(), i.field(F::Fi), i.field(F::Dpp8Sel) & 7),
        (Some(Ext::Dpp8), 1, 7)
    );
    // SDWA (gfx942): 0x20406f9 0x20152604
    // v_add_f32_sdwa v2, -v4, |v3| clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0
    let b = words(&[0x0204_06F9, 0x2015_2604]);
    let i = isa::decode(Target::Gfx942, &b, false).unwrap();
    assert_eq!(
        i.to_string(),
        "v_add_f32_sdwa v2, -v4, |v3| clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0"
    );
    assert_eq!(i.ext(), Some(Ext::Sdwa));
    assert_eq!(
        (
            i.field(F::SdwaDstSel),
            i.field(F::SdwaSrc0Sel),
            i.field(F::SdwaSrc1Sel)
        ),
        (6, 5, 0)
    );
    assert_eq!(
        (i.field(F::Src0Neg), i.field(F::Src1Abs), i.field(F::Clamp)),
        (1, 1, 1)
    );
    let mut out = [0u8; 16];
    assert_eq!(isa::encode(&i, &mut out).unwrap(), 8);
    assert_eq!(&out[..8], &b[..]);
    // SDWA with an SGPR src0 (s0 bit): v_add_u32_sdwa v2, s4, v3 ...
    let i = isa::decode(Target::Gfx942, &words(&[0x6804_06F9, 0x0686_0604]), false).unwrap();
    assert_eq!(i.operand(1), Some(Operand::Sgpr { first: 4, count: 1 }));
    // The extension dword missing is a typed error.
    assert!(matches!(
        isa::decode(Target::Gfx942, &words(&[0x0204_06F9]), false),
        Err(DecodeError::Truncated {
            offset: 4,
            need: 8,
            ..
        })
    ));
}

/// An SDWA compare with the `sd` bit writes the SGPR pair its sdst names; without it, VCC
/// (encodings from llvm-mc-22 for gfx942: `v_cmp_eq_u32_sdwa s[2:3], v1, v2
/// src0_sel:BYTE_1 src1_sel:DWORD` and the same with `vcc`).
#[test]
fn sdwa_compare_destination_is_the_sdst_pair() {
    let sd = [0xf9, 0x04, 0x94, 0x7d, 0x01, 0x82, 0x01, 0x06];
    let i = isa::decode(Target::Gfx942, &sd, true).unwrap();
    assert_eq!(
        i.to_string(),
        "v_cmp_eq_u32_sdwa s[2:3], v1, v2 src0_sel:BYTE_1 src1_sel:DWORD"
    );
    assert_eq!(i.operand(0), Some(Operand::Sgpr { first: 2, count: 2 }));
    let vcc = [0xf9, 0x04, 0x94, 0x7d, 0x01, 0x00, 0x01, 0x06];
    let i = isa::decode(Target::Gfx942, &vcc, true).unwrap();
    assert_eq!(i.operand(0), Some(Operand::Fixed("vcc")));
}
