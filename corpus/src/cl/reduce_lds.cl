// reduce_lds: per-workgroup sum of a u32 array through an LDS tree with barriers.
#include "prelude.h"

#define WG 256
GFX_KERNEL GFX_WG_EXACT(WG, 1, 1) void reduce_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *partial, uint n) {
  GFX_LOCAL uint tmp[WG];
  uint lid = get_local_id(0);
  uint i = get_global_id(0);
  tmp[lid] = i < n ? in[i] : 0u;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) tmp[lid] += tmp[lid + s];
    barrier();
  }
  if (lid == 0) partial[get_group_id(0)] = tmp[0];
}
