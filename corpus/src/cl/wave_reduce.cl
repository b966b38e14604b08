// wave_reduce: butterfly sum across the wave with ds_bpermute (works for wave32 and wave64),
// then one LDS atomic per wave; the per-workgroup result does not depend on the wave size.
#include "prelude.h"

GFX_KERNEL GFX_WG_MAX(1024) void wave_reduce(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
  GFX_LOCAL uint total;
  uint lid = get_local_id(0);
  if (lid == 0) total = 0;
  barrier();
  uint v = in[get_global_id(0)];
  uint lane = lane_id();
  for (uint m = 1; m < wave_size(); m <<= 1)
    v += (uint)__builtin_amdgcn_ds_bpermute((int)((lane ^ m) << 2), (int)v);
  if (lane == 0) atomic_add_wg(&total, v);
  barrier();
  if (lid == 0) out[get_group_id(0)] = total;
}
