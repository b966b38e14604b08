// fp_math: f32 division and the hardware transcendental approximations (v_rcp, v_rsq,
// v_sqrt, v_exp, v_log, v_sin, v_cos) plus the correctly scaled compiler expansions.
#include "prelude.h"

GFX_KERNEL void fp_math(GFX_GLOBAL const float *in, GFX_GLOBAL float *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float x = in[i];                       // inputs in [0.5, 8)
  GFX_GLOBAL float *o = out + 8u * i;
  o[0] = 1.0f / x;
  o[1] = __builtin_sqrtf(x);
  o[2] = __builtin_amdgcn_rsqf(x);
  o[3] = __builtin_amdgcn_exp2f(x);
  o[4] = __builtin_amdgcn_logf(x);       // log2
  o[5] = __builtin_amdgcn_sinf(x * 0.125f);  // argument in revolutions: sin(2*pi*t)
  o[6] = __builtin_amdgcn_cosf(x * 0.125f);
  o[7] = __builtin_expf(-x);
}
