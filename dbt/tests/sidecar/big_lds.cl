// Kernels for dbt/tests/sidecar.rs: `big_lds` keeps 96 KiB of LDS per workgroup (gfx950
// has 160 KiB, gfx942 64 KiB), so on gfx942 it runs through its virtual-LDS sidecar;
// `small_lds` keeps 16 KiB and runs through its normal translation. Each workgroup fills
// its LDS from its slice of `in`, then every lane reads two other lanes' words (one far
// away, addresses above 64 KiB included) after the barrier. Built by the test with
// clang-22 and corpus/include/prelude.h, as corpus/build.sh builds OpenCL kernels.

#include "prelude.h"

#define BIG 24576u
#define SMALL 4096u
#define WG 256u

GFX_KERNEL GFX_WG_EXACT(256, 1, 1)
void big_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
  GFX_LOCAL uint lds[BIG];
  uint lid = get_local_id(0);
  uint g = get_group_id(0);
  for (uint i = lid; i < BIG; i += WG)
    lds[i] = in[g * BIG + i] * 3u + i;
  barrier();
  for (uint i = lid; i < BIG; i += WG) {
    uint j = (i * 7u) % BIG;
    out[g * BIG + i] = lds[BIG - 1u - i] ^ (lds[j] + g);
  }
}

GFX_KERNEL GFX_WG_EXACT(256, 1, 1)
void small_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
  GFX_LOCAL uint lds[SMALL];
  uint lid = get_local_id(0);
  uint g = get_group_id(0);
  for (uint i = lid; i < SMALL; i += WG)
    lds[i] = in[g * SMALL + i] * 3u + i;
  barrier();
  for (uint i = lid; i < SMALL; i += WG) {
    uint j = (i * 7u) % SMALL;
    out[g * SMALL + i] = lds[SMALL - 1u - i] ^ (lds[j] + g);
  }
}
