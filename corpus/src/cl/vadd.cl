// vadd: c[i] = a[i] + b[i] for i < n (bounds-checked, grid need not be a multiple of the workgroup).
#include "prelude.h"

GFX_KERNEL void vadd(GFX_GLOBAL const float *a, GFX_GLOBAL const float *b, GFX_GLOBAL float *c, uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
