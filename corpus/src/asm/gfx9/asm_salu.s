// asm_salu (GFX9: gfx90a, gfx942, gfx950): scalar ALU, scalar compare/branch loop and
// scalar loads. Per workgroup g (one wave, 32 work-items), with x_g = x + g, lane 0 writes
// 8 words to out[8g .. 8g+8]; see manifest.ron for the exact formulas.
// Built by corpus/build.sh with --defsym GFX90A/GFX942/GFX950 (and GFX94 for gfx942/950).
  .amdhsa_code_object_version 6
  .text
  .globl asm_salu
  .protected asm_salu
  .p2align 8
  .type asm_salu,@function
asm_salu:
  s_load_dwordx2 s[4:5], s[0:1], 0x0        // out
  s_load_dword s6, s[0:1], 0x8              // x
  s_waitcnt lgkmcnt(0)
  s_add_u32 s6, s6, s2                      // x_g = x + workgroup id x
  // r0 = sum of k*k for k = 0 ..= (x_g & 15)
  s_and_b32 s7, s6, 15
  s_mov_b32 s8, 0
  s_mov_b32 s10, 0
.Lsalu_loop:
  s_mul_i32 s9, s8, s8
  s_add_u32 s10, s10, s9
  s_add_u32 s8, s8, 1
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
  s_ff1_i32_b32 s16, s6                     // r6 = trailing zeros (-1 for 0)
  s_bcnt1_i32_b32 s17, s6                   // r7 = popcount + (leading zeros << 8)
  s_flbit_i32_b32 s18, s6
  s_lshl_b32 s18, s18, 8
  s_add_u32 s17, s17, s18
  s_mov_b64 exec, 1                         // lane 0 stores
  s_lshl_b32 s3, s2, 5                      // 32 bytes per workgroup
  v_mov_b32_e32 v0, s3
  v_mov_b32_e32 v2, s10                     // gfx90a wants even-aligned VGPR tuples
  v_mov_b32_e32 v3, s11
  v_mov_b32_e32 v4, s12
  v_mov_b32_e32 v5, s13
  v_mov_b32_e32 v6, s14
  v_mov_b32_e32 v7, s15
  v_mov_b32_e32 v8, s16
  v_mov_b32_e32 v9, s17
  global_store_dwordx4 v0, v[2:5], s[4:5]
  global_store_dwordx4 v0, v[6:9], s[4:5] offset:16
  s_endpgm
.Lasm_salu_end:
  .size asm_salu, .Lasm_salu_end-asm_salu
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_salu
    .amdhsa_kernarg_size 12
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 10
    .amdhsa_next_free_sgpr 19
    .amdhsa_accum_offset 12
    .amdhsa_group_segment_fixed_size 0
    .amdhsa_private_segment_fixed_size 0
    .amdhsa_user_sgpr_dispatch_ptr 0
    .amdhsa_user_sgpr_queue_ptr 0
    .amdhsa_user_sgpr_dispatch_id 0
    .amdhsa_user_sgpr_private_segment_size 0
    .amdhsa_uses_dynamic_stack 0
    .amdhsa_system_sgpr_workgroup_id_y 0
    .amdhsa_system_sgpr_workgroup_id_z 0
    .amdhsa_system_sgpr_workgroup_info 0
    .amdhsa_reserve_vcc 1
    .amdhsa_float_round_mode_32 0
    .amdhsa_float_round_mode_16_64 0
    .amdhsa_float_denorm_mode_32 3
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_dx10_clamp 1
    .amdhsa_ieee_mode 1
    .amdhsa_fp16_overflow 0
    .amdhsa_tg_split 0
  .end_amdhsa_kernel

.macro KMETA target
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
    .wavefront_size: 64
    .sgpr_count: 25
    .vgpr_count: 10
    .agpr_count: 0
    .max_flat_workgroup_size: 32
    .uses_dynamic_stack: false
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: x, .offset: 8, .size: 4, .value_kind: by_value }
...
.end_amdgpu_metadata
.endm
.ifdef GFX950
KMETA amdgcn-amd-amdhsa--gfx950
.endif
.ifdef GFX942
KMETA amdgcn-amd-amdhsa--gfx942
.endif
.ifdef GFX90A
KMETA amdgcn-amd-amdhsa--gfx90a
.endif
