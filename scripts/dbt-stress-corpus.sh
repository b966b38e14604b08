#!/usr/bin/env bash
# Translator stress over the corpus (a development aid, not CI): builds every corpus
# OpenCL/HIP source for gfx950 at -O0/-O1/-O2/-Os/-O3, -O2 -ffast-math and code object
# v4/v5 into $OUT, then runs dbt's stress_corpus example (each manifest case from each
# build, on the gfx950 model and translated to gfx942 and gfx1201, compared bit for bit).
#
#   scripts/dbt-stress-corpus.sh [OUT]     (default: $TMPDIR/dbt-stress-corpus)
set -euo pipefail
cd "$(dirname "$0")/../corpus"
OUT=${1:-${TMPDIR:-/tmp}/dbt-stress-corpus}
mkdir -p "$OUT"
VARIANTS=("O0 -O0" "O1 -O1" "O2 -O2" "Os -Os" "O3 -O3" "fast -O2 -ffast-math"
  "v4 -O2 -mcode-object-version=4" "v5 -O2 -mcode-object-version=5")
for f in src/cl/*.cl src/hip/*.hip; do
  stem=$(basename "${f%.*}")
  for v in "${VARIANTS[@]}"; do
    read -r -a a <<<"$v"
    o=$OUT/$stem-${a[0]}.hsaco
    if [[ $f == *.cl ]]; then
      clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx950 -cl-kernel-arg-info \
        -nogpulib -w -Iinclude "${a[@]:1}" "$f" -o "$o" || echo "clang failed: $stem ${a[0]}"
    else
      clang-22 -x hip --offload-arch=gfx950 -cuid="$stem" -fno-offload-uniform-block -nogpulib \
        -nogpuinc --cuda-device-only --no-gpu-bundle-output -w -Iinclude "${a[@]:1}" "$f" \
        -o "$o" || echo "clang failed: $stem ${a[0]}"
    fi
  done
done
cd ..
cargo run --release -q -p dbt --example stress_corpus -- "$OUT" O0 O1 O2 Os O3 fast v4 v5
