#!/bin/sh
# Builds the clocked-mode microbenchmarks (ubench.cl, mfma.cl) with LLVM 22 for gfx942
# and gfx90a (hazard.cl, wmma.cl, drain.cl and the RDNA4/CDNA4 objects below) into this
# directory, with the corpus prelude (work-item ids, barrier) and the corpus's flags. Run
# from anywhere; the objects are committed.
set -eu
cd "$(dirname "$0")"
for cpu in gfx942 gfx90a; do
    for k in ubench mfma; do
        clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$cpu \
            -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
            $k.cl -o ${k}_$cpu.hsaco 2>&1 | grep -v "local memory global used by non-kernel" || true
    done
done
# Dependency stalls: s_nop on gfx942, s_delay_alu on gfx1201 (hazard.cl).
for cpu in gfx942 gfx1201; do
    clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$cpu \
        -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
        hazard.cl -o hazard_$cpu.hsaco
done
# Wave64 on RDNA4 (two issue passes on a SIMD32): hazard.cl again, built for wave64
# (tests/clocked_rdna.rs).
clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1201 -mwavefrontsize64 \
    -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
    hazard.cl -o hazard_gfx1201_w64.hsaco
# LDS banks of CDNA4 and RDNA4 (ubench.cl's lds_stride; tests/clocked_rdna.rs).
for cpu in gfx950 gfx1201; do
    clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$cpu \
        -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
        ubench.cl -o ubench_$cpu.hsaco 2>&1 | grep -v "local memory global used by non-kernel" || true
done
# WMMA throughput on RDNA4 (wmma.cl).
clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1201 \
    -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
    wmma.cl -o wmma_gfx1201.hsaco
# The memory drain at the end of a dispatch (drain.cl).
for cpu in gfx942; do
    clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$cpu \
        -mcode-object-version=5 -nogpulib -O2 -I../../../corpus/include \
        drain.cl -o drain_$cpu.hsaco
done
