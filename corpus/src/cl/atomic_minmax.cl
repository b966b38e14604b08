// atomic_minmax: global atomics min/max (signed and unsigned), and/or/xor, sub, 64-bit add
// and max, all with results that do not depend on the order of execution.
#include "prelude.h"

GFX_KERNEL void atomic_minmax(GFX_GLOBAL const int *in, GFX_GLOBAL int *r32, GFX_GLOBAL ulong *r64, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int v = in[i];
  atomic_min_dev(&r32[0], v);
  atomic_max_dev(&r32[1], v);
  atomic_min_dev((GFX_GLOBAL uint *)&r32[2], (uint)v);
  atomic_max_dev((GFX_GLOBAL uint *)&r32[3], (uint)v);
  atomic_and_dev(&r32[4], v | (int)(1u << (i & 31u)));
  atomic_or_dev(&r32[5], v & 0x00f0f0f0);
  atomic_xor_dev(&r32[6], v);
  atomic_sub_dev(&r32[7], v);
  atomic_add_dev(&r64[0], (ulong)(uint)v * 0x100000001ul);
  atomic_max_dev(&r64[1], ((ulong)(uint)v << 32) | i);
}
