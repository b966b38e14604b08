// asm_salu (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): scalar ALU, scalar
// compare/branch loop and scalar loads, the GFX12 spelling of gfx9/asm_salu.s (s_add_co_u32,
// s_ctz_i32_b32, s_clz_i32_u32, s_wait_kmcnt, workgroup id from TTMP9). Same results.
// Built by corpus/build.sh with --defsym GFX1200/GFX1201 (and W64 for the wave64 build).
  .amdhsa_code_object_version 6
  .text
  .globl asm_salu
  .protected asm_salu
  .p2align 8
  .type asm_salu,@function
asm_salu:
  s_load_b64 s[4:5], s[0:1], 0x0            // out
  s_load_b32 s6, s[0:1], 0x8                // x
  s_mov_b32 s2, ttmp9                       // workgroup id x
  s_wait_kmcnt 0
  s_add_co_u32 s6, s6, s2                   // x_g = x + workgroup id x
  // r0 = sum of k*k for k = 0 ..= (x_g & 15)
  s_and_b32 s7, s6, 15
  s_mov_b32 s8, 0
  s_mov_b32 s10, 0
.Lsalu_loop:
  s_mul_i32 s9, s8, s8
  s_add_co_u32 s10, s10, s9
  s_add_co_u32 s8, s8, 1
  s_cmp_le_u32 s8, s7
  s_cbranch_scc1 .Lsalu_loop
  s_bfe_u32 s11, s6, 0x80004                // r1 = (x_g >> 4) & 0xff
  s_lshl_b32 s12, s6, 3                     // r2 = (x_g << 3) ^ (x_g >> 5)
  s_lshr_b32 s13, s6, 5
  s_xor_b32 s12, s12, s13
  s_mul_hi_u32 s13, s6, 0x9e3779b9          // r3 = high half of x_g * 0x9e3779b9
  s_cmp_gt_u32 s6, 1000                     // r4 = max(x_g, 1000) through SCC
  s_movk_i32 s14, 1000
  s_cselect_b32 s14, s6, s14
  s_brev_b32 s15, s6                        // r5 = bit reverse
  s_ctz_i32_b32 s16, s6                     // r6 = trailing zeros (-1 for 0)
  s_bcnt1_i32_b32 s17, s6                   // r7 = popcount + (leading zeros << 8)
  s_clz_i32_u32 s18, s6
  s_lshl_b32 s18, s18, 8
  s_add_co_u32 s17, s17, s18
.ifdef W64
  s_mov_b64 exec, 1                         // lane 0 stores
.else
  s_mov_b32 exec_lo, 1
.endif
  s_lshl_b32 s3, s2, 5                      // 32 bytes per workgroup
  v_mov_b32_e32 v0, s3
  v_mov_b32_e32 v1, s10
  v_mov_b32_e32 v2, s11
  v_mov_b32_e32 v3, s12
  v_mov_b32_e32 v4, s13
  v_mov_b32_e32 v5, s14
  v_mov_b32_e32 v6, s15
  v_mov_b32_e32 v7, s16
  v_mov_b32_e32 v8, s17
  global_store_b128 v0, v[1:4], s[4:5]
  global_store_b128 v0, v[5:8], s[4:5] offset:16
  s_endpgm
.Lasm_salu_end:
  .size asm_salu, .Lasm_salu_end-asm_salu
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 7, 0xbf9f0000          // s_code_end
  .fill 96, 4, 0xbf9f0000

.ifdef W64
  .set WAVE32, 0
.else
  .set WAVE32, 1
.endif
  .rodata
  .p2align 6
  .amdhsa_kernel asm_salu
    .amdhsa_kernarg_size 12
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_wavefront_size32 WAVE32
    .amdhsa_next_free_vgpr 9
    .amdhsa_next_free_sgpr 19
    .amdhsa_group_segment_fixed_size 0
    .amdhsa_private_segment_fixed_size 0
    .amdhsa_user_sgpr_dispatch_ptr 0
    .amdhsa_user_sgpr_queue_ptr 0
    .amdhsa_user_sgpr_dispatch_id 0
    .amdhsa_user_sgpr_private_segment_size 0
    .amdhsa_uses_dynamic_stack 0
    .amdhsa_enable_private_segment 0
    .amdhsa_system_sgpr_workgroup_id_y 0
    .amdhsa_system_sgpr_workgroup_id_z 0
    .amdhsa_system_sgpr_workgroup_info 0
    .amdhsa_reserve_vcc 1
    .amdhsa_float_round_mode_32 0
    .amdhsa_float_round_mode_16_64 0
    .amdhsa_float_denorm_mode_32 3
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_fp16_overflow 0
    .amdhsa_workgroup_processor_mode 1
    .amdhsa_memory_ordered 1
    .amdhsa_forward_progress 1
  .end_amdhsa_kernel

.macro KMETA target, wave
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: \target
amdhsa.kernels:
  - .name: asm_salu
    .symbol: asm_salu.kd
    .kernarg_segment_size: 12
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: \wave
    .sgpr_count: 21
    .vgpr_count: 9
    .max_flat_workgroup_size: 32
    .uses_dynamic_stack: false
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: x, .offset: 8, .size: 4, .value_kind: by_value }
...
.end_amdgpu_metadata
.endm
.macro KMETA_TARGET wave
.ifdef GFX1200
KMETA amdgcn-amd-amdhsa--gfx1200, \wave
.endif
.ifdef GFX1201
KMETA amdgcn-amd-amdhsa--gfx1201, \wave
.endif
.endm
.ifdef W64
KMETA_TARGET 64
.else
KMETA_TARGET 32
.endif
