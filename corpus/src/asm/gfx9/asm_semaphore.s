// asm_semaphore (GFX9: gfx90a, gfx942, gfx950): cross-workgroup producer/consumer through a
// flag in global memory. Workgroups of 32 work-items (one wave). Workgroup 0 writes
// data[l] = l*l + 1, makes it visible (s_waitcnt vmcnt(0); buffer_wbl2 sc1 on gfx94x) and
// sets flag[0] with a global atomic add. Every other workgroup g polls flag[0] with coherent
// loads (glc on gfx90a, sc1 on gfx94x) and s_sleep, at most 65536 times; after it sees the
// flag it invalidates (buffer_wbinvl1_vol / buffer_inv sc1), records itself with
// atomic umax flag[1] = g and atomic add flag[2] += 1, and writes out[32g + l] = data[l] + g.
// On timeout it writes out[32g + l] = 0xdead0000 | g instead.
  .amdhsa_code_object_version 6
  .text
  .globl asm_semaphore
  .protected asm_semaphore
  .p2align 8
  .type asm_semaphore,@function
asm_semaphore:
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // data, flag
  s_load_dwordx2 s[8:9], s[0:1], 0x10       // out
  v_and_b32_e32 v0, 0x3ff, v0               // l
  v_lshlrev_b32_e32 v1, 2, v0
  v_mov_b32_e32 v9, 0
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 .Lconsumer
  // producer
  v_mul_u32_u24_e32 v2, v0, v0
  v_add_u32_e32 v2, 1, v2
  global_store_dword v1, v2, s[4:5]
.ifdef GFX94
  buffer_wbl2 sc1
.endif
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, 1
  v_mov_b32_e32 v3, 1
  global_atomic_add v9, v3, s[6:7]
  s_endpgm
.Lconsumer:
  s_mov_b32 s10, 0x10000                    // poll budget
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 1
.Lspin:
.ifdef GFX94
  global_load_dword v4, v9, s[6:7] sc1
.else
  global_load_dword v4, v9, s[6:7] glc
.endif
  s_waitcnt vmcnt(0)
  v_readfirstlane_b32 s11, v4
  s_nop 4
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lacquired
  s_sleep 1
  s_sub_u32 s10, s10, 1
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc0 .Lspin
  s_mov_b64 exec, s[12:13]                  // timeout
  v_mov_b32_e32 v5, 0xdead0000
  v_or_b32_e32 v5, s2, v5
  s_branch .Lwrite
.Lacquired:
.ifdef GFX94
  buffer_inv sc1
.else
  buffer_wbinvl1_vol
.endif
  v_mov_b32_e32 v6, s2
  v_mov_b32_e32 v3, 1
  global_atomic_umax v9, v6, s[6:7] offset:4
  global_atomic_add v9, v3, s[6:7] offset:8
  s_mov_b64 exec, s[12:13]
  global_load_dword v5, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v5, s2, v5
.Lwrite:
  s_lshl_b32 s3, s2, 7                      // 32 words per workgroup
  v_add_u32_e32 v7, s3, v1
  global_store_dword v7, v5, s[8:9]
  s_endpgm
.Lasm_semaphore_end:
  .size asm_semaphore, .Lasm_semaphore_end-asm_semaphore
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_semaphore
    .amdhsa_kernarg_size 24
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 10
    .amdhsa_next_free_sgpr 14
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
  - .name: asm_semaphore
    .symbol: asm_semaphore.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 20
    .vgpr_count: 10
    .agpr_count: 0
    .max_flat_workgroup_size: 32
    .uses_dynamic_stack: false
    .args:
      - { .name: data, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: flag, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
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
