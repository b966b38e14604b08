#include "prelude.h"

// The memory drain at the end of a dispatch (issue 16): each work-item stores a word
// (`store_only`) or adds to a counter without using the old value, a no-return atomic
// (`add_only`), and nothing waits for either before s_endpgm. The dispatch may only
// complete once the memory system has acknowledged them.

__kernel void store_only(__global uint *out) {
    size_t g = get_global_id(0);
    out[g] = (uint)g * 3u + 1u;
}

__kernel void add_only(__global uint *counters, uint n) {
    size_t g = get_global_id(0);
    atomic_add_dev(&counters[g % n], (uint)g + 1u);
}
