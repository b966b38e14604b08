// daxpy: y[i] = a * x[i] + y[i] in double precision (v_fma_f64), 64-bit loads and stores.
#include "prelude.h"

GFX_KERNEL void daxpy(double a, GFX_GLOBAL const double *x, GFX_GLOBAL double *y, uint n) {
  uint i = get_global_id(0);
  if (i < n) y[i] = __builtin_fma(a, x[i], y[i]);
}
