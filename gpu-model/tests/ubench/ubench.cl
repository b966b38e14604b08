#include "prelude.h"

// Microbenchmark kernels of the clocked mode (issue 16), in the style of the mt4g
// suite: pointer chases (vector, scalar, LDS), streaming copy, VALU and MFMA throughput,
// LDS stride. Built by build.sh with clang-22 for gfx942 and gfx90a; tests/clocked.rs
// runs them.

// Vector pointer chase: every lane follows its own chain of absolute addresses
// (p = *p), `steps` loads; the end pointer is written so the chain is live.
__kernel void chase_vector(__global ulong *start, __global ulong *out, uint steps) {
    size_t g = get_global_id(0);
    __global ulong *p = (__global ulong *)start[g];
    for (uint i = 0; i < steps; i++)
        p = (__global ulong *)*p;
    out[g] = (ulong)p;
}

// Scalar pointer chase: one uniform chain through read-only memory (scalar loads).
__kernel void chase_scalar(__global const ulong *restrict start, __global ulong *out,
                           uint steps) {
    __global const ulong *p = (__global const ulong *)start[0];
    for (uint i = 0; i < steps; i++)
        p = (__global const ulong *)*p;
    if (get_global_id(0) == 0)
        out[0] = (ulong)p;
}

// LDS pointer chase: the chain holds byte offsets into the workgroup's LDS; `next` is
// the step (bytes) between elements of an `n`-element ring.
__kernel void chase_lds(__global uint *out, uint n, uint next, uint steps) {
    __local uint lds[4096];
    uint lid = get_local_id(0);
    for (uint i = lid; i < n; i += get_local_size(0))
        lds[i] = ((i * 4 + next) % (n * 4));
    barrier();
    uint j = 0;
    for (uint i = 0; i < steps; i++)
        j = *(__local uint *)((__local char *)lds + j);
    out[get_global_id(0)] = j;
}

// LDS stride: each lane reads dword `lane * stride` (stride 1: no conflict; 32: all lanes
// of a 32-lane group in one bank), `iters` times, summing.
__kernel void lds_stride(__global uint *out, uint stride, uint iters) {
    __local uint lds[4096];
    uint lid = get_local_id(0);
    for (uint i = lid; i < 4096; i += get_local_size(0))
        lds[i] = i;
    barrier();
    uint a = (lid * stride) % 4096;
    uint s = 0;
    volatile __local uint *v = lds;
    for (uint i = 0; i < iters; i++)
        s += v[a];
    out[get_global_id(0)] = s;
}

// Streaming copy.
__kernel void stream_copy(__global const float4 *restrict a, __global float4 *restrict b,
                          uint n) {
    size_t g = get_global_id(0);
    size_t stride = get_global_size(0);
    for (size_t i = g; i < n; i += stride)
        b[i] = a[i];
}

// VALU throughput: 8 independent FMA chains per lane, `iters` x 8 x 8 FMAs.
__kernel void valu_fma(__global float *out, uint iters) {
    float x = (float)get_global_id(0);
    float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6,
          a7 = x + 7;
    for (uint i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            a0 = fma(a0, 0.999f, 0.5f);
            a1 = fma(a1, 0.999f, 0.5f);
            a2 = fma(a2, 0.999f, 0.5f);
            a3 = fma(a3, 0.999f, 0.5f);
            a4 = fma(a4, 0.999f, 0.5f);
            a5 = fma(a5, 0.999f, 0.5f);
            a6 = fma(a6, 0.999f, 0.5f);
            a7 = fma(a7, 0.999f, 0.5f);
        }
    }
    out[get_global_id(0)] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// Streaming read: each work-item sums 4 independent float4 loads per iteration (so a wave
// has 4 loads, 32 lines, in flight), grid-stride over `n` float4s, `passes` times over
// the same buffer (pass 2 and later hit whatever level holds it).
__kernel void stream_read(__global const float4 *restrict a, __global float *out, uint n,
                          uint passes) {
    size_t g = get_global_id(0);
    size_t stride = get_global_size(0);
    float4 s = 0;
    for (uint p = 0; p < passes; p++) {
        for (size_t i = g; i + 3 * stride < n; i += 4 * stride) {
            float4 x0 = a[i], x1 = a[i + stride], x2 = a[i + 2 * stride],
                   x3 = a[i + 3 * stride];
            s += (x0 + x1) + (x2 + x3);
        }
    }
    out[g] = s.x + s.y + s.z + s.w;
}

// Atomic chain: one work-item performs `steps` dependent returning atomic adds of `inc`
// (0 at run time, so the ring keeps its links; the compiler cannot know): each one's
// address is the old value the one before returned, so each waits for the previous to
// come back from where atomics are performed (the L2).
__kernel void atomic_chain(__global uint *ring, __global uint *out, uint steps, uint inc) {
    uint j = 0;
    for (uint i = 0; i < steps; i++)
        j = atomic_add_dev(&ring[j], inc);
    out[get_global_id(0)] = j;
}

// Atomic throughput: every work-item adds 1 to `iters` counters of `n` (no return value
// used: the no-return form of the instruction).
__kernel void atomic_hammer(__global uint *counters, uint n, uint iters) {
    uint g = get_global_id(0);
    for (uint i = 0; i < iters; i++)
        atomic_add_dev(&counters[(g + i * 7) % n], 1u);
}

// Same-line atomic contention: every work-item adds 1 to counter `g * stride` (in uints)
// `iters` times and sums the old values (so each add waits for the one before it to come
// back). Stride 0: one address for all; stride 32: each work-item its own 128-byte line.
__kernel void atomic_contend(__global uint *counters, __global uint *out, uint stride,
                             uint iters) {
    uint g = get_global_id(0);
    uint s = 0;
    for (uint i = 0; i < iters; i++)
        s += atomic_add_dev(&counters[g * stride], 1u);
    out[g] = s;
}
