/* Kernels of dispatch.c. Built by scenarios/tests/kmd_hsa.rs with
 *   clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx90a
 *     -mcode-object-version=4 -nogpulib -O2 -I corpus/include -c kernels.cl -o kernels.o
 *   ld.lld-22 -shared kernels.o -o kernels.hsaco
 * (Debian's ROCr 5.2.3 loads code object v4; the corpus prelude stands in for the device
 * libraries.) */
#include "prelude.h"

GFX_KERNEL void vadd(GFX_GLOBAL const float *a, GFX_GLOBAL const float *b, GFX_GLOBAL float *c,
                     uint n) {
    uint i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

/* One partial sum per 64-wide workgroup, through an LDS tree with barriers. */
GFX_KERNEL GFX_WG_EXACT(64, 1, 1) void reduce(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
    GFX_LOCAL uint s[64];
    uint l = get_local_id(0);
    s[l] = in[get_global_id(0)];
    barrier();
    for (uint k = 32; k > 0; k >>= 1) {
        if (l < k) s[l] += s[l + k];
        barrier();
    }
    if (l == 0) out[get_group_id(0)] = s[0];
}
