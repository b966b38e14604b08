// stencil3d: 7-point stencil on an nx*ny*nz f32 volume (3D grid, 3D workgroups), zero outside.
#include "prelude.h"

GFX_KERNEL void stencil3d(const float *in, float *out, uint nx, uint ny, uint nz) {
  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  size_t sy = nx, sz = (size_t)nx * ny, c = z * sz + y * sy + x;
  float acc = -6.0f * in[c];
  if (x > 0) acc += in[c - 1];
  if (x + 1 < nx) acc += in[c + 1];
  if (y > 0) acc += in[c - sy];
  if (y + 1 < ny) acc += in[c + sy];
  if (z > 0) acc += in[c - sz];
  if (z + 1 < nz) acc += in[c + sz];
  out[c] = acc;
}
