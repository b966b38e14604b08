//! Operations that compute the same thing under different names: the cross-family (and
//! cross-segment) equivalences the executor relies on, as data.
//!
//! AMD renamed many operations for RDNA3/RDNA4 (`s_andn2_b32` became `s_and_not1_b32`,
//! `global_load_dword` became `global_load_b32`, `ds_read_b32` became `ds_load_b32`, ...)
//! without changing what they compute; LLVM 22 keeps the old names as assembler aliases
//! on gfx1200/gfx1201 (`echo 's_andn2_b32 s0, s1, s2' | llvm-mc-22 -mcpu=gfx1200` prints
//! `s_and_not1_b32`), and `tests/isa_equiv.rs` asks llvm-mc-22 for every pair it can.
//! FLAT, GLOBAL and SCRATCH operations of one name differ only in the address segment,
//! which the instruction's [`Format`](super::Format) carries. [`Op::canonical`] maps
//! each operation to one representative of its class (the GFX9 `flat_` name where one
//! exists), so semantics are written once.
//!
//! Vector compares come in families (`v_cmp_<cond>_<type>`, `v_cmpx_...`, `v_cmp_class_*`):
//! [`Op::compare`] reads the condition, the operand type and whether EXEC is written
//! from the operation's name (the names are the data: every target's tables spell them
//! the same way), once per process.

use super::Op;
use std::sync::OnceLock;

/// Operand type of a vector compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpType {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    /// `v_cmp_class_f16`: src1 is a class mask.
    ClassF16,
    /// `v_cmp_class_f32`.
    ClassF32,
    /// `v_cmp_class_f64`.
    ClassF64,
}

/// A vector compare: what [`Op::compare`] says about a `v_cmp*` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compare {
    /// Operand type.
    pub ty: CmpType,
    /// Condition: float compares index `f, lt, eq, le, gt, lg, ge, o, u, nge, nlg, ngt,
    /// nle, neq, nlt, tru` (GFX12 spells the last `t`), integer compares `f, lt, eq, le,
    /// gt, ne, ge, t` (the opcode order of both families). 0 for class tests.
    pub cond: u8,
    /// `v_cmpx_*`: the result is written to EXEC.
    pub writes_exec: bool,
}

/// Float compare conditions in opcode order.
const FCOND: [&str; 16] = [
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
    "tru",
];
/// Integer compare conditions in opcode order.
const ICOND: [&str; 8] = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"];

/// Parses a compare mnemonic (see [`Op::compare`]).
fn parse_compare(name: &str) -> Option<Compare> {
    let (rest, writes_exec) = if let Some(r) = name.strip_prefix("v_cmpx_") {
        (r, true)
    } else {
        (name.strip_prefix("v_cmp_")?, false)
    };
    if let Some(ty) = rest.strip_prefix("class_") {
        let ty = match ty {
            "f16" => CmpType::ClassF16,
            "f32" => CmpType::ClassF32,
            "f64" => CmpType::ClassF64,
            _ => return None,
        };
        return Some(Compare {
            ty,
            cond: 0,
            writes_exec,
        });
    }
    let (c, ty) = rest.split_once('_')?;
    let ty = match ty {
        "f16" => CmpType::F16,
        "f32" => CmpType::F32,
        "f64" => CmpType::F64,
        "i16" => CmpType::I16,
        "u16" => CmpType::U16,
        "i32" => CmpType::I32,
        "u32" => CmpType::U32,
        "i64" => CmpType::I64,
        "u64" => CmpType::U64,
        _ => return None,
    };
    let float = matches!(ty, CmpType::F16 | CmpType::F32 | CmpType::F64);
    let cond = if float {
        let c = if c == "t" { "tru" } else { c };
        FCOND.iter().position(|&k| k == c)?
    } else {
        ICOND.iter().position(|&k| k == c)?
    };
    Some(Compare {
        ty,
        cond: cond as u8,
        writes_exec,
    })
}

/// Per operation: its canonical operation and compare description.
struct Facts {
    /// `None`: the operation is its own representative.
    canonical: Vec<Option<Op>>,
    compare: Vec<Option<Compare>>,
}

fn facts() -> &'static Facts {
    static F: OnceLock<Facts> = OnceLock::new();
    F.get_or_init(|| {
        let n = super::generated::OP_NAMES.len();
        let mut canonical = vec![None; n];
        for &(alias, canon) in ALIASES {
            canonical[alias as usize] = Some(canon);
        }
        let compare = (0..n)
            .map(|i| parse_compare(super::generated::OP_NAMES[i]))
            .collect();
        Facts { canonical, compare }
    })
}

