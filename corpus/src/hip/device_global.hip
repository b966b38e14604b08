// device_global: program-scope __device__ variables (a writable .data/.bss segment in the code
// object) used as a global counter and a lookup table initialised by the code object.
#include "prelude.h"

__device__ uint g_counter;
__device__ uint g_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

GFX_KERNEL void device_global(const uint *in, uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint v = in[i];
  out[i] = v * g_table[v & 7u];
  atomic_add_dev(&g_counter, 1u);
  if (i == 0) g_table[0] = 3u;  // rewrite with the same value: a store into the data segment
}

// Reads back the counter after device_global ran (second dispatch of the same object).
GFX_KERNEL void device_global_read(uint *out) { out[0] = atomic_load_dev(&g_counter); }
