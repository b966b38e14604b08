#include "prelude.h"

// WMMA throughput (gfx1201, wave32): 4 independent accumulators per wave, `iters` x 4 x 4
// WMMAs of one shape each: v_wmma_f32_16x16x16_f16 (`wmma_f16`) and
// v_wmma_i32_16x16x16_iu8 (`wmma_iu8`).
typedef half half8 __attribute__((ext_vector_type(8)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef int int8v __attribute__((ext_vector_type(8)));
typedef int int2v __attribute__((ext_vector_type(2)));

__kernel void wmma_f16(__global float *out, uint iters) {
    half8 a = (half8)(1.0h, 0.5h, 0.25h, 0.125h, 1.0h, 0.5h, 0.25h, 0.125h);
    half8 b = (half8)(0.5h);
    float8 c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (uint i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            c0 = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c0);
            c1 = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c1);
            c2 = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c2);
            c3 = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c3);
        }
    }
    float8 s = c0 + c1 + c2 + c3;
    out[get_global_id(0)] = s.s0 + s.s3 + s.s5 + s.s7;
}

__kernel void wmma_iu8(__global int *out, uint iters) {
    int2v a = (int2v)(0x01020304, 0x05060708);
    int2v b = (int2v)(0x01010101, 0x02020202);
    int8v c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (uint i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            c0 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c0, false);
            c1 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c1, false);
            c2 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c2, false);
            c3 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c3, false);
        }
    }
    int8v s = c0 + c1 + c2 + c3;
    out[get_global_id(0)] = s.s0 + s.s3 + s.s5 + s.s7;
}
