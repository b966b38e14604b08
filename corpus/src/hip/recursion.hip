// recursion: a recursive device function (the compiler cannot bound the stack, so the kernel
// uses a dynamic stack: .uses_dynamic_stack true in the metadata).
#include "prelude.h"

__device__ __attribute__((noinline)) uint ackermann_like(uint depth, uint x) {
  if (depth == 0u) return x * 2u + 1u;
  uint keep[4] = {x, x ^ depth, x + depth, x * depth};
  uint r = ackermann_like(depth - 1u, keep[x & 3u] & 0xffffu);
  return r + keep[(r >> 1) & 3u];
}

GFX_KERNEL void recursion(const uint *in, uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  out[i] = ackermann_like(in[i] & 7u, in[i]);
}
