//! The executor's operation list and its GFX9 (gfx90a, gfx942, gfx950) opcode numbers.
//!
//! Why the executor has its own table: the shared decoder (`crate::isa`) was not available
//! when the execution core was written. The numbers below were read from
//! `llvm-objdump-22`/`llvm-mc-22 -show-encoding` output, and `tests/exec_decode_oracle.rs`
//! checks every instruction of every GFX9 corpus object against llvm-objdump's mnemonic.
//! When `isa::decode` lands, [`Op`] can be produced from its `Op` instead.

/// Which encoding an opcode number belongs to. VOP1/VOP2/VOPC operations also have a
/// VOP3 form whose VOP3 opcode is derived (VOPC + 0, VOP2 + 0x100, VOP1 + 0x140).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enc {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar compare.
    Sopc,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector, one source.
    Vop1,
    /// Vector, two sources.
    Vop2,
    /// Vector compare.
    Vopc,
    /// Vector, VOP3-only operation (or the VOP3 form of a VOP1/VOP2/VOPC one).
    Vop3,
    /// Packed / mixed precision.
    Vop3p,
    /// LDS.
    Ds,
    /// FLAT, GLOBAL and SCRATCH (one opcode table, the segment is a field).
    Flat,
    /// Untyped buffer.
    Mubuf,
    /// GFX12 dual-issue VALU pair (VOPD): `op` is the X half, [`super::Inst::y`] the Y half.
    Vopd,
}

/// On which GFX9 targets an opcode means this operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Avail {
    /// gfx90a, gfx942, gfx950.
    A,
    /// gfx90a only.
    P,
    /// gfx942 and gfx950.
    C,
    /// gfx950 only.
    N,
    /// GFX12 only: not in the GFX9 opcode tables; the GFX12 front end finds it by name.
    G,
    /// GFX9 MTBUF: decoded by hand (`super::decode`), not through the opcode tables
    /// (its opcode numbers would collide with MUBUF's).
    T,
}

macro_rules! ops {
    ($( $v:ident = $name:literal, $enc:ident, $code:literal, $avail:ident; )*) => {
        /// A machine operation (one variant per mnemonic, without `_e32`/`_e64`/`_sdwa`/
        /// `_dpp` suffixes, which are encodings of the same operation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs, non_camel_case_types)]
        #[non_exhaustive]
        pub enum Op { $($v,)* }

        impl Op {
            /// The LLVM mnemonic.
            pub const fn name(self) -> &'static str {
                match self { $(Op::$v => $name,)* }
            }
        }

        /// (operation, encoding, opcode, availability) for every GFX9 operation.
        pub(crate) const GFX9: &[(Op, Enc, u16, Avail)] = &[
            $((Op::$v, Enc::$enc, $code, Avail::$avail),)*
        ];
    };
}

