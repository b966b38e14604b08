// const_table: CRC-32 (reflected, polynomial 0xEDB88320) of each 16-byte record using a
// 256-entry table in __constant memory (read-only data in the code object, reached through
// pc-relative relocations).
#include "prelude.h"

#define P 0xEDB88320u
#define C1(c) (((c) & 1u) ? ((c) >> 1) ^ P : (c) >> 1)
#define C8(c) C1(C1(C1(C1(C1(C1(C1(C1(c))))))))
#define R4(i) C8(i##u), C8(i##u + 1u), C8(i##u + 2u), C8(i##u + 3u)
#define R16(i) R4(i), R4(i + 4), R4(i + 8), R4(i + 12)
GFX_CONSTANT uint crc_table[256] = {
  R16(0), R16(16), R16(32), R16(48), R16(64), R16(80), R16(96), R16(112),
  R16(128), R16(144), R16(160), R16(176), R16(192), R16(208), R16(224), R16(240),
};

GFX_KERNEL void const_table(GFX_GLOBAL const uchar *data, GFX_GLOBAL uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint crc = 0xFFFFFFFFu;
  for (uint k = 0; k < 16u; ++k) crc = crc_table[(crc ^ data[16u * i + k]) & 255u] ^ (crc >> 8);
  out[i] = ~crc;
}
