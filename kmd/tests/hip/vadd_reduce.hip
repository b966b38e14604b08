// A plain HIP program (Debian's hipcc, HIP 5.2.3): a vector add and a shared-memory
// reduction with hipMalloc / hipMemcpy both ways / hipLaunchKernelGGL /
// hipDeviceSynchronize, each checked against the CPU. Prints "step NAME ok" per step
// and exits non-zero at the first failure. Run it under `gfxsim exec --gpu mi210`.
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

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// One partial sum per block of 256 threads, a tree in shared memory.
__global__ void block_sum(const unsigned* in, unsigned* out, int n) {
    __shared__ unsigned tmp[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tmp[t] = i < n ? in[i] : 0u;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) tmp[t] += tmp[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = tmp[0];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    if (n <= 0) n = 5000;
    int count = 0;
    CHECK(hipGetDeviceCount(&count), "device-count");
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, 0), "device-props");
    printf("device %s %s cus %d\n", prop.name, prop.gcnArchName, prop.multiProcessorCount);
    printf("step init ok\n");

    float* ha = (float*)malloc(n * sizeof(float));
    float* hb = (float*)malloc(n * sizeof(float));
    float* hc = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        ha[i] = (float)(i % 1000) * 0.5f;
        hb[i] = (float)((i * 7) % 333) - 100.0f;
        hc[i] = -1.0f;
    }
    float *da, *db, *dc;
    CHECK(hipMalloc((void**)&da, n * sizeof(float)), "malloc");
    CHECK(hipMalloc((void**)&db, n * sizeof(float)), "malloc");
    CHECK(hipMalloc((void**)&dc, n * sizeof(float)), "malloc");
    CHECK(hipMemcpy(da, ha, n * sizeof(float), hipMemcpyHostToDevice), "copy-in");
    CHECK(hipMemcpy(db, hb, n * sizeof(float), hipMemcpyHostToDevice), "copy-in");
    printf("step copy-in ok\n");
    int blocks = (n + 255) / 256;
    hipLaunchKernelGGL(vadd, dim3(blocks), dim3(256), 0, 0, da, db, dc, n);
    CHECK(hipGetLastError(), "launch-vadd");
    CHECK(hipDeviceSynchronize(), "sync-vadd");
    CHECK(hipMemcpy(hc, dc, n * sizeof(float), hipMemcpyDeviceToHost), "copy-out");
    for (int i = 0; i < n; i++) {
        if (hc[i] != ha[i] + hb[i]) {
            printf("step check-vadd failed: c[%d] = %f, want %f\n", i, hc[i], ha[i] + hb[i]);
            return 1;
        }
    }
    printf("step check-vadd ok\n");

    unsigned* hin = (unsigned*)malloc(n * sizeof(unsigned));
    unsigned* hpart = (unsigned*)malloc(blocks * sizeof(unsigned));
    unsigned long long want = 0;
    for (int i = 0; i < n; i++) {
        hin[i] = (unsigned)((i * 2654435761u) >> 20);
        want += hin[i];
    }
    unsigned *din, *dpart;
    CHECK(hipMalloc((void**)&din, n * sizeof(unsigned)), "malloc");
    CHECK(hipMalloc((void**)&dpart, blocks * sizeof(unsigned)), "malloc");
    CHECK(hipMemcpy(din, hin, n * sizeof(unsigned), hipMemcpyHostToDevice), "copy-in");
    hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(256), 0, 0, din, dpart, n);
    CHECK(hipGetLastError(), "launch-reduce");
    CHECK(hipDeviceSynchronize(), "sync-reduce");
    CHECK(hipMemcpy(hpart, dpart, blocks * sizeof(unsigned), hipMemcpyDeviceToHost), "copy-out");
    unsigned long long got = 0;
    for (int b = 0; b < blocks; b++) got += hpart[b];
    if (got != want) {
        printf("step check-reduce failed: sum %llu, want %llu\n", got, want);
        return 1;
    }
    printf("sum %llu\n", got);
    printf("step check-reduce ok\n");

    CHECK(hipFree(da), "free");
    CHECK(hipFree(db), "free");
    CHECK(hipFree(dc), "free");
    CHECK(hipFree(din), "free");
    CHECK(hipFree(dpart), "free");
    free(ha);
    free(hb);
    free(hc);
    free(hin);
    free(hpart);
    printf("step done ok\n");
    return 0;
}
