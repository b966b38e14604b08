// pointers: two kernels of one object call through code pointers held in data.
//
// `table_calls` calls through a __device__ table of function pointers in .data (its
// entries are relocations to the functions) in a loop (s_swappc_b64 in a loop);
// `virtual_calls` calls C++ virtual methods through vtables in .data.rel.ro. Both call
// the same helpers directly (`mix`) and the same recursive helper (`depth`), and the
// function behind `op_bf16` converts to bf16 (v_cvt_pk_bf16_f32, which gfx942 lacks), so
// that the code must move on gfx942.
#include "prelude.h"

typedef uint (*op_t)(uint, uint);

__device__ __attribute__((noinline)) uint mix(uint x) { return (x ^ (x >> 7)) * 0x9E3779B1u; }

__device__ __attribute__((noinline)) uint depth(uint x, uint d) {
  return d == 0 ? x : depth(mix(x) + d, d - 1) ^ d;
}

__device__ __attribute__((noinline)) uint op_add(uint a, uint b) { return a + b; }
__device__ __attribute__((noinline)) uint op_mul(uint a, uint b) { return a * b; }
__device__ __attribute__((noinline)) uint op_xor(uint a, uint b) { return mix(a) ^ (b << 1); }
__device__ __attribute__((noinline)) uint op_bf16(uint a, uint b) {
  float f = (float)(a & 0xffffu) * 0.5f + (float)(b & 0xffu);
  __bf16 h = (__bf16)f;
  return (uint)__builtin_bit_cast(unsigned short, h) + a;
}

__device__ op_t table[4] = {op_add, op_mul, op_xor, op_bf16};

struct Op {
  __device__ virtual uint apply(uint a, uint b) const = 0;
};
struct Add : Op {
  __device__ __attribute__((noinline)) uint apply(uint a, uint b) const override { return op_add(a, b) + 1; }
};
struct Xor : Op {
  __device__ __attribute__((noinline)) uint apply(uint a, uint b) const override { return op_xor(a, b); }
};
struct Bf : Op {
  __device__ __attribute__((noinline)) uint apply(uint a, uint b) const override { return op_bf16(b, a); }
};

GFX_KERNEL void table_calls(const uint *in, uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint a = in[i], acc = i;
  for (uint k = 0; k < 1 + (a & 3u); ++k)
    acc = table[(a >> (2 * k)) & 3u](acc, a + k);
  out[i] = mix(acc) + depth(a, a & 7u);
}

GFX_KERNEL void virtual_calls(const uint *in, uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  Add add;
  Xor x;
  Bf bf;
  const Op *ops[3] = {&add, &x, &bf};
  uint a = in[i];
  uint r = ops[a % 3u]->apply(a, i);
  out[i] = r ^ depth(a >> 3, (a >> 8) & 3u) ^ mix(i);
}
