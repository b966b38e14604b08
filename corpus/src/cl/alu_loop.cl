// alu_loop (benchmark a): a long dependent loop of integer and f32 ALU operations, no memory
// traffic inside the loop.
#include "prelude.h"

GFX_KERNEL void alu_loop(GFX_GLOBAL uint *out_u, GFX_GLOBAL float *out_f, uint iters) {
  uint i = get_global_id(0);
  uint a = i * 2654435761u + 1u, b = i ^ 0x9e3779b9u;
  float x = (float)(i & 1023u) * 0.0009765625f, y = 1.0f;
  for (uint k = 0; k < iters; ++k) {
    a = a * 1664525u + 1013904223u;
    b ^= a >> 7;
    b = (b << 3) | (b >> 29);
    a += b & 0xffffu;
    x = __builtin_fmaf(x, 0.999f, 0.001f);
    y = __builtin_fmaf(-x, y, 1.0f);
    y = __builtin_fminf(__builtin_fmaxf(y, -4.0f), 4.0f);
  }
  out_u[i] = a ^ b;
  out_f[i] = x + y;
}
