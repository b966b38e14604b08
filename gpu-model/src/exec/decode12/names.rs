//! GFX12 operation names onto the executor's operations: renamed operations, memory
//! operation names, and the compare conditions of the VOPC families.

use crate::exec::op::{Op, GFX9};
use std::collections::HashMap;
use std::sync::OnceLock;

/// GFX12 mnemonic -> the executor's name for the same operation (same semantics).
const RENAMES: &[(&str, &str)] = &[
    ("tbuffer_load_d16_format_x", "tbuffer_load_format_d16_x"),
    ("tbuffer_load_d16_format_xy", "tbuffer_load_format_d16_xy"),
    ("tbuffer_load_d16_format_xyz", "tbuffer_load_format_d16_xyz"),
    (
        "tbuffer_load_d16_format_xyzw",
        "tbuffer_load_format_d16_xyzw",
    ),
    ("tbuffer_store_d16_format_x", "tbuffer_store_format_d16_x"),
    ("tbuffer_store_d16_format_xy", "tbuffer_store_format_d16_xy"),
    (
        "tbuffer_store_d16_format_xyz",
        "tbuffer_store_format_d16_xyz",
    ),
    (
        "tbuffer_store_d16_format_xyzw",
        "tbuffer_store_format_d16_xyzw",
    ),
    ("s_and_not1_b32", "s_andn2_b32"),
    ("s_and_not1_b64", "s_andn2_b64"),
    ("s_or_not1_b32", "s_orn2_b32"),
    ("s_or_not1_b64", "s_orn2_b64"),
    ("s_and_not1_saveexec_b32", "s_andn2_saveexec_b32"),
    ("s_and_not1_saveexec_b64", "s_andn2_saveexec_b64"),
    ("s_or_not1_saveexec_b32", "s_orn2_saveexec_b32"),
    ("s_or_not1_saveexec_b64", "s_orn2_saveexec_b64"),
    ("s_and_not0_saveexec_b32", "s_andn1_saveexec_b32"),
    ("s_and_not0_saveexec_b64", "s_andn1_saveexec_b64"),
    ("s_or_not0_saveexec_b32", "s_orn1_saveexec_b32"),
    ("s_or_not0_saveexec_b64", "s_orn1_saveexec_b64"),
    ("s_and_not0_wrexec_b64", "s_andn1_wrexec_b64"),
    ("s_and_not1_wrexec_b64", "s_andn2_wrexec_b64"),
    ("s_add_co_u32", "s_add_u32"),
    ("s_sub_co_u32", "s_sub_u32"),
    ("s_add_co_i32", "s_add_i32"),
    ("s_sub_co_i32", "s_sub_i32"),
    ("s_add_co_ci_u32", "s_addc_u32"),
    ("s_sub_co_ci_u32", "s_subb_u32"),
    ("s_addk_co_i32", "s_addk_i32"),
    ("s_ctz_i32_b32", "s_ff1_i32_b32"),
    ("s_ctz_i32_b64", "s_ff1_i32_b64"),
    ("s_clz_i32_u32", "s_flbit_i32_b32"),
    ("s_clz_i32_u64", "s_flbit_i32_b64"),
    ("s_cls_i32", "s_flbit_i32"),
    ("s_cls_i32_i64", "s_flbit_i32_i64"),
    ("s_load_b32", "s_load_dword"),
    ("s_load_b64", "s_load_dwordx2"),
    ("s_load_b96", "s_load_dwordx3"),
    ("s_load_b128", "s_load_dwordx4"),
    ("s_load_b256", "s_load_dwordx8"),
    ("s_load_b512", "s_load_dwordx16"),
    ("s_buffer_load_b32", "s_buffer_load_dword"),
    ("s_buffer_load_b64", "s_buffer_load_dwordx2"),
    ("s_buffer_load_b96", "s_buffer_load_dwordx3"),
    ("s_buffer_load_b128", "s_buffer_load_dwordx4"),
    ("s_buffer_load_b256", "s_buffer_load_dwordx8"),
    ("s_buffer_load_b512", "s_buffer_load_dwordx16"),
    ("v_add_nc_u32", "v_add_u32"),
    ("v_sub_nc_u32", "v_sub_u32"),
    ("v_subrev_nc_u32", "v_subrev_u32"),
    ("v_add_co_ci_u32", "v_addc_co_u32"),
    ("v_sub_co_ci_u32", "v_subb_co_u32"),
    ("v_subrev_co_ci_u32", "v_subbrev_co_u32"),
    ("v_mad_co_u64_u32", "v_mad_u64_u32"),
    ("v_mad_co_i64_i32", "v_mad_i64_i32"),
    ("v_max_num_f32", "v_max_f32"),
    ("v_min_num_f32", "v_min_f32"),
    ("v_max_num_f16", "v_max_f16"),
    ("v_min_num_f16", "v_min_f16"),
    ("v_max_num_f64", "v_max_f64"),
    ("v_min_num_f64", "v_min_f64"),
    ("v_med3_num_f32", "v_med3_f32"),
    ("v_med3_num_f16", "v_med3_f16"),
    ("v_max3_num_f32", "v_max3_f32"),
    ("v_min3_num_f32", "v_min3_f32"),
    ("v_pk_max_num_f16", "v_pk_max_f16"),
    ("v_pk_min_num_f16", "v_pk_min_f16"),
    ("v_ctz_i32_b32", "v_ffbl_b32"),
    ("v_clz_i32_u32", "v_ffbh_u32"),
    ("v_cls_i32", "v_ffbh_i32"),
    ("v_mul_dx9_zero_f32", "v_mul_legacy_f32"),
    ("v_cvt_pk_rtz_f16_f32", "v_cvt_pkrtz_f16_f32"),
    ("v_cvt_floor_i32_f32", "v_cvt_flr_i32_f32"),
    ("v_cvt_nearest_i32_f32", "v_cvt_rpi_i32_f32"),
    ("ds_load_b32", "ds_read_b32"),
    ("ds_load_b64", "ds_read_b64"),
    ("ds_load_b96", "ds_read_b96"),
    ("ds_load_b128", "ds_read_b128"),
    ("ds_load_u8", "ds_read_u8"),
    ("ds_load_i8", "ds_read_i8"),
    ("ds_load_u16", "ds_read_u16"),
    ("ds_load_i16", "ds_read_i16"),
    ("ds_load_2addr_b32", "ds_read2_b32"),
    ("ds_load_2addr_b64", "ds_read2_b64"),
    ("ds_load_2addr_stride64_b32", "ds_read2st64_b32"),
    ("ds_load_2addr_stride64_b64", "ds_read2st64_b64"),
    ("ds_store_b8", "ds_write_b8"),
    ("ds_store_b16", "ds_write_b16"),
    ("ds_store_b32", "ds_write_b32"),
    ("ds_store_b64", "ds_write_b64"),
    ("ds_store_b96", "ds_write_b96"),
    ("ds_store_b128", "ds_write_b128"),
    ("ds_store_2addr_b32", "ds_write2_b32"),
    ("ds_store_2addr_b64", "ds_write2_b64"),
    ("ds_store_2addr_stride64_b32", "ds_write2st64_b32"),
    ("ds_store_2addr_stride64_b64", "ds_write2st64_b64"),
    ("ds_storexchg_rtn_b32", "ds_wrxchg_rtn_b32"),
];

