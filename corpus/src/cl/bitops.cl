// bitops: popcount, leading/trailing zeros, bit reverse, byte permute, funnel shift, mul_hi,
// bit-field extract/insert, 24-bit multiply.
#include "prelude.h"

GFX_KERNEL void bitops(GFX_GLOBAL const uint *a, GFX_GLOBAL const uint *b, GFX_GLOBAL uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint x = a[i], y = b[i];
  GFX_GLOBAL uint *o = out + 8u * i;
  o[0] = (uint)__builtin_popcount(x) + ((uint)__builtin_popcount(y) << 8);
  o[1] = x ? (uint)__builtin_clz(x) : 32u;
  o[2] = y ? (uint)__builtin_ctz(y) : 32u;
  o[3] = __builtin_bitreverse32(x);
  o[4] = __builtin_amdgcn_perm(x, y, 0x07020500u + (i & 3u));
  o[5] = __builtin_amdgcn_alignbit(x, y, y & 31u);
  o[6] = (uint)(((ulong)x * y) >> 32);
  o[7] = ((x >> (y & 15u)) & 0xfffu) + (x & 0xffffffu) * (y & 0xffffffu);
}
