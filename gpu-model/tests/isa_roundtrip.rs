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
