#include "prelude.h"

// MFMA throughput: 4 independent v_mfma_f32_32x32x8f16 accumulators per wave, `iters`
// x 4 x 4 MFMAs (gfx942/gfx90a).
typedef float float16 __attribute__((ext_vector_type(16)));

__kernel void mfma_f16(__global float *out, uint iters) {
    half4 a = (half4)(1.0h, 0.5h, 0.25h, 0.125h);
    half4 b = (half4)(0.5h, 0.5h, 0.5h, 0.5h);
    float16 c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (uint i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            c0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c0, 0, 0, 0);
            c1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c1, 0, 0, 0);
            c2 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c2, 0, 0, 0);
            c3 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c3, 0, 0, 0);
        }
    }
    float16 s = c0 + c1 + c2 + c3;
    out[get_global_id(0)] = s.s0 + s.s5 + s.sa + s.sf;
}
