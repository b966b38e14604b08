// stack_calls: non-inlined helper functions with private arrays indexed by data, so the
// compiler keeps them in scratch (private segment) and calls through s_swappc / s_setpc.
#include "prelude.h"

GFX_NOINLINE uint mix_table(uint seed, uint rounds) {
  uint t[24];
  for (uint k = 0; k < 24u; ++k) t[k] = seed * (k + 1u) ^ (k << 8);
  uint h = seed;
  for (uint r = 0; r < rounds; ++r) {
    uint j = h % 24u;
    t[j] = t[j] * 2654435761u + r;
    h ^= t[(j + 7u) % 24u] + (h << 5) + (h >> 2);
  }
  return h;
}

GFX_NOINLINE uint fold(uint a, uint b, uint c) {
  uint s[16];
  for (uint k = 0; k < 16u; ++k) s[k] = a + k * b;
  return s[c & 15u] ^ mix_table(a ^ b, 3u + (c & 7u)) ^ s[(c >> 4) & 15u];
}

GFX_KERNEL void stack_calls(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint v = in[i];
  out[i] = fold(v, i, v >> 3) + mix_table(v, 5u + (v & 15u));
}
