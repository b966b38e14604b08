// divergent: data-dependent branches (if/else chains, switch) and nested loops with
// per-lane trip counts, so EXEC masks split and rejoin many times.
#include "prelude.h"

GFX_KERNEL void divergent(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint v = in[i];
  uint acc = 0;
  if (v & 1u) {
    for (uint a = 0; a < (v & 7u); ++a)
      for (uint b = 0; b <= (a ^ (v >> 3 & 3u)); ++b) acc += a * 3u + b + (v >> 5);
  } else if (v & 2u) {
    uint x = v;
    while (x > 1u) { x = (x & 1u) ? 3u * x + 1u : x >> 1; acc++; if (acc > 64u) break; }
  } else {
    switch ((v >> 2) & 3u) {
      case 0: acc = v * 7u; break;
      case 1: acc = v ^ 0x5a5a5a5au; break;
      case 2: for (uint k = 0; k < 5u; ++k) acc = acc * 31u + (v >> k); break;
      default: acc = ~v; break;
    }
  }
  out[i] = acc;
}
