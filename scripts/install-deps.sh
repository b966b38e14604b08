#!/usr/bin/env bash
# Installs LLVM 22 (the oracle and kernel compiler the tests use) when it is missing, with
# clang-tools-22 for clang-offload-bundler (the offload-bundle tests' oracle).
set -euo pipefail
# Debian 12's ROCm 5.2.3, the real clients of kmd's tests: rocminfo (pulls ROCr and the
# thunk) under `gfxsim exec`, libhsa-runtime-dev + gcc for the HSA C program, and hipcc +
# libamdhip64-dev (HIP 5.2.3, clang-15, device libs, comgr) for the HIP programs, and
# librocsparse-dev (rocSPARSE 5.3.0) for the csrmv program.
if ! command -v rocminfo >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1 \
   || [ ! -f /usr/include/hsa/hsa.h ] || ! command -v hipcc >/dev/null 2>&1 \
   || [ ! -f /usr/include/hip/hip_runtime.h ] || [ ! -f /usr/include/rocsparse/rocsparse.h ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rocminfo \
      libhsa-runtime-dev gcc libc6-dev hipcc libamdhip64-dev librocsparse-dev
  else
    echo "ROCm 5.2.3 not found: apt-get install rocminfo libhsa-runtime-dev gcc hipcc" \
      "libamdhip64-dev librocsparse-dev" >&2
    exit 1
  fi
fi
# OpenMPI (Debian's) for simkit's `mpi` feature and its tests under mpirun; the rsmpi bindings
# are generated with libclang (LLVM 22's).
if ! command -v mpirun >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1 \
   || [ ! -f /usr/lib/x86_64-linux-gnu/libclang-22.so.1 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libopenmpi-dev \
      openmpi-bin libclang1-22 libclang-common-22-dev
  else
    echo "OpenMPI not found: apt-get install libopenmpi-dev openmpi-bin libclang1-22 libclang-common-22-dev" >&2
    exit 1
  fi
fi
if command -v llvm-mc-22 >/dev/null 2>&1 && command -v clang-22 >/dev/null 2>&1 \
   && command -v ld.lld-22 >/dev/null 2>&1 && command -v llvm-mca-22 >/dev/null 2>&1 \
   && [ -x /usr/lib/llvm-22/bin/clang-offload-bundler ] && [ -f /usr/include/pthread.h ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  # clang-tools-22: clang-offload-bundler (the bundle tests' oracle); libc6-dev, binutils:
  # tools/difftest builds and links its x86-64 host reference.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang-22 lld-22 llvm-22 \
    clang-tools-22 libc6-dev binutils
else
  echo "LLVM 22 not found: install clang-22 lld-22 llvm-22 clang-tools-22 libc6-dev binutils (see ../shared/TOOLCHAIN.md)" >&2
  exit 1
fi
