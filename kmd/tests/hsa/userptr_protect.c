/* USERPTR pages the client protects or unmaps while they are registered: an HSA client
 * locks its own page-aligned buffers for the GPU (hsa_amd_memory_lock: KFD USERPTR
 * buffers) and runs vadd.kd of kernels.cl (c = a + b) on them:
 *   1. with every page accessible: the result is right;
 *   2. after mprotect(b, PROT_NONE): the dispatch's reads of b fault on the GPU (the
 *      emulation reports the fault; the host process is not hurt) and c is not written;
 *   3. after mprotect(b, PROT_READ | PROT_WRITE): the result is right again;
 *   4. after munmap(b): the dispatch faults again, the process survives and unlocks.
 * Prints "step NAME ok" per step; the first failure prints "step NAME FAILED ..." and
 * exits 1. Usage: userptr_protect kernels.hsaco */
#include "hsa_common.h"
#include <sys/mman.h>

#define N 1024u
#define BYTES (N * 4u)

static hsa_queue_t *q;
static uint64_t vadd_object;
static uint32_t vadd_private, vadd_group;

/* c = a + b over N work-items; waits for the completion signal. 1 when it completed. */
static int run_vadd(char *kernarg) {
    hsa_signal_t done;
    if (hsa_signal_create(1, 0, NULL, &done) != HSA_STATUS_SUCCESS) return 0;
    uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
    hsa_kernel_dispatch_packet_t *p =
        (hsa_kernel_dispatch_packet_t *)q->base_address + (index & (q->size - 1));
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = 64; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
    p->grid_size_x = N; p->grid_size_y = 1; p->grid_size_z = 1;
    p->private_segment_size = vadd_private;
    p->group_segment_size = vadd_group;
    p->kernel_object = vadd_object;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
    uint16_t header = HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE;
    __atomic_store_n((uint32_t *)p, header | (1u << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, index);
    /* A bounded wait: a lost completion fails the step instead of hanging. */
    hsa_signal_value_t v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1,
                                                      20000000000ull, HSA_WAIT_STATE_BLOCKED);
    hsa_signal_destroy(done);
    return v == 0;
}

static int check(const float *a, const float *b, const float *c, const char *step) {
    for (uint32_t i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            printf("step %s FAILED c[%u] = %g, want %g\n", step, i, c[i], a[i] + b[i]);
            return 0;
        }
    printf("step %s ok\n", step);
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: userptr_protect kernels.hsaco\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { printf("step read-code-object FAILED\n"); return 1; }
    static char image[1 << 20];
    size_t image_len = fread(image, 1, sizeof image, f);
    fclose(f);

    STEP("init", hsa_init());
    hsa_agent_t gpu = {0};
    if (hsa_iterate_agents(find_gpu, &gpu) != HSA_STATUS_INFO_BREAK) { printf("step agent FAILED\n"); return 1; }
    hsa_region_t kernarg_region = {0};
    if (hsa_agent_iterate_regions(gpu, find_kernarg, &kernarg_region) != HSA_STATUS_INFO_BREAK) {
        printf("step kernarg-region FAILED\n"); return 1;
    }
    hsa_code_object_reader_t reader;
    STEP("reader", hsa_code_object_reader_create_from_memory(image, image_len, &reader));
    hsa_executable_t exe;
    STEP("executable", hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
    STEP("load", hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
    STEP("freeze", hsa_executable_freeze(exe, NULL));
    hsa_executable_symbol_t sym;
    STEP("symbol", hsa_executable_get_symbol_by_name(exe, "vadd.kd", &gpu, &sym));
    uint32_t kernarg_size = 0;
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &vadd_object);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &vadd_group);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &vadd_private);
    STEP("queue-create", hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));

    /* The client's own pages: a and c from the heap, b its own mapping (to unmap later). */
    float *a = aligned_alloc(4096, BYTES), *c = aligned_alloc(4096, BYTES);
    float *b = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!a || !c || b == MAP_FAILED) { printf("step host-alloc FAILED\n"); return 1; }
    for (uint32_t i = 0; i < N; i++) { a[i] = (float)(i % 89) - 4.5f; b[i] = (float)(i * 3 % 17) * 0.25f; c[i] = -1.0f; }
    void *ga, *gb, *gc;
    STEP("lock-a", hsa_amd_memory_lock(a, BYTES, &gpu, 1, &ga));
    STEP("lock-b", hsa_amd_memory_lock(b, BYTES, &gpu, 1, &gb));
    STEP("lock-c", hsa_amd_memory_lock(c, BYTES, &gpu, 1, &gc));
    char *ka;
    STEP("kernarg", hsa_memory_allocate(kernarg_region, kernarg_size + 64, (void **)&ka));
    memset(ka, 0, kernarg_size);
    uint32_t n = N;
    memcpy(ka, &ga, 8); memcpy(ka + 8, &gb, 8); memcpy(ka + 16, &gc, 8); memcpy(ka + 24, &n, 4);

    if (!run_vadd(ka)) { printf("step dispatch-accessible FAILED\n"); return 1; }
    if (!check(a, b, c, "check-accessible")) return 1;

    /* b protected: the GPU must not read it (a real GPU faults on an invalidated userptr). */
    for (uint32_t i = 0; i < N; i++) c[i] = -1.0f;
    if (mprotect(b, BYTES, PROT_NONE) != 0) { printf("step mprotect-none FAILED\n"); return 1; }
    if (!run_vadd(ka)) { printf("step dispatch-protected FAILED (no completion)\n"); return 1; }
    printf("step dispatch-protected ok\n");
    /* The faulting wave stopped at its first read of b: nothing was stored. */
    for (uint32_t i = 0; i < N; i++)
        if (c[i] != -1.0f) { printf("step protected-no-store FAILED c[%u] = %g\n", i, c[i]); return 1; }
    printf("step protected-no-store ok\n");

    if (mprotect(b, BYTES, PROT_READ | PROT_WRITE) != 0) { printf("step mprotect-rw FAILED\n"); return 1; }
    if (!run_vadd(ka)) { printf("step dispatch-restored FAILED\n"); return 1; }
    if (!check(a, b, c, "check-restored")) return 1;

    /* b unmapped while still locked. */
    if (munmap(b, BYTES) != 0) { printf("step munmap FAILED\n"); return 1; }
    if (!run_vadd(ka)) { printf("step dispatch-unmapped FAILED (no completion)\n"); return 1; }
    printf("step dispatch-unmapped ok\n");

    STEP("unlock", hsa_amd_memory_unlock(a));
    hsa_amd_memory_unlock(b);
    STEP("unlock", hsa_amd_memory_unlock(c));
    hsa_memory_free(ka);
    STEP("queue-destroy", hsa_queue_destroy(q));
    STEP("executable-destroy", hsa_executable_destroy(exe));
    STEP("reader-destroy", hsa_code_object_reader_destroy(reader));
    STEP("shut-down", hsa_shut_down());
    return 0;
}