impl Op {
    /// The representative of the operations that compute what this one computes (see
    /// the module doc); itself for most operations.
    #[inline]
    pub fn canonical(self) -> Op {
        facts().canonical[self as usize].unwrap_or(self)
    }

    /// The condition, type and EXEC behaviour of a vector compare; `None` for other
    /// operations.
    #[inline]
    pub fn compare(self) -> Option<Compare> {
        facts().compare[self as usize]
    }

    /// Every `(alias, canonical)` pair of [`Op::canonical`].
    pub fn aliases() -> &'static [(Op, Op)] {
        ALIASES
    }
}

/// `(alias, canonical)`: the alias computes exactly what the canonical operation does.
/// The GFX12 names are AMD's RDNA3/RDNA4 renames (llvm-mc-22 accepts the GFX9 name as an
/// alias where it has one; `tests/isa_equiv.rs`); GLOBAL and SCRATCH names map onto the
/// FLAT operation (GLOBAL where FLAT has none: the LDS-DMA loads).
#[rustfmt::skip]
static ALIASES: &[(Op, Op)] = {
    use Op::*;
    &[
        (BufferAtomicAddU32, BufferAtomicAdd),
        (BufferAtomicAddU64, BufferAtomicAddX2),
        (BufferAtomicAndB32, BufferAtomicAnd),
        (BufferAtomicAndB64, BufferAtomicAndX2),
        (BufferAtomicCmpswapB32, BufferAtomicCmpswap),
        (BufferAtomicCmpswapB64, BufferAtomicCmpswapX2),
        (BufferAtomicDecU32, BufferAtomicDec),
        (BufferAtomicDecU64, BufferAtomicDecX2),
        (BufferAtomicIncU32, BufferAtomicInc),
        (BufferAtomicIncU64, BufferAtomicIncX2),
        (BufferAtomicOrB32, BufferAtomicOr),
        (BufferAtomicOrB64, BufferAtomicOrX2),
        (BufferAtomicMaxI32, BufferAtomicSmax),
        (BufferAtomicMaxI64, BufferAtomicSmaxX2),
        (BufferAtomicMinI32, BufferAtomicSmin),
        (BufferAtomicMinI64, BufferAtomicSminX2),
        (BufferAtomicSubU32, BufferAtomicSub),
        (BufferAtomicSubU64, BufferAtomicSubX2),
        (BufferAtomicSwapB32, BufferAtomicSwap),
        (BufferAtomicSwapB64, BufferAtomicSwapX2),
        (BufferAtomicMaxU32, BufferAtomicUmax),
        (BufferAtomicMaxU64, BufferAtomicUmaxX2),
        (BufferAtomicMinU32, BufferAtomicUmin),
        (BufferAtomicMinU64, BufferAtomicUminX2),
        (BufferAtomicXorB32, BufferAtomicXor),
        (BufferAtomicXorB64, BufferAtomicXorX2),
        (BufferLoadB32, BufferLoadDword),
        (BufferLoadB64, BufferLoadDwordx2),
        (BufferLoadB96, BufferLoadDwordx3),
        (BufferLoadB128, BufferLoadDwordx4),
        (BufferLoadI8, BufferLoadSbyte),
        (BufferLoadD16I8, BufferLoadSbyteD16),
        (BufferLoadD16HiI8, BufferLoadSbyteD16Hi),
        (BufferLoadD16B16, BufferLoadShortD16),
        (BufferLoadD16HiB16, BufferLoadShortD16Hi),
        (BufferLoadI16, BufferLoadSshort),
        (BufferLoadU8, BufferLoadUbyte),
        (BufferLoadD16U8, BufferLoadUbyteD16),
        (BufferLoadD16HiU8, BufferLoadUbyteD16Hi),
        (BufferLoadU16, BufferLoadUshort),
        (BufferStoreB8, BufferStoreByte),
        (BufferStoreD16HiB8, BufferStoreByteD16Hi),
        (BufferStoreB32, BufferStoreDword),
        (BufferStoreB64, BufferStoreDwordx2),
        (BufferStoreB96, BufferStoreDwordx3),
        (BufferStoreB128, BufferStoreDwordx4),
        (BufferStoreB16, BufferStoreShort),
        (BufferStoreD16HiB16, BufferStoreShortD16Hi),
        (DsLoad2addrB32, DsRead2B32),
        (DsLoad2addrB64, DsRead2B64),
        (DsLoad2addrStride64B32, DsRead2st64B32),
        (DsLoad2addrStride64B64, DsRead2st64B64),
        (DsLoadB128, DsReadB128),
        (DsLoadB32, DsReadB32),
        (DsLoadB64, DsReadB64),
        (DsLoadB96, DsReadB96),
        (DsLoadI16, DsReadI16),
        (DsLoadI8, DsReadI8),
        (DsLoadI8D16, DsReadI8D16),
        (DsLoadI8D16Hi, DsReadI8D16Hi),
        (DsLoadU16, DsReadU16),
        (DsLoadU16D16, DsReadU16D16),
        (DsLoadU16D16Hi, DsReadU16D16Hi),
        (DsLoadU8, DsReadU8),
        (DsLoadU8D16, DsReadU8D16),
        (DsLoadU8D16Hi, DsReadU8D16Hi),
        (DsStore2addrB32, DsWrite2B32),
        (DsStore2addrB64, DsWrite2B64),
        (DsStore2addrStride64B32, DsWrite2st64B32),
        (DsStore2addrStride64B64, DsWrite2st64B64),
        (DsStoreB128, DsWriteB128),
        (DsStoreB16, DsWriteB16),
        (DsStoreB16D16Hi, DsWriteB16D16Hi),
        (DsStoreB32, DsWriteB32),
        (DsStoreB64, DsWriteB64),
        (DsStoreB8, DsWriteB8),
        (DsStoreB8D16Hi, DsWriteB8D16Hi),
        (DsStoreB96, DsWriteB96),
        (DsStorexchgRtnB32, DsWrxchgRtnB32),
        (GlobalAtomicAdd, FlatAtomicAdd),
        (GlobalAtomicAddU32, FlatAtomicAdd),
        (GlobalAtomicAddF32, FlatAtomicAddF32),
        (GlobalAtomicAddF64, FlatAtomicAddF64),
        (GlobalAtomicAddU64, FlatAtomicAddX2),
        (GlobalAtomicAddX2, FlatAtomicAddX2),
        (GlobalAtomicAnd, FlatAtomicAnd),
        (GlobalAtomicAndB32, FlatAtomicAnd),
        (GlobalAtomicAndB64, FlatAtomicAndX2),
        (GlobalAtomicAndX2, FlatAtomicAndX2),
        (GlobalAtomicCmpswap, FlatAtomicCmpswap),
        (GlobalAtomicCmpswapB32, FlatAtomicCmpswap),
        (GlobalAtomicCmpswapB64, FlatAtomicCmpswapX2),
        (GlobalAtomicCmpswapX2, FlatAtomicCmpswapX2),
        (GlobalAtomicDec, FlatAtomicDec),
        (GlobalAtomicDecU32, FlatAtomicDec),
        (GlobalAtomicDecU64, FlatAtomicDecX2),
        (GlobalAtomicDecX2, FlatAtomicDecX2),
        (GlobalAtomicInc, FlatAtomicInc),
        (GlobalAtomicIncU32, FlatAtomicInc),
        (GlobalAtomicIncU64, FlatAtomicIncX2),
        (GlobalAtomicIncX2, FlatAtomicIncX2),
        (GlobalAtomicMaxF64, FlatAtomicMaxF64),
        (GlobalAtomicMinF64, FlatAtomicMinF64),
        (GlobalAtomicOr, FlatAtomicOr),
        (GlobalAtomicOrB32, FlatAtomicOr),
        (GlobalAtomicOrB64, FlatAtomicOrX2),
        (GlobalAtomicOrX2, FlatAtomicOrX2),
        (GlobalAtomicMaxI32, FlatAtomicSmax),
        (GlobalAtomicSmax, FlatAtomicSmax),
        (GlobalAtomicMaxI64, FlatAtomicSmaxX2),
        (GlobalAtomicSmaxX2, FlatAtomicSmaxX2),
        (GlobalAtomicMinI32, FlatAtomicSmin),
        (GlobalAtomicSmin, FlatAtomicSmin),
        (GlobalAtomicMinI64, FlatAtomicSminX2),
        (GlobalAtomicSminX2, FlatAtomicSminX2),
        (GlobalAtomicSub, FlatAtomicSub),
        (GlobalAtomicSubU32, FlatAtomicSub),
        (GlobalAtomicSubU64, FlatAtomicSubX2),
        (GlobalAtomicSubX2, FlatAtomicSubX2),
        (GlobalAtomicSwap, FlatAtomicSwap),
        (GlobalAtomicSwapB32, FlatAtomicSwap),
        (GlobalAtomicSwapB64, FlatAtomicSwapX2),
        (GlobalAtomicSwapX2, FlatAtomicSwapX2),
        (GlobalAtomicMaxU32, FlatAtomicUmax),
        (GlobalAtomicUmax, FlatAtomicUmax),
        (GlobalAtomicMaxU64, FlatAtomicUmaxX2),
        (GlobalAtomicUmaxX2, FlatAtomicUmaxX2),
        (GlobalAtomicMinU32, FlatAtomicUmin),
        (GlobalAtomicUmin, FlatAtomicUmin),
        (GlobalAtomicMinU64, FlatAtomicUminX2),
        (GlobalAtomicUminX2, FlatAtomicUminX2),
        (GlobalAtomicXor, FlatAtomicXor),
        (GlobalAtomicXorB32, FlatAtomicXor),
        (GlobalAtomicXorB64, FlatAtomicXorX2),
        (GlobalAtomicXorX2, FlatAtomicXorX2),
        (GlobalLoadB32, FlatLoadDword),
        (GlobalLoadDword, FlatLoadDword),
        (ScratchLoadB32, FlatLoadDword),
        (ScratchLoadDword, FlatLoadDword),
        (GlobalLoadB64, FlatLoadDwordx2),
        (GlobalLoadDwordx2, FlatLoadDwordx2),
        (ScratchLoadB64, FlatLoadDwordx2),
        (ScratchLoadDwordx2, FlatLoadDwordx2),
        (GlobalLoadB96, FlatLoadDwordx3),
        (GlobalLoadDwordx3, FlatLoadDwordx3),
        (ScratchLoadB96, FlatLoadDwordx3),
        (ScratchLoadDwordx3, FlatLoadDwordx3),
        (GlobalLoadB128, FlatLoadDwordx4),
        (GlobalLoadDwordx4, FlatLoadDwordx4),
        (ScratchLoadB128, FlatLoadDwordx4),
        (ScratchLoadDwordx4, FlatLoadDwordx4),
        (GlobalLoadI8, FlatLoadSbyte),
        (GlobalLoadSbyte, FlatLoadSbyte),
        (ScratchLoadI8, FlatLoadSbyte),
        (ScratchLoadSbyte, FlatLoadSbyte),
        (GlobalLoadD16B16, FlatLoadShortD16),
        (GlobalLoadShortD16, FlatLoadShortD16),
        (ScratchLoadD16B16, FlatLoadShortD16),
        (ScratchLoadShortD16, FlatLoadShortD16),
        (GlobalLoadD16HiB16, FlatLoadShortD16Hi),
        (GlobalLoadShortD16Hi, FlatLoadShortD16Hi),
        (ScratchLoadD16HiB16, FlatLoadShortD16Hi),
        (ScratchLoadShortD16Hi, FlatLoadShortD16Hi),
        (GlobalLoadI16, FlatLoadSshort),
        (GlobalLoadSshort, FlatLoadSshort),
        (ScratchLoadI16, FlatLoadSshort),
        (ScratchLoadSshort, FlatLoadSshort),
        (GlobalLoadU8, FlatLoadUbyte),
        (GlobalLoadUbyte, FlatLoadUbyte),
        (ScratchLoadU8, FlatLoadUbyte),
        (ScratchLoadUbyte, FlatLoadUbyte),
        (GlobalLoadU16, FlatLoadUshort),
        (GlobalLoadUshort, FlatLoadUshort),
        (ScratchLoadU16, FlatLoadUshort),
        (ScratchLoadUshort, FlatLoadUshort),
        (GlobalStoreB8, FlatStoreByte),
        (GlobalStoreByte, FlatStoreByte),
        (ScratchStoreB8, FlatStoreByte),
        (ScratchStoreByte, FlatStoreByte),
        (GlobalStoreByteD16Hi, FlatStoreByteD16Hi),
        (GlobalStoreD16HiB8, FlatStoreByteD16Hi),
        (ScratchStoreByteD16Hi, FlatStoreByteD16Hi),
        (ScratchStoreD16HiB8, FlatStoreByteD16Hi),
        (GlobalStoreB32, FlatStoreDword),
        (GlobalStoreDword, FlatStoreDword),
        (ScratchStoreB32, FlatStoreDword),
        (ScratchStoreDword, FlatStoreDword),
        (GlobalStoreB64, FlatStoreDwordx2),
        (GlobalStoreDwordx2, FlatStoreDwordx2),
        (ScratchStoreB64, FlatStoreDwordx2),
        (ScratchStoreDwordx2, FlatStoreDwordx2),
        (GlobalStoreB96, FlatStoreDwordx3),
        (GlobalStoreDwordx3, FlatStoreDwordx3),
        (ScratchStoreB96, FlatStoreDwordx3),
        (ScratchStoreDwordx3, FlatStoreDwordx3),
        (GlobalStoreB128, FlatStoreDwordx4),
        (GlobalStoreDwordx4, FlatStoreDwordx4),
        (ScratchStoreB128, FlatStoreDwordx4),
        (ScratchStoreDwordx4, FlatStoreDwordx4),
        (GlobalStoreB16, FlatStoreShort),
        (GlobalStoreShort, FlatStoreShort),
        (ScratchStoreB16, FlatStoreShort),
        (ScratchStoreShort, FlatStoreShort),
        (GlobalStoreD16HiB16, FlatStoreShortD16Hi),
        (GlobalStoreShortD16Hi, FlatStoreShortD16Hi),
        (ScratchStoreD16HiB16, FlatStoreShortD16Hi),
        (ScratchStoreShortD16Hi, FlatStoreShortD16Hi),
        (ScratchLoadLdsDword, GlobalLoadLdsDword),
        (ScratchLoadLdsSbyte, GlobalLoadLdsSbyte),
        (ScratchLoadLdsSshort, GlobalLoadLdsSshort),
        (ScratchLoadLdsUbyte, GlobalLoadLdsUbyte),
        (ScratchLoadLdsUshort, GlobalLoadLdsUshort),
        (SAddCoI32, SAddI32),
        (SAddCoU32, SAddU32),
        (SAddCoCiU32, SAddcU32),
        (SAddkCoI32, SAddkI32),
        (SAndNot0SaveexecB64, SAndn1SaveexecB64),
        (SAndNot0WrexecB64, SAndn1WrexecB64),
        (SAndNot1B32, SAndn2B32),
        (SAndNot1B64, SAndn2B64),
        (SAndNot1SaveexecB64, SAndn2SaveexecB64),
        (SAndNot1WrexecB64, SAndn2WrexecB64),
        (SBufferLoadB32, SBufferLoadDword),
        (SBufferLoadB512, SBufferLoadDwordx16),
        (SBufferLoadB64, SBufferLoadDwordx2),
        (SBufferLoadB128, SBufferLoadDwordx4),
        (SBufferLoadB256, SBufferLoadDwordx8),
        (SCtzI32B32, SFf1I32B32),
        (SCtzI32B64, SFf1I32B64),
        (SClsI32, SFlbitI32),
        (SClzI32U32, SFlbitI32B32),
        (SClzI32U64, SFlbitI32B64),
        (SClsI32I64, SFlbitI32I64),
        (SLoadB32, SLoadDword),
        (SLoadB512, SLoadDwordx16),
        (SLoadB64, SLoadDwordx2),
        (SLoadB128, SLoadDwordx4),
        (SLoadB256, SLoadDwordx8),
        (SOrNot0SaveexecB64, SOrn1SaveexecB64),
        (SOrNot1B32, SOrn2B32),
        (SOrNot1B64, SOrn2B64),
        (SOrNot1SaveexecB64, SOrn2SaveexecB64),
        (SSubCoI32, SSubI32),
        (SSubCoU32, SSubU32),
        (SSubCoCiU32, SSubbU32),
        (TbufferLoadD16FormatX, TbufferLoadFormatD16X),
        (TbufferLoadD16FormatXy, TbufferLoadFormatD16Xy),
        (TbufferLoadD16FormatXyz, TbufferLoadFormatD16Xyz),
        (TbufferStoreD16FormatX, TbufferStoreFormatD16X),
        (TbufferStoreD16FormatXy, TbufferStoreFormatD16Xy),
        (TbufferLoadD16FormatXyzw, TbufferLoadFormatD16Xyzw),
        (TbufferStoreD16FormatXyz, TbufferStoreFormatD16Xyz),
        (TbufferStoreD16FormatXyzw, TbufferStoreFormatD16Xyzw),
        (VAddNcU32, VAddU32),
        (VAddCoCiU32, VAddcCoU32),
        (VCvtFloorI32F32, VCvtFlrI32F32),
        (VCvtPkRtzF16F32, VCvtPkrtzF16F32),
        (VCvtNearestI32F32, VCvtRpiI32F32),
        (VClsI32, VFfbhI32),
        (VClzI32U32, VFfbhU32),
        (VCtzI32B32, VFfblB32),
        (VMadCoI64I32, VMadI64I32),
        (VMadCoU64U32, VMadU64U32),
        (VMax3NumF32, VMax3F32),
        (VMaxNumF16, VMaxF16),
        (VMaxNumF32, VMaxF32),
        (VMaxNumF64, VMaxF64),
        (VMed3NumF32, VMed3F32),
        (VMin3NumF32, VMin3F32),
        (VMinNumF16, VMinF16),
        (VMinNumF32, VMinF32),
        (VMinNumF64, VMinF64),
        (VPkMaxNumF16, VPkMaxF16),
        (VPkMinNumF16, VPkMinF16),
        (VSubNcU32, VSubU32),
        (VSubCoCiU32, VSubbCoU32),
        (VSubrevCoCiU32, VSubbrevCoU32),
        (VSubrevNcU32, VSubrevU32),        (FlatAtomicAddU32, FlatAtomicAdd),
        (FlatAtomicAddU64, FlatAtomicAddX2),
        (FlatAtomicAndB32, FlatAtomicAnd),
        (FlatAtomicAndB64, FlatAtomicAndX2),
        (FlatAtomicCmpswapB32, FlatAtomicCmpswap),
        (FlatAtomicCmpswapB64, FlatAtomicCmpswapX2),
        (FlatAtomicCondSubU32, GlobalAtomicCondSubU32),
        (FlatAtomicDecU32, FlatAtomicDec),
        (FlatAtomicDecU64, FlatAtomicDecX2),
        (FlatAtomicIncU32, FlatAtomicInc),
        (FlatAtomicIncU64, FlatAtomicIncX2),
        (FlatAtomicMaxI32, FlatAtomicSmax),
        (FlatAtomicMaxI64, FlatAtomicSmaxX2),
        (FlatAtomicMaxNumF32, GlobalAtomicMaxNumF32),
        (FlatAtomicMaxU32, FlatAtomicUmax),
        (FlatAtomicMaxU64, FlatAtomicUmaxX2),
        (FlatAtomicMinI32, FlatAtomicSmin),
        (FlatAtomicMinI64, FlatAtomicSminX2),
        (FlatAtomicMinNumF32, GlobalAtomicMinNumF32),
        (FlatAtomicMinU32, FlatAtomicUmin),
        (FlatAtomicMinU64, FlatAtomicUminX2),
        (FlatAtomicOrB32, FlatAtomicOr),
        (FlatAtomicOrB64, FlatAtomicOrX2),
        (FlatAtomicSubClampU32, GlobalAtomicSubClampU32),
        (FlatAtomicSubU32, FlatAtomicSub),
        (FlatAtomicSubU64, FlatAtomicSubX2),
        (FlatAtomicSwapB32, FlatAtomicSwap),
        (FlatAtomicSwapB64, FlatAtomicSwapX2),
        (FlatAtomicXorB32, FlatAtomicXor),
        (FlatAtomicXorB64, FlatAtomicXorX2),
        (FlatLoadB128, FlatLoadDwordx4),
        (FlatLoadB32, FlatLoadDword),
        (FlatLoadB64, FlatLoadDwordx2),
        (FlatLoadB96, FlatLoadDwordx3),
        (FlatLoadD16B16, FlatLoadShortD16),
        (FlatLoadD16HiB16, FlatLoadShortD16Hi),
        (FlatLoadD16HiI8, GlobalLoadD16HiI8),
        (FlatLoadD16HiU8, GlobalLoadD16HiU8),
        (FlatLoadD16I8, GlobalLoadD16I8),
        (FlatLoadD16U8, GlobalLoadD16U8),
        (FlatLoadI16, FlatLoadSshort),
        (FlatLoadI8, FlatLoadSbyte),
        (FlatLoadU16, FlatLoadUshort),
        (FlatLoadU8, FlatLoadUbyte),
        (FlatStoreB128, FlatStoreDwordx4),
        (FlatStoreB16, FlatStoreShort),
        (FlatStoreB32, FlatStoreDword),
        (FlatStoreB64, FlatStoreDwordx2),
        (FlatStoreB8, FlatStoreByte),
        (FlatStoreB96, FlatStoreDwordx3),
        (FlatStoreD16HiB16, FlatStoreShortD16Hi),
        (FlatStoreD16HiB8, FlatStoreByteD16Hi),
    ]
};