/// FLAT/GLOBAL/SCRATCH operation names (after the segment prefix) -> the executor's.
const MEM_RENAMES: &[(&str, &str)] = &[
    ("load_b32", "load_dword"),
    ("load_b64", "load_dwordx2"),
    ("load_b96", "load_dwordx3"),
    ("load_b128", "load_dwordx4"),
    ("load_u8", "load_ubyte"),
    ("load_i8", "load_sbyte"),
    ("load_u16", "load_ushort"),
    ("load_i16", "load_sshort"),
    ("load_d16_b16", "load_short_d16"),
    ("load_d16_hi_b16", "load_short_d16_hi"),
    ("store_b8", "store_byte"),
    ("store_b16", "store_short"),
    ("store_d16_hi_b8", "store_byte_d16_hi"),
    ("store_d16_hi_b16", "store_short_d16_hi"),
    ("store_b32", "store_dword"),
    ("store_b64", "store_dwordx2"),
    ("store_b96", "store_dwordx3"),
    ("store_b128", "store_dwordx4"),
    ("load_d16_u8", "load_ubyte_d16"),
    ("load_d16_hi_u8", "load_ubyte_d16_hi"),
    ("load_d16_i8", "load_sbyte_d16"),
    ("load_d16_hi_i8", "load_sbyte_d16_hi"),
    ("atomic_swap_b32", "atomic_swap"),
    ("atomic_cmpswap_b32", "atomic_cmpswap"),
    ("atomic_add_u32", "atomic_add"),
    ("atomic_sub_u32", "atomic_sub"),
    ("atomic_min_i32", "atomic_smin"),
    ("atomic_min_u32", "atomic_umin"),
    ("atomic_max_i32", "atomic_smax"),
    ("atomic_max_u32", "atomic_umax"),
    ("atomic_and_b32", "atomic_and"),
    ("atomic_or_b32", "atomic_or"),
    ("atomic_xor_b32", "atomic_xor"),
    ("atomic_inc_u32", "atomic_inc"),
    ("atomic_dec_u32", "atomic_dec"),
    ("atomic_swap_b64", "atomic_swap_x2"),
    ("atomic_cmpswap_b64", "atomic_cmpswap_x2"),
    ("atomic_add_u64", "atomic_add_x2"),
    ("atomic_sub_u64", "atomic_sub_x2"),
    ("atomic_min_i64", "atomic_smin_x2"),
    ("atomic_min_u64", "atomic_umin_x2"),
    ("atomic_max_i64", "atomic_smax_x2"),
    ("atomic_max_u64", "atomic_umax_x2"),
    ("atomic_and_b64", "atomic_and_x2"),
    ("atomic_or_b64", "atomic_or_x2"),
    ("atomic_xor_b64", "atomic_xor_x2"),
    ("atomic_inc_u64", "atomic_inc_x2"),
    ("atomic_dec_u64", "atomic_dec_x2"),
];

