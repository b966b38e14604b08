// saxpy: y[i] = a * x[i] + y[i] (single precision; the compiler may contract to v_fma_f32).
#include "prelude.h"

GFX_KERNEL void saxpy(float a, GFX_GLOBAL const float *x, GFX_GLOBAL float *y, uint n) {
  uint i = get_global_id(0);
  if (i < n) y[i] = __builtin_fmaf(a, x[i], y[i]);
}
