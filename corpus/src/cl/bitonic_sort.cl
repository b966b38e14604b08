// bitonic_sort: each workgroup sorts its 512 u32 keys ascending in LDS (256 work-items,
// two keys each), barriers between the compare-exchange stages.
#include "prelude.h"

#define N 512
GFX_KERNEL GFX_WG_EXACT(256, 1, 1) void bitonic_sort(GFX_GLOBAL uint *keys) {
  GFX_LOCAL uint s[N];
  uint lid = get_local_id(0);
  GFX_GLOBAL uint *k = keys + get_group_id(0) * N;
  s[lid] = k[lid];
  s[lid + 256u] = k[lid + 256u];
  barrier();
  for (uint size = 2; size <= N; size <<= 1) {
    for (uint stride = size >> 1; stride > 0; stride >>= 1) {
      uint pos = 2u * lid - (lid & (stride - 1u));
      uint a = s[pos], b = s[pos + stride];
      bool up = ((pos & size) == 0u);
      if ((a > b) == up) { s[pos] = b; s[pos + stride] = a; }
      barrier();
    }
  }
  k[lid] = s[lid];
  k[lid + 256u] = s[lid + 256u];
}
