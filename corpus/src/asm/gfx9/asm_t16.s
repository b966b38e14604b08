// asm_t16 (GFX9: gfx90a, gfx942, gfx950; wave64): the statement of gfx12/asm_t16.s (16-bit
// operations on VGPR halves), computed here with SDWA selects and a DPP quad_perm. Workgroups
// of 64, i = global id, x = dword i of `in` (f16 pair: low a, high b; bits A, B),
// y = dword i ^ 1 (low c, high d; bits C, D):
// out[8i+0] = A | f16(b + c) << 16; out[8i+1] = f16(a * d) | D << 16; out[8i+2] = f32(b);
// out[8i+3] = 0x5678 | f16(f32(b)) << 16; out[8i+4] = (b < d); out[8i+5] = f16(max(a, b)) |
// D << 16; out[8i+6] = f16(c + d) << 16 (src0 from lane i ^ 1); out[8i+7] = f16(a * 2^(i & 3)).
  .amdhsa_code_object_version 6
  .text
  .globl asm_t16
  .protected asm_t16
  .p2align 8
  .type asm_t16,@function
asm_t16:
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // in, out
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_u32_e32 v0, s3, v0                  // i
  v_lshlrev_b32_e32 v1, 2, v0
  v_xor_b32_e32 v2, 1, v0
  v_lshlrev_b32_e32 v2, 2, v2
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v1, s[4:5]          // x
  global_load_dword v2, v2, s[4:5]          // y
  v_and_b32_e32 v12, 3, v0                  // ldexp exponent
  v_mov_b32_e32 v7, 0x12345678
  v_mov_b32_e32 v11, 0
  s_waitcnt vmcnt(0)
  v_mov_b32_e32 v4, v1
  v_add_f16_sdwa v4, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
  v_mov_b32_e32 v5, v2
  v_mul_f16_sdwa v5, v1, v2 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_1
  v_cvt_f32_f16_sdwa v6, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_cvt_f16_f32_sdwa v7, v6 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD
  v_cmp_lt_f16_sdwa vcc, v1, v2 src0_sel:WORD_1 src1_sel:WORD_1
  v_cndmask_b32_e64 v8, 0, 1, vcc
  v_mov_b32_e32 v9, v2
  v_max_f16_sdwa v9, v1, v1 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
  v_mov_b32_dpp v13, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  s_nop 1
  v_add_f16_sdwa v10, v13, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_0
  v_ldexp_f16_e32 v11, v1, v12
  v_lshlrev_b32_e32 v14, 5, v0              // 8 dwords per work-item
  global_store_dwordx4 v14, v[4:7], s[6:7]
  global_store_dwordx4 v14, v[8:11], s[6:7] offset:16
  s_endpgm
.Lasm_t16_end:
  .size asm_t16, .Lasm_t16_end-asm_t16
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_t16
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 16
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
  - .name: asm_t16
    .symbol: asm_t16.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 14
    .vgpr_count: 16
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
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
