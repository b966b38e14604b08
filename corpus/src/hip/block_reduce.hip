// block_reduce: 1024-thread workgroups; wave-level sums with ds_swizzle (xor butterflies
// within 32 lanes) and a readlane of lane 32 on wave64, partial sums through LDS.
#include "prelude.h"

__device__ static uint wave_sum(uint v) {
  // ds_swizzle bit-mode offset: and_mask 0x1f, or_mask 0, xor_mask m -> 0x1f | m << 10.
  v += (uint)__builtin_amdgcn_ds_swizzle((int)v, 0x041f);
  v += (uint)__builtin_amdgcn_ds_swizzle((int)v, 0x081f);
  v += (uint)__builtin_amdgcn_ds_swizzle((int)v, 0x101f);
  v += (uint)__builtin_amdgcn_ds_swizzle((int)v, 0x201f);
  v += (uint)__builtin_amdgcn_ds_swizzle((int)v, 0x401f);
  if (wave_size() == 64) v = (uint)__builtin_amdgcn_readlane((int)v, 0) + (uint)__builtin_amdgcn_readlane((int)v, 32);
  return v;
}

GFX_KERNEL __launch_bounds__(1024) void block_reduce(const uint *in, uint *out) {
  __shared__ uint partial[32];
  uint t = get_local_id(0);
  uint s = wave_sum(in[get_global_id(0)] * (t | 1u));
  uint w = t / wave_size();
  if (lane_id() == 0) partial[w] = s;
  barrier();
  if (t == 0) {
    uint total = 0;
    for (uint k = 0; k < get_local_size(0) / wave_size(); ++k) total += partial[k];
    out[get_group_id(0)] = total;
  }
}
