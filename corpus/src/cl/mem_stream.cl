// mem_stream (benchmark b): grid-stride streaming copy with a scale, 16 bytes per access.
#include "prelude.h"

GFX_KERNEL void mem_stream(GFX_GLOBAL const uint4 *in, GFX_GLOBAL uint4 *out, uint n4, uint k) {
  uint stride = get_global_size(0);
  uint4 c = {1u, 2u, 3u, 4u};  // brace init: same meaning in OpenCL C and C
  for (uint i = get_global_id(0); i < n4; i += stride) out[i] = in[i] * k + c;
}
