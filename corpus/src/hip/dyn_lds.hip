// dyn_lds: HIP dynamic shared memory (extern __shared__), sized at dispatch: each workgroup
// loads 2*blockDim f32 values into LDS and writes pairwise sums of mirrored entries.
#include "prelude.h"

extern __shared__ float dyn[];

GFX_KERNEL __launch_bounds__(1024) void dyn_lds(const float *in, float *out) {
  uint t = get_local_id(0), bs = get_local_size(0);
  const float *src = in + 2u * bs * get_group_id(0);
  dyn[t] = src[t];
  dyn[t + bs] = src[t + bs];
  barrier();
  out[bs * get_group_id(0) + t] = dyn[t] + dyn[2u * bs - 1u - t];
}
