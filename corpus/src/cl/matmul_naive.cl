// matmul_naive: C[M][N] = A[M][K] * B[K][N], f32 row-major, one work-item per C element (2D grid).
#include "prelude.h"

GFX_KERNEL void matmul_naive(GFX_GLOBAL const float *A, GFX_GLOBAL const float *B, GFX_GLOBAL float *C,
                             uint M, uint N, uint K) {
  uint col = get_global_id(0), row = get_global_id(1);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (uint k = 0; k < K; ++k) acc = __builtin_fmaf(A[row * K + k], B[k * N + col], acc);
  C[row * N + col] = acc;
}
