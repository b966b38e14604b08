/* prelude.h: work-item ids, sizes, barriers, fences and atomics for gfxsim corpus kernels.
 *
 * There are no ROCm device libraries on the build machines, so everything here is built
 * from clang builtins that lower straight to AMDGPU instructions (no calls, no libm).
 * Usable from OpenCL C (clang -x cl) and from HIP (clang -x hip -nogpuinc).
 *
 * Semantics (same in both languages):
 *   get_local_id(d)    work-item id in the workgroup (v0 bits, packed on all our targets)
 *   get_group_id(d)    workgroup id (system SGPRs on CDNA, TTMP7/TTMP9 on gfx12)
 *   get_local_size(d)  the ENQUEUED (uniform) workgroup size: hidden_group_size_* from the
 *                      implicit kernarg on code object v5/v6, dispatch packet on v4.
 *                      A partial workgroup at the grid edge still sees the full size.
 *   get_global_id(d)   get_group_id(d) * get_local_size(d) + get_local_id(d)
 *   get_global_size(d) grid size in work-items, from the AQL dispatch packet
 *   get_num_groups(d)  ceil(get_global_size(d) / get_local_size(d))
 *   barrier()          release fence (workgroup) + s_barrier + acquire fence (workgroup)
 *   atomic_*           relaxed atomics at device (agent) or workgroup scope
 */
#ifndef GFXSIM_PRELUDE_H
#define GFXSIM_PRELUDE_H

#if defined(__OPENCL_C_VERSION__)
/* ---------------------------------------------------------------- OpenCL C */
#define GFX_FN static inline __attribute__((always_inline))
#define GFX_NOINLINE __attribute__((noinline))
#define GFX_GLOBAL __global
#define GFX_LOCAL __local
#define GFX_LOCAL_PTR __local /* a __local pointer parameter (dynamic LDS) */
#define GFX_CONSTANT __constant
#define GFX_KERNEL __kernel
/* OpenCL kernels default to max_flat_workgroup_size 256; these raise or pin it. */
#define GFX_WG_MAX(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define GFX_WG_EXACT(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#else
/* ---------------------------------------------------------------- HIP */
#define GFX_FN static inline __attribute__((always_inline, device))
#define GFX_NOINLINE __attribute__((noinline, device))
#define GFX_GLOBAL
#define GFX_LOCAL
#define GFX_LOCAL_PTR
#define GFX_CONSTANT
/* extern "C" keeps the kernel symbol unmangled (the manifest names it). */
#define GFX_KERNEL extern "C" __attribute__((global, visibility("default")))
#define GFX_WG_MAX(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define GFX_WG_EXACT(x, y, z) __attribute__((amdgpu_flat_work_group_size(x * y * z, x * y * z)))

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __host__ __attribute__((host))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
typedef _Float16 half;
#endif

typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef uint uint2 __attribute__((ext_vector_type(2)));
typedef uint uint4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef half half2 __attribute__((ext_vector_type(2)));
typedef half half4 __attribute__((ext_vector_type(4)));

/* ---------------------------------------------------------------- ids and sizes */
GFX_FN uint get_local_id(uint d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x()
       : d == 1 ? __builtin_amdgcn_workitem_id_y()
       : d == 2 ? __builtin_amdgcn_workitem_id_z() : 0u;
}
GFX_FN uint get_group_id(uint d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x()
       : d == 1 ? __builtin_amdgcn_workgroup_id_y()
       : d == 2 ? __builtin_amdgcn_workgroup_id_z() : 0u;
}
GFX_FN uint get_local_size(uint d) {
  return d == 0 ? (uint)__builtin_amdgcn_workgroup_size_x()
       : d == 1 ? (uint)__builtin_amdgcn_workgroup_size_y()
       : d == 2 ? (uint)__builtin_amdgcn_workgroup_size_z() : 1u;
}
GFX_FN uint get_global_size(uint d) {
  return d == 0 ? __builtin_amdgcn_grid_size_x()
       : d == 1 ? __builtin_amdgcn_grid_size_y()
       : d == 2 ? __builtin_amdgcn_grid_size_z() : 1u;
}
GFX_FN uint get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
GFX_FN uint get_num_groups(uint d) {
  uint ls = get_local_size(d);
  return (get_global_size(d) + ls - 1u) / ls;
}
/* Flat id of the work-item in its workgroup (x fastest). */
GFX_FN uint get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0);
}
GFX_FN uint wave_size(void) { return __builtin_amdgcn_wavefrontsize(); }
/* Lane index in the wave: v_mbcnt_lo (+ v_mbcnt_hi on wave64). */
GFX_FN uint lane_id(void) {
  uint lo = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
  return __builtin_amdgcn_wavefrontsize() == 64 ? __builtin_amdgcn_mbcnt_hi(~0u, lo) : lo;
}

/* ---------------------------------------------------------------- barriers and fences */
GFX_FN void fence_wg(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
GFX_FN void fence_dev(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
GFX_FN void barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* ---------------------------------------------------------------- atomics
 * Generic macros over clang's scoped atomics: work on global and LDS pointers, 32 and
 * 64-bit integers, f32 (add). All relaxed; scope dev (agent) or wg (workgroup). */
#define atomic_add_dev(p, v) __scoped_atomic_fetch_add((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_sub_dev(p, v) __scoped_atomic_fetch_sub((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_min_dev(p, v) __scoped_atomic_fetch_min((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_max_dev(p, v) __scoped_atomic_fetch_max((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_and_dev(p, v) __scoped_atomic_fetch_and((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_or_dev(p, v) __scoped_atomic_fetch_or((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_xor_dev(p, v) __scoped_atomic_fetch_xor((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_xchg_dev(p, v) __scoped_atomic_exchange_n((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_load_dev(p) __scoped_atomic_load_n((p), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
#define atomic_load_acq_dev(p) __scoped_atomic_load_n((p), __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE)
#define atomic_store_rel_dev(p, v) __scoped_atomic_store_n((p), (v), __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE)
/* Compare-and-swap: returns 1 on success; *expected gets the observed value on failure. */
#define atomic_cas_dev(p, expected, desired) \
  __scoped_atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)

#define atomic_add_wg(p, v) __scoped_atomic_fetch_add((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP)
#define atomic_min_wg(p, v) __scoped_atomic_fetch_min((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP)
#define atomic_max_wg(p, v) __scoped_atomic_fetch_max((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP)
#define atomic_or_wg(p, v) __scoped_atomic_fetch_or((p), (v), __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP)

/* ---------------------------------------------------------------- math that is pure ISA
 * __builtin_expf/__builtin_sqrtf/__builtin_fmaf/__builtin_fabsf/__builtin_fminf/... lower to
 * instruction sequences (v_exp_f32 with range reduction, v_sqrt_f32 with scaling, v_fma_f32,
 * ...) in clang 22 for amdgcn, not to libm calls. The raw hardware approximations are
 * reachable as __builtin_amdgcn_{exp2f,logf,rcpf,rsqf,sqrtf,sinf,cosf}. */
#endif
