// f16_hip: scalar and packed _Float16 arithmetic in HIP (f16 fma, min/max, conversions to f32).
#include "prelude.h"

GFX_KERNEL void f16_hip(const half *a, const half *b, float *out, half *out16, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  half x = a[i], y = b[i];
  half f = __builtin_fmaf16(x, y, (half)1.0f);
  half m = __builtin_fminf16(x, y);
  out16[i] = f - m;
  out[i] = (float)f * (float)m;
}
