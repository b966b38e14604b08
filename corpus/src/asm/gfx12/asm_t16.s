// asm_t16 (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): true16 operands of
// VOP1/VOP2/VOPC and DPP8 (VGPR halves `.l`/`.h`, bit 7 of the register field; assembled
// with -mattr=+real-true16, see build.sh). A 16-bit result preserves the other half of its
// register (GFX10+). Workgroups of 64, i = global id, x = dword i of `in` (f16 pair: low a,
// high b; bits A, B), y = dword i ^ 1 (low c, high d; bits C, D):
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
  s_load_b128 s[4:7], s[0:1], 0x0           // in, out
  s_mov_b32 s2, ttmp9                       // workgroup id x
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_nc_u32_e32 v0, s3, v0               // i
  v_lshlrev_b32_e32 v1, 2, v0
  v_xor_b32_e32 v2, 1, v0
  v_lshlrev_b32_e32 v2, 2, v2
  s_wait_kmcnt 0
  global_load_b32 v1, v1, s[4:5]            // x
  global_load_b32 v2, v2, s[4:5]            // y
  v_and_b32_e32 v12, 3, v0
  v_lshlrev_b32_e32 v12, 16, v12            // ldexp exponent in the high half
  v_mov_b32_e32 v7, 0x12345678
  v_mov_b32_e32 v10, 0
  v_mov_b32_e32 v11, 0
  s_wait_loadcnt 0
  v_mov_b32_e32 v4, v1
  v_add_f16_e32 v4.h, v1.h, v2.l
  v_mov_b32_e32 v5, v2
  v_mul_f16_e32 v5.l, v1.l, v2.h
  v_cvt_f32_f16_e32 v6, v1.h
  v_cvt_f16_f32_e32 v7.h, v6
.ifdef W64
  v_cmp_lt_f16_e32 vcc, v1.h, v2.h
  v_cndmask_b32_e64 v8, 0, 1, vcc
.else
  v_cmp_lt_f16_e32 vcc_lo, v1.h, v2.h
  v_cndmask_b32_e64 v8, 0, 1, vcc_lo
.endif
  v_mov_b32_e32 v9, v2
  v_max_num_f16_e32 v9.l, v1.h, v1.l
  v_add_f16_dpp v10.h, v1.h, v2.l dpp8:[1,0,3,2,5,4,7,6]
  v_ldexp_f16_e32 v11.l, v1.l, v12.h
  v_lshlrev_b32_e32 v14, 5, v0              // 8 dwords per work-item
  global_store_b128 v14, v[4:7], s[6:7]
  global_store_b128 v14, v[8:11], s[6:7] offset:16
  s_endpgm
.Lasm_t16_end:
  .size asm_t16, .Lasm_t16_end-asm_t16
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
  .amdhsa_kernel asm_t16
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_wavefront_size32 WAVE32
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 12
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
  - .name: asm_t16
    .symbol: asm_t16.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: \wave
    .sgpr_count: 14
    .vgpr_count: 16
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
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
