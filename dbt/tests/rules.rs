//! The gfx950 -> gfx942 EXPAND rules, checked by execution: a gfx950 kernel (assembled
//! here with llvm-mc-22) runs every `v_bitop3_b32` truth table in four operand forms
//! (VGPRs, an SGPR, an inline constant, destination aliasing a source) and
//! `v_bitop3_b16` (op_sel on sources and destination) and `v_cvt_pk_f16_f32` with
//! neg/abs/clamp; the translated kernel on the gfx942 model must
//! write exactly what the original writes on the gfx950 model, and both must match a CPU
//! reference. The kernel touches v15, so the rules' scratch VGPRs grow the descriptor.
//!
//! The other tests here do the same for the LDS DMA loads of 12/16 bytes, the permlane
//! swaps, `v_prng_b32`, `v_cvt_f32_bf16`, `v_cvt_pk_bf16_f32` (every f32 denormal mode), `v_dot2_f32_bf16`,
//! the wide-K MFMA split, the OCP fp8 `f8f6f4` MFMAs on gfx942's FNUZ fp8 MFMAs and the
//! transposing LDS reads, and check long branches on a kernel past the SOPP range.

mod common;

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;
use std::fmt::Write as _;

/// Output dwords per lane.
const BITOP_FORMS: usize = 4 * 256;
/// v_bitop3_b16 forms per table.
const B16_FORMS: usize = 3;
const CVT_FORMS: usize = 4;
const LANES: usize = 64;

fn kernel_source() -> String {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl rules\n  .p2align 8\n  .type rules,@function\nrules:\n\
         \x20 s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
         \x20 s_mov_b32 s8, 0x0f0f3c5a\n\
         \x20 v_lshlrev_b32_e32 v1, 4, v0\n\
         \x20 v_lshlrev_b32_e32 v6, 2, v0\n\
         \x20 v_mov_b32_e32 v15, 0\n\
         \x20 s_waitcnt lgkmcnt(0)\n\
         \x20 global_load_dwordx4 v[2:5], v1, s[4:5]\n\
         \x20 s_waitcnt vmcnt(0)\n",
    );
    let store = |s: &mut String, reg: &str| {
        let _ = writeln!(s, "  global_store_dword v6, {reg}, s[6:7]");
        let _ = writeln!(s, "  s_add_u32 s6, s6, {}", LANES * 4);
        let _ = writeln!(s, "  s_addc_u32 s7, s7, 0");
    };
    for t in 0..256 {
        let _ = writeln!(s, "  v_bitop3_b32 v10, v2, v3, v4 bitop3:{t:#x}");
        store(&mut s, "v10");
        let _ = writeln!(s, "  v_bitop3_b32 v10, s8, v3, v4 bitop3:{t:#x}");
        store(&mut s, "v10");
        let _ = writeln!(s, "  v_bitop3_b32 v10, v2, 7, v4 bitop3:{t:#x}");
        store(&mut s, "v10");
        let _ = writeln!(s, "  v_mov_b32_e32 v11, v3");
        let _ = writeln!(s, "  v_bitop3_b32 v11, v2, v11, v4 bitop3:{t:#x}");
        store(&mut s, "v11");
    }
    for t in 0..256 {
        for (k, form) in [
            "v2, v3, v4 bitop3:{t:#x}",
            "v2, s8, v4 bitop3:{t:#x} op_sel:[1,1,0,1]",
            "v3, v2, -1 bitop3:{t:#x} op_sel:[0,1,0,0]",
        ]
        .iter()
        .enumerate()
        {
            // The destination starts as d (its other half must be kept).
            let _ = writeln!(s, "  v_mov_b32_e32 v13, v5");
            let _ = writeln!(
                s,
                "  v_bitop3_b16 v13, {}",
                form.replace("{t:#x}", &format!("{t:#x}"))
            );
            store(&mut s, "v13");
            let _ = k;
        }
    }
    for form in ["v2, v3", "-v2, |v3|", "v3, -v2 clamp", "v5, s8"] {
        let _ = writeln!(s, "  v_cvt_pk_f16_f32 v12, {form}");
        store(&mut s, "v12");
    }
    s.push_str(
        "  s_endpgm\n.Lend:\n  .size rules, .Lend-rules\n  .p2alignl 6, 0xbf800000\n  .fill 64, 4, 0xbf800000\n\
         \x20 .rodata\n  .p2align 6\n  .amdhsa_kernel rules\n    .amdhsa_kernarg_size 16\n\
         \x20   .amdhsa_user_sgpr_kernarg_segment_ptr 1\n    .amdhsa_user_sgpr_count 2\n\
         \x20   .amdhsa_next_free_vgpr 16\n    .amdhsa_next_free_sgpr 9\n    .amdhsa_accum_offset 16\n\
         \x20   .amdhsa_float_denorm_mode_32 3\n    .amdhsa_float_denorm_mode_16_64 3\n\
         \x20 .end_amdhsa_kernel\n\
         .amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx950\n\
         amdhsa.kernels:\n  - .name: rules\n    .symbol: rules.kd\n    .kernarg_segment_size: 16\n\
         \x20   .kernarg_segment_align: 8\n    .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n\
         \x20   .wavefront_size: 64\n    .sgpr_count: 15\n    .vgpr_count: 16\n    .agpr_count: 0\n\
         \x20   .max_flat_workgroup_size: 64\n    .uses_dynamic_stack: false\n    .args:\n\
         \x20     - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }\n\
         \x20     - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }\n\
         ...\n.end_amdgpu_metadata\n",
    );
    s
}

/// Inputs: per lane a, b, c (bit patterns) and d (an f32 for the conversions).
fn inputs() -> Vec<u32> {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -2.5,
        65504.0,
        65520.0,
        1e-8,
        6.1e-5,
        3.0e-7,
        f32::INFINITY,
        -f32::INFINITY,
        1.0e10,
        0.333_333_34,
        -7.75e-3,
        1234.567,
        2.0e-45,
    ];
    let mut v = Vec::new();
    let mut x = 0x9e37_79b9u32;
    for lane in 0..LANES {
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(x);
        }
        v.push(specials[lane % specials.len()].to_bits());
    }
    v
}

fn run(bytes: &[u8], target: Target) -> Vec<u32> {
    let n = (BITOP_FORMS + 256 * B16_FORMS + CVT_FORMS) * LANES;
    common::run_words(bytes, target, "rules", [64, 64], Some(&inputs()), n, &[])
}

/// V_BITOP3_B32: result bit i = table[a_i << 2 | b_i << 1 | c_i].
fn bitop3(t: u32, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |r, i| {
        let idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        r | (t >> idx & 1) << i
    })
}

fn f16_bits(x: f32, neg: bool, abs: bool, clamp: bool) -> u32 {
    let mut v = if abs { x.abs() } else { x };
    if neg {
        v = -v;
    }
    let mut h = half::f16::from_f32(v);
    if clamp {
        // Clamp to [0, 1]; -0 becomes +0 (VOP3 clamp).
        let f = h.to_f32();
        h = half::f16::from_f32(if f <= 0.0 { 0.0 } else { f.min(1.0) });
    }
    u32::from(h.to_bits())
}

