// f16_packed: packed half2 math (v_pk_fma_f16, v_pk_mul_f16, v_pk_add_f16, v_pk_max_f16).
#include "prelude.h"

GFX_KERNEL void f16_packed(GFX_GLOBAL const half2 *a, GFX_GLOBAL const half2 *b, GFX_GLOBAL half2 *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  half2 x = a[i], y = b[i];
  half2 p = x * y;
  half2 f = __builtin_elementwise_fma(x, y, p);
  half2 m = __builtin_elementwise_max(x, y);
  half2 c = {(half)0.5f, (half)0.25f};  // brace init: same meaning in OpenCL C and C
  out[i] = f + m - c;
}
