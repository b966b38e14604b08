// convert: conversions between f32, f64, f16, i32, u32 with IEEE rounding and saturation-free
// inputs, plus rounding functions (rint, floor, ceil, trunc).
#include "prelude.h"

GFX_KERNEL void convert(GFX_GLOBAL const float *in, GFX_GLOBAL uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float f = in[i];
  GFX_GLOBAL uint *o = out + 10u * i;
  o[0] = (uint)(int)f;                           // truncate toward zero
  o[1] = (uint)(f < 0.0f ? -f : f);              // to unsigned
  o[2] = __builtin_bit_cast(uint, (float)(int)(f * 3.0f));
  double d = (double)f * 1.0000001;
  o[3] = __builtin_bit_cast(uint, (float)d);     // f64 -> f32 round to nearest even
  o[4] = (uint)__builtin_bit_cast(ushort, (half)f);  // f32 -> f16 round to nearest even
  o[5] = __builtin_bit_cast(uint, (float)(half)(f * 0.5f));
  o[6] = __builtin_bit_cast(uint, __builtin_rintf(f * 10.0f));
  o[7] = __builtin_bit_cast(uint, __builtin_floorf(f * 10.0f));
  o[8] = __builtin_bit_cast(uint, __builtin_ceilf(f * 10.0f));
  o[9] = __builtin_bit_cast(uint, (float)(uint)(i * 2654435761u));  // u32 -> f32 rounding
}
