// softmax: numerically stable softmax of each row (one workgroup of 128 per row), with LDS
// max and sum reductions. __builtin_expf lowers to v_exp_f32 with range reduction (no libm).
#include "prelude.h"

#define WG 128
GFX_KERNEL GFX_WG_EXACT(WG, 1, 1) void softmax(GFX_GLOBAL const float *in, GFX_GLOBAL float *out, uint cols) {
  GFX_LOCAL float red[WG];
  uint lid = get_local_id(0);
  GFX_GLOBAL const float *row = in + (size_t)get_group_id(0) * cols;
  GFX_GLOBAL float *orow = out + (size_t)get_group_id(0) * cols;
  float m = -__builtin_inff();
  for (uint c = lid; c < cols; c += WG) m = __builtin_fmaxf(m, row[c]);
  red[lid] = m;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] = __builtin_fmaxf(red[lid], red[lid + s]);
    barrier();
  }
  m = red[0];
  barrier();
  float sum = 0.0f;
  for (uint c = lid; c < cols; c += WG) sum += __builtin_expf(row[c] - m);
  red[lid] = sum;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] += red[lid + s];
    barrier();
  }
  float inv = 1.0f / red[0];
  for (uint c = lid; c < cols; c += WG) orow[c] = __builtin_expf(row[c] - m) * inv;
}
