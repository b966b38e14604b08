/* hostcheck/prelude.h: the corpus prelude for the CPU. hostcheck.py compiles corpus sources
 * with this header in place of include/prelude.h and runs every work-item as a thread
 * (one workgroup at a time, barriers are pthread barriers), to check the manifest's
 * statements against the kernel sources. Only kernels without lane-level builtins run here. */
#ifndef GFXSIM_HOST_PRELUDE_H
#define GFXSIM_HOST_PRELUDE_H
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef _Float16 half;
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef uint uint2 __attribute__((ext_vector_type(2)));
typedef uint uint4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef half half2 __attribute__((ext_vector_type(2)));
typedef half half4 __attribute__((ext_vector_type(4)));

#ifdef __cplusplus
#define HC_EXTERN_C extern "C"
#else
#define HC_EXTERN_C
#endif
#define GFX_FN static inline __attribute__((always_inline))
#define GFX_NOINLINE __attribute__((noinline))
#define GFX_GLOBAL
#define GFX_LOCAL static /* one workgroup runs at a time */
#define GFX_LOCAL_PTR
#define GFX_CONSTANT const
#define GFX_KERNEL HC_EXTERN_C
#define GFX_WG_MAX(n)
#define GFX_WG_EXACT(x, y, z)
#define __global__
#define __device__
#define __shared__
#define __launch_bounds__(n)

typedef struct { uint lid[3], gid[3], lsz[3], gsz[3]; } hc_wi_t;
extern __thread hc_wi_t hc_wi;
extern pthread_barrier_t hc_barrier;

GFX_FN uint get_local_id(uint d) { return d < 3 ? hc_wi.lid[d] : 0u; }
GFX_FN uint get_group_id(uint d) { return d < 3 ? hc_wi.gid[d] : 0u; }
GFX_FN uint get_local_size(uint d) { return d < 3 ? hc_wi.lsz[d] : 1u; }
GFX_FN uint get_global_size(uint d) { return d < 3 ? hc_wi.gsz[d] : 1u; }
GFX_FN uint get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
GFX_FN uint get_num_groups(uint d) { return (get_global_size(d) + get_local_size(d) - 1u) / get_local_size(d); }
GFX_FN uint get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0);
}
GFX_FN void fence_wg(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
GFX_FN void fence_dev(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
GFX_FN void barrier(void) { pthread_barrier_wait(&hc_barrier); }

#define atomic_add_dev(p, v) __scoped_atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_sub_dev(p, v) __scoped_atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_min_dev(p, v) __scoped_atomic_fetch_min((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_max_dev(p, v) __scoped_atomic_fetch_max((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_and_dev(p, v) __scoped_atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_or_dev(p, v) __scoped_atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_xor_dev(p, v) __scoped_atomic_fetch_xor((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_xchg_dev(p, v) __scoped_atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_load_dev(p) __scoped_atomic_load_n((p), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_load_acq_dev(p) __scoped_atomic_load_n((p), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_store_rel_dev(p, v) __scoped_atomic_store_n((p), (v), __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_cas_dev(p, expected, desired) \
  __scoped_atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE)
#define atomic_add_wg atomic_add_dev
#define atomic_min_wg atomic_min_dev
#define atomic_max_wg atomic_max_dev
#define atomic_or_wg atomic_or_dev

/* Host models of the amdgcn builtins the host-runnable kernels use. */
static inline uint hc_perm(uint s0, uint s1, uint sel) {
  unsigned long long v = ((unsigned long long)s0 << 32) | s1;
  uint r = 0;
  for (int k = 0; k < 4; ++k) r |= (uint)((v >> (8 * ((sel >> (8 * k)) & 7u))) & 0xffu) << (8 * k);
  return r;
}
#define __builtin_amdgcn_perm(a, b, s) hc_perm((a), (b), (s))
#define __builtin_amdgcn_alignbit(a, b, s) \
  ((uint)(((((unsigned long long)(a)) << 32) | (uint)(b)) >> ((s) & 31u)))
#define __builtin_amdgcn_rsqf(x) (1.0f / __builtin_sqrtf(x))
#define __builtin_amdgcn_exp2f(x) __builtin_exp2f(x)
#define __builtin_amdgcn_logf(x) __builtin_log2f(x)
#define __builtin_amdgcn_sinf(x) __builtin_sinf((x) * 6.283185307179586f)
#define __builtin_amdgcn_cosf(x) __builtin_cosf((x) * 6.283185307179586f)
#endif
