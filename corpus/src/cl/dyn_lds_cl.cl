// dyn_lds_cl: dynamic LDS through an OpenCL __local pointer argument (sized at dispatch):
// each workgroup stages its slice, then writes it back reversed within the workgroup.
#include "prelude.h"

GFX_KERNEL GFX_WG_MAX(1024) void dyn_lds_cl(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, GFX_LOCAL_PTR uint *tmp) {
  uint lid = get_local_id(0), ls = get_local_size(0);
  uint base = get_group_id(0) * ls;
  tmp[lid] = in[base + lid] * 3u + 1u;
  barrier();
  out[base + lid] = tmp[ls - 1u - lid];
}
