// asm_callret (GFX9: gfx90a, gfx942, gfx950): a subroutine call through s_getpc_b64 +
// s_swappc_b64 (return with s_setpc_b64), then a computed jump through s_setpc_b64 chosen by
// the parity of the workgroup id. Workgroups of exactly 64 work-items (1D).
// out[i] = t + 100 for even workgroups, t ^ 0xff for odd ones, where t = in[i] * 3 + 1.
  .amdhsa_code_object_version 6
  .text
  .globl asm_callret
  .protected asm_callret
  .p2align 8
  .type asm_callret,@function
asm_callret:
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // in, out
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6                      // group * 64
  v_add_u32_e32 v0, s3, v0                  // i
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  s_getpc_b64 s[8:9]                        // address of the next instruction
.Lpc_call:
  s_add_u32 s8, s8, triple_plus_one-.Lpc_call
  s_addc_u32 s9, s9, 0
  s_swappc_b64 s[30:31], s[8:9]             // v2 = v2 * 3 + 1
  s_getpc_b64 s[8:9]
.Lpc_jump:
  s_mov_b32 s10, .Leven-.Lpc_jump
  s_mov_b32 s11, .Lodd-.Lpc_jump
  s_bitcmp1_b32 s2, 0                       // SCC = workgroup id is odd
  s_cselect_b32 s10, s11, s10
  s_add_u32 s8, s8, s10
  s_addc_u32 s9, s9, 0
  s_setpc_b64 s[8:9]
.Leven:
  v_add_u32_e32 v2, 100, v2
  s_branch .Lstore
.Lodd:
  v_xor_b32_e32 v2, 0xff, v2
.Lstore:
  global_store_dword v1, v2, s[6:7]
  s_endpgm
// Subroutine: v2 = v2 * 3 + 1; return address in s[30:31].
triple_plus_one:
  v_mul_lo_u32 v2, v2, 3
  v_add_u32_e32 v2, 1, v2
  s_setpc_b64 s[30:31]
.Lasm_callret_end:
  .size asm_callret, .Lasm_callret_end-asm_callret
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_callret
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 3
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 4
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
  - .name: asm_callret
    .symbol: asm_callret.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 38
    .vgpr_count: 3
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
