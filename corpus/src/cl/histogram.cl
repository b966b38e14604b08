// histogram: 256-bin histogram of the low byte of each u32 input with global atomic adds.
#include "prelude.h"

GFX_KERNEL void histogram(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *bins, uint n) {
  uint i = get_global_id(0);
  if (i < n) atomic_add_dev(&bins[in[i] & 255u], 1u);
}
