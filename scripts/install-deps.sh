#!/usr/bin/env bash
# Installs LLVM 22 (the oracle and kernel compiler the tests use) when it is missing, with
# clang-tools-22 for clang-offload-bundler (the offload-bundle tests' oracle).
set -euo pipefail
# rocminfo (pulls Debian's ROCr 5.2.3 and libhsakmt): the real client kmd's tests run under
# `gfxsim exec` (scenarios/tests/exec_rocminfo.rs).
if ! command -v rocminfo >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rocminfo
  else
    echo "rocminfo not found: install it with apt (Debian 12's ROCm 5.2.3)" >&2
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
