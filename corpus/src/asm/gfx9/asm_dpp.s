// asm_dpp (GFX9: gfx90a, gfx942, gfx950; wave64): the statement of gfx12/asm_dpp.s (DPP8
// and GFX10+ DPP16 lane selects), computed here with ds_bpermute and v_cndmask because GFX9
// has neither DPP8 nor row_xmask/row_share/fi. Workgroups of 64, i = global id, x = in[i]:
// out[6i+0] = in[i ^ 7]; out[6i+1] = in[i ^ 1] + i; out[6i+2] = 0; out[6i+3] =
// in[(i & !7) | 3]; out[6i+4] = in[i ^ 5]; out[6i+5] = in[(i & !15) | 3]; except that
// out[6i+2], out[6i+3], out[6i+5] are 0xdeadbeef when i & 3 == 3.
  .amdhsa_code_object_version 6
  .text
  .globl asm_dpp
  .protected asm_dpp
  .p2align 8
  .type asm_dpp,@function
asm_dpp:
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // in, out
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_u32_e32 v0, s3, v0                  // i
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]          // x = in[i]
  v_mbcnt_lo_u32_b32 v11, -1, 0
  v_mbcnt_hi_u32_b32 v11, -1, v11           // lane
  s_waitcnt vmcnt(0)
  v_xor_b32_e32 v12, 7, v11
  v_lshlrev_b32_e32 v12, 2, v12
  ds_bpermute_b32 v4, v12, v2               // lane ^ 7
  v_xor_b32_e32 v12, 1, v11
  v_lshlrev_b32_e32 v12, 2, v12
  ds_bpermute_b32 v5, v12, v2               // lane ^ 1
  v_and_b32_e32 v12, -8, v11
  v_or_b32_e32 v12, 3, v12
  v_lshlrev_b32_e32 v12, 2, v12
  ds_bpermute_b32 v8, v12, v2               // (lane & !7) | 3
  v_xor_b32_e32 v12, 5, v11
  v_lshlrev_b32_e32 v12, 2, v12
  ds_bpermute_b32 v9, v12, v2               // lane ^ 5
  v_and_b32_e32 v12, -16, v11
  v_or_b32_e32 v12, 3, v12
  v_lshlrev_b32_e32 v12, 2, v12
  ds_bpermute_b32 v10, v12, v2              // (lane & !15) | 3
  s_waitcnt lgkmcnt(0)
  v_add_u32_e32 v5, v5, v0
  v_mov_b32_e32 v6, 0
  v_and_b32_e32 v14, 3, v0
  v_cmp_eq_u32_e32 vcc, 3, v14
  v_mov_b32_e32 v15, 0xdeadbeef
  v_cndmask_b32_e32 v6, v6, v15, vcc
  v_cndmask_b32_e32 v8, v8, v15, vcc
  v_cndmask_b32_e32 v10, v10, v15, vcc
  v_mul_u32_u24_e32 v12, 24, v0             // 6 dwords per work-item
  global_store_dwordx3 v12, v[4:6], s[6:7]
  global_store_dwordx3 v12, v[8:10], s[6:7] offset:12
  s_endpgm
.Lasm_dpp_end:
  .size asm_dpp, .Lasm_dpp_end-asm_dpp
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_dpp
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
  - .name: asm_dpp
    .symbol: asm_dpp.kd
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
