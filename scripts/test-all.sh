#!/usr/bin/env bash
# Runs every test in the workspace, including the loom models of the engine's concurrency.
# Installs LLVM 22 (the oracle and kernel compiler some tests use) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says how long it took (CI runs on 2 cores and must stay well inside its limit).
step() {
  local t0=$SECONDS
  "$@"
  echo "test-all: $((SECONDS - t0)) s: $*" >&2
}
step bash scripts/install-deps.sh
llvm-mc-22 --version | head -2

# The workspace with the optional MPI features on (simkit, gpu-model, scenarios: `mpi`), so
# one build covers the multi-process tests too: simkit across MPI ranks (PHOLD under mpirun
# on loopback, `simkit --test mpi`), device memory replicated over ranks (`gpu-model --test
# mpi_memory`) and `gfxsim run` under mpirun against one process (`scenarios --test mpi_run`).
# The features only add code; without mpirun every binary runs as one process.
# Later steps that reuse the release build select it the same way (--workspace, the same
# features), so cargo resolves the same features and rebuilds nothing.
MPI=simkit/mpi,gpu-model/mpi,scenarios/mpi
step cargo test --workspace --release --features "$MPI"
# The issue's full oracle sweep: one million random instruction words per target against
# llvm-mc-22 (the workspace tests above run a 20k-word sample).
ISA_SWEEP_WORDS=1000000 step cargo test --workspace --release --features "$MPI" --test isa_sweep \
  random_words_full_sweep -- --ignored --nocapture 2>&1 | grep -E '^gfx[0-9a-z]+: |test result|panicked|FAILED|^test-all: '
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
  step cargo test -p loom-tests --release
# The tests of "bad input never panics" and atomic restore once more in the test profile,
# with debug assertions and overflow checks (the release runs above have neither).
step cargo test -p gpu-model --test loader_errors --test bundle --test isa_roundtrip \
  --test exec_random --test memory_basic
step cargo test -p simkit --test engine checkpoint
