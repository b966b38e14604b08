// wg1_serial: workgroups of exactly one work-item (one lane active per wave); each one
// walks a strided slice serially.
#include "prelude.h"

GFX_KERNEL GFX_WG_EXACT(1, 1, 1) void wg1_serial(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out, uint n) {
  uint g = get_group_id(0), ng = get_num_groups(0);
  uint h = 2166136261u;
  for (uint j = g; j < n; j += ng) h = (h ^ in[j]) * 16777619u;
  out[g] = h;
}
