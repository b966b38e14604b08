/* An HSA client that runs real kernels on the simulated GPU: loads a clang-22 gfx90a code
 * object (ROCr copies it into VRAM with its own blit kernel during hsa_executable_freeze),
 * dispatches a vector add and an LDS reduction on a user AQL queue, waits on their
 * completion signals and checks the results against the CPU. Prints "step NAME ok" per
 * step; the first failure prints "step NAME FAILED ..." and exits 1. The queue has
 * profiling enabled: each dispatch prints "time NAME START END" (ns, system domain, from
 * hsa_amd_profiling_get_dispatch_time, i.e. the completion signal's start_ts/end_ts).
 * Usage: dispatch kernels.hsaco */
#include "hsa_common.h"

#define N 1000u
#define RN 4096u

struct kernel { uint64_t object; uint32_t kernarg_size, group_size, private_size; };

static hsa_status_t get_kernel(hsa_executable_t exe, hsa_agent_t gpu, const char *name, struct kernel *k) {
    hsa_executable_symbol_t sym;
    hsa_status_t s = hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym);
    if (s != HSA_STATUS_SUCCESS) return s;
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->object);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &k->kernarg_size);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &k->group_size);
    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &k->private_size);
    return HSA_STATUS_SUCCESS;
}

static hsa_agent_t the_gpu;

/* Publishes a 1-D dispatch of `grid` work-items in 64-wide groups, waits for it and
 * prints its profiled start and end. */
static int dispatch(hsa_queue_t *q, const struct kernel *k, void *kernarg, uint32_t grid,
                    const char *name) {
    hsa_signal_t done;
    if (hsa_signal_create(1, 0, NULL, &done) != HSA_STATUS_SUCCESS) return 0;
    uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
    hsa_kernel_dispatch_packet_t *p =
        (hsa_kernel_dispatch_packet_t *)q->base_address + (index & (q->size - 1));
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = 64; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
    p->grid_size_x = grid; p->grid_size_y = 1; p->grid_size_z = 1;
    p->private_segment_size = k->private_size;
    p->group_segment_size = k->group_size;
    p->kernel_object = k->object;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
    uint16_t header = HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE;
    uint32_t word = header | (1u << 16); /* setup: 1 dimension */
    __atomic_store_n((uint32_t *)p, word, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, index);
    hsa_signal_value_t v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1,
                                                      UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    hsa_amd_profiling_dispatch_time_t t = {0, 0};
    hsa_status_t ps = hsa_amd_profiling_get_dispatch_time(the_gpu, done, &t);
    printf("time %s %llu %llu status %d\n", name, (unsigned long long)t.start,
           (unsigned long long)t.end, (int)ps);
    hsa_signal_destroy(done);
    return v == 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: dispatch kernels.hsaco\n"); return 2; }
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
    struct kernel vadd, reduce;
    STEP("symbol-vadd", get_kernel(exe, gpu, "vadd.kd", &vadd));
    STEP("symbol-reduce", get_kernel(exe, gpu, "reduce.kd", &reduce));
    /* The descriptor in VRAM is not all zeros only if ROCr's blit kernel really copied it. */
    printf("vadd kernarg %u group %u\n", vadd.kernarg_size, vadd.group_size);

    hsa_queue_t *q = NULL;
    STEP("queue-create", hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    STEP("profiling", hsa_amd_profiling_set_profiler_enabled(q, 1));
    the_gpu = gpu;

    float *a, *b, *c; uint32_t *in, *out; char *ka, *kr;
    STEP("alloc", hsa_memory_allocate(kernarg_region, N * 4, (void **)&a));
    STEP("alloc", hsa_memory_allocate(kernarg_region, N * 4, (void **)&b));
    STEP("alloc", hsa_memory_allocate(kernarg_region, N * 4, (void **)&c));
    STEP("alloc", hsa_memory_allocate(kernarg_region, RN * 4, (void **)&in));
    STEP("alloc", hsa_memory_allocate(kernarg_region, RN / 64 * 4, (void **)&out));
    STEP("alloc", hsa_memory_allocate(kernarg_region, vadd.kernarg_size + 64, (void **)&ka));
    STEP("alloc", hsa_memory_allocate(kernarg_region, reduce.kernarg_size + 64, (void **)&kr));
    for (uint32_t i = 0; i < N; i++) { a[i] = (float)(i % 97) * 0.5f - 3.0f; b[i] = (float)(i * 7 % 31) + 0.25f; c[i] = -1.0f; }
    for (uint32_t i = 0; i < RN; i++) in[i] = i * 2654435761u >> 20;
    memset(out, 0, RN / 64 * 4);

    memset(ka, 0, vadd.kernarg_size);
    uint32_t n = N;
    memcpy(ka, &a, 8); memcpy(ka + 8, &b, 8); memcpy(ka + 16, &c, 8); memcpy(ka + 24, &n, 4);
    if (!dispatch(q, &vadd, ka, (N + 63) / 64 * 64, "vadd")) { printf("step dispatch-vadd FAILED\n"); return 1; }
    printf("step dispatch-vadd ok\n");
    for (uint32_t i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) { printf("step check-vadd FAILED c[%u] = %g, want %g\n", i, c[i], a[i] + b[i]); return 1; }
    printf("step check-vadd ok\n");

    memset(kr, 0, reduce.kernarg_size);
    memcpy(kr, &in, 8); memcpy(kr + 8, &out, 8);
    if (!dispatch(q, &reduce, kr, RN, "reduce")) { printf("step dispatch-reduce FAILED\n"); return 1; }
    printf("step dispatch-reduce ok\n");
    for (uint32_t g = 0; g < RN / 64; g++) {
        uint32_t want = 0;
        for (uint32_t l = 0; l < 64; l++) want += in[g * 64 + l];
        if (out[g] != want) { printf("step check-reduce FAILED out[%u] = %u, want %u\n", g, out[g], want); return 1; }
    }
    printf("step check-reduce ok\n");

    hsa_memory_free(a); hsa_memory_free(b); hsa_memory_free(c); hsa_memory_free(in);
    hsa_memory_free(out); hsa_memory_free(ka); hsa_memory_free(kr);
    STEP("queue-destroy", hsa_queue_destroy(q));
    STEP("executable-destroy", hsa_executable_destroy(exe));
    STEP("reader-destroy", hsa_code_object_reader_destroy(reader));
    STEP("shut-down", hsa_shut_down());
    return 0;
}
