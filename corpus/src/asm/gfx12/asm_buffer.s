// asm_buffer (GFX12: gfx1200, gfx1201; wave32, or wave64 with W64): the VBUFFER spelling of
// gfx9/asm_buffer.s (same statement). Buffer resource descriptors in the GFX12 layout
// (swizzle_enable dword1[31:30] = 0, dword3: format [17:12] = BUF_FMT_32_UINT (0x14),
// oob_select [29:28]): A, A', C, D raw with oob_select 3 (offset + payload > num_records
// is out of range), B structured (stride 8) with oob_select 1 (index >= num_records).
  .amdhsa_code_object_version 6
  .text
  .globl asm_buffer
  .protected asm_buffer
  .p2align 8
  .type asm_buffer,@function
asm_buffer:
  s_load_b128 s[4:7], s[0:1], 0x0           // src, out
  s_load_b64 s[12:13], s[0:1], 0x10         // ctr
  s_mov_b32 s2, ttmp9                       // workgroup id x
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_nc_u32_e32 v0, s3, v0               // i
  v_lshlrev_b32_e32 v1, 2, v0               // 4i
  s_mov_b32 s14, 8
  s_mov_b32 s15, 4
  s_wait_kmcnt 0
  // A: src raw, 1024 bytes
  s_mov_b32 s16, s4
  s_and_b32 s17, s5, 0xffff
  s_movk_i32 s18, 0x400
  s_mov_b32 s19, 0x30014000
  // A': src raw, 400 bytes
  s_mov_b32 s20, s4
  s_and_b32 s21, s5, 0xffff
  s_movk_i32 s22, 400
  s_mov_b32 s23, 0x30014000
  // B: src, stride 8, 100 records, index-only range check
  s_mov_b32 s24, s4
  s_and_b32 s25, s5, 0xffff
  s_or_b32 s25, s25, 0x80000                // stride 8 << 16
  s_movk_i32 s26, 100
  s_mov_b32 s27, 0x10014000
  // C: out raw, 64 * 120 bytes
  s_mov_b32 s28, s6
  s_and_b32 s29, s7, 0xffff
  s_movk_i32 s30, 0x1e00
  s_mov_b32 s31, 0x30014000
  // D: ctr raw, 1540 bytes
  s_mov_b32 s32, s12
  s_and_b32 s33, s13, 0xffff
  s_movk_i32 s34, 1540
  s_mov_b32 s35, 0x30014000
  buffer_load_b32 v2, v1, s[20:23], null offen offset:4
  buffer_load_b32 v3, v1, s[16:19], s14 offen offset:4
  v_and_b32_e32 v6, 3, v0
  v_add_nc_u32_e32 v5, v1, v6               // 4i + (i & 3)
  buffer_load_u8 v4, v5, s[16:19], null offen
  buffer_load_i8 v6, v5, s[16:19], null offen
  buffer_load_u16 v7, v1, s[16:19], null offen offset:2
  buffer_load_i16 v8, v1, s[16:19], null offen offset:2
  v_xor_b32_e32 v9, 5, v0
  buffer_load_b64 v[10:11], v9, s[24:27], s14 idxen
  v_lshrrev_b32_e32 v12, 1, v0              // index i >> 1
  v_and_b32_e32 v13, 1, v0
  v_lshlrev_b32_e32 v13, 2, v13             // offset 4 * (i & 1)
  buffer_load_b32 v14, v[12:13], s[24:27], null idxen offen offset:4
  v_mov_b32_e32 v20, 0x1234
  buffer_load_d16_hi_b16 v20, v1, s[16:19], null offen
  v_lshlrev_b32_e32 v15, 6, v0              // 64i
  s_wait_loadcnt 0
  buffer_store_b32 v2, v15, s[28:31], null offen
  buffer_store_b32 v3, v15, s[28:31], s15 offen
  buffer_store_b64 v[10:11], v15, s[28:31], null offen offset:8
  buffer_store_b32 v14, v15, s[28:31], null offen offset:16
  buffer_store_b8 v4, v15, s[28:31], null offen offset:20
  buffer_store_b8 v6, v15, s[28:31], null offen offset:21
  buffer_store_b16 v7, v15, s[28:31], null offen offset:22
  buffer_store_b32 v8, v15, s[28:31], null offen offset:24
  buffer_store_b32 v20, v15, s[28:31], null offen offset:28
  // Atomics on ctr.
  v_mov_b32_e32 v16, v1
  v_add_nc_u32_e32 v17, 1, v0
  buffer_load_b32 v19, v16, s[32:35], null offen offset:512
  v_and_b32_e32 v21, 1, v0
  v_mov_b32_e32 v18, v3
  v_mov_b32_e32 v22, 1
  s_wait_loadcnt 0
  v_xor_b32_e32 v19, v19, v21
  buffer_atomic_add_u32 v17, v16, s[32:35], null offen th:TH_ATOMIC_RETURN
  buffer_atomic_cmpswap_b32 v[18:19], v16, s[32:35], null offen offset:512 th:TH_ATOMIC_RETURN
  buffer_atomic_max_i32 v2, v16, s[32:35], null offen offset:1024
  buffer_atomic_add_u32 v22, off, s[32:35], null offset:1536
  s_wait_loadcnt 0
  buffer_store_b32 v17, v15, s[28:31], null offen offset:32
  buffer_store_b32 v18, v15, s[28:31], null offen offset:36
  s_endpgm
.Lasm_buffer_end:
  .size asm_buffer, .Lasm_buffer_end-asm_buffer
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
  .amdhsa_kernel asm_buffer
    .amdhsa_kernarg_size 24
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_wavefront_size32 WAVE32
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 36
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
  - .name: asm_buffer
    .symbol: asm_buffer.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: \wave
    .sgpr_count: 38
    .vgpr_count: 24
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: src, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: ctr, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
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
