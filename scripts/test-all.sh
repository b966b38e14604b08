#!/usr/bin/env bash
# Runs every test in the workspace, including the loom models of the engine's concurrency.
# Installs LLVM 22 (the oracle and kernel compiler some tests use) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
llvm-mc-22 --version | head -2

cargo test --workspace --release
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
  cargo test -p loom-tests --release
