// histogram_lds: per-workgroup 64-bin histogram with LDS atomics, merged with global atomics.
#include "prelude.h"

#define WG 256
GFX_KERNEL GFX_WG_EXACT(WG, 1, 1) void histogram_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *bins, uint n) {
  GFX_LOCAL uint h[64];
  uint lid = get_local_id(0);
  if (lid < 64u) h[lid] = 0;
  barrier();
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) atomic_add_wg(&h[(in[i] >> 4) & 63u], 1u);
  barrier();
  if (lid < 64u && h[lid]) atomic_add_dev(&bins[lid], h[lid]);
}