ops! {
    // ---- SOP2 ----
    SAddU32 = "s_add_u32", Sop2, 0x00, A;
    SSubU32 = "s_sub_u32", Sop2, 0x01, A;
    SAddI32 = "s_add_i32", Sop2, 0x02, A;
    SSubI32 = "s_sub_i32", Sop2, 0x03, A;
    SAddcU32 = "s_addc_u32", Sop2, 0x04, A;
    SSubbU32 = "s_subb_u32", Sop2, 0x05, A;
    SMinI32 = "s_min_i32", Sop2, 0x06, A;
    SMinU32 = "s_min_u32", Sop2, 0x07, A;
    SMaxI32 = "s_max_i32", Sop2, 0x08, A;
    SMaxU32 = "s_max_u32", Sop2, 0x09, A;
    SCselectB32 = "s_cselect_b32", Sop2, 0x0a, A;
    SCselectB64 = "s_cselect_b64", Sop2, 0x0b, A;
    SAndB32 = "s_and_b32", Sop2, 0x0c, A;
    SAndB64 = "s_and_b64", Sop2, 0x0d, A;
    SOrB32 = "s_or_b32", Sop2, 0x0e, A;
    SOrB64 = "s_or_b64", Sop2, 0x0f, A;
    SXorB32 = "s_xor_b32", Sop2, 0x10, A;
    SXorB64 = "s_xor_b64", Sop2, 0x11, A;
    SAndn2B32 = "s_andn2_b32", Sop2, 0x12, A;
    SAndn2B64 = "s_andn2_b64", Sop2, 0x13, A;
    SOrn2B32 = "s_orn2_b32", Sop2, 0x14, A;
    SOrn2B64 = "s_orn2_b64", Sop2, 0x15, A;
    SNandB32 = "s_nand_b32", Sop2, 0x16, A;
    SNandB64 = "s_nand_b64", Sop2, 0x17, A;
    SNorB32 = "s_nor_b32", Sop2, 0x18, A;
    SNorB64 = "s_nor_b64", Sop2, 0x19, A;
    SXnorB32 = "s_xnor_b32", Sop2, 0x1a, A;
    SXnorB64 = "s_xnor_b64", Sop2, 0x1b, A;
    SLshlB32 = "s_lshl_b32", Sop2, 0x1c, A;
    SLshlB64 = "s_lshl_b64", Sop2, 0x1d, A;
    SLshrB32 = "s_lshr_b32", Sop2, 0x1e, A;
    SLshrB64 = "s_lshr_b64", Sop2, 0x1f, A;
    SAshrI32 = "s_ashr_i32", Sop2, 0x20, A;
    SAshrI64 = "s_ashr_i64", Sop2, 0x21, A;
    SBfmB32 = "s_bfm_b32", Sop2, 0x22, A;
    SBfmB64 = "s_bfm_b64", Sop2, 0x23, A;
    SMulI32 = "s_mul_i32", Sop2, 0x24, A;
    SBfeU32 = "s_bfe_u32", Sop2, 0x25, A;
    SBfeI32 = "s_bfe_i32", Sop2, 0x26, A;
    SBfeU64 = "s_bfe_u64", Sop2, 0x27, A;
    SBfeI64 = "s_bfe_i64", Sop2, 0x28, A;
    SAbsdiffI32 = "s_absdiff_i32", Sop2, 0x2a, A;
    SMulHiU32 = "s_mul_hi_u32", Sop2, 0x2c, A;
    SMulHiI32 = "s_mul_hi_i32", Sop2, 0x2d, A;
    SLshl1AddU32 = "s_lshl1_add_u32", Sop2, 0x2e, A;
    SLshl2AddU32 = "s_lshl2_add_u32", Sop2, 0x2f, A;
    SLshl3AddU32 = "s_lshl3_add_u32", Sop2, 0x30, A;
    SLshl4AddU32 = "s_lshl4_add_u32", Sop2, 0x31, A;
    SPackLlB32B16 = "s_pack_ll_b32_b16", Sop2, 0x32, A;
    SPackLhB32B16 = "s_pack_lh_b32_b16", Sop2, 0x33, A;
    SPackHhB32B16 = "s_pack_hh_b32_b16", Sop2, 0x34, A;
    // ---- SOP1 ----
    SMovB32 = "s_mov_b32", Sop1, 0x00, A;
    SMovB64 = "s_mov_b64", Sop1, 0x01, A;
    SCmovB32 = "s_cmov_b32", Sop1, 0x02, A;
    SCmovB64 = "s_cmov_b64", Sop1, 0x03, A;
    SNotB32 = "s_not_b32", Sop1, 0x04, A;
    SNotB64 = "s_not_b64", Sop1, 0x05, A;
    SWqmB32 = "s_wqm_b32", Sop1, 0x06, A;
    SWqmB64 = "s_wqm_b64", Sop1, 0x07, A;
    SBrevB32 = "s_brev_b32", Sop1, 0x08, A;
    SBrevB64 = "s_brev_b64", Sop1, 0x09, A;
    SBcnt0I32B32 = "s_bcnt0_i32_b32", Sop1, 0x0a, A;
    SBcnt0I32B64 = "s_bcnt0_i32_b64", Sop1, 0x0b, A;
    SBcnt1I32B32 = "s_bcnt1_i32_b32", Sop1, 0x0c, A;
    SBcnt1I32B64 = "s_bcnt1_i32_b64", Sop1, 0x0d, A;
    SFf0I32B32 = "s_ff0_i32_b32", Sop1, 0x0e, A;
    SFf0I32B64 = "s_ff0_i32_b64", Sop1, 0x0f, A;
    SFf1I32B32 = "s_ff1_i32_b32", Sop1, 0x10, A;
    SFf1I32B64 = "s_ff1_i32_b64", Sop1, 0x11, A;
    SFlbitI32B32 = "s_flbit_i32_b32", Sop1, 0x12, A;
    SFlbitI32B64 = "s_flbit_i32_b64", Sop1, 0x13, A;
    SFlbitI32 = "s_flbit_i32", Sop1, 0x14, A;
    SFlbitI32I64 = "s_flbit_i32_i64", Sop1, 0x15, A;
    SSextI32I8 = "s_sext_i32_i8", Sop1, 0x16, A;
    SSextI32I16 = "s_sext_i32_i16", Sop1, 0x17, A;
    SBitset0B32 = "s_bitset0_b32", Sop1, 0x18, A;
    SBitset0B64 = "s_bitset0_b64", Sop1, 0x19, A;
    SBitset1B32 = "s_bitset1_b32", Sop1, 0x1a, A;
    SBitset1B64 = "s_bitset1_b64", Sop1, 0x1b, A;
    SGetpcB64 = "s_getpc_b64", Sop1, 0x1c, A;
    SSetpcB64 = "s_setpc_b64", Sop1, 0x1d, A;
    SSwappcB64 = "s_swappc_b64", Sop1, 0x1e, A;
    SAndSaveexecB64 = "s_and_saveexec_b64", Sop1, 0x20, A;
    SOrSaveexecB64 = "s_or_saveexec_b64", Sop1, 0x21, A;
    SXorSaveexecB64 = "s_xor_saveexec_b64", Sop1, 0x22, A;
    SAndn2SaveexecB64 = "s_andn2_saveexec_b64", Sop1, 0x23, A;
    SOrn2SaveexecB64 = "s_orn2_saveexec_b64", Sop1, 0x24, A;
    SNandSaveexecB64 = "s_nand_saveexec_b64", Sop1, 0x25, A;
    SNorSaveexecB64 = "s_nor_saveexec_b64", Sop1, 0x26, A;
    SXnorSaveexecB64 = "s_xnor_saveexec_b64", Sop1, 0x27, A;
    SQuadmaskB64 = "s_quadmask_b64", Sop1, 0x29, A;
    SAbsI32 = "s_abs_i32", Sop1, 0x30, A;
    SAndn1SaveexecB64 = "s_andn1_saveexec_b64", Sop1, 0x33, A;
    SOrn1SaveexecB64 = "s_orn1_saveexec_b64", Sop1, 0x34, A;
    SAndn1WrexecB64 = "s_andn1_wrexec_b64", Sop1, 0x35, A;
    SAndn2WrexecB64 = "s_andn2_wrexec_b64", Sop1, 0x36, A;
    SBitreplicateB64B32 = "s_bitreplicate_b64_b32", Sop1, 0x37, A;
    // ---- SOPC ----
    SCmpEqI32 = "s_cmp_eq_i32", Sopc, 0x00, A;
    SCmpLgI32 = "s_cmp_lg_i32", Sopc, 0x01, A;
    SCmpGtI32 = "s_cmp_gt_i32", Sopc, 0x02, A;
    SCmpGeI32 = "s_cmp_ge_i32", Sopc, 0x03, A;
    SCmpLtI32 = "s_cmp_lt_i32", Sopc, 0x04, A;
    SCmpLeI32 = "s_cmp_le_i32", Sopc, 0x05, A;
    SCmpEqU32 = "s_cmp_eq_u32", Sopc, 0x06, A;
    SCmpLgU32 = "s_cmp_lg_u32", Sopc, 0x07, A;
    SCmpGtU32 = "s_cmp_gt_u32", Sopc, 0x08, A;
    SCmpGeU32 = "s_cmp_ge_u32", Sopc, 0x09, A;
    SCmpLtU32 = "s_cmp_lt_u32", Sopc, 0x0a, A;
    SCmpLeU32 = "s_cmp_le_u32", Sopc, 0x0b, A;
    SBitcmp0B32 = "s_bitcmp0_b32", Sopc, 0x0c, A;
    SBitcmp1B32 = "s_bitcmp1_b32", Sopc, 0x0d, A;
    SBitcmp0B64 = "s_bitcmp0_b64", Sopc, 0x0e, A;
    SBitcmp1B64 = "s_bitcmp1_b64", Sopc, 0x0f, A;
    SCmpEqU64 = "s_cmp_eq_u64", Sopc, 0x12, A;
    SCmpLgU64 = "s_cmp_lg_u64", Sopc, 0x13, A;
    // ---- SOPK ----
    SMovkI32 = "s_movk_i32", Sopk, 0x00, A;
    SCmovkI32 = "s_cmovk_i32", Sopk, 0x01, A;
    SCmpkEqI32 = "s_cmpk_eq_i32", Sopk, 0x02, A;
    SCmpkLgI32 = "s_cmpk_lg_i32", Sopk, 0x03, A;
    SCmpkGtI32 = "s_cmpk_gt_i32", Sopk, 0x04, A;
    SCmpkGeI32 = "s_cmpk_ge_i32", Sopk, 0x05, A;
    SCmpkLtI32 = "s_cmpk_lt_i32", Sopk, 0x06, A;
    SCmpkLeI32 = "s_cmpk_le_i32", Sopk, 0x07, A;
    SCmpkEqU32 = "s_cmpk_eq_u32", Sopk, 0x08, A;
    SCmpkLgU32 = "s_cmpk_lg_u32", Sopk, 0x09, A;
    SCmpkGtU32 = "s_cmpk_gt_u32", Sopk, 0x0a, A;
    SCmpkGeU32 = "s_cmpk_ge_u32", Sopk, 0x0b, A;
    SCmpkLtU32 = "s_cmpk_lt_u32", Sopk, 0x0c, A;
    SCmpkLeU32 = "s_cmpk_le_u32", Sopk, 0x0d, A;
    SAddkI32 = "s_addk_i32", Sopk, 0x0e, A;
    SMulkI32 = "s_mulk_i32", Sopk, 0x0f, A;
    SGetregB32 = "s_getreg_b32", Sopk, 0x11, A;
    SSetregB32 = "s_setreg_b32", Sopk, 0x12, A;
    SSetregImm32B32 = "s_setreg_imm32_b32", Sopk, 0x14, A;
    SCallB64 = "s_call_b64", Sopk, 0x15, A;
    // ---- SOPP ----
    SNop = "s_nop", Sopp, 0x00, A;
    SEndpgm = "s_endpgm", Sopp, 0x01, A;
    SBranch = "s_branch", Sopp, 0x02, A;
    SWakeup = "s_wakeup", Sopp, 0x03, A;
    SCbranchScc0 = "s_cbranch_scc0", Sopp, 0x04, A;
    SCbranchScc1 = "s_cbranch_scc1", Sopp, 0x05, A;
    SCbranchVccz = "s_cbranch_vccz", Sopp, 0x06, A;
    SCbranchVccnz = "s_cbranch_vccnz", Sopp, 0x07, A;
    SCbranchExecz = "s_cbranch_execz", Sopp, 0x08, A;
    SCbranchExecnz = "s_cbranch_execnz", Sopp, 0x09, A;
    SBarrier = "s_barrier", Sopp, 0x0a, A;
    SSetkill = "s_setkill", Sopp, 0x0b, A;
    SWaitcnt = "s_waitcnt", Sopp, 0x0c, A;
    SSethalt = "s_sethalt", Sopp, 0x0d, A;
    SSleep = "s_sleep", Sopp, 0x0e, A;
    SSetprio = "s_setprio", Sopp, 0x0f, A;
    SSendmsg = "s_sendmsg", Sopp, 0x10, A;
    SSendmsghalt = "s_sendmsghalt", Sopp, 0x11, A;
    STrap = "s_trap", Sopp, 0x12, A;
    SIcacheInv = "s_icache_inv", Sopp, 0x13, A;
    SIncperflevel = "s_incperflevel", Sopp, 0x14, A;
    SDecperflevel = "s_decperflevel", Sopp, 0x15, A;
    STtracedata = "s_ttracedata", Sopp, 0x16, A;
    SEndpgmSaved = "s_endpgm_saved", Sopp, 0x1b, A;
    // ---- SMEM ----
    SLoadDword = "s_load_dword", Smem, 0x00, A;
    SLoadDwordx2 = "s_load_dwordx2", Smem, 0x01, A;
    SLoadDwordx4 = "s_load_dwordx4", Smem, 0x02, A;
    SLoadDwordx8 = "s_load_dwordx8", Smem, 0x03, A;
    SLoadDwordx16 = "s_load_dwordx16", Smem, 0x04, A;
    SBufferLoadDword = "s_buffer_load_dword", Smem, 0x08, A;
    SBufferLoadDwordx2 = "s_buffer_load_dwordx2", Smem, 0x09, A;
    SBufferLoadDwordx4 = "s_buffer_load_dwordx4", Smem, 0x0a, A;
    SBufferLoadDwordx8 = "s_buffer_load_dwordx8", Smem, 0x0b, A;
    SBufferLoadDwordx16 = "s_buffer_load_dwordx16", Smem, 0x0c, A;
    SStoreDword = "s_store_dword", Smem, 0x10, A;
    SStoreDwordx2 = "s_store_dwordx2", Smem, 0x11, A;
    SStoreDwordx4 = "s_store_dwordx4", Smem, 0x12, A;
    SDcacheInv = "s_dcache_inv", Smem, 0x20, A;
    SDcacheWb = "s_dcache_wb", Smem, 0x21, A;
    SDcacheInvVol = "s_dcache_inv_vol", Smem, 0x22, A;
    SDcacheWbVol = "s_dcache_wb_vol", Smem, 0x23, A;
    SMemtime = "s_memtime", Smem, 0x24, A;
    SMemrealtime = "s_memrealtime", Smem, 0x25, A;
    // ---- VOP1 ----
    VNop = "v_nop", Vop1, 0x00, A;
    VMovB32 = "v_mov_b32", Vop1, 0x01, A;
    VReadfirstlaneB32 = "v_readfirstlane_b32", Vop1, 0x02, A;
    VCvtI32F64 = "v_cvt_i32_f64", Vop1, 0x03, A;
    VCvtF64I32 = "v_cvt_f64_i32", Vop1, 0x04, A;
    VCvtF32I32 = "v_cvt_f32_i32", Vop1, 0x05, A;
    VCvtF32U32 = "v_cvt_f32_u32", Vop1, 0x06, A;
    VCvtU32F32 = "v_cvt_u32_f32", Vop1, 0x07, A;
    VCvtI32F32 = "v_cvt_i32_f32", Vop1, 0x08, A;
    VCvtF16F32 = "v_cvt_f16_f32", Vop1, 0x0a, A;
    VCvtF32F16 = "v_cvt_f32_f16", Vop1, 0x0b, A;
    VCvtRpiI32F32 = "v_cvt_rpi_i32_f32", Vop1, 0x0c, A;
    VCvtFlrI32F32 = "v_cvt_flr_i32_f32", Vop1, 0x0d, A;
    VCvtF32F64 = "v_cvt_f32_f64", Vop1, 0x0f, A;
    VCvtF64F32 = "v_cvt_f64_f32", Vop1, 0x10, A;
    VCvtF32Ubyte0 = "v_cvt_f32_ubyte0", Vop1, 0x11, A;
    VCvtF32Ubyte1 = "v_cvt_f32_ubyte1", Vop1, 0x12, A;
    VCvtF32Ubyte2 = "v_cvt_f32_ubyte2", Vop1, 0x13, A;
    VCvtF32Ubyte3 = "v_cvt_f32_ubyte3", Vop1, 0x14, A;
    VCvtU32F64 = "v_cvt_u32_f64", Vop1, 0x15, A;
    VCvtF64U32 = "v_cvt_f64_u32", Vop1, 0x16, A;
    VTruncF64 = "v_trunc_f64", Vop1, 0x17, A;
    VCeilF64 = "v_ceil_f64", Vop1, 0x18, A;
    VRndneF64 = "v_rndne_f64", Vop1, 0x19, A;
    VFloorF64 = "v_floor_f64", Vop1, 0x1a, A;
    VFractF32 = "v_fract_f32", Vop1, 0x1b, A;
    VTruncF32 = "v_trunc_f32", Vop1, 0x1c, A;
    VCeilF32 = "v_ceil_f32", Vop1, 0x1d, A;
    VRndneF32 = "v_rndne_f32", Vop1, 0x1e, A;
    VFloorF32 = "v_floor_f32", Vop1, 0x1f, A;
    VExpF32 = "v_exp_f32", Vop1, 0x20, A;
    VLogF32 = "v_log_f32", Vop1, 0x21, A;
    VRcpF32 = "v_rcp_f32", Vop1, 0x22, A;
    VRcpIflagF32 = "v_rcp_iflag_f32", Vop1, 0x23, A;
    VRsqF32 = "v_rsq_f32", Vop1, 0x24, A;
    VRcpF64 = "v_rcp_f64", Vop1, 0x25, A;
    VRsqF64 = "v_rsq_f64", Vop1, 0x26, A;
    VSqrtF32 = "v_sqrt_f32", Vop1, 0x27, A;
    VSqrtF64 = "v_sqrt_f64", Vop1, 0x28, A;
    VSinF32 = "v_sin_f32", Vop1, 0x29, A;
    VCosF32 = "v_cos_f32", Vop1, 0x2a, A;
    VNotB32 = "v_not_b32", Vop1, 0x2b, A;
    VBfrevB32 = "v_bfrev_b32", Vop1, 0x2c, A;
    VFfbhU32 = "v_ffbh_u32", Vop1, 0x2d, A;
    VFfblB32 = "v_ffbl_b32", Vop1, 0x2e, A;
    VFfbhI32 = "v_ffbh_i32", Vop1, 0x2f, A;
    VFrexpExpI32F64 = "v_frexp_exp_i32_f64", Vop1, 0x30, A;
    VFrexpMantF64 = "v_frexp_mant_f64", Vop1, 0x31, A;
    VFractF64 = "v_fract_f64", Vop1, 0x32, A;
    VFrexpExpI32F32 = "v_frexp_exp_i32_f32", Vop1, 0x33, A;
    VFrexpMantF32 = "v_frexp_mant_f32", Vop1, 0x34, A;
    VMovB64 = "v_mov_b64", Vop1, 0x38, C;
    VCvtF16U16 = "v_cvt_f16_u16", Vop1, 0x39, A;
    VCvtF16I16 = "v_cvt_f16_i16", Vop1, 0x3a, A;
    VCvtU16F16 = "v_cvt_u16_f16", Vop1, 0x3b, A;
    VCvtI16F16 = "v_cvt_i16_f16", Vop1, 0x3c, A;
    VRcpF16 = "v_rcp_f16", Vop1, 0x3d, A;
    VSqrtF16 = "v_sqrt_f16", Vop1, 0x3e, A;
    VRsqF16 = "v_rsq_f16", Vop1, 0x3f, A;
    VLogF16 = "v_log_f16", Vop1, 0x40, A;
    VExpF16 = "v_exp_f16", Vop1, 0x41, A;
    VFloorF16 = "v_floor_f16", Vop1, 0x44, A;
    VCeilF16 = "v_ceil_f16", Vop1, 0x45, A;
    VTruncF16 = "v_trunc_f16", Vop1, 0x46, A;
    VRndneF16 = "v_rndne_f16", Vop1, 0x47, A;
    VSwapB32 = "v_swap_b32", Vop1, 0x51, A;
    VAccvgprMovB32 = "v_accvgpr_mov_b32", Vop1, 0x52, A;
    VPermlane16SwapB32 = "v_permlane16_swap_b32", Vop1, 0x59, N;
    VPermlane32SwapB32 = "v_permlane32_swap_b32", Vop1, 0x5a, N;
    // ---- VOP2 ----
    VCndmaskB32 = "v_cndmask_b32", Vop2, 0x00, A;
    VAddF32 = "v_add_f32", Vop2, 0x01, A;
    VSubF32 = "v_sub_f32", Vop2, 0x02, A;
    VSubrevF32 = "v_subrev_f32", Vop2, 0x03, A;
    VFmacF64 = "v_fmac_f64", Vop2, 0x04, A;
    VMulF32 = "v_mul_f32", Vop2, 0x05, A;
    VMulI32I24 = "v_mul_i32_i24", Vop2, 0x06, A;
    VMulHiI32I24 = "v_mul_hi_i32_i24", Vop2, 0x07, A;
    VMulU32U24 = "v_mul_u32_u24", Vop2, 0x08, A;
    VMulHiU32U24 = "v_mul_hi_u32_u24", Vop2, 0x09, A;
    VMinF32 = "v_min_f32", Vop2, 0x0a, A;
    VMaxF32 = "v_max_f32", Vop2, 0x0b, A;
    VMinI32 = "v_min_i32", Vop2, 0x0c, A;
    VMaxI32 = "v_max_i32", Vop2, 0x0d, A;
    VMinU32 = "v_min_u32", Vop2, 0x0e, A;
    VMaxU32 = "v_max_u32", Vop2, 0x0f, A;
    VLshrrevB32 = "v_lshrrev_b32", Vop2, 0x10, A;
    VAshrrevI32 = "v_ashrrev_i32", Vop2, 0x11, A;
    VLshlrevB32 = "v_lshlrev_b32", Vop2, 0x12, A;
    VAndB32 = "v_and_b32", Vop2, 0x13, A;
    VOrB32 = "v_or_b32", Vop2, 0x14, A;
    VXorB32 = "v_xor_b32", Vop2, 0x15, A;
    VMacF32 = "v_mac_f32", Vop2, 0x16, P;
    VMadmkF32 = "v_madmk_f32", Vop2, 0x17, P;
    VMadakF32 = "v_madak_f32", Vop2, 0x18, P;
    VFmamkF32 = "v_fmamk_f32", Vop2, 0x17, C;
    VFmaakF32 = "v_fmaak_f32", Vop2, 0x18, C;
    VAddCoU32 = "v_add_co_u32", Vop2, 0x19, A;
    VSubCoU32 = "v_sub_co_u32", Vop2, 0x1a, A;
    VSubrevCoU32 = "v_subrev_co_u32", Vop2, 0x1b, A;
    VAddcCoU32 = "v_addc_co_u32", Vop2, 0x1c, A;
    VSubbCoU32 = "v_subb_co_u32", Vop2, 0x1d, A;
    VSubbrevCoU32 = "v_subbrev_co_u32", Vop2, 0x1e, A;
    VAddF16 = "v_add_f16", Vop2, 0x1f, A;
    VSubF16 = "v_sub_f16", Vop2, 0x20, A;
    VSubrevF16 = "v_subrev_f16", Vop2, 0x21, A;
    VMulF16 = "v_mul_f16", Vop2, 0x22, A;
    VAddU16 = "v_add_u16", Vop2, 0x26, A;
    VSubU16 = "v_sub_u16", Vop2, 0x27, A;
    VSubrevU16 = "v_subrev_u16", Vop2, 0x28, A;
    VMulLoU16 = "v_mul_lo_u16", Vop2, 0x29, A;
    VLshlrevB16 = "v_lshlrev_b16", Vop2, 0x2a, A;
    VLshrrevB16 = "v_lshrrev_b16", Vop2, 0x2b, A;
    VAshrrevI16 = "v_ashrrev_i16", Vop2, 0x2c, A;
    VMaxF16 = "v_max_f16", Vop2, 0x2d, A;
    VMinF16 = "v_min_f16", Vop2, 0x2e, A;
    VMaxU16 = "v_max_u16", Vop2, 0x2f, A;
    VMaxI16 = "v_max_i16", Vop2, 0x30, A;
    VMinU16 = "v_min_u16", Vop2, 0x31, A;
    VMinI16 = "v_min_i16", Vop2, 0x32, A;
    VLdexpF16 = "v_ldexp_f16", Vop2, 0x33, A;
    VAddU32 = "v_add_u32", Vop2, 0x34, A;
    VSubU32 = "v_sub_u32", Vop2, 0x35, A;
    VSubrevU32 = "v_subrev_u32", Vop2, 0x36, A;
    VFmacF32 = "v_fmac_f32", Vop2, 0x3b, A;
    VXnorB32 = "v_xnor_b32", Vop2, 0x3d, A;
    // ---- VOPC (compares: f16 0x20, f32 0x40, f64 0x60, i16/u16 0xa0, i32/u32 0xc0, i64/u64 0xe0) ----
    VCmpClassF32 = "v_cmp_class_f32", Vopc, 0x10, A;
    VCmpxClassF32 = "v_cmpx_class_f32", Vopc, 0x11, A;
    VCmpClassF64 = "v_cmp_class_f64", Vopc, 0x12, A;
    VCmpxClassF64 = "v_cmpx_class_f64", Vopc, 0x13, A;
    VCmpClassF16 = "v_cmp_class_f16", Vopc, 0x14, A;
    VCmpxClassF16 = "v_cmpx_class_f16", Vopc, 0x15, A;
    VCmpF16 = "v_cmp_*_f16", Vopc, 0x20, A;
    VCmpxF16 = "v_cmpx_*_f16", Vopc, 0x30, A;
    VCmpF32 = "v_cmp_*_f32", Vopc, 0x40, A;
    VCmpxF32 = "v_cmpx_*_f32", Vopc, 0x50, A;
    VCmpF64 = "v_cmp_*_f64", Vopc, 0x60, A;
    VCmpxF64 = "v_cmpx_*_f64", Vopc, 0x70, A;
    VCmpI16 = "v_cmp_*_i16", Vopc, 0xa0, A;
    VCmpU16 = "v_cmp_*_u16", Vopc, 0xa8, A;
    VCmpxI16 = "v_cmpx_*_i16", Vopc, 0xb0, A;
    VCmpxU16 = "v_cmpx_*_u16", Vopc, 0xb8, A;
    VCmpI32 = "v_cmp_*_i32", Vopc, 0xc0, A;
    VCmpU32 = "v_cmp_*_u32", Vopc, 0xc8, A;
    VCmpxI32 = "v_cmpx_*_i32", Vopc, 0xd0, A;
    VCmpxU32 = "v_cmpx_*_u32", Vopc, 0xd8, A;
    VCmpI64 = "v_cmp_*_i64", Vopc, 0xe0, A;
    VCmpU64 = "v_cmp_*_u64", Vopc, 0xe8, A;
    VCmpxI64 = "v_cmpx_*_i64", Vopc, 0xf0, A;
    VCmpxU64 = "v_cmpx_*_u64", Vopc, 0xf8, A;
    // ---- VOP3 only ----
    VMadLegacyF32 = "v_mad_legacy_f32", Vop3, 0x1c0, A;
    VMadF32 = "v_mad_f32", Vop3, 0x1c1, A;
    VMadI32I24 = "v_mad_i32_i24", Vop3, 0x1c2, A;
    VMadU32U24 = "v_mad_u32_u24", Vop3, 0x1c3, A;
    VBfeU32 = "v_bfe_u32", Vop3, 0x1c8, A;
    VBfeI32 = "v_bfe_i32", Vop3, 0x1c9, A;
    VBfiB32 = "v_bfi_b32", Vop3, 0x1ca, A;
    VFmaF32 = "v_fma_f32", Vop3, 0x1cb, A;
    VFmaF64 = "v_fma_f64", Vop3, 0x1cc, A;
    VAlignbitB32 = "v_alignbit_b32", Vop3, 0x1ce, A;
    VAlignbyteB32 = "v_alignbyte_b32", Vop3, 0x1cf, A;
    VMin3F32 = "v_min3_f32", Vop3, 0x1d0, A;
    VMin3I32 = "v_min3_i32", Vop3, 0x1d1, A;
    VMin3U32 = "v_min3_u32", Vop3, 0x1d2, A;
    VMax3F32 = "v_max3_f32", Vop3, 0x1d3, A;
    VMax3I32 = "v_max3_i32", Vop3, 0x1d4, A;
    VMax3U32 = "v_max3_u32", Vop3, 0x1d5, A;
    VMed3F32 = "v_med3_f32", Vop3, 0x1d6, A;
    VMed3I32 = "v_med3_i32", Vop3, 0x1d7, A;
    VMed3U32 = "v_med3_u32", Vop3, 0x1d8, A;
    VDivFixupF32 = "v_div_fixup_f32", Vop3, 0x1de, A;
    VDivFixupF64 = "v_div_fixup_f64", Vop3, 0x1df, A;
    VDivScaleF32 = "v_div_scale_f32", Vop3, 0x1e0, A;
    VDivScaleF64 = "v_div_scale_f64", Vop3, 0x1e1, A;
    VDivFmasF32 = "v_div_fmas_f32", Vop3, 0x1e2, A;
    VDivFmasF64 = "v_div_fmas_f64", Vop3, 0x1e3, A;
    VMadU64U32 = "v_mad_u64_u32", Vop3, 0x1e8, A;
    VMadI64I32 = "v_mad_i64_i32", Vop3, 0x1e9, A;
    VPermB32 = "v_perm_b32", Vop3, 0x1ed, A;
    VMadU32U16 = "v_mad_u32_u16", Vop3, 0x1f1, A;
    VMadI32I16 = "v_mad_i32_i16", Vop3, 0x1f2, A;
    VXadU32 = "v_xad_u32", Vop3, 0x1f3, A;
    VLshlAddU32 = "v_lshl_add_u32", Vop3, 0x1fd, A;
    VAddLshlU32 = "v_add_lshl_u32", Vop3, 0x1fe, A;
    VAdd3U32 = "v_add3_u32", Vop3, 0x1ff, A;
    VLshlOrB32 = "v_lshl_or_b32", Vop3, 0x200, A;
    VAndOrB32 = "v_and_or_b32", Vop3, 0x201, A;
    VOr3B32 = "v_or3_b32", Vop3, 0x202, A;
    VFmaF16 = "v_fma_f16", Vop3, 0x206, A;
    VLshlAddU64 = "v_lshl_add_u64", Vop3, 0x208, C;
    VBitop3B32 = "v_bitop3_b32", Vop3, 0x234, N;
    VAddF64 = "v_add_f64", Vop3, 0x280, A;
    VMulF64 = "v_mul_f64", Vop3, 0x281, A;
    VMinF64 = "v_min_f64", Vop3, 0x282, A;
    VMaxF64 = "v_max_f64", Vop3, 0x283, A;
    VLdexpF64 = "v_ldexp_f64", Vop3, 0x284, A;
    VMulLoU32 = "v_mul_lo_u32", Vop3, 0x285, A;
    VMulHiU32 = "v_mul_hi_u32", Vop3, 0x286, A;
    VMulHiI32 = "v_mul_hi_i32", Vop3, 0x287, A;
    VLdexpF32 = "v_ldexp_f32", Vop3, 0x288, A;
    VReadlaneB32 = "v_readlane_b32", Vop3, 0x289, A;
    VWritelaneB32 = "v_writelane_b32", Vop3, 0x28a, A;
    VBcntU32B32 = "v_bcnt_u32_b32", Vop3, 0x28b, A;
    VMbcntLoU32B32 = "v_mbcnt_lo_u32_b32", Vop3, 0x28c, A;
    VMbcntHiU32B32 = "v_mbcnt_hi_u32_b32", Vop3, 0x28d, A;
    VLshlrevB64 = "v_lshlrev_b64", Vop3, 0x28f, A;
    VLshrrevB64 = "v_lshrrev_b64", Vop3, 0x290, A;
    VAshrrevI64 = "v_ashrrev_i64", Vop3, 0x291, A;
    VBfmB32 = "v_bfm_b32", Vop3, 0x293, A;
    VCvtPkrtzF16F32 = "v_cvt_pkrtz_f16_f32", Vop3, 0x296, A;
    VPackB32F16 = "v_pack_b32_f16", Vop3, 0x2a0, A;
    // ---- VOP3P ----
    VPkMulLoU16 = "v_pk_mul_lo_u16", Vop3p, 0x01, A;
    VPkAddU16 = "v_pk_add_u16", Vop3p, 0x0a, A;
    VPkFmaF16 = "v_pk_fma_f16", Vop3p, 0x0e, A;
    VPkAddF16 = "v_pk_add_f16", Vop3p, 0x0f, A;
    VPkMulF16 = "v_pk_mul_f16", Vop3p, 0x10, A;
    VPkMinF16 = "v_pk_min_f16", Vop3p, 0x11, A;
    VPkMaxF16 = "v_pk_max_f16", Vop3p, 0x12, A;
    VFmaMixF32 = "v_fma_mix_f32", Vop3p, 0x20, A;
    VFmaMixloF16 = "v_fma_mixlo_f16", Vop3p, 0x21, A;
    VFmaMixhiF16 = "v_fma_mixhi_f16", Vop3p, 0x22, A;
    VPkFmaF32 = "v_pk_fma_f32", Vop3p, 0x30, A;
    VPkMulF32 = "v_pk_mul_f32", Vop3p, 0x31, A;
    VPkAddF32 = "v_pk_add_f32", Vop3p, 0x32, A;
    VPkMovB32 = "v_pk_mov_b32", Vop3p, 0x33, A;
    VMfmaF32_16x16x4F32 = "v_mfma_f32_16x16x4f32", Vop3p, 0x45, P;
    VMfmaF32_16x16x4F32Gfx940 = "v_mfma_f32_16x16x4_f32", Vop3p, 0x45, C;
    VMfmaF32_32x32x2F32 = "v_mfma_f32_32x32x2f32", Vop3p, 0x44, P;
    VMfmaF32_32x32x2F32Gfx940 = "v_mfma_f32_32x32x2_f32", Vop3p, 0x44, C;
    VMfmaF32_32x32x8F16 = "v_mfma_f32_32x32x8f16", Vop3p, 0x4c, P;
    VMfmaF32_32x32x8F16Gfx940 = "v_mfma_f32_32x32x8_f16", Vop3p, 0x4c, C;
    VMfmaF32_16x16x16F16 = "v_mfma_f32_16x16x16f16", Vop3p, 0x4d, P;
    VMfmaF32_16x16x16F16Gfx940 = "v_mfma_f32_16x16x16_f16", Vop3p, 0x4d, C;
    VMfmaF32_32x32x1F32 = "v_mfma_f32_32x32x1f32", Vop3p, 0x40, P;
    VMfmaF32_16x16x1F32 = "v_mfma_f32_16x16x1f32", Vop3p, 0x41, P;
    VMfmaF32_4x4x1F32 = "v_mfma_f32_4x4x1f32", Vop3p, 0x42, P;
    VMfmaF32_32x32x4F16 = "v_mfma_f32_32x32x4f16", Vop3p, 0x48, P;
    VMfmaF32_16x16x4F16 = "v_mfma_f32_16x16x4f16", Vop3p, 0x49, P;
    VMfmaF32_4x4x4F16 = "v_mfma_f32_4x4x4f16", Vop3p, 0x4a, P;
    VMfmaI32_32x32x4I8 = "v_mfma_i32_32x32x4i8", Vop3p, 0x50, P;
    VMfmaI32_16x16x4I8 = "v_mfma_i32_16x16x4i8", Vop3p, 0x51, P;
    VMfmaI32_4x4x4I8 = "v_mfma_i32_4x4x4i8", Vop3p, 0x52, P;
    VMfmaI32_32x32x8I8 = "v_mfma_i32_32x32x8i8", Vop3p, 0x54, P;
    VMfmaI32_16x16x16I8 = "v_mfma_i32_16x16x16i8", Vop3p, 0x55, P;
    VMfmaF32_32x32x4Bf16_1k = "v_mfma_f32_32x32x4bf16_1k", Vop3p, 0x63, P;
    VMfmaF32_16x16x4Bf16_1k = "v_mfma_f32_16x16x4bf16_1k", Vop3p, 0x64, P;
    VMfmaF32_4x4x4Bf16_1k = "v_mfma_f32_4x4x4bf16_1k", Vop3p, 0x65, P;
    VMfmaF32_32x32x8Bf16_1k = "v_mfma_f32_32x32x8bf16_1k", Vop3p, 0x66, P;
    VMfmaF32_16x16x16Bf16_1k = "v_mfma_f32_16x16x16bf16_1k", Vop3p, 0x67, P;
    VMfmaF32_32x32x2Bf16 = "v_mfma_f32_32x32x2bf16", Vop3p, 0x68, P;
    VMfmaF32_16x16x2Bf16 = "v_mfma_f32_16x16x2bf16", Vop3p, 0x69, P;
    VMfmaF32_4x4x2Bf16 = "v_mfma_f32_4x4x2bf16", Vop3p, 0x6b, P;
    VMfmaF32_32x32x4Bf16 = "v_mfma_f32_32x32x4bf16", Vop3p, 0x6c, P;
    VMfmaF32_16x16x8Bf16 = "v_mfma_f32_16x16x8bf16", Vop3p, 0x6d, P;
    VMfmaF64_16x16x4F64 = "v_mfma_f64_16x16x4f64", Vop3p, 0x6e, P;
    VMfmaF32_32x32x1_2bF32 = "v_mfma_f32_32x32x1_2b_f32", Vop3p, 0x40, C;
    VMfmaF32_16x16x1_4bF32 = "v_mfma_f32_16x16x1_4b_f32", Vop3p, 0x41, C;
    VMfmaF32_4x4x1_16bF32 = "v_mfma_f32_4x4x1_16b_f32", Vop3p, 0x42, C;
    VMfmaF32_32x32x4_2bF16 = "v_mfma_f32_32x32x4_2b_f16", Vop3p, 0x48, C;
    VMfmaF32_16x16x4_4bF16 = "v_mfma_f32_16x16x4_4b_f16", Vop3p, 0x49, C;
    VMfmaF32_4x4x4_16bF16 = "v_mfma_f32_4x4x4_16b_f16", Vop3p, 0x4a, C;
    VMfmaI32_32x32x4_2bI8 = "v_mfma_i32_32x32x4_2b_i8", Vop3p, 0x50, C;
    VMfmaI32_16x16x4_4bI8 = "v_mfma_i32_16x16x4_4b_i8", Vop3p, 0x51, C;
    VMfmaI32_4x4x4_16bI8 = "v_mfma_i32_4x4x4_16b_i8", Vop3p, 0x52, C;
    VMfmaI32_32x32x16I8 = "v_mfma_i32_32x32x16_i8", Vop3p, 0x56, C;
    VMfmaI32_16x16x32I8 = "v_mfma_i32_16x16x32_i8", Vop3p, 0x57, C;
    VMfmaF32_32x32x4_2bBf16 = "v_mfma_f32_32x32x4_2b_bf16", Vop3p, 0x5d, C;
    VMfmaF32_16x16x4_4bBf16 = "v_mfma_f32_16x16x4_4b_bf16", Vop3p, 0x5e, C;
    VMfmaF32_4x4x4_16bBf16 = "v_mfma_f32_4x4x4_16b_bf16", Vop3p, 0x5f, C;
    VMfmaF32_32x32x8Bf16 = "v_mfma_f32_32x32x8_bf16", Vop3p, 0x60, C;
    VMfmaF32_16x16x16Bf16 = "v_mfma_f32_16x16x16_bf16", Vop3p, 0x61, C;
    VMfmaF64_16x16x4F64Gfx940 = "v_mfma_f64_16x16x4_f64", Vop3p, 0x6e, C;
    VMfmaF32_16x16x32Bf16 = "v_mfma_f32_16x16x32_bf16", Vop3p, 0x35, N;
    VMfmaI32_16x16x64I8 = "v_mfma_i32_16x16x64_i8", Vop3p, 0x36, N;
    VMfmaF32_32x32x16Bf16 = "v_mfma_f32_32x32x16_bf16", Vop3p, 0x37, N;
    VMfmaI32_32x32x32I8 = "v_mfma_i32_32x32x32_i8", Vop3p, 0x38, N;
    VMfmaF32_16x16x32F16 = "v_mfma_f32_16x16x32_f16", Vop3p, 0x54, N;
    VMfmaF32_32x32x16F16 = "v_mfma_f32_32x32x16_f16", Vop3p, 0x55, N;
    VAccvgprReadB32 = "v_accvgpr_read_b32", Vop3p, 0x58, A;
    VAccvgprWriteB32 = "v_accvgpr_write_b32", Vop3p, 0x59, A;
    // ---- DS ----
    DsAddU32 = "ds_add_u32", Ds, 0x00, A;
    DsSubU32 = "ds_sub_u32", Ds, 0x01, A;
    DsRsubU32 = "ds_rsub_u32", Ds, 0x02, A;
    DsIncU32 = "ds_inc_u32", Ds, 0x03, A;
    DsDecU32 = "ds_dec_u32", Ds, 0x04, A;
    DsMinI32 = "ds_min_i32", Ds, 0x05, A;
    DsMaxI32 = "ds_max_i32", Ds, 0x06, A;
    DsMinU32 = "ds_min_u32", Ds, 0x07, A;
    DsMaxU32 = "ds_max_u32", Ds, 0x08, A;
    DsAndB32 = "ds_and_b32", Ds, 0x09, A;
    DsOrB32 = "ds_or_b32", Ds, 0x0a, A;
    DsXorB32 = "ds_xor_b32", Ds, 0x0b, A;
    DsWriteB32 = "ds_write_b32", Ds, 0x0d, A;
    DsWrite2B32 = "ds_write2_b32", Ds, 0x0e, A;
    DsWrite2st64B32 = "ds_write2st64_b32", Ds, 0x0f, A;
    DsCmpstB32 = "ds_cmpst_b32", Ds, 0x10, A;
    DsMinF32 = "ds_min_f32", Ds, 0x12, A;
    DsMaxF32 = "ds_max_f32", Ds, 0x13, A;
    DsNop = "ds_nop", Ds, 0x14, A;
    DsAddF32 = "ds_add_f32", Ds, 0x15, A;
    DsWriteB8 = "ds_write_b8", Ds, 0x1e, A;
    DsWriteB16 = "ds_write_b16", Ds, 0x1f, A;
    DsAddRtnU32 = "ds_add_rtn_u32", Ds, 0x20, A;
    DsSubRtnU32 = "ds_sub_rtn_u32", Ds, 0x21, A;
    DsRsubRtnU32 = "ds_rsub_rtn_u32", Ds, 0x22, A;
    DsIncRtnU32 = "ds_inc_rtn_u32", Ds, 0x23, A;
    DsDecRtnU32 = "ds_dec_rtn_u32", Ds, 0x24, A;
    DsMinRtnI32 = "ds_min_rtn_i32", Ds, 0x25, A;
    DsMaxRtnI32 = "ds_max_rtn_i32", Ds, 0x26, A;
    DsMinRtnU32 = "ds_min_rtn_u32", Ds, 0x27, A;
    DsMaxRtnU32 = "ds_max_rtn_u32", Ds, 0x28, A;
    DsAndRtnB32 = "ds_and_rtn_b32", Ds, 0x29, A;
    DsOrRtnB32 = "ds_or_rtn_b32", Ds, 0x2a, A;
    DsXorRtnB32 = "ds_xor_rtn_b32", Ds, 0x2b, A;
    DsWrxchgRtnB32 = "ds_wrxchg_rtn_b32", Ds, 0x2d, A;
    DsCmpstRtnB32 = "ds_cmpst_rtn_b32", Ds, 0x30, A;
    DsMinRtnF32 = "ds_min_rtn_f32", Ds, 0x32, A;
    DsMaxRtnF32 = "ds_max_rtn_f32", Ds, 0x33, A;
    DsAddRtnF32 = "ds_add_rtn_f32", Ds, 0x35, A;
    DsReadB32 = "ds_read_b32", Ds, 0x36, A;
    DsRead2B32 = "ds_read2_b32", Ds, 0x37, A;
    DsRead2st64B32 = "ds_read2st64_b32", Ds, 0x38, A;
    DsReadI8 = "ds_read_i8", Ds, 0x39, A;
    DsReadU8 = "ds_read_u8", Ds, 0x3a, A;
    DsReadI16 = "ds_read_i16", Ds, 0x3b, A;
    DsReadU16 = "ds_read_u16", Ds, 0x3c, A;
    DsSwizzleB32 = "ds_swizzle_b32", Ds, 0x3d, A;
    DsPermuteB32 = "ds_permute_b32", Ds, 0x3e, A;
    DsBpermuteB32 = "ds_bpermute_b32", Ds, 0x3f, A;
    DsAddU64 = "ds_add_u64", Ds, 0x40, A;
    DsWriteB64 = "ds_write_b64", Ds, 0x4d, A;
    DsWrite2B64 = "ds_write2_b64", Ds, 0x4e, A;
    DsWrite2st64B64 = "ds_write2st64_b64", Ds, 0x4f, A;
    DsAddRtnU64 = "ds_add_rtn_u64", Ds, 0x60, A;
    DsReadB64 = "ds_read_b64", Ds, 0x76, A;
    DsRead2B64 = "ds_read2_b64", Ds, 0x77, A;
    DsRead2st64B64 = "ds_read2st64_b64", Ds, 0x78, A;
    DsWriteB96 = "ds_write_b96", Ds, 0xde, A;
    DsWriteB128 = "ds_write_b128", Ds, 0xdf, A;
    DsReadB96 = "ds_read_b96", Ds, 0xfe, A;
    DsReadB128 = "ds_read_b128", Ds, 0xff, A;
    // ---- FLAT / GLOBAL / SCRATCH (mnemonic prefix depends on the segment) ----
    FLoadUbyte = "load_ubyte", Flat, 0x10, A;
    FLoadSbyte = "load_sbyte", Flat, 0x11, A;
    FLoadUshort = "load_ushort", Flat, 0x12, A;
    FLoadSshort = "load_sshort", Flat, 0x13, A;
    FLoadDword = "load_dword", Flat, 0x14, A;
    FLoadDwordx2 = "load_dwordx2", Flat, 0x15, A;
    FLoadDwordx3 = "load_dwordx3", Flat, 0x16, A;
    FLoadDwordx4 = "load_dwordx4", Flat, 0x17, A;
    FStoreByte = "store_byte", Flat, 0x18, A;
    FStoreByteD16Hi = "store_byte_d16_hi", Flat, 0x19, A;
    FStoreShort = "store_short", Flat, 0x1a, A;
    FStoreShortD16Hi = "store_short_d16_hi", Flat, 0x1b, A;
    FStoreDword = "store_dword", Flat, 0x1c, A;
    FStoreDwordx2 = "store_dwordx2", Flat, 0x1d, A;
    FStoreDwordx3 = "store_dwordx3", Flat, 0x1e, A;
    FStoreDwordx4 = "store_dwordx4", Flat, 0x1f, A;
    FLoadShortD16 = "load_short_d16", Flat, 0x24, A;
    FLoadShortD16Hi = "load_short_d16_hi", Flat, 0x25, A;
    FLoadLdsUbyte = "load_lds_ubyte", Flat, 0x26, C;
    FLoadLdsSbyte = "load_lds_sbyte", Flat, 0x27, C;
    FLoadLdsUshort = "load_lds_ushort", Flat, 0x28, C;
    FLoadLdsSshort = "load_lds_sshort", Flat, 0x29, C;
    FLoadLdsDword = "load_lds_dword", Flat, 0x2a, C;
    FLoadLdsDwordx4 = "load_lds_dwordx4", Flat, 0x7d, N;
    FLoadLdsDwordx3 = "load_lds_dwordx3", Flat, 0x7e, N;
    FAtomicSwap = "atomic_swap", Flat, 0x40, A;
    FAtomicCmpswap = "atomic_cmpswap", Flat, 0x41, A;
    FAtomicAdd = "atomic_add", Flat, 0x42, A;
    FAtomicSub = "atomic_sub", Flat, 0x43, A;
    FAtomicSmin = "atomic_smin", Flat, 0x44, A;
    FAtomicUmin = "atomic_umin", Flat, 0x45, A;
    FAtomicSmax = "atomic_smax", Flat, 0x46, A;
    FAtomicUmax = "atomic_umax", Flat, 0x47, A;
    FAtomicAnd = "atomic_and", Flat, 0x48, A;
    FAtomicOr = "atomic_or", Flat, 0x49, A;
    FAtomicXor = "atomic_xor", Flat, 0x4a, A;
    FAtomicInc = "atomic_inc", Flat, 0x4b, A;
    FAtomicDec = "atomic_dec", Flat, 0x4c, A;
    FAtomicAddF32 = "atomic_add_f32", Flat, 0x4d, A;
    FAtomicAddF64 = "atomic_add_f64", Flat, 0x4f, A;
    FAtomicMinF64 = "atomic_min_f64", Flat, 0x50, A;
    FAtomicMaxF64 = "atomic_max_f64", Flat, 0x51, A;
    FAtomicSwapX2 = "atomic_swap_x2", Flat, 0x60, A;
    FAtomicCmpswapX2 = "atomic_cmpswap_x2", Flat, 0x61, A;
    FAtomicAddX2 = "atomic_add_x2", Flat, 0x62, A;
    FAtomicSubX2 = "atomic_sub_x2", Flat, 0x63, A;
    FAtomicSminX2 = "atomic_smin_x2", Flat, 0x64, A;
    FAtomicUminX2 = "atomic_umin_x2", Flat, 0x65, A;
    FAtomicSmaxX2 = "atomic_smax_x2", Flat, 0x66, A;
    FAtomicUmaxX2 = "atomic_umax_x2", Flat, 0x67, A;
    FAtomicAndX2 = "atomic_and_x2", Flat, 0x68, A;
    FAtomicOrX2 = "atomic_or_x2", Flat, 0x69, A;
    FAtomicXorX2 = "atomic_xor_x2", Flat, 0x6a, A;
    FAtomicIncX2 = "atomic_inc_x2", Flat, 0x6b, A;
    FAtomicDecX2 = "atomic_dec_x2", Flat, 0x6c, A;
    // ---- MUBUF ----
    BLoadUbyte = "buffer_load_ubyte", Mubuf, 0x10, A;
    BLoadSbyte = "buffer_load_sbyte", Mubuf, 0x11, A;
    BLoadUshort = "buffer_load_ushort", Mubuf, 0x12, A;
    BLoadSshort = "buffer_load_sshort", Mubuf, 0x13, A;
    BLoadDword = "buffer_load_dword", Mubuf, 0x14, A;
    BLoadDwordx2 = "buffer_load_dwordx2", Mubuf, 0x15, A;
    BLoadDwordx3 = "buffer_load_dwordx3", Mubuf, 0x16, A;
    BLoadDwordx4 = "buffer_load_dwordx4", Mubuf, 0x17, A;
    BStoreByte = "buffer_store_byte", Mubuf, 0x18, A;
    BStoreShort = "buffer_store_short", Mubuf, 0x1a, A;
    BStoreDword = "buffer_store_dword", Mubuf, 0x1c, A;
    BStoreDwordx2 = "buffer_store_dwordx2", Mubuf, 0x1d, A;
    BStoreDwordx3 = "buffer_store_dwordx3", Mubuf, 0x1e, A;
    BStoreDwordx4 = "buffer_store_dwordx4", Mubuf, 0x1f, A;
    BWbl2 = "buffer_wbl2", Mubuf, 0x28, A;
    BInv = "buffer_inv", Mubuf, 0x29, C;
    BWbinvl1 = "buffer_wbinvl1", Mubuf, 0x3e, P;
    BWbinvl1Vol = "buffer_wbinvl1_vol", Mubuf, 0x3f, P;
    BLoadUbyteD16 = "buffer_load_ubyte_d16", Mubuf, 0x20, A;
    BLoadUbyteD16Hi = "buffer_load_ubyte_d16_hi", Mubuf, 0x21, A;
    BLoadSbyteD16 = "buffer_load_sbyte_d16", Mubuf, 0x22, A;
    BLoadSbyteD16Hi = "buffer_load_sbyte_d16_hi", Mubuf, 0x23, A;
    BLoadShortD16 = "buffer_load_short_d16", Mubuf, 0x24, A;
    BLoadShortD16Hi = "buffer_load_short_d16_hi", Mubuf, 0x25, A;
    BStoreByteD16Hi = "buffer_store_byte_d16_hi", Mubuf, 0x19, A;
    BStoreShortD16Hi = "buffer_store_short_d16_hi", Mubuf, 0x1b, A;
    BAtomicSwap = "buffer_atomic_swap", Mubuf, 0x40, A;
    BAtomicCmpswap = "buffer_atomic_cmpswap", Mubuf, 0x41, A;
    BAtomicAdd = "buffer_atomic_add", Mubuf, 0x42, A;
    BAtomicSub = "buffer_atomic_sub", Mubuf, 0x43, A;
    BAtomicSmin = "buffer_atomic_smin", Mubuf, 0x44, A;
    BAtomicUmin = "buffer_atomic_umin", Mubuf, 0x45, A;
    BAtomicSmax = "buffer_atomic_smax", Mubuf, 0x46, A;
    BAtomicUmax = "buffer_atomic_umax", Mubuf, 0x47, A;
    BAtomicAnd = "buffer_atomic_and", Mubuf, 0x48, A;
    BAtomicOr = "buffer_atomic_or", Mubuf, 0x49, A;
    BAtomicXor = "buffer_atomic_xor", Mubuf, 0x4a, A;
    BAtomicInc = "buffer_atomic_inc", Mubuf, 0x4b, A;
    BAtomicDec = "buffer_atomic_dec", Mubuf, 0x4c, A;
    BAtomicAddF32 = "buffer_atomic_add_f32", Mubuf, 0x4d, A;
    BAtomicAddF64 = "buffer_atomic_add_f64", Mubuf, 0x4f, A;
    BAtomicMinF64 = "buffer_atomic_min_f64", Mubuf, 0x50, A;
    BAtomicMaxF64 = "buffer_atomic_max_f64", Mubuf, 0x51, A;
    BAtomicSwapX2 = "buffer_atomic_swap_x2", Mubuf, 0x60, A;
    BAtomicCmpswapX2 = "buffer_atomic_cmpswap_x2", Mubuf, 0x61, A;
    BAtomicAddX2 = "buffer_atomic_add_x2", Mubuf, 0x62, A;
    BAtomicSubX2 = "buffer_atomic_sub_x2", Mubuf, 0x63, A;
    BAtomicSminX2 = "buffer_atomic_smin_x2", Mubuf, 0x64, A;
    BAtomicUminX2 = "buffer_atomic_umin_x2", Mubuf, 0x65, A;
    BAtomicSmaxX2 = "buffer_atomic_smax_x2", Mubuf, 0x66, A;
    BAtomicUmaxX2 = "buffer_atomic_umax_x2", Mubuf, 0x67, A;
    BAtomicAndX2 = "buffer_atomic_and_x2", Mubuf, 0x68, A;
    BAtomicOrX2 = "buffer_atomic_or_x2", Mubuf, 0x69, A;
    BAtomicXorX2 = "buffer_atomic_xor_x2", Mubuf, 0x6a, A;
    BAtomicIncX2 = "buffer_atomic_inc_x2", Mubuf, 0x6b, A;
    BAtomicDecX2 = "buffer_atomic_dec_x2", Mubuf, 0x6c, A;
    // ---- GFX9 MTBUF (typed buffer), decoded by hand ----
    TLoadFormatX = "tbuffer_load_format_x", Mubuf, 0, T;
    TLoadFormatXy = "tbuffer_load_format_xy", Mubuf, 1, T;
    TLoadFormatXyz = "tbuffer_load_format_xyz", Mubuf, 2, T;
    TLoadFormatXyzw = "tbuffer_load_format_xyzw", Mubuf, 3, T;
    TStoreFormatX = "tbuffer_store_format_x", Mubuf, 4, T;
    TStoreFormatXy = "tbuffer_store_format_xy", Mubuf, 5, T;
    TStoreFormatXyz = "tbuffer_store_format_xyz", Mubuf, 6, T;
    TStoreFormatXyzw = "tbuffer_store_format_xyzw", Mubuf, 7, T;
    // ---- GFX12-only operations (reached by name from `isa::decode`; opcode unused) ----
    SAndSaveexecB32 = "s_and_saveexec_b32", Sop1, 0, G;
    SOrSaveexecB32 = "s_or_saveexec_b32", Sop1, 0, G;
    SXorSaveexecB32 = "s_xor_saveexec_b32", Sop1, 0, G;
    SAndn2SaveexecB32 = "s_andn2_saveexec_b32", Sop1, 0, G;
    SOrn2SaveexecB32 = "s_orn2_saveexec_b32", Sop1, 0, G;
    SNandSaveexecB32 = "s_nand_saveexec_b32", Sop1, 0, G;
    SNorSaveexecB32 = "s_nor_saveexec_b32", Sop1, 0, G;
    SXnorSaveexecB32 = "s_xnor_saveexec_b32", Sop1, 0, G;
    SAndn1SaveexecB32 = "s_andn1_saveexec_b32", Sop1, 0, G;
    SOrn1SaveexecB32 = "s_orn1_saveexec_b32", Sop1, 0, G;
    SBarrierSignal = "s_barrier_signal", Sop1, 0, G;
    SCvtF32I32 = "s_cvt_f32_i32", Sop1, 0, G;
    SCvtF32U32 = "s_cvt_f32_u32", Sop1, 0, G;
    SCvtI32F32 = "s_cvt_i32_f32", Sop1, 0, G;
    SCvtU32F32 = "s_cvt_u32_f32", Sop1, 0, G;
    SCeilF32 = "s_ceil_f32", Sop1, 0, G;
    SFloorF32 = "s_floor_f32", Sop1, 0, G;
    STruncF32 = "s_trunc_f32", Sop1, 0, G;
    SRndneF32 = "s_rndne_f32", Sop1, 0, G;
    SAddNcU64 = "s_add_nc_u64", Sop2, 0, G;
    SSubNcU64 = "s_sub_nc_u64", Sop2, 0, G;
    SMulU64 = "s_mul_u64", Sop2, 0, G;
    SAddF32 = "s_add_f32", Sop2, 0, G;
    SSubF32 = "s_sub_f32", Sop2, 0, G;
    SMulF32 = "s_mul_f32", Sop2, 0, G;
    SMinNumF32 = "s_min_num_f32", Sop2, 0, G;
    SMaxNumF32 = "s_max_num_f32", Sop2, 0, G;
    SFmacF32 = "s_fmac_f32", Sop2, 0, G;
    SFmaakF32 = "s_fmaak_f32", Sop2, 0, G;
    SFmamkF32 = "s_fmamk_f32", Sop2, 0, G;
    SWaitLoadcnt = "s_wait_loadcnt", Sopp, 0, G;
    SWaitStorecnt = "s_wait_storecnt", Sopp, 0, G;
    SWaitDscnt = "s_wait_dscnt", Sopp, 0, G;
    SWaitKmcnt = "s_wait_kmcnt", Sopp, 0, G;
    SWaitLoadcntDscnt = "s_wait_loadcnt_dscnt", Sopp, 0, G;
    SWaitStorecntDscnt = "s_wait_storecnt_dscnt", Sopp, 0, G;
    SWaitSamplecnt = "s_wait_samplecnt", Sopp, 0, G;
    SWaitBvhcnt = "s_wait_bvhcnt", Sopp, 0, G;
    SWaitExpcnt = "s_wait_expcnt", Sopp, 0, G;
    SWaitIdle = "s_wait_idle", Sopp, 0, G;
    SWaitAlu = "s_wait_alu", Sopp, 0, G;
    SDelayAlu = "s_delay_alu", Sopp, 0, G;
    SClause = "s_clause", Sopp, 0, G;
    SBarrierWait = "s_barrier_wait", Sopp, 0, G;
    SRoundMode = "s_round_mode", Sopp, 0, G;
    SDenormMode = "s_denorm_mode", Sopp, 0, G;
    SLoadDwordx3 = "s_load_dwordx3", Smem, 0, G;
    SBufferLoadDwordx3 = "s_buffer_load_dwordx3", Smem, 0, G;
    VXor3B32 = "v_xor3_b32", Vop3, 0, G;
    VPermlane16B32 = "v_permlane16_b32", Vop3, 0, G;
    VPermlanex16B32 = "v_permlanex16_b32", Vop3, 0, G;
    VPermlane16VarB32 = "v_permlane16_var_b32", Vop3, 0, G;
    VPermlanex16VarB32 = "v_permlanex16_var_b32", Vop3, 0, G;
    VSRcpF32 = "v_s_rcp_f32", Vop3, 0, G;
    VSRsqF32 = "v_s_rsq_f32", Vop3, 0, G;
    VSSqrtF32 = "v_s_sqrt_f32", Vop3, 0, G;
    VSExpF32 = "v_s_exp_f32", Vop3, 0, G;
    VSLogF32 = "v_s_log_f32", Vop3, 0, G;
    FInv = "inv", Flat, 0, G;
    FWb = "wb", Flat, 0, G;
    FWbinv = "wbinv", Flat, 0, G;
}
