// atomic_cas: compare-and-swap loops (global_atomic_cmpswap, 32 and 64 bit) and exchange.
// Every work-item increments counter[0] through a CAS retry loop, folds its id into a 64-bit
// running max through CAS, and swaps its id into slot[i % 16] (the exchanged-out values are
// summed so the result is order independent).
#include "prelude.h"

__device__ static uint cas_increment(uint *p) {
  uint old = atomic_load_dev(p);
  while (!atomic_cas_dev(p, &old, old + 1u)) {
  }
  return old;
}

__device__ static void cas_max64(ulong *p, ulong v) {
  ulong old = atomic_load_dev(p);
  while (old < v && !atomic_cas_dev(p, &old, v)) {
  }
}

GFX_KERNEL void atomic_cas(uint *counter, ulong *max64, uint *slots, uint *swapped_sum, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  cas_increment(counter);
  cas_max64(max64, ((ulong)(i * 2654435761u) << 20) ^ i);
  uint prev = atomic_xchg_dev(&slots[i & 15u], i + 1u);
  atomic_add_dev(swapped_sum, prev);
}
