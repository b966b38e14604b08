#include "prelude.h"

// Dependency stalls of the clocked mode (issue 16): the loop bodies are inline assembly so
// that the instruction stream is exactly what the test counts (8 ALU instructions per
// iteration), whatever the compiler's scheduler would do.

#define REP8(s) s s s s s s s s

// The loop alone (the tests subtract its cost).
__kernel void empty(__global uint *out, uint iters) {
    for (uint i = 0; i < iters; i++)
        __asm__ volatile("");
    out[get_global_id(0)] = iters;
}

#if defined(__gfx942__) || defined(__gfx90a__)
// `s_nop 15` (16 wait states) and `s_nop 0` (1), 8 per iteration.
__kernel void nop15(__global uint *out, uint iters) {
    for (uint i = 0; i < iters; i++)
        __asm__ volatile(REP8("s_nop 15\n"));
    out[get_global_id(0)] = iters;
}

__kernel void nop0(__global uint *out, uint iters) {
    for (uint i = 0; i < iters; i++)
        __asm__ volatile(REP8("s_nop 0\n"));
    out[get_global_id(0)] = iters;
}
#else
// GFX12. Eight independent FMA chains, no s_delay_alu: the wave issues back to back.
__kernel void valu_indep(__global float *out, uint iters) {
    float x = (float)get_global_id(0);
    float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6,
          a7 = x + 7, k = 0.999f;
    for (uint i = 0; i < iters; i++)
        __asm__ volatile("v_fmac_f32 %0, %8, %8\n v_fmac_f32 %1, %8, %8\n"
                         "v_fmac_f32 %2, %8, %8\n v_fmac_f32 %3, %8, %8\n"
                         "v_fmac_f32 %4, %8, %8\n v_fmac_f32 %5, %8, %8\n"
                         "v_fmac_f32 %6, %8, %8\n v_fmac_f32 %7, %8, %8\n"
                         : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                           "+v"(a6), "+v"(a7)
                         : "v"(k));
    out[get_global_id(0)] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// The same independent chains, each FMA told to wait for the VALU result one back: the
// delay is what s_delay_alu says, not what the registers need.
#define D1 "s_delay_alu instid0(VALU_DEP_1)\n"
__kernel void valu_indep_delayed(__global float *out, uint iters) {
    float x = (float)get_global_id(0);
    float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6,
          a7 = x + 7, k = 0.999f;
    for (uint i = 0; i < iters; i++)
        __asm__ volatile(D1 "v_fmac_f32 %0, %8, %8\n" D1 "v_fmac_f32 %1, %8, %8\n"
                         D1 "v_fmac_f32 %2, %8, %8\n" D1 "v_fmac_f32 %3, %8, %8\n"
                         D1 "v_fmac_f32 %4, %8, %8\n" D1 "v_fmac_f32 %5, %8, %8\n"
                         D1 "v_fmac_f32 %6, %8, %8\n" D1 "v_fmac_f32 %7, %8, %8\n"
                         : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                           "+v"(a6), "+v"(a7)
                         : "v"(k));
    out[get_global_id(0)] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// Two chains interleaved: each FMA depends on the VALU result two back (VALU_DEP_2).
#define D2 "s_delay_alu instid0(VALU_DEP_2)\n"
__kernel void valu_dep2(__global float *out, uint iters) {
    float a0 = (float)get_global_id(0), a1 = a0 + 1, k = 0.999f;
    for (uint i = 0; i < iters; i++)
        __asm__ volatile(D2 "v_fmac_f32 %0, %2, %2\n" D2 "v_fmac_f32 %1, %2, %2\n"
                         D2 "v_fmac_f32 %0, %2, %2\n" D2 "v_fmac_f32 %1, %2, %2\n"
                         D2 "v_fmac_f32 %0, %2, %2\n" D2 "v_fmac_f32 %1, %2, %2\n"
                         D2 "v_fmac_f32 %0, %2, %2\n" D2 "v_fmac_f32 %1, %2, %2\n"
                         : "+v"(a0), "+v"(a1)
                         : "v"(k));
    out[get_global_id(0)] = a0 + a1;
}

// A dependent chain of transcendentals (TRANS32_DEP_1).
#define T1 "s_delay_alu instid0(TRANS32_DEP_1)\n"
__kernel void trans_chain(__global float *out, uint iters) {
    float a = (float)get_global_id(0) * 0x1p-20f;
    for (uint i = 0; i < iters; i++)
        __asm__ volatile(REP8(T1 "v_exp_f32 %0, %0\n") : "+v"(a));
    out[get_global_id(0)] = a;
}
#endif
