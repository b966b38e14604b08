#!/usr/bin/env bash
# Runs every test in the workspace. Installs LLVM 22 (the oracle and kernel compiler some
# tests use) when it is missing and we are allowed to.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v llvm-mc-22 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang-22 lld-22 llvm-22
  else
    echo "llvm-mc-22 not found: install clang-22 lld-22 llvm-22 (see ../shared/TOOLCHAIN.md)" >&2
    exit 1
  fi
fi
llvm-mc-22 --version | head -2

cargo test --workspace --release
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
  cargo test -p loom-tests --release
