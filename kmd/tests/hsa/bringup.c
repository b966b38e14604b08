/* An HSA client of the emulated KFD: everything a program does before its first kernel
 * runs, and the teardown. Each step prints "step NAME ok"; the first failure prints
 * "step NAME FAILED <status>" and exits 1.
 *
 * Steps that need the simulated GPU to execute packets (loading a code object, which ROCr
 * copies into VRAM with its own blit kernel, and dispatches) are in dispatch.c. */
#include "hsa_common.h"

struct pools { hsa_amd_memory_pool_t vram, kernarg; int have_vram, have_kernarg; };

static hsa_status_t find_pool(hsa_amd_memory_pool_t pool, void *data) {
    struct pools *p = data;
    hsa_amd_segment_t seg;
    uint32_t flags = 0;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
    if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !p->have_vram) {
        p->vram = pool; p->have_vram = 1;
    }
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !p->have_kernarg) {
        p->kernarg = pool; p->have_kernarg = 1;
    }
    return HSA_STATUS_SUCCESS;
}

int main(void) {
    STEP("init", hsa_init());
    hsa_agent_t gpu = {0};
    hsa_status_t it = hsa_iterate_agents(find_gpu, &gpu);
    if (it != HSA_STATUS_INFO_BREAK || gpu.handle == 0) { printf("step agent FAILED no GPU\n"); return 1; }
    char name[64] = {0};
    STEP("agent", hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
    printf("agent %s\n", name);

    struct pools gp = {0};
    STEP("gpu-pools", hsa_amd_agent_iterate_memory_pools(gpu, find_pool, &gp));
    size_t vram_size = 0;
    STEP("vram-pool-size", hsa_amd_memory_pool_get_info(gp.vram, HSA_AMD_MEMORY_POOL_INFO_SIZE, &vram_size));
    printf("vram %zu\n", vram_size);

    void *dev = NULL;
    STEP("vram-alloc", hsa_amd_memory_pool_allocate(gp.vram, 1 << 20, 0, &dev));

    hsa_queue_t *queue = NULL;
    STEP("queue-create", hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    printf("queue size %u\n", queue->size);

    hsa_signal_t sig;
    STEP("signal-create", hsa_signal_create(1, 0, NULL, &sig));
    /* Host-side signal operations work without the GPU. */
    hsa_signal_subtract_screlease(sig, 1);
    hsa_signal_value_t v = hsa_signal_wait_scacquire(sig, HSA_SIGNAL_CONDITION_EQ, 0, 1000000, HSA_WAIT_STATE_BLOCKED);
    if (v != 0) { printf("step signal-wait FAILED %ld\n", (long)v); return 1; }
    printf("step signal-wait ok\n");

    STEP("signal-destroy", hsa_signal_destroy(sig));
    STEP("queue-destroy", hsa_queue_destroy(queue));
    STEP("vram-free", hsa_amd_memory_pool_free(dev));
    STEP("shut-down", hsa_shut_down());
    return 0;
}
