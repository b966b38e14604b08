// early_return: work-items leave at different points; out[] keeps its initial value where a
// work-item returned before writing.
#include "prelude.h"

GFX_KERNEL void early_return(GFX_GLOBAL const int *in, GFX_GLOBAL int *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int v = in[i];
  if (v < 0) return;              // negative: untouched
  if (v % 3 == 0) { out[i] = v / 3; return; }
  for (int k = 0; k < 8; ++k) {
    if (((v >> k) & 3) == 3) { out[i] = 1000 + k; return; }
  }
  out[i] = -v;
}
