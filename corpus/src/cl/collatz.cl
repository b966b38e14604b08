// collatz: per-lane while loop with a data-dependent trip count (Collatz steps to reach 1).
#include "prelude.h"

GFX_KERNEL void collatz(GFX_GLOBAL uint *steps, uint start, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  ulong x = (ulong)start + i;
  uint s = 0;
  while (x != 1ul) { x = (x & 1ul) ? 3ul * x + 1ul : x >> 1; ++s; }
  steps[i] = s;
}
