#!/usr/bin/env bash
# Differential testing: random OpenCL C kernels on the host (reference) and under gpu-model
# on every target, wave size and -O level. Arguments go to the difftest binary:
#   scripts/difftest.sh --seed S --count N [--first I] [--batch B] [--jobs J]
#                       [--builds gfx942-w64-O3,...] [--workdir DIR]
#                       [--features partial,f16fma,vdiv,subgroup,transc|all]   # generator switches
#   scripts/difftest.sh --seed S --print I                      # one kernel's source
#   scripts/difftest.sh --seed S --minimize I --builds BUILD    # shrink a mismatch
# Exit status 1 when anything differed. Needs clang-22 (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --release -p difftest -- "$@"
