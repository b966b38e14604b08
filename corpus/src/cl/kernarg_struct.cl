// kernarg_struct: a struct passed by value plus scalars of mixed sizes and alignments, so the
// kernarg segment has padding the loader must respect.
#include "prelude.h"

typedef struct {
  uchar tag;       // offset 0
  double scale;    // offset 8
  int bias;        // offset 16
  ushort shift;    // offset 20
  ulong mask;      // offset 24
} params_t;        // size 32, align 8

GFX_KERNEL void kernarg_struct(uchar c, params_t p, GFX_GLOBAL const int *in, short s, GFX_GLOBAL double *out,
                               float f, ulong big, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  long v = (long)in[i] + p.bias + s + c + p.tag;
  ulong m = ((ulong)(uint)in[i] << p.shift) & p.mask;
  out[2 * i] = (double)v * p.scale + (double)f;
  out[2 * i + 1] = (double)(m ^ big);
}
