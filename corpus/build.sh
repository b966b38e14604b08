#!/usr/bin/env bash
# Rebuilds every corpus code object from source with LLVM 22 (see README.md).
#
#   corpus/build.sh             rebuild corpus/build/ in place, then validate it
#   corpus/build.sh --check     rebuild into a temp dir, fail on any byte difference with
#                               corpus/build/ (missing, extra or changed files), then validate
#                               and check manifest.ron against the objects (manifest.py --check)
#   corpus/build.sh --validate  only validate corpus/build/ (metadata notes, clean disassembly)
#
# Environment: JOBS (parallel compiles, default 2), LLVM_SUFFIX (default -22).
set -euo pipefail
cd "$(dirname "$0")"
CORPUS=$(pwd)

SFX=${LLVM_SUFFIX:--22}
CLANG=clang$SFX
MC=llvm-mc$SFX
LLD=ld.lld$SFX
OBJDUMP=llvm-objdump$SFX
READELF=llvm-readelf$SFX
JOBS=${JOBS:-2}

TARGETS=(gfx90a gfx942 gfx950 gfx1200 gfx1201)
GFX12=(gfx1200 gfx1201)

# Kernels (file stems) also built as code object v4 and v5 so the loader sees all versions.
OLD_COV_STEMS=(vadd reduce_lds stack_calls kernarg_struct asm_salu hidden_args)

# exclude STEM VARIANT: prints a reason and succeeds when STEM is not built for VARIANT.
# A VARIANT is a directory name under build/: gfx942, gfx1200-w64, gfx90a-v4, ...
exclude() {
  local stem=$1 variant=$2
  case "$stem:$variant" in
    # The implicit kernarg layout this kernel reads (hidden_block_count at offset 0, ...)
    # exists from code object v5 on; v4 puts hidden_global_offset_x there instead.
    hidden_args:*-v4) echo "implicit kernarg block layout is v5+" ;;
    # Hand-written assembly only carries v6 directives and metadata; the v4/v5 loader paths
    # are covered by the compiled kernels.
    asm_*:*-v4 | asm_*:*-v5) echo "hand-written assembly is written for code object v6" ;;
    # RDNA4 has no MFMA (its matrix instructions are WMMA, with other shapes and layouts).
    mfma_*:gfx12*) echo "v_mfma_* exists on CDNA (gfx90a/gfx942/gfx950) only" ;;
    *) return 1 ;;
  esac
}

# All variants: default wave size and v6 for every target, wave64 for gfx12, v4/v5 extras.
variants_for() {
  local stem=$1 t v
  for t in "${TARGETS[@]}"; do echo "$t"; done
  for t in "${GFX12[@]}"; do echo "$t-w64"; done
  for s in "${OLD_COV_STEMS[@]}"; do
    if [ "$s" = "$stem" ]; then
      for v in v4 v5; do for t in "${TARGETS[@]}"; do echo "$t-$v"; done; done
    fi
  done
}

