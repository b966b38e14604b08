// int64_math: 64-bit integer arithmetic (mul, mulhi, shifts, rotates, unsigned and signed
// division/remainder expanded inline by the compiler, comparisons).
#include "prelude.h"

GFX_KERNEL void int64_math(GFX_GLOBAL const ulong *a, GFX_GLOBAL const ulong *b, GFX_GLOBAL ulong *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  ulong x = a[i], y = b[i];
  ulong d = y | 1ul;                      // never zero
  long sx = (long)x, sd = (long)(y >> 3) | 1l;
  ulong r0 = x * y + (x >> 7) - (y << 13);
  ulong r1 = (ulong)(((__uint128_t)x * y) >> 64);
  ulong r2 = x / d;
  ulong r3 = x % d;
  ulong r4 = (ulong)(sx / sd);
  ulong r5 = (ulong)(sx % sd);
  ulong r6 = (x << (y & 63)) | (x >> ((64 - (y & 63)) & 63));
  ulong r7 = (ulong)((long)x >> (y & 63)) ^ (x < y ? 0x0123456789abcdeful : 0xfedcba9876543210ul);
  GFX_GLOBAL ulong *o = out + 8ul * i;
  o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4; o[5] = r5; o[6] = r6; o[7] = r7;
}