#[test]
fn bitop3_and_cvt_pk_f16_f32_expand_to_the_same_results() {
    let guest = common::assemble(&kernel_source(), "gfx950", "rules");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    let k = &t.kernels[0];
    assert_eq!(k.status, dbt::KernelStatus::Relocated);
    assert_eq!(k.expanded, BITOP_FORMS + 256 * B16_FORMS + CVT_FORMS);
    assert!(
        k.vgprs.1 > k.vgprs.0,
        "scratch VGPRs grow the allocation: {:?}",
        k.vgprs
    );
    let dis = common::llvm_accepts(&t.object, "rules");
    assert!(!dis.contains("v_bitop3") && dis.contains("v_bfi_b32"));
    let want = run(&guest, Target::Gfx950);
    let got = run(&t.object, Target::Gfx942);
    let inp = inputs();
    let mut bad = Vec::new();
    for lane in 0..LANES {
        let (a, b, c, d) = (
            inp[4 * lane],
            inp[4 * lane + 1],
            inp[4 * lane + 2],
            inp[4 * lane + 3],
        );
        for tt in 0..256u32 {
            let forms = [
                bitop3(tt, a, b, c),
                bitop3(tt, 0x0f0f_3c5a, b, c),
                bitop3(tt, a, 7, c),
                bitop3(tt, a, b, c),
            ];
            for (f, r) in forms.iter().enumerate() {
                let i = (tt as usize * 4 + f) * LANES + lane;
                if got[i] != *r || want[i] != *r {
                    bad.push(format!(
                        "bitop3 {tt:#x} form {f} lane {lane}: gfx950 {:#x} gfx942 {:#x} ref {r:#x}",
                        want[i], got[i]
                    ));
                }
            }
        }
        for tt in 0..256u32 {
            let lo = |x: u32| x & 0xffff;
            let hi = |x: u32| x >> 16;
            let forms = [
                (d & 0xffff_0000) | lo(bitop3(tt, lo(a), lo(b), lo(c))),
                (d & 0xffff) | lo(bitop3(tt, hi(a), hi(0x0f0f_3c5a), lo(c))) << 16,
                (d & 0xffff_0000) | lo(bitop3(tt, lo(b), hi(a), 0xffff)),
            ];
            for (f, r) in forms.iter().enumerate() {
                let i = (BITOP_FORMS + tt as usize * B16_FORMS + f) * LANES + lane;
                if got[i] != *r || want[i] != *r {
                    bad.push(format!("bitop3_b16 {tt:#x} form {f} lane {lane}: gfx950 {:#x} gfx942 {:#x} ref {r:#x}", want[i], got[i]));
                }
            }
        }
        let fa = f32::from_bits(a);
        let fd = f32::from_bits(d);
        let fb = f32::from_bits(b);
        let cvt = [
            f16_bits(fa, false, false, false) | f16_bits(fb, false, false, false) << 16,
            f16_bits(fa, true, false, false) | f16_bits(fb, false, true, false) << 16,
            f16_bits(fb, false, false, true) | f16_bits(fa, true, false, true) << 16,
            f16_bits(fd, false, false, false)
                | f16_bits(f32::from_bits(0x0f0f_3c5a), false, false, false) << 16,
        ];
        for (f, r) in cvt.iter().enumerate() {
            let i = (BITOP_FORMS + 256 * B16_FORMS + f) * LANES + lane;
            let nan = |w: u32| {
                half::f16::from_bits(w as u16).is_nan()
                    || half::f16::from_bits((w >> 16) as u16).is_nan()
            };
            if got[i] != want[i] || (got[i] != *r && !nan(*r)) {
                bad.push(format!(
                    "cvt_pk form {f} lane {lane}: gfx950 {:#x} gfx942 {:#x} ref {r:#x}",
                    want[i], got[i]
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// The LDS DMA loads gfx942 lacks (12 and 16 bytes per lane): `buffer_load_dwordx{3,4}
/// ... lds` with an instruction offset and a lane past `num_records` (loads zeros), and
/// `global_load_lds_dwordx{3,4}` with a positive and a negative offset and a partial EXEC.
/// LDS starts filled with a marker; the whole LDS is dumped.
fn lds_dma_source() -> String {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl ldsdma\n  .p2align 8\n  .type ldsdma,@function\nldsdma:\n",
    );
    s.push_str(
        "  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_mov_b32_e32 v10, 0xdeadbeef
  v_mov_b32_e32 v11, v10
  v_mov_b32_e32 v12, v10
  v_mov_b32_e32 v13, v10
  v_lshlrev_b32_e32 v1, 4, v0
  v_mul_u32_u24_e32 v2, 12, v0
  v_add_u32_e32 v3, 64, v2
  ds_write_b128 v1, v[10:13]
  ds_write_b128 v1, v[10:13] offset:1024
  ds_write_b128 v1, v[10:13] offset:2048
  ds_write_b128 v1, v[10:13] offset:3072
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s4
  s_and_b32 s9, s5, 0xffff
  s_mov_b32 s10, 1008
  s_mov_b32 s11, 0x00020000
  s_mov_b32 m0, 0
  buffer_load_dwordx4 v1, s[8:11], 0 offen lds
  s_mov_b32 m0, 1024
  buffer_load_dwordx3 v2, s[8:11], 0 offen offset:16 lds
  s_mov_b32 m0, 2048
  global_load_lds_dwordx4 v1, s[4:5] offset:32
  s_mov_b32 m0, 3200
  s_mov_b32 exec_lo, 0x0f0f0f0f
  s_mov_b32 exec_hi, 0xffff0000
  global_load_lds_dwordx3 v3, s[4:5] offset:-16
  s_mov_b64 exec, -1
  s_waitcnt vmcnt(0)
  ds_read_b128 v[10:13], v1
  ds_read_b128 v[14:17], v1 offset:1024
  ds_read_b128 v[18:21], v1 offset:2048
  ds_read_b128 v[22:25], v1 offset:3072
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[10:13], s[6:7]
  global_store_dwordx4 v1, v[14:17], s[6:7] offset:1024
  v_add_u32_e32 v1, 2048, v1
  global_store_dwordx4 v1, v[18:21], s[6:7]
  global_store_dwordx4 v1, v[22:25], s[6:7] offset:1024
  s_endpgm
.Lend:
  .size ldsdma, .Lend-ldsdma
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel ldsdma
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_group_segment_fixed_size 4096
    .amdhsa_next_free_vgpr 26
    .amdhsa_next_free_sgpr 12
    .amdhsa_accum_offset 28
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: ldsdma
    .symbol: ldsdma.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 4096
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 18
    .vgpr_count: 26
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
",
    );
    s
}

fn run_lds_dma(bytes: &[u8], target: Target, input: &[u32]) -> Vec<u32> {
    common::run_words(bytes, target, "ldsdma", [64, 64], Some(input), 1024, &[])
}

#[test]
fn lds_dma_loads_of_12_and_16_bytes_expand_to_the_same_lds() {
    let guest = common::assemble(&lds_dma_source(), "gfx950", "ldsdma");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 4);
    let dis = common::llvm_accepts(&t.object, "ldsdma");
    assert!(!dis.contains(" lds") && dis.contains("ds_write_b96") && dis.contains("ds_write_b128"));
    let input: Vec<u32> = (0..512u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995)
        .collect();
    // CPU reference (see the rule's notes): lane l, dword k at M0 + offset + l * bytes + 4k.
    let mut lds = vec![0xdead_beefu32; 1024];
    for l in 0..64usize {
        for k in 0..4 {
            // buffer x4, num_records 1008: lane 63 is out of range and loads zeros.
            lds[l * 4 + k] = if l < 63 { input[l * 4 + k] } else { 0 };
            // global x4, offset 32 on both sides, M0 2048.
            lds[(2048 + 32) / 4 + l * 4 + k] = input[(l * 16 + 32) / 4 + k];
        }
        for k in 0..3 {
            // buffer x3, offset 16, M0 1024.
            lds[(1024 + 16) / 4 + l * 3 + k] = input[(l * 12 + 16) / 4 + k];
            // global x3, vaddr lane * 12 + 64, offset -16, M0 3200, partial EXEC.
            let exec = 0xffff_0000_0f0f_0f0fu64;
            if exec >> l & 1 != 0 {
                lds[(3200 - 16) / 4 + l * 3 + k] = input[(l * 12 + 48) / 4 + k];
            }
        }
    }
    let want = run_lds_dma(&guest, Target::Gfx950, &input);
    let got = run_lds_dma(&t.object, Target::Gfx942, &input);
    let bad: Vec<String> = (0..1024)
        .filter(|&i| want[i] != lds[i] || got[i] != lds[i])
        .map(|i| {
            format!(
                "LDS byte {}: gfx950 {:#x} gfx942 {:#x} ref {:#x}",
                i * 4,
                want[i],
                got[i],
                lds[i]
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// NOPs between the loop head and its far part: with the 50 `v_cvt_pk_f16_f32` (8 bytes
/// each, 24 bytes on gfx942) the guest's longest branch is just inside the SOPP range of
/// 32767 dwords and the translation's is past it.
const FAR_NOPS: usize = 32_600;

/// A loop whose three branches (a conditional forward exit, an unconditional forward jump
/// and the unconditional back edge) span the NOP block: after translation all three need
/// long forms. The NOP block is reachable (through a never-taken `s_cbranch_execz`), so
/// it is part of the translated scope. Each of the `n` iterations adds 3 to v2 (starting at the lane id) and the
/// far part converts it with `v_cvt_pk_f16_f32` into v3; the store writes both.
fn long_branch_source() -> String {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl far\n  .p2align 8\n  .type far,@function\nfar:\n",
    );
    s.push_str(
        "  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  v_lshlrev_b32_e32 v1, 3, v0
  v_mov_b32_e32 v2, v0
  v_mov_b32_e32 v3, 0
  s_mov_b32 s7, 0
  s_waitcnt lgkmcnt(0)
.Lloop:
  v_add_u32_e32 v2, 3, v2
  s_add_u32 s7, s7, 1
  s_cmp_le_u32 s7, s6
  s_cbranch_scc0 .Ldone
  s_cbranch_execz .Lfill
  s_branch .Lfar
.Lfill:
",
    );
    let _ = writeln!(s, "  .fill {FAR_NOPS}, 4, 0xbf800000");
    for _ in 0..50 {
        s.push_str("  v_cvt_pk_f16_f32 v4, v5, v5\n");
    }
    s.push_str(
        ".Lfar:
  v_cvt_f32_u32_e32 v4, v2
  v_cvt_pk_f16_f32 v3, v4, v4
  s_branch .Lloop
.Ldone:
  global_store_dwordx2 v1, v[2:3], s[4:5]
  s_endpgm
.Lend:
  .size far, .Lend-far
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel far
    .amdhsa_kernarg_size 12
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 6
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: far
    .symbol: far.kd
    .kernarg_segment_size: 12
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 14
    .vgpr_count: 6
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
...
.end_amdgpu_metadata
",
    );
    s
}

/// Runs the far-loop kernel `guest` on gfx950 and its translation `object` on `host` for
/// 0, 1 and 5 passes; both must give the reference: v2 = lane + 3 (n + 1) + `added` (what
/// the variant adds after the loop), v3 the packed f16 of lane + 3n from the far part's
/// last pass (0 when it never ran).
fn far_loop_gives_the_reference(guest: &[u8], object: &[u8], host: Target, added: u32) {
    for n in [0u32, 1, 5] {
        let want = run_far(guest, Target::Gfx950, n);
        let got = run_far(object, host, n);
        for lane in 0..64u32 {
            let v2 = lane + 3 * (n + 1) + added;
            let v3 = if n == 0 {
                0
            } else {
                let h = u32::from(half::f16::from_f32((lane + 3 * n) as f32).to_bits());
                h | h << 16
            };
            let l = lane as usize;
            assert_eq!(
                (want[2 * l], want[2 * l + 1]),
                (v2, v3),
                "gfx950 n={n} lane {lane}"
            );
            assert_eq!(
                (got[2 * l], got[2 * l + 1]),
                (v2, v3),
                "translated {host} n={n} lane {lane}"
            );
        }
    }
}

fn run_far(bytes: &[u8], target: Target, n: u32) -> Vec<u32> {
    let extra = [ArgValue::bytes(&n.to_le_bytes())];
    common::run_words(bytes, target, "far", [64, 64], None, 64 * 2, &extra)
}

#[test]
fn branches_past_the_sopp_range_take_long_forms() {
    let guest = common::assemble(&long_branch_source(), "gfx950", "far");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    let k = &t.kernels[0];
    assert_eq!(k.status, dbt::KernelStatus::Relocated);
    // Growth: 2 VGPR-expansions per cvt, plus three long forms.
    assert!(k.code_after > k.code_before + 51 * 16, "{k:?}");
    let dis = common::llvm_accepts(&t.object, "far");
    // The pair sits above the scope's SGPRs (s0..s7): s[8:9]; the exit's condition is
    // inverted around its long form.
    for want in ["s_getpc_b64 s[8:9]", "s_setpc_b64 s[8:9]", "s_cbranch_scc1"] {
        assert!(dis.contains(want), "no `{want}` in the translation");
    }
    assert_eq!(
        dis.matches("s_setpc_b64 s[8:9]").count(),
        3,
        "three long forms"
    );
    far_loop_gives_the_reference(&guest, &t.object, Target::Gfx942, 0);
}

/// The far loop with every SGPR below VCC in use (s101 holds an addend the exit adds),
/// so no pair is free for a long form on gfx942: its far branches (the exit and the back
/// edge) must hop through branch-island pools instead (no `s_getpc_b64`/`s_setpc_b64`,
/// no SGPR growth), and the kernel must run the same on both hosts (gfx1201 keeps its
/// s[104:105] pair). Each iteration falls through the NOP block here, so it also runs
/// over the pools placed there (their leading `s_branch` skips the islands).
#[test]
fn branches_past_the_sopp_range_without_a_free_pair_hop_through_islands() {
    let src = islands_source();
    let guest = common::assemble(&src, "gfx950", "islands");
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(t.translated, "{host}: {:?}", t.diagnostics);
        let k = &t.kernels[0];
        assert_eq!(k.status, dbt::KernelStatus::Relocated, "{host}");
        let dis = if host == Target::Gfx942 {
            let dis = common::llvm_accepts(&t.object, "islands");
            assert!(
                !dis.contains("s_setpc_b64") && !dis.contains("s_getpc_b64"),
                "no long form on gfx942"
            );
            assert_eq!(k.sgprs.0, k.sgprs.1, "no SGPR growth: {k:?}");
            dis
        } else {
            common::llvm_accepts_as(&t.object, "islands-1201", "gfx1201")
        };
        eprintln!(
            "{host}: code {} -> {} bytes, {} s_branch",
            k.code_before,
            k.code_after,
            dis.matches("s_branch ").count()
        );
        far_loop_gives_the_reference(&guest, &t.object, host, 5);
    }
}

/// The island variant with calls where the pools go: the middle of the NOP block is
/// 8000 `s_call_b64 s[30:31]` of a leaf that returns at once (further on, behind an
/// `s_branch`), so each pool there follows a call, and each call returns into the
/// `s_branch` that skips the pool's islands. Gives the same results on both hosts
/// (gfx942 hops through the islands, gfx1201 takes long forms).
#[test]
fn calls_followed_by_branch_island_pools_return_over_the_islands() {
    let mut calls = String::from("  .fill 12000, 4, 0xbf800000\n");
    for _ in 0..8000 {
        calls.push_str("  s_call_b64 s[30:31], .Lleaf\n");
    }
    calls.push_str(
        "  .fill 5000, 4, 0xbf800000\n  s_branch .Lover\n.Lleaf:\n  s_setpc_b64 s[30:31]\n.Lover:\n",
    );
    let _ = writeln!(
        calls,
        "  .fill {}, 4, 0xbf800000",
        FAR_NOPS - 12000 - 8000 - 5002
    );
    let fill = format!("  .fill {FAR_NOPS}, 4, 0xbf800000\n");
    let src = islands_source().replacen(&fill, &calls, 1);
    assert!(src.contains(".Lleaf"), "the source has the expected shape");
    let guest = common::assemble(&src, "gfx950", "island-calls");
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(t.translated, "{host}: {:?}", t.diagnostics);
        assert_eq!(t.kernels[0].status, dbt::KernelStatus::Relocated, "{host}");
        if host == Target::Gfx942 {
            let dis = common::llvm_accepts(&t.object, "island-calls");
            let lines: Vec<&str> = dis.lines().map(str::trim).collect();
            let pools_after_calls = lines
                .windows(2)
                .filter(|w| w[0].starts_with("s_call_b64") && w[1].starts_with("s_branch"))
                .count();
            assert!(pools_after_calls > 0, "no pool follows a call");
        } else {
            common::llvm_accepts_as(&t.object, "island-calls-1201", "gfx1201");
        }
        far_loop_gives_the_reference(&guest, &t.object, host, 5);
    }
}

/// The far loop with a PC-relative data address after its long forms: past `.Ldone` the
/// kernel loads a constant 7 from `.rodata` through `s_getpc_b64; s_add_u32
/// konst@rel32@lo+4; s_addc_u32 konst@rel32@hi+12` and adds it to v2. Every long form
/// that placement inserts before the sequence moves it, so its literals must be
/// recomputed from the final layout, on both hosts.
#[test]
fn data_addresses_after_long_forms_reach_their_data() {
    let src = long_branch_source()
        .replacen(
            ".Ldone:\n",
            ".Ldone:\n  s_getpc_b64 s[8:9]\n  s_add_u32 s8, s8, konst@rel32@lo+4\n  s_addc_u32 s9, s9, konst@rel32@hi+12\n  s_load_dword s10, s[8:9], 0x0\n  s_waitcnt lgkmcnt(0)\n  v_add_u32_e32 v2, s10, v2\n",
            1,
        )
        .replacen(
            ".amdgpu_metadata\n",
            "  .section .rodata.konst,\"a\"\n  .p2align 2\nkonst:\n  .long 7\n.amdgpu_metadata\n",
            1,
        )
        .replacen(".amdhsa_next_free_sgpr 8", ".amdhsa_next_free_sgpr 12", 1);
    assert!(src.contains("konst:"), "the source has the expected shape");
    let guest = common::assemble(&src, "gfx950", "far-data");
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(t.translated, "{host}: {:?}", t.diagnostics);
        assert_eq!(t.kernels[0].status, dbt::KernelStatus::Relocated, "{host}");
        let dis = common::llvm_accepts_as(&t.object, &format!("far-data-{host}"), host.name());
        assert!(dis.contains("s_setpc_b64"), "{host}: long forms");
        far_loop_gives_the_reference(&guest, &t.object, host, 7);
    }
}

/// The far loop with every SGPR below VCC in use (see
/// [`branches_past_the_sopp_range_without_a_free_pair_hop_through_islands`]).
fn islands_source() -> String {
    let src = long_branch_source()
        .replacen("  s_branch .Lfar\n.Lfill:\n", ".Lfill:\n", 1)
        .replacen(
            "  s_mov_b32 s7, 0\n",
            "  s_mov_b32 s7, 0\n  s_mov_b32 s101, 5\n",
            1,
        )
        .replacen(".Ldone:\n", ".Ldone:\n  v_add_u32_e32 v2, s101, v2\n", 1)
        .replacen(".amdhsa_next_free_sgpr 8", ".amdhsa_next_free_sgpr 102", 1)
        .replacen(".sgpr_count: 14", ".sgpr_count: 108", 1);
    assert_eq!(
        src.matches("s101").count(),
        2,
        "the source has the expected shape"
    );
    src
}

/// `v_permlane{16,32}_swap_b32` forms: (half, EXEC, same register for d and s, VOP3).
const SWAP_FORMS: [(usize, u64, bool, bool); 7] = [
    (32, u64::MAX, false, false),
    (16, u64::MAX, false, false),
    (32, 0x0f0f_ff00_f0f0_00ff, false, false),
    (16, 0x0f0f_ff00_f0f0_00ff, false, false),
    (32, u64::MAX, true, false),
    (16, 0x1234_5678_9abc_def0, true, false),
    (16, u64::MAX, false, true),
];

fn permlane_source(forms: &[(usize, u64, bool, bool)]) -> String {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl swap\n  .p2align 8\n  .type swap,@function\nswap:\n\
  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 3, v0\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx2 v[2:3], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n",
    );
    for &(half, exec, same, vop3) in forms {
        let _ = writeln!(s, "  v_mov_b32_e32 v10, v2");
        let _ = writeln!(s, "  v_mov_b32_e32 v11, v3");
        if exec != u64::MAX {
            let _ = writeln!(s, "  s_mov_b32 exec_lo, {:#x}", exec as u32);
            let _ = writeln!(s, "  s_mov_b32 exec_hi, {:#x}", (exec >> 32) as u32);
        }
        let e = if vop3 { "_e64" } else { "_e32" };
        let srcreg = if same { "v10" } else { "v11" };
        let _ = writeln!(s, "  v_permlane{half}_swap_b32{e} v10, {srcreg}");
        let _ = writeln!(s, "  s_mov_b64 exec, -1");
        let _ = writeln!(s, "  global_store_dwordx2 v1, v[10:11], s[6:7]");
        let _ = writeln!(s, "  s_add_u32 s6, s6, {}", LANES * 8);
        let _ = writeln!(s, "  s_addc_u32 s7, s7, 0");
    }
    s.push_str(
        "  s_endpgm
.Lend:
  .size swap, .Lend-swap
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel swap
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 12
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 12
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: swap
    .symbol: swap.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 14
    .vgpr_count: 12
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
",
    );
    s
}

fn run_swap(forms: &[(usize, u64, bool, bool)], bytes: &[u8], target: Target) -> Vec<u32> {
    let n = forms.len() * LANES * 2;
    common::run_words(bytes, target, "swap", [64, 64], Some(&swap_input()), n, &[])
}

fn swap_input() -> Vec<u32> {
    (0..128u32)
        .map(|i| i.wrapping_mul(0x2545_f491) ^ 0x1f)
        .collect()
}

/// Every word of `runs` (name, output) that differs from the CPU reference of `forms`.
fn swap_mismatches(forms: &[(usize, u64, bool, bool)], runs: &[(&str, &[u32])]) -> Vec<String> {
    let input = swap_input();
    let mut bad = Vec::new();
    for (f, &(half, exec, same, _)) in forms.iter().enumerate() {
        // CPU reference: lane `hi` of d and lane `lo` of s trade values when both lanes
        // are active (d and s the same register: its halves trade).
        let mut d: Vec<u32> = (0..LANES).map(|l| input[2 * l]).collect();
        let mut s: Vec<u32> = if same {
            d.clone()
        } else {
            (0..LANES).map(|l| input[2 * l + 1]).collect()
        };
        let (od, os) = (d.clone(), s.clone());
        for lo in (0..LANES).filter(|l| l & half == 0) {
            let hi = lo + half;
            if exec >> lo & 1 != 0 && exec >> hi & 1 != 0 {
                if same {
                    d[hi] = od[lo];
                    d[lo] = od[hi];
                } else {
                    d[hi] = os[lo];
                    s[lo] = od[hi];
                }
            }
        }
        if same {
            s = (0..LANES).map(|l| input[2 * l + 1]).collect();
        }
        for l in 0..LANES {
            for (k, r) in [d[l], s[l]].into_iter().enumerate() {
                let i = (f * LANES + l) * 2 + k;
                for (name, out) in runs {
                    if out[i] != r {
                        bad.push(format!(
                            "form {f} lane {l} reg {k}: {name} {:#x} ref {r:#x}",
                            out[i]
                        ));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn permlane_swaps_expand_to_bpermutes_with_the_same_results() {
    let guest = common::assemble(&permlane_source(&SWAP_FORMS), "gfx950", "swap");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, SWAP_FORMS.len());
    let dis = common::llvm_accepts(&t.object, "swap");
    assert!(!dis.contains("permlane") && dis.contains("ds_bpermute_b32"));
    let want = run_swap(&SWAP_FORMS, &guest, Target::Gfx950);
    let got = run_swap(&SWAP_FORMS, &t.object, Target::Gfx942);
    let bad = swap_mismatches(&SWAP_FORMS, &[("gfx950", &want), ("gfx942", &got)]);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// The `width`-lane swaps of [`SWAP_FORMS`] translated to gfx1201 use `host` (and no
/// swap instruction is left) and write what they write on gfx950.
fn swaps_run_on_gfx1201(width: usize, host: &str) {
    let forms: Vec<_> = SWAP_FORMS
        .iter()
        .copied()
        .filter(|f| f.0 == width)
        .collect();
    let name = format!("swap{width}");
    let guest = common::assemble(&permlane_source(&forms), "gfx950", &name);
    let t = dbt::translate(&guest, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, &format!("{name}-gfx1201"), "gfx1201");
    let swap = format!("permlane{width}_swap");
    assert!(dis.contains(host) && !dis.contains(&swap), "{dis}");
    let want = run_swap(&forms, &guest, Target::Gfx950);
    let got = run_swap(&forms, &t.object, Target::Gfx1201);
    let bad = swap_mismatches(&forms, &[("gfx950", &want), ("gfx1201", &got)]);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// On gfx1201 (wave64) `v_permlane32_swap_b32` goes through GFX12's `v_permlane64_b32`
/// (`rdna::reencode::permlane32_swap`).
#[test]
fn permlane32_swaps_run_through_permlane64_on_gfx1201() {
    swaps_run_on_gfx1201(32, "v_permlane64_b32");
}

/// On gfx1201 `v_permlane16_swap_b32` goes through GFX12's `v_permlanex16_b32`
/// (`rdna::reencode::permlane16_swap`): full and partial EXEC, vdst = vsrc, the VOP3
/// form.
#[test]
fn permlane16_swaps_run_through_permlanex16_on_gfx1201() {
    swaps_run_on_gfx1201(16, "v_permlanex16_b32");
}

/// `v_prng_b32` sources: a VGPR, an SGPR, a literal, an inline constant, and the VOP3
/// form with the destination as its source.
#[test]
fn prng_expands_to_the_same_lfsr_step() {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl prng\n  .p2align 8\n  .type prng,@function\nprng:\n\
  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 3, v0\n\
  v_mul_u32_u24_e32 v4, 20, v0\n\
  s_mov_b32 s8, 0x80000001\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx2 v[2:3], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n\
  v_prng_b32 v10, v2\n\
  v_prng_b32 v11, s8\n\
  v_prng_b32 v12, 0x80001234\n\
  v_prng_b32 v13, -7\n\
  v_mov_b32_e32 v14, v3\n\
  v_prng_b32_e64 v14, v14\n\
  global_store_dwordx4 v4, v[10:13], s[6:7]\n\
  global_store_dword v4, v14, s[6:7] offset:16\n\
  s_endpgm\n",
    );
    s.push_str(
        ".Lend:
  .size prng, .Lend-prng
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel prng
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 15
    .amdhsa_next_free_sgpr 9
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: prng
    .symbol: prng.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 15
    .vgpr_count: 15
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
",
    );
    let guest = common::assemble(&s, "gfx950", "prng");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 5);
    let dis = common::llvm_accepts(&t.object, "prng");
    assert!(!dis.contains("v_prng"));
    // Half the inputs have bit 31 set.
    let input: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i & 1) << 31)
        .collect();
    let run = |bytes: &[u8], target| -> Vec<u32> {
        let mut dev = Device::new(target);
        let m = dev.load_code_object(bytes).expect("loads");
        let inb: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        let ia = dev.alloc(inb.len() as u64).unwrap();
        dev.copy_in(ia, &inb).unwrap();
        let oa = dev.alloc(64 * 20).unwrap();
        let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
        let id = dev
            .dispatch(m, "prng", &cfg, &[ArgValue::ptr(ia), ArgValue::ptr(oa)])
            .expect("dispatch");
        dev.wait(id).expect("runs");
        let mut out = vec![0u8; 64 * 20];
        dev.copy_out(oa, &mut out).unwrap();
        out.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    // CDNA4 guide: shift left, feed back 197 when bit 31 falls out.
    let lfsr = |x: u32| (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 };
    let want = run(&guest, Target::Gfx950);
    let got = run(&t.object, Target::Gfx942);
    for l in 0..64 {
        let r = [
            lfsr(input[2 * l]),
            lfsr(0x8000_0001),
            lfsr(0x8000_1234),
            lfsr(-7i32 as u32),
            lfsr(input[2 * l + 1]),
        ];
        assert_eq!(&want[5 * l..5 * l + 5], &r, "gfx950 lane {l}");
        assert_eq!(&got[5 * l..5 * l + 5], &r, "translated gfx942 lane {l}");
    }
}

/// `v_cvt_f32_bf16` forms: VGPR, VOP3 neg/abs/neg-abs, SGPR and a literal bf16 (1.5).
#[test]
fn cvt_f32_bf16_expands_to_a_shift() {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl bf\n  .p2align 8\n  .type bf,@function\nbf:\n\
  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 3, v0\n\
  v_mul_u32_u24_e32 v4, 24, v0\n\
  s_mov_b32 s8, 0xffffc2f7\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx2 v[2:3], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n\
  v_cvt_f32_bf16 v10, v2\n\
  v_cvt_f32_bf16_e64 v11, -v3\n\
  v_cvt_f32_bf16_e64 v12, |v2|\n\
  v_cvt_f32_bf16_e64 v13, -|v3|\n\
  v_cvt_f32_bf16 v14, s8\n\
  v_cvt_f32_bf16 v15, 0x3fc0\n\
  global_store_dwordx4 v4, v[10:13], s[6:7]\n\
  global_store_dwordx2 v4, v[14:15], s[6:7] offset:16\n\
  s_endpgm\n",
    );
    s.push_str(
        ".Lend:
  .size bf, .Lend-bf
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel bf
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 9
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: bf
    .symbol: bf.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 15
    .vgpr_count: 16
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
",
    );
    let guest = common::assemble(&s, "gfx950", "bf");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 6);
    let dis = common::llvm_accepts(&t.object, "bf");
    assert!(!dis.contains("bf16"));
    // Low halves: bf16 values of every kind (normal, denormal, zero, inf, NaN) and signs.
    let specials: [u16; 8] = [
        0x3f80, 0xc2f7, 0x0001, 0x8000, 0x7f80, 0xff81, 0x7fc0, 0x1234,
    ];
    let input: Vec<u32> = (0..128u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) & 0xffff_0000) | u32::from(specials[i as usize % 8]))
        .collect();
    let run = |bytes: &[u8], target| -> Vec<u32> {
        let mut dev = Device::new(target);
        let m = dev.load_code_object(bytes).expect("loads");
        let inb: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        let ia = dev.alloc(inb.len() as u64).unwrap();
        dev.copy_in(ia, &inb).unwrap();
        let oa = dev.alloc(64 * 24).unwrap();
        let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
        let id = dev
            .dispatch(m, "bf", &cfg, &[ArgValue::ptr(ia), ArgValue::ptr(oa)])
            .expect("dispatch");
        dev.wait(id).expect("runs");
        let mut out = vec![0u8; 64 * 24];
        dev.copy_out(oa, &mut out).unwrap();
        out.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let want = run(&guest, Target::Gfx950);
    let got = run(&t.object, Target::Gfx942);
    for l in 0..64 {
        // A bf16 is the top half of the f32 of the same value, signalling NaNs included
        // (the `half` crate agrees except that it quiets them).
        let f = |x: u32| {
            let r = (x & 0xffff) << 16;
            let h = half::bf16::from_bits(x as u16);
            assert!(h.is_nan() || h.to_f32().to_bits() == r);
            r
        };
        let (a, b) = (input[2 * l], input[2 * l + 1]);
        let r = [
            f(a),
            f(b) ^ 0x8000_0000,
            f(a) & 0x7fff_ffff,
            f(b) | 0x8000_0000,
            f(0xc2f7),
            1.5f32.to_bits(),
        ];
        assert_eq!(&want[6 * l..6 * l + 6], &r, "gfx950 lane {l}");
        assert_eq!(&got[6 * l..6 * l + 6], &r, "translated gfx942 lane {l}");
    }
}

/// The wide-K f16/bf16 MFMAs split into two gfx942 MFMAs: 32x32x16 f16 (C = 0), 32x32x16
/// bf16 (C = the first result), 16x16x32 f16 and bf16, and two whose D overlaps the upper
/// half of A or B (IREE's `v_mfma_f32_16x16x32_f16 v[0:3], v[76:79], v[0:3], 0`: D = B;
/// and D over A's upper and B's lower half), whose overwritten halves are saved in scratch
/// VGPRs that liveness finds dead (v0 and v1 once the addresses are formed, v11..v15 and
/// v56..v59 never used; the rest are loaded, MFMA results or read later), so the VGPR
/// count does not grow. Results must match
/// a CPU reference (f64) and the gfx950 run within the f32 reordering bound of the model's
/// notes.
#[test]
fn wide_k_mfmas_split_into_two_gfx942_mfmas() {
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl mm\n  .p2align 8\n  .type mm,@function\nmm:\n\
  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 5, v0\n\
  v_mul_u32_u24_e32 v10, 0xc0, v0\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx4 v[2:5], v1, s[4:5]\n\
  global_load_dwordx4 v[6:9], v1, s[4:5] offset:16\n\
  global_load_dwordx4 v[60:63], v1, s[4:5]\n\
  global_load_dwordx4 v[64:67], v1, s[4:5] offset:16\n\
  global_load_dwordx4 v[68:71], v1, s[4:5]\n\
  global_load_dwordx4 v[72:75], v1, s[4:5] offset:16\n\
  s_waitcnt vmcnt(0)\n\
  v_mfma_f32_32x32x16_f16 v[16:31], v[2:5], v[6:9], 0\n\
  v_mfma_f32_32x32x16_bf16 v[32:47], v[2:5], v[6:9], v[16:31]\n\
  v_mfma_f32_16x16x32_f16 v[48:51], v[2:5], v[6:9], 0\n\
  v_mfma_f32_16x16x32_bf16 v[52:55], v[6:9], v[2:5], 0\n\
  v_mfma_f32_16x16x32_f16 v[64:67], v[60:63], v[64:67], 0\n\
  v_mfma_f32_16x16x32_bf16 v[70:73], v[68:71], v[72:75], 0\n\
  s_nop 15\n",
    );
    for (k, first) in (16..56).step_by(4).chain([64, 70]).enumerate() {
        let _ = writeln!(
            s,
            "  global_store_dwordx4 v10, v[{}:{}], s[6:7] offset:{}",
            first,
            first + 3,
            16 * k
        );
    }
    s.push_str(
        "  s_endpgm
.Lend:
  .size mm, .Lend-mm
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel mm
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 76
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 76
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: mm
    .symbol: mm.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 14
    .vgpr_count: 76
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
",
    );
    let guest = common::assemble(&s, "gfx950", "mm");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    let k = &t.kernels[0];
    assert_eq!(k.expanded, 6);
    // Both overlapping MFMAs saved their halves in dead guest VGPRs.
    assert_eq!(k.scratch_reused, 2, "{k:?}");
    assert_eq!(k.vgprs.0, k.vgprs.1, "the VGPR count grew: {k:?}");
    let dis = common::llvm_accepts(&t.object, "mm");
    assert!(dis.contains("v_mfma_f32_32x32x8_f16") && dis.contains("v_mfma_f32_16x16x16_bf16"));
    // Per lane 8 halves of A (v[2:5]) and 8 of B (v[6:9]): f16 bits of small values, which
    // read as bf16 are small finite numbers too.
    let mut x = 0x1234_5678u32;
    let halves: Vec<u16> = (0..64 * 16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            half::f16::from_f32(((x % 64) as f32 - 32.0) / 16.0).to_bits()
        })
        .collect();
    let input: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
    let run = |bytes: &[u8], target| -> Vec<f32> {
        let mut dev = Device::new(target);
        let m = dev.load_code_object(bytes).expect("loads");
        let ia = dev.alloc(input.len() as u64).unwrap();
        dev.copy_in(ia, &input).unwrap();
        let oa = dev.alloc(64 * 192).unwrap();
        let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
        let id = dev
            .dispatch(m, "mm", &cfg, &[ArgValue::ptr(ia), ArgValue::ptr(oa)])
            .expect("dispatch");
        dev.wait(id).expect("runs");
        let mut out = vec![0u8; 64 * 192];
        dev.copy_out(oa, &mut out).unwrap();
        out.chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    // Element `v` (0..8) of lane `l`'s A (src 0) or B (src 1) as f16 or bf16.
    let elem = |src: usize, l: usize, v: usize, bf: bool| -> f64 {
        let h = halves[l * 16 + src * 8 + v];
        if bf {
            f64::from(half::bf16::from_bits(h).to_f32())
        } else {
            f64::from(half::f16::from_bits(h).to_f32())
        }
    };
    // CDNA layouts (model's exec::matrix::layout, AMD's matrix calculator): operand
    // element [i][k] at lane (k / 8) * M + i, value k % 8; D[i][j] in register
    // (i / 8) * 4 + i % 4, lane ((i / 4) % 2) * 32 + j for 32x32 and register i % 4,
    // lane (i / 4) * 16 + j for 16x16.
    let mfma = |m: usize, bf: bool, a_src: usize, c: &dyn Fn(usize, usize) -> f64| {
        let k_total = 512 / m;
        let mut d = vec![(0.0f64, 0.0f64); m * m];
        for i in 0..m {
            for j in 0..m {
                let (mut acc, mut mag) = (c(i, j), c(i, j).abs());
                for k in 0..k_total {
                    let p = elem(a_src, (k / 8) * m + i, k % 8, bf)
                        * elem(1 - a_src, (k / 8) * m + j, k % 8, bf);
                    acc += p;
                    mag += p.abs();
                }
                d[i * m + j] = (acc, mag);
            }
        }
        d
    };
    let slot = |m: usize, i: usize, j: usize| -> (usize, usize) {
        if m == 32 {
            ((i / 8) * 4 + i % 4, ((i / 4) % 2) * 32 + j)
        } else {
            (i % 4, (i / 4) * 16 + j)
        }
    };
    let want = run(&guest, Target::Gfx950);
    let got = run(&t.object, Target::Gfx942);
    let at = |out: &[f32], first: usize, reg: usize, lane: usize| out[lane * 48 + first + reg];
    let d1 = mfma(32, false, 0, &|_, _| 0.0);
    let d1_model = |i: usize, j: usize| {
        let (r, l) = slot(32, i, j);
        f64::from(at(&want, 0, r, l))
    };
    let d2 = mfma(32, true, 0, &d1_model);
    let d3 = mfma(16, false, 0, &|_, _| 0.0);
    let d4 = mfma(16, true, 1, &|_, _| 0.0);
    let d5 = mfma(16, true, 0, &|_, _| 0.0);
    let mut bad = Vec::new();
    for (name, m, first, d) in [
        ("32x32x16_f16", 32, 0, &d1),
        ("32x32x16_bf16", 32, 16, &d2),
        ("16x16x32_f16", 16, 32, &d3),
        ("16x16x32_bf16", 16, 36, &d4),
        ("16x16x32_f16 D = B", 16, 40, &d3),
        ("16x16x32_bf16 D over A and B", 16, 44, &d5),
    ] {
        for i in 0..m {
            for j in 0..m {
                let (r, l) = slot(m, i, j);
                let (acc, mag) = d[i * m + j];
                // The model notes' bound for a different order of the f32 additions.
                let tol = (512 / m) as f64 * 2f64.powi(-23) * mag + 1e-30;
                let (w, g) = (
                    f64::from(at(&want, first, r, l)),
                    f64::from(at(&got, first, r, l)),
                );
                if (w - acc).abs() > tol || (g - acc).abs() > tol || (g - w).abs() > tol {
                    bad.push(format!(
                        "{name} [{i}][{j}]: gfx950 {w} gfx942 {g} ref {acc} (tol {tol:e})"
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

/// A wide-K MFMA whose D is its B (IREE's form) in a kernel where no VGPR is free (every
/// one is loaded or an MFMA result, so a load may still be writing it): the saved half
/// takes VGPRs above the kernel's and the descriptor grows. The inputs are small
/// multiples of 1/4, so every sum is exact and the gfx942 run must equal the gfx950 run
/// bit for bit.
#[test]
fn overlapping_split_mfma_grows_the_descriptor_when_no_vgpr_is_dead() {
    let body = "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v4, 5, v0\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx4 v[0:3], v4, s[4:5]\n\
  global_load_dwordx4 v[4:7], v4, s[4:5] offset:16\n\
  s_waitcnt vmcnt(0)\n\
  v_mfma_f32_16x16x32_f16 v[4:7], v[0:3], v[4:7], 0\n\
  s_nop 15\n\
  v_mbcnt_lo_u32_b32 v0, -1, 0\n\
  v_mbcnt_hi_u32_b32 v0, -1, v0\n\
  v_lshlrev_b32_e32 v0, 4, v0\n\
  global_store_dwordx4 v0, v[4:7], s[6:7]\n\
  s_endpgm\n";
    let guest = common::assemble(&small_kernel("mmg", body, 8, 3), "gfx950", "mmg");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    let k = &t.kernels[0];
    assert_eq!((k.expanded, k.scratch_reused), (1, 0), "{k:?}");
    assert!(k.vgprs.1 > k.vgprs.0, "the VGPR count did not grow: {k:?}");
    let dis = common::llvm_accepts(&t.object, "mmg");
    assert!(dis.contains("v_mfma_f32_16x16x16_f16"), "{dis}");
    let mut x = 0x9e37_79b9u32;
    let input: Vec<u32> = (0..64 * 8)
        .map(|_| {
            let mut h = [0u16; 2];
            for e in &mut h {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *e = half::f16::from_f32(((x % 8) as f32 - 4.0) / 4.0).to_bits();
            }
            u32::from(h[0]) | u32::from(h[1]) << 16
        })
        .collect();
    let want = run_small(&guest, Target::Gfx950, "mmg", &input, 64 * 4);
    let got = run_small(&t.object, Target::Gfx942, "mmg", &input, 64 * 4);
    assert!(
        want.iter().filter(|&&w| w != 0).count() > 64,
        "degenerate run"
    );
    assert_eq!(want, got);
}

/// `ds_read_b64_tr_b16` (with an offset, full and partial EXEC) and `ds_read_b64_tr_b8`
/// against the transpose mapping of the model's notes (AMD rocRoller's gfx950 tests):
/// in each 16-lane group, lane `t`'s element `k` is element `(16k + t) % n` of the 64 bits
/// that lane `(16k + t) / n` of the group reads; inactive lanes contribute zeros and
/// are not written.
#[test]
fn transposing_lds_reads_expand_to_permuted_narrow_reads() {
    const EXEC: u64 = 0xff00_ff0f_f0f0_0ff0;
    let mut s = String::from(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl tr\n  .p2align 8\n  .type tr,@function\ntr:\n\
  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 4, v0\n\
  v_mul_u32_u24_e32 v6, 24, v0\n\
  v_and_b32_e32 v6, 0x1f8, v6\n\
  v_mul_u32_u24_e32 v7, 24, v0\n\
  v_mov_b32_e32 v14, 0x5a5a5a5a\n\
  v_mov_b32_e32 v15, 0x5a5a5a5a\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx4 v[2:5], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n\
  ds_write_b128 v1, v[2:5]\n\
  s_waitcnt lgkmcnt(0)\n\
  ds_read_b64_tr_b16 v[10:11], v6 offset:16\n\
  ds_read_b64_tr_b8 v[12:13], v6\n",
    );
    let _ = writeln!(s, "  s_mov_b32 exec_lo, {:#x}", EXEC as u32);
    let _ = writeln!(s, "  s_mov_b32 exec_hi, {:#x}", (EXEC >> 32) as u32);
    s.push_str(
        "  ds_read_b64_tr_b16 v[14:15], v6 offset:8
  s_mov_b64 exec, -1
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v7, v[10:13], s[6:7]
  global_store_dwordx2 v7, v[14:15], s[6:7] offset:16
  s_endpgm
.Lend:
  .size tr, .Lend-tr
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel tr
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_group_segment_fixed_size 1024
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: tr
    .symbol: tr.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
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
",
    );
    let guest = common::assemble(&s, "gfx950", "tr");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 3);
    let dis = common::llvm_accepts(&t.object, "tr");
    assert!(!dis.contains("_tr_") && dis.contains("ds_read_u16") && dis.contains("ds_read_u8"));
    let lds: Vec<u8> = (0..1024u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 24) as u8)
        .collect();
    let run = |bytes: &[u8], target| -> Vec<u32> {
        let mut dev = Device::new(target);
        let m = dev.load_code_object(bytes).expect("loads");
        let ia = dev.alloc(lds.len() as u64).unwrap();
        dev.copy_in(ia, &lds).unwrap();
        let oa = dev.alloc(64 * 24).unwrap();
        let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
        let id = dev
            .dispatch(m, "tr", &cfg, &[ArgValue::ptr(ia), ArgValue::ptr(oa)])
            .expect("dispatch");
        dev.wait(id).expect("runs");
        let mut out = vec![0u8; 64 * 24];
        dev.copy_out(oa, &mut out).unwrap();
        out.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let read64 =
        |a: usize| -> u64 { (0..8).fold(0, |v, b| v | u64::from(lds[(a + b) % 1024]) << (8 * b)) };
    let reference = |bits: usize, off: usize, exec: u64| -> Vec<Option<u64>> {
        let n = 64 / bits;
        let src: Vec<u64> = (0..64)
            .map(|l| {
                if exec >> l & 1 != 0 {
                    read64(((l * 24) & 0x1f8) + off)
                } else {
                    0
                }
            })
            .collect();
        (0..64)
            .map(|l| {
                (exec >> l & 1 != 0).then(|| {
                    let (g, t) = (l & !15, l & 15);
                    (0..n).fold(0u64, |o, k| {
                        let x = 16 * k + t;
                        let e = src[g + x / n] >> (bits * (x % n)) & ((1 << bits) - 1);
                        o | e << (bits * k)
                    })
                })
            })
            .collect()
    };
    let r16 = reference(16, 16, u64::MAX);
    let r8 = reference(8, 0, u64::MAX);
    let rp = reference(16, 8, EXEC);
    let want = run(&guest, Target::Gfx950);
    let got = run(&t.object, Target::Gfx942);
    // The gfx1201 host reads the rows with `v_permlane16_var_b32` (BOUND_CTRL for the
    // inactive lanes' zeros): 8 per b16 read, 16 for the b8 one.
    let t12 = dbt::translate(&guest, Target::Gfx1201);
    assert!(t12.translated, "{:?}", t12.diagnostics);
    let dis12 = common::llvm_accepts_as(&t12.object, "tr-gfx1201", "gfx1201");
    assert!(
        dis12.matches("v_permlane16_var_b32").count() == 32
            && dis12.matches("ds_load_b64").count() == 3
            && !dis12.contains("ds_bpermute"),
        "{dis12}"
    );
    let got12 = run(&t12.object, Target::Gfx1201);
    for l in 0..64 {
        let pair =
            |w: &[u32], i: usize| u64::from(w[6 * l + i]) | u64::from(w[6 * l + i + 1]) << 32;
        let r = [
            r16[l].unwrap(),
            r8[l].unwrap(),
            rp[l].unwrap_or(0x5a5a_5a5a_5a5a_5a5a),
        ];
        for (f, r) in r.iter().enumerate() {
            assert_eq!(pair(&want, 2 * f), *r, "gfx950 form {f} lane {l}");
            assert_eq!(pair(&got, 2 * f), *r, "translated gfx942 form {f} lane {l}");
            assert_eq!(
                pair(&got12, 2 * f),
                *r,
                "translated gfx1201 form {f} lane {l}"
            );
        }
    }
}

/// A gfx950 kernel `name` (assembly body `body`, which ends in `s_endpgm`) with two
/// pointer arguments (`in`, `out`), `vgprs` VGPRs and the given f32 denormal mode.
fn small_kernel(name: &str, body: &str, vgprs: u32, denorm32: u32) -> String {
    let acc = vgprs.next_multiple_of(4);
    format!(
        "  .amdhsa_code_object_version 6\n  .text\n  .globl {name}\n  .p2align 8\n  .type {name},@function\n{name}:\n{body}\
.Lend:
  .size {name}, .Lend-{name}
  .p2alignl 6, 0xbf800000
  .fill 64, 4, 0xbf800000
  .rodata
  .p2align 6
  .amdhsa_kernel {name}
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr {vgprs}
    .amdhsa_next_free_sgpr 9
    .amdhsa_accum_offset {acc}
    .amdhsa_float_denorm_mode_32 {denorm32}
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: {name}
    .symbol: {name}.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 15
    .vgpr_count: {vgprs}
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .uses_dynamic_stack: false
    .args:
      - {{ .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
"
    )
}

/// Runs kernel `name` of `bytes` on one wave with `input` and returns `out_words` words.
fn run_small(
    bytes: &[u8],
    target: Target,
    name: &str,
    input: &[u32],
    out_words: usize,
) -> Vec<u32> {
    common::run_words(bytes, target, name, [64, 64], Some(input), out_words, &[])
}

/// CPU reference of one f32 -> bf16 conversion of `v_cvt_pk_bf16_f32` (CDNA4 guide:
/// round to nearest even; NaNs stay NaN, quieted; MODE's f32 denormal field flushes
/// denormal inputs (bit 0 clear) and denormal results (bit 1 clear) to zeros of their
/// sign). Rounding by the `half` crate, NaNs by hand.
fn bf16_ref(x: u32, denorm32: u32) -> u32 {
    let x = if denorm32 & 1 == 0 && x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    };
    let f = f32::from_bits(x);
    if f.is_nan() {
        return x >> 16 | 0x40;
    }
    let r = u32::from(half::bf16::from_f32(f).to_bits());
    if denorm32 & 2 == 0 && r & 0x7f80 == 0 {
        r & 0x8000
    } else {
        r
    }
}

/// `v_cvt_pk_bf16_f32` in four operand forms (VGPRs; VOP3 neg/abs; an SGPR; an inline
/// float constant) under each f32 denormal mode, on inputs with every kind of f32:
/// ties, values that round into the next binade and to infinity, denormals (some
/// rounding up to the smallest normal), signalling and quiet NaNs, zeros, infinities.
#[test]
fn cvt_pk_bf16_f32_rounds_like_the_guest() {
    let specials: [u32; 16] = [
        0x3f80_8000, // tie, even: stays
        0x3f81_8000, // tie, odd: up
        0x3f80_8001, // above the tie
        0x7f7f_ffff, // max finite: rounds to infinity
        0x007f_ffff, // largest denormal: rounds to the smallest normal
        0x0000_8001, // denormal
        0x8000_0001, // negative denormal, rounds to -0
        0x7f80_0001, // signalling NaN
        0xffc1_2345, // quiet NaN with payload
        0x7fff_ffff, // NaN, all ones
        0x7f80_0000,
        0xff80_0000,
        0x8000_0000,
        0x0000_0000,
        0x3fff_ffff,
        0xc2f7_7fff,
    ];
    let mut x = 0x2545_f491u32;
    let input: Vec<u32> = (0..128usize)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i % 3 == 0 {
                x
            } else {
                specials[(i * 7 / 3) % 16]
            }
        })
        .collect();
    let body = "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v1, 3, v0\n\
  v_lshlrev_b32_e32 v4, 4, v0\n\
  s_mov_b32 s8, 0x807fffff\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx2 v[2:3], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n\
  v_cvt_pk_bf16_f32 v10, v2, v3\n\
  v_cvt_pk_bf16_f32 v11, -v2, |v3|\n\
  v_cvt_pk_bf16_f32 v12, s8, v2\n\
  v_cvt_pk_bf16_f32 v13, v3, -4.0\n\
  global_store_dwordx4 v4, v[10:13], s[6:7]\n\
  s_endpgm\n";
    for mode in 0..4u32 {
        let guest = common::assemble(&small_kernel("pk", body, 14, mode), "gfx950", "pk");
        let t = dbt::translate(&guest, Target::Gfx942);
        assert!(t.translated, "{:?}", t.diagnostics);
        assert_eq!(t.kernels[0].expanded, 4);
        let dis = common::llvm_accepts(&t.object, &format!("cvt-pk-bf16-{mode}"));
        assert!(!dis.contains("v_cvt_pk_bf16") && dis.contains("v_perm_b32"));
        let want = run_small(&guest, Target::Gfx950, "pk", &input, 256);
        let got = run_small(&t.object, Target::Gfx942, "pk", &input, 256);
        // gfx1201 (no bf16 conversion either): the same rule re-encoded for GFX12.
        let t12 = dbt::translate(&guest, Target::Gfx1201);
        assert!(t12.translated, "{:?}", t12.diagnostics);
        let dis =
            common::llvm_accepts_as(&t12.object, &format!("cvt-pk-bf16-{mode}-12"), "gfx1201");
        assert!(!dis.contains("v_cvt_pk_bf16") && dis.contains("v_perm_b32"));
        let got12 = run_small(&t12.object, Target::Gfx1201, "pk", &input, 256);
        for l in 0..64 {
            let (a, b) = (input[2 * l], input[2 * l + 1]);
            let pk = |lo: u32, hi: u32| bf16_ref(lo, mode) | bf16_ref(hi, mode) << 16;
            let r = [
                pk(a, b),
                pk(a ^ 0x8000_0000, b & 0x7fff_ffff),
                pk(0x807f_ffff, a),
                pk(b, (-4.0f32).to_bits()),
            ];
            assert_eq!(
                &want[4 * l..4 * l + 4],
                &r,
                "gfx950 mode {mode} lane {l} in {a:#x} {b:#x}"
            );
            assert_eq!(
                &got[4 * l..4 * l + 4],
                &r,
                "translated mode {mode} lane {l} in {a:#x} {b:#x}"
            );
            assert_eq!(
                &got12[4 * l..4 * l + 4],
                &r,
                "gfx1201 mode {mode} lane {l} in {a:#x} {b:#x}"
            );
        }
    }
}

/// OCP E4M3 (fp8 of the gfx950 `f8f6f4` MFMAs with CBSZ = BLGP = 0; OCP 8-bit floating
/// point spec v1.0): bias 7, denormals at exponent 0, S.1111.111 NaN, no infinity.
fn e4m3(b: u8) -> f64 {
    let (s, e, m) = (b >> 7, (b >> 3) & 15, b & 7);
    if e == 15 && m == 7 {
        return f64::NAN;
    }
    let v = if e == 0 {
        f64::from(m) / 8.0 * 2f64.powi(-6)
    } else {
        (1.0 + f64::from(m) / 8.0) * 2f64.powi(i32::from(e) - 7)
    };
    if s == 1 {
        -v
    } else {
        v
    }
}

/// `v_mfma_f32_32x32x64_f8f6f4` (C in other registers than D, and C = D) and
/// `v_mfma_f32_16x16x128_f8f6f4` (C = 0) with fp8 A and B, and
/// `v_mfma_f32_16x16x32_fp8_fp8` (OCP on gfx950), translated to gfx942 FNUZ fp8 MFMAs: results within the f32 reordering bound of a CPU reference (f64) and of the
/// gfx950 run. The second MFMA reuses the first's converted operands; the third reads A
/// after a VALU write to it and must convert it again. The bytes include -0 (FNUZ's NaN code), the largest finite values (448)
/// and denormals; NaN bytes (a separate run) give NaN results.
#[test]
fn fp8_f8f6f4_mfmas_run_as_fnuz_fp8_mfmas() {
    let body = "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_lshlrev_b32_e32 v61, 7, v0\n\
  v_mul_u32_u24_e32 v60, 0xa0, v0\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx4 v[0:3], v61, s[4:5]\n\
  global_load_dwordx4 v[4:7], v61, s[4:5] offset:16\n\
  global_load_dwordx4 v[8:11], v61, s[4:5] offset:32\n\
  global_load_dwordx4 v[12:15], v61, s[4:5] offset:48\n\
  global_load_dwordx4 v[16:19], v61, s[4:5] offset:64\n\
  global_load_dwordx4 v[20:23], v61, s[4:5] offset:80\n\
  global_load_dwordx4 v[24:27], v61, s[4:5] offset:96\n\
  global_load_dwordx4 v[28:31], v61, s[4:5] offset:112\n\
  s_waitcnt vmcnt(0)\n\
  v_mfma_f32_32x32x64_f8f6f4 v[32:47], v[0:7], v[8:15], v[16:31]\n\
  v_mfma_f32_16x16x128_f8f6f4 v[48:51], v[8:15], v[0:7], 0\n\
  v_mfma_f32_16x16x32_fp8_fp8 v[52:55], v[0:1], v[8:9], 0\n\
  v_mov_b32_e32 v5, v12\n\
  v_mfma_f32_32x32x64_f8f6f4 v[16:31], v[0:7], v[8:15], v[16:31]\n\
  s_nop 15\n\
  s_nop 15\n\
  global_store_dwordx4 v60, v[32:35], s[6:7]\n\
  global_store_dwordx4 v60, v[36:39], s[6:7] offset:16\n\
  global_store_dwordx4 v60, v[40:43], s[6:7] offset:32\n\
  global_store_dwordx4 v60, v[44:47], s[6:7] offset:48\n\
  global_store_dwordx4 v60, v[48:51], s[6:7] offset:64\n\
  global_store_dwordx4 v60, v[16:19], s[6:7] offset:80\n\
  global_store_dwordx4 v60, v[20:23], s[6:7] offset:96\n\
  global_store_dwordx4 v60, v[24:27], s[6:7] offset:112\n\
  global_store_dwordx4 v60, v[28:31], s[6:7] offset:128\n\
  global_store_dwordx4 v60, v[52:55], s[6:7] offset:144\n\
  s_endpgm\n";
    let guest = common::assemble(&small_kernel("f8", body, 62, 3), "gfx950", "f8");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 4);
    let dis = common::llvm_accepts(&t.object, "fp8-mfma");
    assert!(!dis.contains("f8f6f4") && dis.contains("v_mfma_f32_32x32x16_fp8_fp8"));
    assert!(dis.contains("v_mfma_f32_16x16x32_fp8_fp8"));
    // Per lane 32 dwords: A (8), B (8), C (16, small floats).
    let mut x = 0x9e37_79b9u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let byte_specials = [0x80u8, 0x7e, 0xfe, 0x01, 0x81, 0x07, 0x00, 0x38];
    let mut input = Vec::with_capacity(64 * 32);
    for _lane in 0..64 {
        for _ in 0..16 {
            let mut w = 0u32;
            for k in 0..4 {
                let r = next();
                let b = if r % 8 == 0 {
                    byte_specials[(r >> 3) as usize % 8]
                } else {
                    // Finite, not NaN.
                    let b = (r >> 8) as u8;
                    if b & 0x7f == 0x7f {
                        b ^ 1
                    } else {
                        b
                    }
                };
                w |= u32::from(b) << (8 * k);
            }
            input.push(w);
        }
        for _ in 0..16 {
            input.push((((next() % 200) as f32 - 100.0) / 8.0).to_bits());
        }
    }
    // Value `e` (0..32) of lane `l`'s operand in registers `first..first + 8`.
    let val = |inp: &[u32], l: usize, first: usize, e: usize| -> f64 {
        e4m3((inp[l * 32 + first + e / 4] >> (8 * (e % 4))) as u8)
    };
    // The model's f8f6f4 fp8 layout (exec::matrix::layout::f8f6f4, AMD's CDNA4 matrix
    // core blog): value e of lane l is k = (K/2) * (e / 16) + 16 * (l / M) + e % 16 of
    // row (column) l % M.
    let mfma = |inp: &[u32], m: usize, a: usize, b: usize, c: &dyn Fn(usize, usize) -> f64| {
        let kk = 2048 / m;
        let lane_of = |k: usize, i: usize| -> (usize, usize) {
            let (h, r) = (k / (kk / 2), k % (kk / 2));
            ((r / 16) * m + i, 16 * h + r % 16)
        };
        let mut d = vec![(0.0f64, 0.0f64); m * m];
        for i in 0..m {
            for j in 0..m {
                let (mut acc, mut mag) = (c(i, j), c(i, j).abs());
                for k in 0..kk {
                    let (la, ea) = lane_of(k, i);
                    let (lb, eb) = lane_of(k, j);
                    let p = val(inp, la, a, ea) * val(inp, lb, b, eb);
                    acc += p;
                    mag += p.abs();
                }
                d[i * m + j] = (acc, mag);
            }
        }
        d
    };
    let slot = |m: usize, i: usize, j: usize| -> (usize, usize) {
        if m == 32 {
            ((i / 8) * 4 + i % 4, ((i / 4) % 2) * 32 + j)
        } else {
            (i % 4, (i / 4) * 16 + j)
        }
    };
    let c_in = |inp: &[u32]| {
        let inp = inp.to_vec();
        move |i: usize, j: usize| {
            let (r, l) = slot(32, i, j);
            f64::from(f32::from_bits(inp[l * 32 + 16 + r]))
        }
    };
    let want = run_small(&guest, Target::Gfx950, "f8", &input, 64 * 40);
    let got = run_small(&t.object, Target::Gfx942, "f8", &input, 64 * 40);
    let at = |out: &[u32], first: usize, reg: usize, lane: usize| {
        f64::from(f32::from_bits(out[lane * 40 + first + reg]))
    };
    let d1 = mfma(&input, 32, 0, 8, &c_in(&input));
    let d2 = mfma(&input, 16, 8, 0, &|_, _| 0.0);
    // The third MFMA reads A after `v_mov_b32 v5, v12`: its converted copy must not be
    // reused from the first.
    let mut moved = input.clone();
    for l in 0..64 {
        moved[l * 32 + 5] = moved[l * 32 + 12];
    }
    let d3 = mfma(&moved, 32, 0, 8, &c_in(&input));
    // v_mfma_f32_16x16x32_fp8_fp8 (OCP on gfx950): the CDNA layout, element [i][k] at
    // lane (k / 8) * 16 + i, byte k % 8 of the register pair.
    let mut d4 = vec![(0.0f64, 0.0f64); 256];
    for i in 0..16 {
        for j in 0..16 {
            let (mut acc, mut mag) = (0.0, 0.0);
            for k in 0..32 {
                let p = val(&input, (k / 8) * 16 + i, 0, k % 8)
                    * val(&input, (k / 8) * 16 + j, 8, k % 8);
                acc += p;
                mag += p.abs();
            }
            d4[i * 16 + j] = (acc, mag);
        }
    }
    let mut bad = Vec::new();
    for (name, m, first, d) in [
        ("32x32x64", 32, 0, &d1),
        ("16x16x128", 16, 16, &d2),
        ("32x32x64 in place", 32, 20, &d3),
        ("16x16x32 fp8", 16, 36, &d4),
    ] {
        for i in 0..m {
            for j in 0..m {
                let (r, l) = slot(m, i, j);
                let (acc, mag) = d[i * m + j];
                let tol = (2048 / m) as f64 * 2f64.powi(-23) * mag + 1e-30;
                let (w, g) = (at(&want, first, r, l), at(&got, first, r, l));
                if (w - acc).abs() > tol || (g - acc).abs() > tol || (g - w).abs() > tol {
                    bad.push(format!(
                        "{name} [{i}][{j}]: gfx950 {w} gfx942 {g} ref {acc} (tol {tol:e})"
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
    // NaN bytes (0x7f, 0xff) make NaN results on both.
    let mut nan_input = input.clone();
    nan_input[0] = 0x7f00_0000;
    nan_input[32 + 9] = 0x0000_00ff;
    let want = run_small(&guest, Target::Gfx950, "f8", &nan_input, 64 * 40);
    let got = run_small(&t.object, Target::Gfx942, "f8", &nan_input, 64 * 40);
    let nans = |o: &[u32]| {
        (0..64)
            .flat_map(|l| (0..16).map(move |r| (l, r)))
            .filter(|&(l, r)| f32::from_bits(o[l * 40 + r]).is_nan())
            .collect::<Vec<_>>()
    };
    assert!(!nans(&want).is_empty());
    assert_eq!(nans(&want), nans(&got));
}

/// `v_dot2_f32_bf16` (VGPRs; an SGPR with neg_lo/neg_hi; an inline C) against the CPU
/// reference of the model's notes (CDNA4 guide: products summed first, then C; bf16
/// elements, C and the result flushed when denormal; nearest even), on bf16 inputs with
/// denormals, zeros, infinities and NaNs, and C with denormals. A kernel whose MODE
/// flushes f32 denormals is refused by name.
#[test]
fn dot2_f32_bf16_expands_to_f32_arithmetic() {
    let body = "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n\
  v_mul_u32_u24_e32 v1, 12, v0\n\
  s_mov_b32 s8, 0x80013f81\n\
  s_waitcnt lgkmcnt(0)\n\
  global_load_dwordx3 v[2:4], v1, s[4:5]\n\
  s_waitcnt vmcnt(0)\n\
  v_dot2_f32_bf16 v10, v2, v3, v4\n\
  v_dot2_f32_bf16 v11, s8, v3, v4 neg_lo:[1,0,1] neg_hi:[0,1,1]\n\
  v_dot2_f32_bf16 v12, v3, v2, 1.0\n\
  global_store_dwordx3 v1, v[10:12], s[6:7]\n\
  s_endpgm\n";
    let guest = common::assemble(&small_kernel("dot", body, 13, 3), "gfx950", "dot");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert_eq!(t.kernels[0].expanded, 3);
    let dis = common::llvm_accepts(&t.object, "dot2-bf16");
    assert!(!dis.contains("v_dot2") && dis.contains("v_mul_f32"));
    let specials: [u16; 12] = [
        0x3f80, 0xc040, 0x0001, 0x807f, 0x0080, 0x7f80, 0xff80, 0x7fc1, 0x8000, 0x7f7f, 0x4480,
        0x3c01,
    ];
    let mut x = 0x1357_9bdfu32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut input = Vec::new();
    for i in 0..64usize {
        for k in 0..2 {
            let r = next();
            let lo = if r % 4 == 0 {
                specials[(i + k) % 12]
            } else {
                (r >> 16) as u16 & 0xc7ff
            };
            let hi = if r % 3 == 0 {
                specials[(i * 5 + k) % 12]
            } else {
                r as u16 & 0xc7ff
            };
            input.push(u32::from(lo) | u32::from(hi) << 16);
        }
        // C: a denormal every eighth lane, else small floats.
        input.push(if i % 8 == 0 {
            0x0000_1234 | (i as u32 & 16) << 27
        } else {
            ((next() % 1000) as f32 / 64.0 - 7.0).to_bits()
        });
    }
    let flush = |b: u32| {
        if b & 0x7f80_0000 == 0 {
            b & 0x8000_0000
        } else {
            b
        }
    };
    let el = |h: u32| f32::from_bits(flush(h << 16));
    let dot = |a: u32, b: u32, c: u32| {
        let p0 = el(a & 0xffff) * el(b & 0xffff);
        let p1 = el(a >> 16) * el(b >> 16);
        flush(((p0 + p1) + f32::from_bits(flush(c))).to_bits())
    };
    let want = run_small(&guest, Target::Gfx950, "dot", &input, 192);
    let got = run_small(&t.object, Target::Gfx942, "dot", &input, 192);
    let same =
        |x: u32, y: u32| x == y || (f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan());
    for l in 0..64 {
        let (a, b, c) = (input[3 * l], input[3 * l + 1], input[3 * l + 2]);
        let s8 = 0x8001_3f81u32;
        let r = [
            dot(a, b, c),
            // neg_lo[0] flips A's low element, neg_hi[1] B's high one; C: -|C|.
            dot(
                s8 ^ 0x8000,
                b ^ 0x8000_0000,
                (c & 0x7fff_ffff) ^ 0x8000_0000,
            ),
            dot(b, a, 1.0f32.to_bits()),
        ];
        for k in 0..3 {
            let (w, g) = (want[3 * l + k], got[3 * l + k]);
            assert!(
                same(w, r[k]) && same(g, r[k]),
                "form {k} lane {l} ({a:#x} {b:#x} {c:#x}): gfx950 {w:#x} gfx942 {g:#x} ref {:#x}",
                r[k]
            );
        }
    }
    // MODE flushing f32 denormals: the gfx942 arithmetic would flush the products.
    let flushing = common::assemble(&small_kernel("dot", body, 13, 0), "gfx950", "dot");
    let t = dbt::translate(&flushing, Target::Gfx942);
    assert!(!t.translated);
    let d = t.diagnostics[0].to_string();
    assert!(d.contains("v_dot2_f32_bf16") && d.contains("MODE"), "{d}");
}

/// fp8/bf8 instructions that both ISAs have compute in different formats (gfx950 OCP,
/// gfx942 FNUZ): they must be refused by name, never copied.
#[test]
fn same_mnemonic_fp8_instructions_are_refused_by_name() {
    for (inst, name) in [
        ("v_cvt_f32_fp8_e32 v10, v2", "v_cvt_f32_fp8"),
        ("v_cvt_pk_bf8_f32 v10, v2, v3", "v_cvt_pk_bf8_f32"),
        (
            "v_mfma_f32_16x16x32_bf8_bf8 v[4:7], v[2:3], v[2:3], 0",
            "v_mfma_f32_16x16x32_bf8_bf8",
        ),
    ] {
        let body = format!(
            "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n  v_lshlrev_b32_e32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n  global_load_dword v2, v1, s[4:5]\n  s_waitcnt vmcnt(0)\n  v_mov_b32_e32 v3, v2\n  {inst}\n  s_nop 15\n  global_store_dword v1, v10, s[6:7]\n  s_endpgm\n"
        );
        let guest = common::assemble(&small_kernel("f8c", &body, 11, 3), "gfx950", "f8c");
        let t = dbt::translate(&guest, Target::Gfx942);
        assert!(!t.translated, "{inst} translated");
        let d = t.diagnostics[0].to_string();
        assert!(d.contains(name) && d.contains("FNUZ"), "{inst}: {d}");
    }
}
