// mfma_f32 (CDNA only: gfx90a, gfx942, gfx950): batched 16x16 f32 matmul on the matrix cores
// with v_mfma_f32_16x16x4f32 (accumulators in AGPRs or VGPRs as the compiler chooses).
// One wave of 64 per workgroup; workgroup g computes C_g[16][16] = A_g[16][K] * B_g[K][16].
// Operand layout (AMD matrix instruction calculator, 16x16x4 f32, one block): lane l holds
// A[l % 16][k0 + l / 16] and B[k0 + l / 16][l % 16]; result register i of lane l is
// D[4 * (l / 16) + i][l % 16].
#include "prelude.h"

GFX_KERNEL GFX_WG_EXACT(64, 1, 1) void mfma_f32(GFX_GLOBAL const float *A, GFX_GLOBAL const float *B,
                                                GFX_GLOBAL float *C, uint K) {
  uint l = get_local_id(0), g = get_group_id(0);
  GFX_GLOBAL const float *a = A + (size_t)g * 16u * K;
  GFX_GLOBAL const float *b = B + (size_t)g * K * 16u;
  float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (uint k0 = 0; k0 < K; k0 += 4) {
    float av = a[(l % 16u) * K + k0 + l / 16u];
    float bv = b[(k0 + l / 16u) * 16u + l % 16u];
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(av, bv, acc, 0, 0, 0);
  }
  GFX_GLOBAL float *c = C + (size_t)g * 256u;
  c[(4u * (l / 16u) + 0u) * 16u + l % 16u] = acc.x;
  c[(4u * (l / 16u) + 1u) * 16u + l % 16u] = acc.y;
  c[(4u * (l / 16u) + 2u) * 16u + l % 16u] = acc.z;
  c[(4u * (l / 16u) + 3u) * 16u + l % 16u] = acc.w;
}
