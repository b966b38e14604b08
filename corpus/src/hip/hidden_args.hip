// hidden_args: reads the launch geometry three ways (code object v5/v6 only):
// the implicit kernarg block (hidden_block_count/group_size/remainder/grid_dims), the AQL
// dispatch packet (workgroup_size, grid_size), and the size of each workgroup as ROCm's
// device libraries derive it from the hidden arguments.
#include "prelude.h"

GFX_KERNEL void hidden_args(uint *out) {
  const uint *ia = (const uint *)__builtin_amdgcn_implicitarg_ptr();
  const ushort *ia16 = (const ushort *)ia;
  const ushort *dp16 = (const ushort *)__builtin_amdgcn_dispatch_ptr();
  const uint *dp32 = (const uint *)dp16;
  uint g = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2));
  uint l = get_local_linear_id();
  uint *o = out + 16u * (g * get_local_size(0) * get_local_size(1) * get_local_size(2) + l);
  o[0] = ia[0];             // hidden_block_count_x
  o[1] = ia[1];             // hidden_block_count_y
  o[2] = ia[2];             // hidden_block_count_z
  o[3] = ia16[6];           // hidden_group_size_x
  o[4] = ia16[7];           // hidden_group_size_y
  o[5] = ia16[8];           // hidden_group_size_z
  o[6] = ia16[9];           // hidden_remainder_x
  o[7] = ia16[10];          // hidden_remainder_y
  o[8] = ia16[11];          // hidden_remainder_z
  o[9] = ia16[32];          // hidden_grid_dims (offset 64)
  o[10] = dp16[2];          // dispatch packet workgroup_size_x
  o[11] = dp32[3];          // dispatch packet grid_size_x
  o[12] = dp32[4];          // dispatch packet grid_size_y
  o[13] = dp32[5];          // dispatch packet grid_size_z
  // The size of THIS workgroup as ROCm's device libraries compute it under code object
  // v5 (ockl get_local_size): full groups come before the block count, the last (partial)
  // group takes the remainder.
  uint ls[3];
  for (uint d = 0; d < 3; ++d)
    ls[d] = get_group_id(d) < ia[d] ? (uint)ia16[6 + d] : (uint)ia16[9 + d];
  o[14] = ls[0] * 65536u + ls[1] * 256u + ls[2];
  o[15] = dp16[1] & 3u;     // dispatch packet setup.dimensions
}
