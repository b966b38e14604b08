// wg_any: works for any workgroup size 1..1024 (flat): LDS atomics count and sum the
// workgroup, then one work-item per group writes the totals.
#include "prelude.h"

GFX_KERNEL GFX_WG_MAX(1024) void wg_any(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out) {
  GFX_LOCAL uint cnt, sum, mx;
  uint lid = get_local_linear_id();
  if (lid == 0) { cnt = 0; sum = 0; mx = 0; }
  barrier();
  uint v = in[get_global_id(0) + get_global_id(1) * get_global_size(0)];
  atomic_add_wg(&cnt, 1u);
  atomic_add_wg(&sum, v);
  atomic_max_wg(&mx, v ^ lid);
  barrier();
  if (lid == 0) {
    uint g = get_group_id(0) + get_group_id(1) * get_num_groups(0);
    out[3 * g] = cnt; out[3 * g + 1] = sum; out[3 * g + 2] = mx;
  }
}
