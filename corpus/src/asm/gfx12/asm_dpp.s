// asm_dpp (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): DPP8 and GFX10+ DPP16
// lane selects. Workgroups of 64, i = global id, x = in[i] (x's lane groups of 8 and rows
// of 16 line up with i because waves start at multiples of 32):
//   out[6i+0] = v_mov_b32 dpp8:[7,6,5,4,3,2,1,0]       = in[i ^ 7]
//   out[6i+1] = v_add_nc_u32 dpp8:[1,0,3,2,5,4,7,6] + i = in[i ^ 1] + i
//   out[6i+4] = v_mov_b32 row_xmask:5                   = in[i ^ 5]
// then with EXEC off for lanes i & 3 == 3 (their outputs keep 0xdeadbeef):
//   out[6i+2] = v_mov_b32 dpp8:[3,3,3,3,3,3,3,3]        = 0 (source lane inactive, fi:0)
//   out[6i+3] = the same with fi:1                       = in[(i & !7) | 3]
//   out[6i+5] = v_mov_b32 row_share:3 fi:1              = in[(i & !15) | 3]
  .amdhsa_code_object_version 6
  .text
  .globl asm_dpp
  .protected asm_dpp
  .p2align 8
  .type asm_dpp,@function
asm_dpp:
  s_load_b128 s[4:7], s[0:1], 0x0           // in, out
  s_mov_b32 s2, ttmp9                       // workgroup id x
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_nc_u32_e32 v0, s3, v0               // i
  v_lshlrev_b32_e32 v1, 2, v0
  s_wait_kmcnt 0
  global_load_b32 v2, v1, s[4:5]            // x = in[i]
  v_mov_b32_e32 v6, 0xdeadbeef
  v_mov_b32_e32 v8, 0xdeadbeef
  v_mov_b32_e32 v10, 0xdeadbeef
  v_and_b32_e32 v14, 3, v0
  s_wait_loadcnt 0
  v_mov_b32_dpp v4, v2 dpp8:[7,6,5,4,3,2,1,0]
  v_add_nc_u32_dpp v5, v2, v0 dpp8:[1,0,3,2,5,4,7,6]
  v_mov_b32_dpp v9, v2 row_xmask:5 row_mask:0xf bank_mask:0xf
.ifdef W64
  v_cmp_ne_u32_e32 vcc, 3, v14
  s_and_saveexec_b64 s[10:11], vcc
.else
  v_cmp_ne_u32_e32 vcc_lo, 3, v14
  s_and_saveexec_b32 s10, vcc_lo
.endif
  s_nop 4                                   // EXEC write -> DPP
  v_mov_b32_dpp v6, v2 dpp8:[3,3,3,3,3,3,3,3]
  v_mov_b32_dpp v8, v2 dpp8:[3,3,3,3,3,3,3,3] fi:1
  v_mov_b32_dpp v10, v2 row_share:3 row_mask:0xf bank_mask:0xf fi:1
.ifdef W64
  s_mov_b64 exec, s[10:11]
.else
  s_mov_b32 exec_lo, s10
.endif
  v_mul_u32_u24_e32 v12, 24, v0             // 6 dwords per work-item
  global_store_b96 v12, v[4:6], s[6:7]
  global_store_b96 v12, v[8:10], s[6:7] offset:12
  s_endpgm
.Lasm_dpp_end:
  .size asm_dpp, .Lasm_dpp_end-asm_dpp
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
  .amdhsa_kernel asm_dpp
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
  - .name: asm_dpp
    .symbol: asm_dpp.kd
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
