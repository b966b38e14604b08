// asm_lanes (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): cross-lane operations,
// the GFX12 spelling of gfx9/asm_lanes.s. Workgroups of exactly 64 work-items (1D, two
// waves in wave32); with i the global id, v = 7*i, lane = v_mbcnt (lane in its wave),
// out[4i+0] = lane, out[4i+1] = ds_bpermute value of lane^1, out[4i+2] = v_readlane(v, 5)
// except lane 7 which gets v_writelane(v_readfirstlane(v)), out[4i+3] = ds_swizzle
// QUAD_PERM(3,2,1,0) of v (lanes reversed within each quad).
  .amdhsa_code_object_version 6
  .text
  .globl asm_lanes
  .protected asm_lanes
  .p2align 8
  .type asm_lanes,@function
asm_lanes:
  s_load_b64 s[4:5], s[0:1], 0x0            // out
  s_mov_b32 s2, ttmp9                       // workgroup id x
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_nc_u32_e32 v0, s3, v0               // i
  v_mul_u32_u24_e32 v1, 7, v0               // v = 7 * i
  v_mbcnt_lo_u32_b32 v2, -1, 0
.ifdef W64
  v_mbcnt_hi_u32_b32 v2, -1, v2             // lane
.endif
  v_xor_b32_e32 v7, 1, v2
  v_lshlrev_b32_e32 v7, 2, v7               // byte address of lane ^ 1
  ds_bpermute_b32 v3, v7, v1
  v_readlane_b32 s6, v1, 5
  v_readfirstlane_b32 s7, v1
  s_nop 4                                   // VALU SGPR write -> VALU read
  v_mov_b32_e32 v4, s6
  v_writelane_b32 v4, s7, 7
  ds_swizzle_b32 v5, v1 offset:swizzle(QUAD_PERM,3,2,1,0)
  v_lshlrev_b32_e32 v6, 4, v0               // 16 bytes per work-item
  s_wait_kmcnt 0
  s_wait_dscnt 0
  global_store_b128 v6, v[2:5], s[4:5]
  s_endpgm
.Lasm_lanes_end:
  .size asm_lanes, .Lasm_lanes_end-asm_lanes
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
  .amdhsa_kernel asm_lanes
    .amdhsa_kernarg_size 8
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_wavefront_size32 WAVE32
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
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
  - .name: asm_lanes
    .symbol: asm_lanes.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: \wave
    .sgpr_count: 10
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
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
