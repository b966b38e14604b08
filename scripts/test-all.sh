#!/usr/bin/env bash
# Runs every test in the workspace, including the loom models of the engine's concurrency.
# Installs LLVM 22 (the oracle and kernel compiler some tests use) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
llvm-mc-22 --version | head -2

cargo test --workspace --release
# The issue's full oracle sweep: one million random instruction words per target against
# llvm-mc-22 (the workspace tests above run a 20k-word sample).
ISA_SWEEP_WORDS=1000000 cargo test --release -p gpu-model --test isa_sweep \
  random_words_full_sweep -- --ignored --nocapture 2>&1 | grep -E '^gfx[0-9a-z]+: |test result|panicked|FAILED'
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
  cargo test -p loom-tests --release
# The tests of "bad input never panics" and atomic restore once more in the test profile,
# with debug assertions and overflow checks (the release runs above have neither).
cargo test -p gpu-model --test loader_errors --test bundle --test isa_roundtrip \
  --test exec_random --test memory_basic
cargo test -p simkit --test engine checkpoint
# simkit across MPI ranks (feature `mpi`): its unit tests and PHOLD under mpirun on loopback.
cargo test --release -p simkit --features mpi --lib mpi::
cargo test --release -p simkit --features mpi --test mpi
# Device memory replicated over MPI ranks (gpu-model feature `mpi`) against one process.
cargo test --release -p gpu-model --features mpi --test mpi_memory
# `gfxsim run` under mpirun (scenarios feature `mpi`): reports and outputs of one process.
cargo test --release -p scenarios --features mpi --test mpi_run
