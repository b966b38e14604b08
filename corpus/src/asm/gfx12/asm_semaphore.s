// asm_semaphore (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): the GFX12 spelling of
// gfx9/asm_semaphore.s. Workgroups of 32 work-items (one wave). Workgroup 0 writes
// data[l] = l*l + 1, waits for its stores (s_wait_storecnt 0) and sets flag[0] with a
// device-scope atomic add. Every other workgroup g polls flag[0] with device-scope loads
// (scope:SCOPE_DEV) and s_sleep, at most 65536 times; after it sees the flag it invalidates
// (global_inv scope:SCOPE_DEV), records itself with atomic umax flag[1] = g and atomic add
// flag[2] += 1, and writes out[32g + l] = data[l] + g. On timeout it writes
// out[32g + l] = 0xdead0000 | g instead.
  .amdhsa_code_object_version 6
  .text
  .globl asm_semaphore
  .protected asm_semaphore
  .p2align 8
  .type asm_semaphore,@function
asm_semaphore:
  s_load_b128 s[4:7], s[0:1], 0x0           // data, flag
  s_load_b64 s[8:9], s[0:1], 0x10           // out
  s_mov_b32 s2, ttmp9                       // workgroup id x
  v_and_b32_e32 v0, 0x3ff, v0               // l
  v_lshlrev_b32_e32 v1, 2, v0
  v_mov_b32_e32 v9, 0
  s_wait_kmcnt 0
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 .Lconsumer
  // producer
  v_mul_u32_u24_e32 v2, v0, v0
  v_add_nc_u32_e32 v2, 1, v2
  global_store_b32 v1, v2, s[4:5]
  s_wait_storecnt 0
.ifdef W64
  s_mov_b64 exec, 1
.else
  s_mov_b32 exec_lo, 1
.endif
  v_mov_b32_e32 v3, 1
  global_atomic_add_u32 v9, v3, s[6:7] scope:SCOPE_DEV
  s_endpgm
.Lconsumer:
  s_mov_b32 s10, 0x10000                    // poll budget
.ifdef W64
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 1
.else
  s_mov_b32 s12, exec_lo
  s_mov_b32 exec_lo, 1
.endif
.Lspin:
  global_load_b32 v4, v9, s[6:7] scope:SCOPE_DEV
  s_wait_loadcnt 0
  v_readfirstlane_b32 s11, v4
  s_nop 4
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lacquired
  s_sleep 1
  s_sub_co_u32 s10, s10, 1
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc0 .Lspin
.ifdef W64                                  // timeout
  s_mov_b64 exec, s[12:13]
.else
  s_mov_b32 exec_lo, s12
.endif
  v_mov_b32_e32 v5, 0xdead0000
  v_or_b32_e32 v5, s2, v5
  s_branch .Lwrite
.Lacquired:
  global_inv scope:SCOPE_DEV
  v_mov_b32_e32 v6, s2
  v_mov_b32_e32 v3, 1
  global_atomic_max_u32 v9, v6, s[6:7] offset:4 scope:SCOPE_DEV
  global_atomic_add_u32 v9, v3, s[6:7] offset:8 scope:SCOPE_DEV
.ifdef W64
  s_mov_b64 exec, s[12:13]
.else
  s_mov_b32 exec_lo, s12
.endif
  global_load_b32 v5, v1, s[4:5]
  s_wait_loadcnt 0
  v_add_nc_u32_e32 v5, s2, v5
.Lwrite:
  s_lshl_b32 s3, s2, 7                      // 32 words per workgroup
  v_add_nc_u32_e32 v7, s3, v1
  global_store_b32 v7, v5, s[8:9]
  s_endpgm
.Lasm_semaphore_end:
  .size asm_semaphore, .Lasm_semaphore_end-asm_semaphore
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
  .amdhsa_kernel asm_semaphore
    .amdhsa_kernarg_size 24
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_wavefront_size32 WAVE32
    .amdhsa_next_free_vgpr 10
    .amdhsa_next_free_sgpr 14
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
  - .name: asm_semaphore
    .symbol: asm_semaphore.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: \wave
    .sgpr_count: 16
    .vgpr_count: 10
    .max_flat_workgroup_size: 32
    .uses_dynamic_stack: false
    .args:
      - { .name: data, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: flag, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
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
