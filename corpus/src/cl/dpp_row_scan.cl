// dpp_row_scan: inclusive prefix sum within each row of 16 lanes using DPP row_shr:1,2,4,8
// (same semantics on GFX9 and GFX12, wave32 and wave64).
#include "prelude.h"

GFX_KERNEL void dpp_row_scan(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
  uint i = get_global_id(0);
  int v = (int)in[i];
  // update_dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl): lanes shifted in from
  // outside the row read `old` = 0.
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);  // row_shr:1
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);  // row_shr:2
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false);  // row_shr:4
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false);  // row_shr:8
  out[i] = (uint)v;
}
