// mandel_fixed: Mandelbrot escape counts in 4.28 fixed point with 64-bit intermediate
// products (integer only, so the result is exact); strongly divergent loop.
#include "prelude.h"

GFX_KERNEL void mandel_fixed(uint *out, uint w, uint h, uint max_iter) {
  uint px = get_global_id(0), py = get_global_id(1);
  if (px >= w || py >= h) return;
  const long one = 1l << 28;
  long cr = -2 * one + (long)px * (3 * one) / (long)w;        // [-2, 1)
  long ci = -one + (long)py * (2 * one) / (long)h;           // [-1, 1)
  long zr = 0, zi = 0;
  uint it = 0;
  while (it < max_iter) {
    long zr2 = (zr * zr) >> 28, zi2 = (zi * zi) >> 28;
    if (zr2 + zi2 > 4 * one) break;
    long nzr = zr2 - zi2 + cr;
    zi = ((2 * zr * zi) >> 28) + ci;
    zr = nzr;
    ++it;
  }
  out[py * w + px] = it;
}
