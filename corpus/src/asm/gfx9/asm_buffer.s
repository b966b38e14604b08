// asm_buffer (GFX9: gfx90a, gfx942, gfx950; wave64): MUBUF loads, stores and atomics through
// buffer resource descriptors (V#) built from kernarg pointers. Workgroups of 64, 128
// work-items; i = global id. Descriptors (dword3 = 0x00020000, DATA_FORMAT_32):
//   A  = src, raw (stride 0), num_records 1024 bytes     A' = src, raw, num_records 400
//   B  = src, stride 8, num_records 100 (records)        C  = out, raw, num_records 64*120
//   D  = ctr, raw, num_records 1540
// Row r = out[16i..16i+16] (stores through C: rows of i >= 120 are out of range, dropped):
//   r[0] = A' offen(4i) offset:4 (0 when out of range, i > 98); r[1] = A offen(4i)
//   soffset 8 offset:4 (stored with soffset 4); r[2..4] = B idxen(i^5) soffset 8 dwordx2
//   (0 when i^5 >= 100); r[4] = B idxen offen (i>>1, 4*(i&1)) offset:4; r[5] = bytes
//   (ubyte, sbyte of src byte 4i+(i&3); ushort at 4i+2) stored with store_byte/short;
//   r[6] = sshort at 4i+2; r[7] = short_d16_hi of src[i] over 0x1234; r[8] = old value of
//   atomic_add(ctr[i], i+1) (glc); r[9] = old value of atomic_cmpswap(ctr[128+i]) with
//   data src[i+3] and compare ctr[128+i] ^ (i&1); atomic_smax(ctr[256+i], r[0]) and
//   atomic_add(ctr[384], 1) (vaddr off) without return.
  .amdhsa_code_object_version 6
  .text
  .globl asm_buffer
  .protected asm_buffer
  .p2align 8
  .type asm_buffer,@function
asm_buffer:
  s_load_dwordx4 s[4:7], s[0:1], 0x0        // src, out
  s_load_dwordx2 s[12:13], s[0:1], 0x10     // ctr
  v_and_b32_e32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_u32_e32 v0, s3, v0                  // i
  v_lshlrev_b32_e32 v1, 2, v0               // 4i
  s_mov_b32 s14, 8
  s_mov_b32 s15, 4
  s_waitcnt lgkmcnt(0)
  // A: src raw, 1024 bytes
  s_mov_b32 s16, s4
  s_and_b32 s17, s5, 0xffff
  s_movk_i32 s18, 0x400
  s_mov_b32 s19, 0x00020000
  // A': src raw, 400 bytes
  s_mov_b32 s20, s4
  s_and_b32 s21, s5, 0xffff
  s_movk_i32 s22, 400
  s_mov_b32 s23, 0x00020000
  // B: src, stride 8, 100 records
  s_mov_b32 s24, s4
  s_and_b32 s25, s5, 0xffff
  s_or_b32 s25, s25, 0x80000                // stride 8 << 16
  s_movk_i32 s26, 100
  s_mov_b32 s27, 0x00020000
  // C: out raw, 64 * 120 bytes
  s_mov_b32 s28, s6
  s_and_b32 s29, s7, 0xffff
  s_movk_i32 s30, 0x1e00
  s_mov_b32 s31, 0x00020000
  // D: ctr raw, 1540 bytes
  s_mov_b32 s32, s12
  s_and_b32 s33, s13, 0xffff
  s_movk_i32 s34, 1540
  s_mov_b32 s35, 0x00020000
  s_nop 4                                   // SALU write of a V# -> VMEM read
  buffer_load_dword v2, v1, s[20:23], 0 offen offset:4
  buffer_load_dword v3, v1, s[16:19], s14 offen offset:4
  v_and_b32_e32 v6, 3, v0
  v_add_u32_e32 v5, v1, v6                  // 4i + (i & 3)
  buffer_load_ubyte v4, v5, s[16:19], 0 offen
  buffer_load_sbyte v6, v5, s[16:19], 0 offen
  buffer_load_ushort v7, v1, s[16:19], 0 offen offset:2
  buffer_load_sshort v8, v1, s[16:19], 0 offen offset:2
  v_xor_b32_e32 v9, 5, v0
  buffer_load_dwordx2 v[10:11], v9, s[24:27], s14 idxen
  v_lshrrev_b32_e32 v12, 1, v0              // index i >> 1
  v_and_b32_e32 v13, 1, v0
  v_lshlrev_b32_e32 v13, 2, v13             // offset 4 * (i & 1)
  buffer_load_dword v14, v[12:13], s[24:27], 0 idxen offen offset:4
  v_mov_b32_e32 v20, 0x1234
  buffer_load_short_d16_hi v20, v1, s[16:19], 0 offen
  v_lshlrev_b32_e32 v15, 6, v0              // 64i
  s_waitcnt vmcnt(0)
  buffer_store_dword v2, v15, s[28:31], 0 offen
  buffer_store_dword v3, v15, s[28:31], s15 offen
  buffer_store_dwordx2 v[10:11], v15, s[28:31], 0 offen offset:8
  buffer_store_dword v14, v15, s[28:31], 0 offen offset:16
  buffer_store_byte v4, v15, s[28:31], 0 offen offset:20
  buffer_store_byte v6, v15, s[28:31], 0 offen offset:21
  buffer_store_short v7, v15, s[28:31], 0 offen offset:22
  buffer_store_dword v8, v15, s[28:31], 0 offen offset:24
  buffer_store_dword v20, v15, s[28:31], 0 offen offset:28
  // Atomics on ctr.
  v_mov_b32_e32 v16, v1
  v_add_u32_e32 v17, 1, v0
  buffer_load_dword v19, v16, s[32:35], 0 offen offset:512
  v_and_b32_e32 v21, 1, v0
  v_mov_b32_e32 v18, v3
  v_mov_b32_e32 v22, 1
  s_waitcnt vmcnt(0)
  v_xor_b32_e32 v19, v19, v21
.ifdef GFX94
  buffer_atomic_add v17, v16, s[32:35], 0 offen sc0
  buffer_atomic_cmpswap v[18:19], v16, s[32:35], 0 offen offset:512 sc0
.else
  buffer_atomic_add v17, v16, s[32:35], 0 offen glc
  buffer_atomic_cmpswap v[18:19], v16, s[32:35], 0 offen offset:512 glc
.endif
  buffer_atomic_smax v2, v16, s[32:35], 0 offen offset:1024
  buffer_atomic_add v22, off, s[32:35], 0 offset:1536
  s_waitcnt vmcnt(0)
  buffer_store_dword v17, v15, s[28:31], 0 offen offset:32
  buffer_store_dword v18, v15, s[28:31], 0 offen offset:36
  s_endpgm
.Lasm_buffer_end:
  .size asm_buffer, .Lasm_buffer_end-asm_buffer
  // Padding after the code, as LLVM emits it: the instruction prefetcher may read past the end.
  .p2alignl 6, 0xbf800000          // s_nop 0
  .fill 256, 4, 0xbf800000

  .rodata
  .p2align 6
  .amdhsa_kernel asm_buffer
    .amdhsa_kernarg_size 24
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_system_vgpr_workitem_id 0
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 36
    .amdhsa_accum_offset 24
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
  - .name: asm_buffer
    .symbol: asm_buffer.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 42
    .vgpr_count: 24
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: src, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: ctr, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
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
