// Kernel for dbt/tests/sidecar.rs: `dyn_lds` takes its LDS through an OpenCL `__local`
// pointer argument (metadata `dynamic_shared_pointer`, sized at dispatch) and no static
// LDS, so its descriptor fits gfx942's 64 KiB; dispatched with 96 KiB it needs the
// virtual-LDS sidecar. Each workgroup fills `n` words of its LDS from its slice of `in`,
// then every lane reads two other lanes' words (addresses above 64 KiB included) after
// the barrier. Built by the test with clang-22 and corpus/include/prelude.h.

#include "prelude.h"

#define WG 256u

GFX_KERNEL GFX_WG_EXACT(256, 1, 1)
void dyn_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, uint n, GFX_LOCAL_PTR uint *lds) {
  uint lid = get_local_id(0);
  uint g = get_group_id(0);
  for (uint i = lid; i < n; i += WG)
    lds[i] = in[g * n + i] * 3u + i;
  barrier();
  for (uint i = lid; i < n; i += WG) {
    uint j = (i * 7u) % n;
    out[g * n + i] = lds[n - 1u - i] ^ (lds[j] + g);
  }
}
