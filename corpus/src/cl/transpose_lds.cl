// transpose_lds: out[x][y] = in[y][x] for a rows x cols u32 matrix through a padded 16x16 LDS tile.
#include "prelude.h"

#define T 16
GFX_KERNEL GFX_WG_EXACT(T, T, 1) void transpose_lds(GFX_GLOBAL const uint *in, GFX_GLOBAL uint *out,
                                                    uint rows, uint cols) {
  GFX_LOCAL uint tile[T][T + 1];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint x = get_group_id(0) * T + tx, y = get_group_id(1) * T + ty;
  if (x < cols && y < rows) tile[ty][tx] = in[y * cols + x];
  barrier();
  uint ox = get_group_id(1) * T + tx, oy = get_group_id(0) * T + ty;  // out is cols x rows
  if (ox < rows && oy < cols) out[oy * rows + ox] = tile[tx][ty];
}
