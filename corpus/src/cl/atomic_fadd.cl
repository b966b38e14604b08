// atomic_fadd: f32 atomic add at device scope (global_atomic_add_f32 or a CAS loop, as the
// target allows). Inputs are small integers, so every partial sum is exact and the result
// does not depend on the order.
#include "prelude.h"

GFX_KERNEL void atomic_fadd(GFX_GLOBAL const float *in, GFX_GLOBAL float *sums, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  atomic_add_dev(&sums[i & 7u], in[i]);
}
