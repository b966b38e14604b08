// mfma_more (CDNA only: gfx90a, gfx942, gfx950): three more matrix-core shapes in one wave
// of 64. Operand layouts (AMD matrix instruction calculator, one block each; `n` is the
// block's N, 16 or 32, and each lane holds `kl` consecutive k values, 1 for f32, 4 for f16):
// lane l holds A[l % n][k0 + kl * (l / n) + j] and B[k0 + kl * (l / n) + j][l % n] for
// j < kl; result register i of lane l is D[8 * (i / 4) + 4 * (l / 32) + i % 4][l % 32]
// for n = 32 and D[4 * (l / 16) + i][l % 16] for n = 16.
//   c1 = a1 (32x4 f32) * b1 (4x32)    v_mfma_f32_32x32x2f32, two k-steps
//   c2 = a2 (16x32 f16) * b2 (32x16)  v_mfma_f32_16x16x16f16, two k-steps
//   c3 = a3 (32x16 f16) * b3 (16x32)  v_mfma_f32_32x32x8f16, two k-steps
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "prelude.h"

GFX_KERNEL GFX_WG_EXACT(64, 1, 1) void mfma_more(GFX_GLOBAL const float *a1, GFX_GLOBAL const float *b1,
                                                 GFX_GLOBAL const half *a2, GFX_GLOBAL const half *b2,
                                                 GFX_GLOBAL const half *a3, GFX_GLOBAL const half *b3,
                                                 GFX_GLOBAL float *c1, GFX_GLOBAL float *c2,
                                                 GFX_GLOBAL float *c3) {
  uint l = get_local_id(0);
  float16 acc1 = 0.0f;
  for (uint k0 = 0; k0 < 4; k0 += 2) {
    float av = a1[(l % 32u) * 4u + k0 + l / 32u];
    float bv = b1[(k0 + l / 32u) * 32u + l % 32u];
    acc1 = __builtin_amdgcn_mfma_f32_32x32x2f32(av, bv, acc1, 0, 0, 0);
  }
  float4 acc2 = 0.0f;
  for (uint k0 = 0; k0 < 32; k0 += 16) {
    half4 av, bv;
    uint kb = k0 + 4u * (l / 16u);
    av.x = a2[(l % 16u) * 32u + kb + 0u];
    av.y = a2[(l % 16u) * 32u + kb + 1u];
    av.z = a2[(l % 16u) * 32u + kb + 2u];
    av.w = a2[(l % 16u) * 32u + kb + 3u];
    bv.x = b2[(kb + 0u) * 16u + l % 16u];
    bv.y = b2[(kb + 1u) * 16u + l % 16u];
    bv.z = b2[(kb + 2u) * 16u + l % 16u];
    bv.w = b2[(kb + 3u) * 16u + l % 16u];
    acc2 = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, acc2, 0, 0, 0);
  }
  float16 acc3 = 0.0f;
  for (uint k0 = 0; k0 < 16; k0 += 8) {
    half4 av, bv;
    uint kb = k0 + 4u * (l / 32u);
    av.x = a3[(l % 32u) * 16u + kb + 0u];
    av.y = a3[(l % 32u) * 16u + kb + 1u];
    av.z = a3[(l % 32u) * 16u + kb + 2u];
    av.w = a3[(l % 32u) * 16u + kb + 3u];
    bv.x = b3[(kb + 0u) * 32u + l % 32u];
    bv.y = b3[(kb + 1u) * 32u + l % 32u];
    bv.z = b3[(kb + 2u) * 32u + l % 32u];
    bv.w = b3[(kb + 3u) * 32u + l % 32u];
    acc3 = __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, acc3, 0, 0, 0);
  }
  // Result register i of the 32x32 shapes is component i of the accumulator.
#define PUT32(c, v, i) c[(8u * ((i) / 4u) + 4u * (l / 32u) + (i) % 4u) * 32u + l % 32u] = (v)
  PUT32(c1, acc1.s0, 0u);
  PUT32(c3, acc3.s0, 0u);
  PUT32(c1, acc1.s1, 1u);
  PUT32(c3, acc3.s1, 1u);
  PUT32(c1, acc1.s2, 2u);
  PUT32(c3, acc3.s2, 2u);
  PUT32(c1, acc1.s3, 3u);
  PUT32(c3, acc3.s3, 3u);
  PUT32(c1, acc1.s4, 4u);
  PUT32(c3, acc3.s4, 4u);
  PUT32(c1, acc1.s5, 5u);
  PUT32(c3, acc3.s5, 5u);
  PUT32(c1, acc1.s6, 6u);
  PUT32(c3, acc3.s6, 6u);
  PUT32(c1, acc1.s7, 7u);
  PUT32(c3, acc3.s7, 7u);
  PUT32(c1, acc1.s8, 8u);
  PUT32(c3, acc3.s8, 8u);
  PUT32(c1, acc1.s9, 9u);
  PUT32(c3, acc3.s9, 9u);
  PUT32(c1, acc1.sa, 10u);
  PUT32(c3, acc3.sa, 10u);
  PUT32(c1, acc1.sb, 11u);
  PUT32(c3, acc3.sb, 11u);
  PUT32(c1, acc1.sc, 12u);
  PUT32(c3, acc3.sc, 12u);
  PUT32(c1, acc1.sd, 13u);
  PUT32(c3, acc3.sd, 13u);
  PUT32(c1, acc1.se, 14u);
  PUT32(c3, acc3.se, 14u);
  PUT32(c1, acc1.sf, 15u);
  PUT32(c3, acc3.sf, 15u);
  c2[(4u * (l / 16u) + 0u) * 16u + l % 16u] = acc2.x;
  c2[(4u * (l / 16u) + 1u) * 16u + l % 16u] = acc2.y;
  c2[(4u * (l / 16u) + 2u) * 16u + l % 16u] = acc2.z;
  c2[(4u * (l / 16u) + 3u) * 16u + l % 16u] = acc2.w;
}