/// Float compare conditions in opcode order (`t` is GFX12's name for `tru`).
const FCOND: [&str; 16] = [
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
    "t",
];
/// Integer compare conditions in opcode order.
const ICOND: [&str; 8] = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"];

/// Every executor operation by name.
fn by_name() -> &'static HashMap<&'static str, Op> {
    static M: OnceLock<HashMap<&'static str, Op>> = OnceLock::new();
    M.get_or_init(|| GFX9.iter().map(|&(op, ..)| (op.name(), op)).collect())
}

/// How a GFX12 operation maps onto the executor.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mapped {
    pub(super) op: Op,
    /// Compare condition (VOPC family).
    pub(super) cond: u8,
    /// A vector compare.
    pub(super) cmp: bool,
    /// `v_cmpx_*`: writes EXEC only.
    pub(super) cmpx: bool,
}

/// Finds the executor operation for a GFX12 mnemonic (without encoding suffix).
pub(super) fn lookup(name: &str) -> Option<Mapped> {
    let map = by_name();
    let plain = |op| Mapped {
        op,
        cond: 0,
        cmp: false,
        cmpx: false,
    };
    for (pre, cmpx) in [("v_cmpx_", true), ("v_cmp_", false)] {
        let Some(rest) = name.strip_prefix(pre) else {
            continue;
        };
        let cmp = |op, cond| Mapped {
            op,
            cond,
            cmp: true,
            cmpx,
        };
        if rest.starts_with("class_") {
            return map.get(name).map(|&op| cmp(op, 0));
        }
        let (c, ty) = rest.split_once('_')?;
        let cond = if ty.starts_with('f') {
            FCOND.iter().position(|&k| k == c)?
        } else {
            ICOND.iter().position(|&k| k == c)?
        };
        let key = format!("{pre}*_{ty}");
        return map.get(key.as_str()).map(|&op| cmp(op, cond as u8));
    }
    let renamed = RENAMES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, b)| b);
    if let Some(&op) = map.get(renamed) {
        return Some(plain(op));
    }
    for pre in ["global_", "flat_", "scratch_"] {
        if let Some(rest) = name.strip_prefix(pre) {
            let r = MEM_RENAMES
                .iter()
                .find(|(a, _)| *a == rest)
                .map_or(rest, |(_, b)| b);
            return map.get(r).map(|&op| plain(op));
        }
    }
    // Buffer operations keep their `buffer_` prefix in the executor's names.
    let rest = name.strip_prefix("buffer_")?;
    let r = MEM_RENAMES
        .iter()
        .find(|(a, _)| *a == rest)
        .map_or(rest, |(_, b)| b);
    map.get(format!("buffer_{r}").as_str()).map(|&op| plain(op))
}
