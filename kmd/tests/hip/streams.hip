// HIP streams, events, hipMemset and many launches (Debian's hipcc, HIP 5.2.3): two
// streams each fill their own buffer (hipMemsetAsync) and run a kernel on it, an event
// recorded on one stream orders a kernel on the other, and one kernel is launched 1000
// times in a loop. Every result is checked against the CPU; prints "step NAME ok" per
// step and exits non-zero at the first failure.
#include <hip/hip_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call, step)                                                         \
    do {                                                                          \
        hipError_t e_ = (call);                                                   \
        if (e_ != hipSuccess) {                                                   \
            printf("step %s failed: %s (%d)\n", step, hipGetErrorString(e_), e_); \
            return 1;                                                             \
        }                                                                         \
    } while (0)

__global__ void scale_add(int* x, int mul, int add, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * mul + add + i;
}

__global__ void combine(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] - b[i];
}

__global__ void bump(unsigned* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += (unsigned)i + 1u;
}

int main(void) {
    const int n = 1000;
    const size_t bytes = n * sizeof(int);
    int *a, *b, *c;
    CHECK(hipMalloc((void**)&a, bytes), "malloc");
    CHECK(hipMalloc((void**)&b, bytes), "malloc");
    CHECK(hipMalloc((void**)&c, bytes), "malloc");
    hipStream_t s1, s2;
    CHECK(hipStreamCreate(&s1), "streams");
    CHECK(hipStreamCreate(&s2), "streams");
    hipEvent_t done1;
    CHECK(hipEventCreate(&done1), "event");
    printf("step init ok\n");

    // hipMemset bytes 0x01 -> each int is 0x01010101; 0x02 likewise.
    CHECK(hipMemsetAsync(a, 0x01, bytes, s1), "memset");
    CHECK(hipMemsetAsync(b, 0x02, bytes, s2), "memset");
    int blocks = (n + 127) / 128;
    hipLaunchKernelGGL(scale_add, dim3(blocks), dim3(128), 0, s1, a, 3, 7, n);
    hipLaunchKernelGGL(scale_add, dim3(blocks), dim3(128), 0, s2, b, 2, -5, n);
    CHECK(hipEventRecord(done1, s1), "event");
    // s2 waits for s1's work before combining both buffers.
    CHECK(hipStreamWaitEvent(s2, done1, 0), "wait-event");
    hipLaunchKernelGGL(combine, dim3(blocks), dim3(128), 0, s2, a, b, c, n);
    CHECK(hipGetLastError(), "launch");
    CHECK(hipStreamSynchronize(s2), "sync");
    CHECK(hipEventSynchronize(done1), "sync");
    if (hipEventQuery(done1) != hipSuccess) {
        printf("step event-query failed\n");
        return 1;
    }
    int* hc = (int*)malloc(bytes);
    CHECK(hipMemcpy(hc, c, bytes, hipMemcpyDeviceToHost), "copy-out");
    for (int i = 0; i < n; i++) {
        int av = 0x01010101 * 3 + 7 + i;
        int bv = 0x02020202 * 2 - 5 + i;
        if (hc[i] != av - bv) {
            printf("step check-streams failed: c[%d] = %d, want %d\n", i, hc[i], av - bv);
            return 1;
        }
    }
    printf("step check-streams ok\n");

    // One kernel, 1000 launches on the null stream.
    unsigned* x;
    const int m = 256;
    CHECK(hipMalloc((void**)&x, m * sizeof(unsigned)), "malloc");
    CHECK(hipMemset(x, 0, m * sizeof(unsigned)), "memset");
    const int launches = 1000;
    for (int k = 0; k < launches; k++) {
        hipLaunchKernelGGL(bump, dim3(1), dim3(m), 0, 0, x, m);
    }
    CHECK(hipGetLastError(), "launch-loop");
    CHECK(hipDeviceSynchronize(), "sync-loop");
    unsigned hx[256];
    CHECK(hipMemcpy(hx, x, m * sizeof(unsigned), hipMemcpyDeviceToHost), "copy-out");
    for (int i = 0; i < m; i++) {
        unsigned want = (unsigned)launches * ((unsigned)i + 1u);
        if (hx[i] != want) {
            printf("step check-loop failed: x[%d] = %u, want %u\n", i, hx[i], want);
            return 1;
        }
    }
    printf("step check-loop ok\n");

    CHECK(hipEventDestroy(done1), "teardown");
    CHECK(hipStreamDestroy(s1), "teardown");
    CHECK(hipStreamDestroy(s2), "teardown");
    CHECK(hipFree(a), "teardown");
    CHECK(hipFree(b), "teardown");
    CHECK(hipFree(c), "teardown");
    CHECK(hipFree(x), "teardown");
    free(hc);
    printf("step done ok\n");
    return 0;
}
