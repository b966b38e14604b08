// stencil2d: 5-point integer stencil over a 2D image with clamped borders.
#include "prelude.h"

GFX_KERNEL void stencil2d(GFX_GLOBAL const int *in, GFX_GLOBAL int *out, uint w, uint h) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  uint xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : x;
  uint yu = y > 0 ? y - 1 : 0, yd = y + 1 < h ? y + 1 : y;
  int c = in[y * w + x];
  out[y * w + x] = 4 * c - in[y * w + xl] - in[y * w + xr] - in[yu * w + x] - in[yd * w + x];
}
