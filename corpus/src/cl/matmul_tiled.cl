// matmul_tiled: C = A * B (f32, row-major) with 16x16 LDS tiles; M, N, K need not be multiples of 16.
#include "prelude.h"

#define T 16
GFX_KERNEL GFX_WG_EXACT(T, T, 1) void matmul_tiled(GFX_GLOBAL const float *A, GFX_GLOBAL const float *B,
                                                   GFX_GLOBAL float *C, uint M, uint N, uint K) {
  GFX_LOCAL float As[T][T];
  GFX_LOCAL float Bs[T][T + 1];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col = get_group_id(0) * T + tx, row = get_group_id(1) * T + ty;
  float acc = 0.0f;
  for (uint k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    barrier();
    for (uint k = 0; k < T; ++k) acc = __builtin_fmaf(As[ty][k], Bs[k][tx], acc);
    barrier();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
