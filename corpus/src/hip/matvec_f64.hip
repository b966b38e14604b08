// matvec_f64: y = A x in double precision, one work-item per row, sequential fma over columns.
#include "prelude.h"

GFX_KERNEL void matvec_f64(const double *A, const double *x, double *y, uint rows, uint cols) {
  uint r = get_global_id(0);
  if (r >= rows) return;
  double acc = 0.0;
  for (uint c = 0; c < cols; ++c) acc = __builtin_fma(A[(size_t)r * cols + c], x[c], acc);
  y[r] = acc;
}
