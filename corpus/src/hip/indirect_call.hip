// indirect_call: calls through a function pointer chosen per lane from data (s_swappc through
// a register pair after a waterfall over the distinct targets).
#include "prelude.h"

typedef uint (*op_t)(uint, uint);
__device__ __attribute__((noinline)) uint op_add(uint a, uint b) { return a + b; }
__device__ __attribute__((noinline)) uint op_mul(uint a, uint b) { return a * b; }
__device__ __attribute__((noinline)) uint op_xor(uint a, uint b) { return a ^ (b << 1); }
__device__ __attribute__((noinline)) uint op_sub(uint a, uint b) { return a - b; }

GFX_KERNEL void indirect_call(const uint *sel, const uint *a, const uint *b, uint *out, uint n) {
  op_t ops[4] = {op_add, op_mul, op_xor, op_sub};
  uint i = get_global_id(0);
  if (i >= n) return;
  out[i] = ops[sel[i] & 3u](a[i], b[i]);
}