# Source of a stem: src/cl/STEM.cl, src/hip/STEM.hip, or src/asm/{gfx9,gfx12}/STEM.s.
stems() {
  {
    for f in src/cl/*.cl src/hip/*.hip src/asm/gfx9/*.s; do
      [ -e "$f" ] && basename "${f%.*}"
    done
  } | sort
}

# compile_one STEM VARIANT OUTFILE
compile_one() {
  local stem=$1 variant=$2 out=$3
  local cpu=${variant%%-*} suffix="" cov=6 w64=0
  [ "$cpu" != "$variant" ] && suffix=${variant#*-}
  case "$suffix" in
    w64) w64=1 ;;
    v4) cov=4 ;;
    v5) cov=5 ;;
    "") ;;
    *) echo "unknown variant $variant" >&2; return 1 ;;
  esac
  local wflags=() 
  [ $w64 = 1 ] && wflags=(-mwavefrontsize64)
  mkdir -p "$(dirname "$out")"
  if [ -e "src/cl/$stem.cl" ]; then
    # clang 22 also emits a callable clone __clang_ocl_kern_imp_<name> of every OpenCL
    # kernel; when the kernel declares __local arrays the backend warns that the clone uses
    # LDS (and puts s_trap 2 there; the clone is never called). That warning is dropped.
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/corpus-log-XXXXXX")
    if ! $CLANG -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$cpu" "${wflags[@]}" \
      -mcode-object-version=$cov -cl-kernel-arg-info -nogpulib -O2 -Iinclude "src/cl/$stem.cl" -o "$out" 2>"$log"; then
      cat "$log" >&2
      rm -f "$log"
      return 1
    fi
    awk '/warning: local memory global used by non-kernel function/ {skip = 2; next}
         skip > 0 && !/: (warning|error):/ {skip--; next}
         /^[0-9]+ warnings? generated\.$/ {next}
         {skip = 0; print}' "$log" >&2
    rm -f "$log"
  elif [ -e "src/hip/$stem.hip" ]; then
    # -cuid: HIP emits a __hip_cuid_<id> symbol whose default id is random per compile;
    # a fixed id keeps the build byte-for-byte reproducible.
    $CLANG -x hip --offload-arch="$cpu" "${wflags[@]}" -mcode-object-version=$cov -cuid="$stem" \
      -fno-offload-uniform-block \
      -nogpulib -nogpuinc --cuda-device-only --no-gpu-bundle-output -O2 -Iinclude \
      "src/hip/$stem.hip" -o "$out"
  else
    # The sources pick per-target details with .ifdef: GFX90A/GFX942/GFX950/GFX1200/GFX1201
    # (e.g. the amdhsa.target string), GFX94 (sc0/sc1 cache bits instead of glc/slc on
    # gfx942/gfx950), W64 (gfx12 wave64 build).
    local fam=gfx9 defs=(--defsym "$(echo "$cpu" | tr a-z A-Z)=1")
    case "$cpu" in
      gfx12*) fam=gfx12 ;;
      gfx94* | gfx950) defs+=(--defsym GFX94=1) ;;
    esac
    # GFX12 assembly is written in real-true16 syntax (`v1.h`): 16-bit VGPR halves are
    # explicit operands (LLVM 22's default for gfx12 is fake16, which rejects `.h`).
    local feats="" mattr=()
    [ $fam = gfx12 ] && feats=+real-true16
    [ $w64 = 1 ] && feats=${feats:+$feats,}+wavefrontsize64 && mattr=(--defsym W64=1)
    [ -n "$feats" ] && mattr+=(-mattr=$feats)
    local obj
    obj=$(mktemp "${TMPDIR:-/tmp}/corpus-XXXXXX.o")
    $MC -triple=amdgcn-amd-amdhsa -mcpu="$cpu" "${mattr[@]}" "${defs[@]}" -filetype=obj \
      "src/asm/$fam/$stem.s" -o "$obj"
    $LLD -shared "$obj" -o "$out"
    rm -f "$obj"
  fi
}

# Builds every (stem, variant) into directory $1.
build_all() {
  local dest=$1 stem variant why
  local list
  list=$(mktemp "${TMPDIR:-/tmp}/corpus-jobs-XXXXXX")
  for stem in $(stems); do
    for variant in $(variants_for "$stem"); do
      if why=$(exclude "$stem" "$variant"); then
        continue
      fi
      echo "$stem $variant $dest/$variant/$stem.hsaco" >>"$list"
    done
  done
  local n
  n=$(wc -l <"$list")
  echo "building $n code objects into $dest with $($CLANG --version | head -1)"
  # Each line: STEM VARIANT OUT; the script re-enters itself to compile one object.
  xargs -P "$JOBS" -L 1 "$CORPUS/build.sh" --one <"$list"
  rm -f "$list"
}

# validate DIR: every object has AMDGPU metadata and disassembles without unknown words.
validate() {
  local dir=$1 f variant cpu mattr bad=0 count=0
  while IFS= read -r f; do
    count=$((count + 1))
    variant=$(basename "$(dirname "$f")")
    cpu=${variant%%-*}
    mattr=()
    case "$variant" in
      gfx12*-w64) mattr=(--mattr=+real-true16,+wavefrontsize64) ;;
      gfx12*) mattr=(--mattr=+real-true16) ;;
    esac
    if ! $READELF --notes "$f" | grep 'amdhsa.kernels' >/dev/null; then
      echo "validate: $f: no amdhsa.kernels metadata note" >&2
      bad=1
    fi
    local dis
    dis=$($OBJDUMP -d "${mattr[@]}" "$f")
    if printf '%s\n' "$dis" | grep -E '^\s+(\.long|<unknown>)|<unknown>' >/dev/null; then
      echo "validate: $f: undecodable words in disassembly:" >&2
      printf '%s\n' "$dis" | grep -E '\.long|<unknown>' | head -5 >&2
      bad=1
    fi
  done < <(find "$dir" -name '*.hsaco' | sort)
  echo "validated $count code objects in $dir"
  return $bad
}

case "${1:-}" in
  --one)
    compile_one "$2" "$3" "$4"
    ;;
  --validate)
    validate "$CORPUS/build"
    ;;
  --check)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-check-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    build_all "$tmp/build"
    # Objects are compared byte for byte except for .comment, which records the exact
    # Debian clang/lld revision (security updates change it without changing code).
    stale=0
    while IFS= read -r rel; do
      a="$CORPUS/build/$rel"; b="$tmp/build/$rel"
      if [ ! -f "$a" ] || [ ! -f "$b" ]; then
        echo "only in one tree: $rel" >&2; stale=1; continue
      fi
      cmp -s "$a" "$b" && continue
      llvm-objcopy-22 --remove-section=.comment "$a" "$tmp/a.o"
      llvm-objcopy-22 --remove-section=.comment "$b" "$tmp/b.o"
      if ! cmp -s "$tmp/a.o" "$tmp/b.o"; then
        echo "differs from a fresh rebuild: $rel" >&2; stale=1
      fi
    done < <( (cd "$CORPUS/build" && find . -type f; cd "$tmp/build" && find . -type f) | sort -u)
    if [ "$stale" != 0 ]; then
      echo "corpus/build is stale or not reproducible: run corpus/build.sh and commit" >&2
      exit 1
    fi
    echo "corpus/build matches a fresh rebuild (byte for byte outside .comment)"
    validate "$CORPUS/build"
    if python3 -c 'import yaml' 2>/dev/null; then
      python3 "$CORPUS/manifest.py" --check
    else
      echo "manifest check skipped: python3 with PyYAML not found" >&2
    fi
    ;;
  "")
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-build-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    build_all "$tmp/build"
    rm -rf "$CORPUS/build"
    mv "$tmp/build" "$CORPUS/build"
    validate "$CORPUS/build"
    ;;
  *)
    echo "usage: corpus/build.sh [--check | --validate]" >&2
    exit 2
    ;;
esac
