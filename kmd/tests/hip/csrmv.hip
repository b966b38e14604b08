// rocSPARSE through Debian's librocsparse0 (5.3.0): y = alpha * A * x + beta * y for a
// small CSR matrix with rocsparse_scsrmv, checked against the CPU product. Prints
// "step NAME ok" per step and exits non-zero at the first failure.
#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>

#include <stdio.h>

#define HIP(call, step)                                                          \
    do {                                                                         \
        hipError_t e_ = (call);                                                  \
        if (e_ != hipSuccess) {                                                  \
            printf("step %s failed: %s\n", step, hipGetErrorString(e_));         \
            return 1;                                                            \
        }                                                                        \
    } while (0)
#define SPARSE(call, step)                                                       \
    do {                                                                         \
        rocsparse_status s_ = (call);                                            \
        if (s_ != rocsparse_status_success) {                                    \
            printf("step %s failed: rocsparse status %d\n", step, (int)s_);      \
            return 1;                                                            \
        }                                                                        \
    } while (0)

enum { M = 6, N = 5, NNZ = 11 };

int main(void) {
    // A (6 x 5), row by row.
    int ptr[M + 1] = {0, 2, 3, 6, 7, 9, 11};
    int col[NNZ] = {0, 3, 1, 0, 2, 4, 3, 1, 4, 0, 2};
    float val[NNZ] = {1.5f, -2.0f, 3.0f, 4.0f, 0.5f, -1.0f, 7.0f, 2.0f, 8.0f, -3.0f, 6.0f};
    float x[N] = {1.0f, 2.0f, -1.0f, 0.5f, 3.0f};
    float y[M] = {1.0f, -1.0f, 2.0f, 0.0f, 4.0f, -2.0f};
    const float alpha = 2.0f, beta = -0.5f;

    int *dptr, *dcol;
    float *dval, *dx, *dy;
    HIP(hipMalloc((void**)&dptr, sizeof ptr), "malloc");
    HIP(hipMalloc((void**)&dcol, sizeof col), "malloc");
    HIP(hipMalloc((void**)&dval, sizeof val), "malloc");
    HIP(hipMalloc((void**)&dx, sizeof x), "malloc");
    HIP(hipMalloc((void**)&dy, sizeof y), "malloc");
    HIP(hipMemcpy(dptr, ptr, sizeof ptr, hipMemcpyHostToDevice), "copy-in");
    HIP(hipMemcpy(dcol, col, sizeof col, hipMemcpyHostToDevice), "copy-in");
    HIP(hipMemcpy(dval, val, sizeof val, hipMemcpyHostToDevice), "copy-in");
    HIP(hipMemcpy(dx, x, sizeof x, hipMemcpyHostToDevice), "copy-in");
    HIP(hipMemcpy(dy, y, sizeof y, hipMemcpyHostToDevice), "copy-in");
    printf("step copy-in ok\n");

    rocsparse_handle handle;
    rocsparse_mat_descr descr;
    SPARSE(rocsparse_create_handle(&handle), "handle");
    SPARSE(rocsparse_create_mat_descr(&descr), "handle");
    printf("step handle ok\n");
    SPARSE(rocsparse_scsrmv(handle, rocsparse_operation_none, M, N, NNZ, &alpha, descr, dval,
                            dptr, dcol, NULL, dx, &beta, dy),
           "csrmv");
    HIP(hipDeviceSynchronize(), "csrmv");
    float got[M];
    HIP(hipMemcpy(got, dy, sizeof got, hipMemcpyDeviceToHost), "copy-out");
    for (int i = 0; i < M; i++) {
        float acc = 0.0f;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) acc += val[k] * x[col[k]];
        float want = alpha * acc + beta * y[i];
        // Exact in binary: small integers and halves.
        if (got[i] != want) {
            printf("step check-csrmv failed: y[%d] = %f, want %f\n", i, got[i], want);
            return 1;
        }
        printf("y[%d] %g\n", i, got[i]);
    }
    printf("step check-csrmv ok\n");
    SPARSE(rocsparse_destroy_mat_descr(descr), "teardown");
    SPARSE(rocsparse_destroy_handle(handle), "teardown");
    HIP(hipFree(dptr), "teardown");
    HIP(hipFree(dcol), "teardown");
    HIP(hipFree(dval), "teardown");
    HIP(hipFree(dx), "teardown");
    HIP(hipFree(dy), "teardown");
    printf("step done ok\n");
    return 0;
}
