// grid3d: 3D grid and 3D workgroups; each work-item records its coordinates.
#include "prelude.h"

GFX_KERNEL void grid3d(GFX_GLOBAL uint *out, uint nx, uint ny, uint nz) {
  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  uint l = get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16;
  uint g = get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16;
  size_t idx = ((size_t)z * ny + y) * nx + x;
  out[2 * idx] = l;
  out[2 * idx + 1] = g;
}
