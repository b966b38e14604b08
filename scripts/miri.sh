#!/usr/bin/env bash
# Miri (nightly) over the modules with `unsafe`, by their unit tests:
#   gpu-model exec::regfile   lazily mapped register files (raw slices over a mapping or a
#                             leaked box, Send/Sync): every unit test.
#   gpu-model exec::float     the FMA+AVX2 row kernels behind run-time detection: the test
#                             that they give the portable bits, once as built (Miri detects
#                             no CPU features: the portable path) and once with the features
#                             enabled at compile time (the `target_feature` kernels run).
#   gpu-model exec::valu::rows  not run: its one `unsafe` is the call into the AVX2+FMA build
#                             of a lane kernel after `has_avx2_fma()`; the kernels are safe
#                             code, tested bit-for-bit against LLVM-compiled kernels in the
#                             exec_* tests, which need clang-22 and the simulator's full
#                             decode tables (hours under Miri).
#   gpu-model memory::host    host memory mapped in place (raw pointers, atomics on host
#                             bytes): its unit test.
#   kmd abi                   the Pod byte views of the ioctl argument structs: its tests.
#   kmd user, soc_gpu, topology, kfd and kmd/preload: not run: their `unsafe` is foreign
#                             calls Miri cannot execute (process_vm_readv, mmap of memfds,
#                             sysinfo, clock_gettime through libc, dlsym/RTLD_NEXT in the
#                             LD_PRELOAD interposer); they are exercised by the real-client
#                             tests (scenarios/tests/exec_rocminfo.rs, kmd_hsa.rs,
#                             kmd_interposer.rs) and the kfd_ioctl fuzz target.
# simkit's only unsafe is the loom-only thread shim (`--cfg loom`), checked by the loom models.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup component add miri rust-src --toolchain nightly
fi
cargo +nightly miri setup
export CARGO_TARGET_DIR=target/miri
cargo +nightly miri test -p gpu-model --lib -- exec::regfile exec::float::tests::fma_rows \
  memory::host
cargo +nightly miri test -p kmd --lib -- abi
RUSTFLAGS="-Ctarget-feature=+avx2,+fma" CARGO_TARGET_DIR=target/miri-avx2 \
  cargo +nightly miri test -p gpu-model --lib -- exec::float::tests::fma_rows
