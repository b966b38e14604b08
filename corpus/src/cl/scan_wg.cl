// scan_wg: inclusive prefix sum of u32 within each workgroup (Hillis-Steele, LDS double buffer).
#include "prelude.h"

#define WG 256
GFX_KERNEL GFX_WG_EXACT(WG, 1, 1) void scan_wg(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, uint n) {
  GFX_LOCAL uint buf[2][WG];
  uint lid = get_local_id(0);
  uint i = get_global_id(0);
  uint cur = 0;
  buf[0][lid] = i < n ? in[i] : 0u;
  barrier();
  for (uint off = 1; off < WG; off <<= 1) {
    uint v = buf[cur][lid];
    if (lid >= off) v += buf[cur][lid - off];
    buf[cur ^ 1][lid] = v;
    cur ^= 1;
    barrier();
  }
  if (i < n) out[i] = buf[cur][lid];
}
