//! Regressions found by the translator stress run (`examples/stress.rs`: generated kernels
//! of many seeds and every generator feature, clang-22 for gfx950 at -O0/-O1/-O3,
//! translated to gfx942 and gfx1201): each case is the minimized kernel, compiled by
//! clang-22 at test time, translated to both hosts and run; the translated runs must write
//! what the gfx950 run writes and what the CPU reference computes. Needs clang-22 and the
//! LLVM 22 tools (fails without them).

mod common;

use gpu_model::device::ArgValue;
use gpu_model::Target;
use std::path::PathBuf;
use std::process::Command;

/// Compiles OpenCL C `src` for gfx950 at `-O{opt}` the way tools/difftest does (the
/// corpus prelude for work-item ids) and returns the code object.
fn compile_cl(src: &str, opt: u8, tag: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("dbt-stress-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cl = dir.join("k.cl");
    std::fs::write(&cl, src).unwrap();
    let out = dir.join("k.hsaco");
    let prelude = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/include/prelude.h");
    let st = Command::new("clang-22")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
        .args(["-nogpulib", "-w", "-mcpu=gfx950", &format!("-O{opt}")])
        .arg("-include")
        .arg(&prelude)
        .arg("-I")
        .arg(prelude.parent().unwrap())
        .arg(&cl)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("clang-22 is required (scripts/install-deps.sh)");
    assert!(st.success(), "clang-22 failed on {tag}");
    let b = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    b
}

/// Translates `guest` to both hosts, checks each object with the LLVM tools, and returns
/// (host, translated object, disassembly).
fn translate_both(guest: &[u8], tag: &str) -> Vec<(Target, Vec<u8>, String)> {
    [Target::Gfx942, Target::Gfx1201]
        .into_iter()
        .map(|h| {
            let t = dbt::translate(guest, h);
            assert!(t.translated, "{tag} to {}: {:?}", h.name(), t.diagnostics);
            let dis = common::llvm_accepts_as(&t.object, tag, h.name());
            (h, t.object, dis)
        })
        .collect()
}

/// A uniform index loaded from memory and used to index a constant buffer: clang-22 (-O1,
/// -O3) loads `in[in[n] + 5]` with SMEM's SGPR-plus-immediate form (`s_load_dword s1,
/// s[4:5], s1 offset:0x14`, IMM=1 SOE=1). gfx1201 refused it ("SMEM SGPR offsets are not
/// translated yet"); generated kernels of seed 2 with `--features all` hit it in every
/// -O1/-O3 build. GFX12 SMEM adds its soffset SGPR and 24-bit offset the same way.
#[test]
fn smem_sgpr_plus_immediate_offsets_translate() {
    const SRC: &str = "__kernel void k(__global const uint *in, __global uint *out, uint n) {
  uint i = get_global_id(0);
  out[i] = in[(in[n & 127] & 127) + 5] + in[((n >> 8) & 127) + 3] + i;
}
";
    let input: Vec<u32> = (0..256u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) >> 7)
        .collect();
    let n = 0x2a17u32;
    let reference: Vec<u32> = (0..128u32)
        .map(|i| {
            let a = input[((input[(n & 127) as usize] & 127) + 5) as usize];
            let b = input[(((n >> 8) & 127) + 3) as usize];
            a.wrapping_add(b).wrapping_add(i)
        })
        .collect();
    for opt in [1, 3] {
        let tag = format!("smem-soffset-O{opt}");
        let guest = compile_cl(SRC, opt, &tag);
        let gdis = common::llvm_accepts_as(&guest, &tag, "gfx950");
        assert!(
            gdis.contains(" offset:0x14"),
            "clang-22 no longer emits the SGPR+immediate form:\n{gdis}"
        );
        let run = |b: &[u8], t| {
            common::run_words(b, t, "k", [128, 64], Some(&input), 128, &[ArgValue::u32(n)])
        };
        assert_eq!(run(&guest, Target::Gfx950), reference, "{tag} gfx950");
        for (h, obj, _) in translate_both(&guest, &tag) {
            assert_eq!(run(&obj, h), reference, "{tag} on {}", h.name());
        }
    }
}

/// A 64-bit constant with bit 31 set and a zero high word: clang-22 -O0 materializes it
/// with `v_mov_b64_e32 v[0:1], 0xb3388de0` (a 32-bit literal, zero-extended: llc-22 emits
/// this form for 0x00000000b3388de0 only). gfx1201 refused it ("a 64-bit literal with bit
/// 31 set"); generated seed 3 kernel 27 at -O0 hit it.
#[test]
fn v_mov_b64_literals_with_bit_31_set_are_zero_extended() {
    const SRC: &str = "__kernel void k(__global const uint *in, __global ulong *out) {
  uint i = get_global_id(0);
  ulong c = 0xb3388de0UL;
  out[i] = ((ulong)in[i] * 0x10001UL) ^ c;
}
";
    let input: Vec<u32> = (0..128u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let reference: Vec<u32> = input
        .iter()
        .flat_map(|&x| {
            let v = (u64::from(x) * 0x10001) ^ 0xb338_8de0;
            [v as u32, (v >> 32) as u32]
        })
        .collect();
    let tag = "movb64-literal-O0";
    let guest = compile_cl(SRC, 0, tag);
    let gdis = common::llvm_accepts_as(&guest, tag, "gfx950");
    assert!(
        gdis.contains("v_mov_b64_e32 v[0:1], 0xb3388de0"),
        "clang-22 no longer emits the literal form:\n{gdis}"
    );
    let run = |b: &[u8], t| common::run_words(b, t, "k", [128, 64], Some(&input), 256, &[]);
    assert_eq!(run(&guest, Target::Gfx950), reference, "gfx950");
    for (h, obj, _) in translate_both(&guest, tag) {
        assert_eq!(run(&obj, h), reference, "on {}", h.name());
    }
}

/// Returning global atomics (sc0) whose old value goes to another register than the data:
/// GFX9's VDST is not in the instruction's operand list (the non-returning syntax), and the
/// gfx1201 translation left it 0, so the old value overwrote v0 (generated seed 4 kernel
/// 39 at -O0 then read through a clobbered pointer; kernels 102, 127, 132, 134 differed).
#[test]
fn returning_atomics_keep_their_destination() {
    const SRC: &str = "__kernel void k(__global const uint *in, __global uint *out) {
  uint i = get_global_id(0);
  uint a = atomic_xor_dev(&out[2 * i], in[i]);
  uint b = atomic_add_dev(&out[2 * i], a + 7u);
  out[2 * i + 1] = b * 3u + a;
}
";
    let input: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) | 1)
        .collect();
    // out starts zeroed: a = 0, b = in[i].
    let reference: Vec<u32> = input
        .iter()
        .flat_map(|&x| [x.wrapping_add(7), x.wrapping_mul(3)])
        .collect();
    for opt in [0, 1] {
        let tag = format!("atomic-return-O{opt}");
        let guest = compile_cl(SRC, opt, &tag);
        let gdis = common::llvm_accepts_as(&guest, &tag, "gfx950");
        assert!(gdis.contains(" sc0"), "no returning atomic:\n{gdis}");
        let run = |b: &[u8], t| common::run_words(b, t, "k", [128, 64], Some(&input), 256, &[]);
        assert_eq!(run(&guest, Target::Gfx950), reference, "{tag} gfx950");
        for (h, obj, _) in translate_both(&guest, &tag) {
            assert_eq!(run(&obj, h), reference, "{tag} on {}", h.name());
        }
    }
}

/// Generated kernels (tools/difftest) the stress run found differing or refused on a
/// host, each alone: (seed, kernel, features, -O levels). Each is compiled for gfx950,
/// translated to gfx942 and gfx1201, and both runs must write, bit for bit, what the
/// gfx950 run writes and what the host computes.
const GENERATED: &[(u64, u64, &str, &[u8])] = &[
    // Returning atomics (the VDST fix).
    (4, 39, "", &[0]),
    (2, 55, "", &[0]),
    // v_mad_legacy_u16 in a loop (`mad_legacy16`).
    (6, 139, "", &[1, 3]),
];

#[test]
fn generated_regressions_translate_and_match_the_host() {
    use difftest::{batch_source, compile_device, gen, host_reference, run_device, Build};
    let dir = std::env::temp_dir().join(format!("dbt-stress-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut problems = Vec::new();
    for &(seed, index, features, opts) in GENERATED {
        let f = gen::Features::parse(features).unwrap();
        let kernels = [gen::kernel_with(seed, index, f)];
        let inputs = gen::input(seed, index);
        let src = batch_source(&kernels);
        let cl = dir.join(format!("s{seed}-k{index}.cl"));
        std::fs::write(&cl, &src).unwrap();
        let host = host_reference(&dir, &src, &kernels, &inputs).expect("host reference");
        for &opt in opts {
            let b = Build {
                target: Target::Gfx950,
                wave64: true,
                opt,
            };
            let obj = dir.join(format!("s{seed}-k{index}-O{opt}.hsaco"));
            let guest = compile_device(&cl, b, &obj).expect("clang-22 for gfx950");
            let want = run_device(b, &guest, &kernels, &inputs);
            assert_eq!(
                want[0].as_ref(),
                Ok(&host[0]),
                "seed {seed} k{index} -O{opt}"
            );
            for h in [Target::Gfx942, Target::Gfx1201] {
                let t = dbt::translate(&guest, h);
                if !t.translated {
                    problems.push(format!(
                        "seed {seed} k{index} -O{opt} {}: {:?}",
                        h.name(),
                        t.diagnostics
                    ));
                    continue;
                }
                let got = run_device(Build { target: h, ..b }, &t.object, &kernels, &inputs);
                if got != want {
                    problems.push(format!(
                        "seed {seed} k{index} -O{opt} {}: differs",
                        h.name()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second slice of the generator next to the seed-1 CI tests (difftest.rs, rdna.rs):
/// seed 2 with every generator feature (partial groups, f16 fma, vector division,
/// sub-groups, transcendentals), kernels 0..16 at -O0 (stack traffic, returning atomics,
/// 64-bit literals; -O3 is the seed-1 tests'), translated to both hosts: each translated run writes bit for
/// bit what the gfx950 run writes (the gfx950 run against the host is tools/difftest's
/// check).
#[test]
fn generated_kernels_with_every_feature_run_the_same_on_both_hosts() {
    use difftest::{batch_source, compile_device, gen, run_device, Build};
    let dir = std::env::temp_dir().join(format!("dbt-stress-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = gen::Features::all();
    let kernels: Vec<gen::Kernel> = (0..16).map(|i| gen::kernel_with(2, i, f)).collect();
    let inputs: Vec<u32> = (0..16).flat_map(|i| gen::input(2, i)).collect();
    let cl = dir.join("batch.cl");
    std::fs::write(&cl, batch_source(&kernels)).unwrap();
    let mut problems = Vec::new();
    let mut compared = 0;
    {
        let opt = 0;
        let b = Build {
            target: Target::Gfx950,
            wave64: true,
            opt,
        };
        let guest = compile_device(&cl, b, &dir.join(format!("O{opt}.hsaco"))).expect("clang-22");
        let want = run_device(b, &guest, &kernels, &inputs);
        for h in [Target::Gfx942, Target::Gfx1201] {
            let t = dbt::translate(&guest, h);
            if !t.translated {
                problems.push(format!("-O{opt} {}: {:?}", h.name(), t.diagnostics));
                continue;
            }
            common::llvm_accepts_as(&t.object, &format!("all-O{opt}"), h.name());
            let got = run_device(Build { target: h, ..b }, &t.object, &kernels, &inputs);
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                match (w, g) {
                    (Ok(w), Ok(g)) if w == g => compared += 1,
                    _ => problems.push(format!("k{i} -O{opt} {}: differs", h.name())),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(compared, 2 * kernels.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// corpus/src/cl/const_table.cl's kernel (CRC-32 through a `__constant` table reached with
/// `s_getpc_b64; s_add_u32; s_addc_u32`) at -O0: the gfx942 translation relocates the
/// kernel, and the PC-relative data address kept the guest's offset, so the table was
/// read from the wrong place (every output wrong; the stress run's corpus sweep). Now
/// the pair is re-aimed like gfx1201's (`scope::Fixup::Data`).
#[test]
fn relocated_code_keeps_its_pc_relative_data_addresses() {
    // The corpus source with the table written out (its macro-built initializer takes
    // clang-22 -O0 many seconds).
    let table: Vec<String> = (0..256u32)
        .map(|i| {
            let mut c = i;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    c >> 1 ^ 0xedb8_8320
                } else {
                    c >> 1
                };
            }
            format!("{c:#x}u")
        })
        .collect();
    let src = format!(
        "GFX_CONSTANT uint crc_table[256] = {{ {} }};
GFX_KERNEL void const_table(GFX_GLOBAL const uchar *data, GFX_GLOBAL uint *out, uint n) {{
  uint i = get_global_id(0);
  if (i >= n) return;
  uint crc = 0xFFFFFFFFu;
  for (uint k = 0; k < 16u; ++k) crc = crc_table[(crc ^ data[16u * i + k]) & 255u] ^ (crc >> 8);
  out[i] = ~crc;
}}
",
        table.join(", ")
    );
    let guest = compile_cl(&src, 0, "const-table-O0");
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    assert!(
        t.kernels
            .iter()
            .any(|k| k.status == dbt::KernelStatus::Relocated),
        "not relocated any more: {:?}",
        t.kernels
    );
    let n = 16u32;
    let data: Vec<u32> = (0..4 * n)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x1234_5678)
        .collect();
    let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
    let reference: Vec<u32> = bytes
        .chunks(16)
        .map(|r| {
            let mut crc = 0xffff_ffffu32;
            for &b in r {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 != 0 {
                        crc >> 1 ^ 0xedb8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        })
        .collect();
    let run = |b: &[u8], t| {
        common::run_words(
            b,
            t,
            "const_table",
            [64, 64],
            Some(&data),
            n as usize,
            &[ArgValue::u32(n)],
        )
    };
    assert_eq!(run(&guest, Target::Gfx950), reference, "gfx950");
    for (h, obj, _) in translate_both(&guest, "const-table-O0") {
        assert_eq!(run(&obj, h), reference, "on {}", h.name());
    }
}

/// NaN operands of f32 arithmetic: the model returns the first NaN operand in source
/// order, quieted (`gpu_model` `float::first_nan32`), whatever the host compiler did with
/// the operand order. Generated seed 9 kernel 41 (`--features all`, -O3) found it: clang
/// adds with `v_pk_add_f32 v[0:1], v[0:1], v[0:1] op_sel_hi:[0,1] neg_lo:[0,1]
/// neg_hi:[0,1]`, whose low half is `v0 + -v0`; on a NaN `v0` the gfx950 run returned
/// `-v0` and the gfx1201 translation (`v_add_f32_e64 v5, v0, -v0`) `v0`. A gfx950
/// assembly kernel runs that instruction and a `v_pk_fma_f32` on NaNs of both signs,
/// signalling and quiet, and on numbers; gfx950 and both translations must write what the
/// rule says.
#[test]
fn nan_operands_give_the_first_nan_in_source_order_on_every_host() {
    let src = r#"
  .amdhsa_code_object_version 5
  .text
  .globl nanord
  .p2align 8
  .type nanord,@function
nanord:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v4, 3, v0
  v_lshlrev_b32 v5, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[0:1], v4, s[4:5]
  s_waitcnt vmcnt(0)
  v_mov_b32 v2, v0
  v_mov_b32 v3, v1
  v_pk_add_f32 v[0:1], v[0:1], v[0:1] op_sel_hi:[0,1] neg_lo:[0,1] neg_hi:[0,1]
  v_pk_fma_f32 v[2:3], v[2:3], v[2:3], v[2:3] op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[0,0,1]
  global_store_dwordx4 v5, v[0:3], s[6:7]
  s_endpgm
.Lnan_end:
  .size nanord, .Lnan_end-nanord
  .rodata
  .p2align 6
  .amdhsa_kernel nanord
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 6
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: nanord
    .symbol: nanord.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 6
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
"#;
    // (x, y) per lane: NaNs of both signs, quiet and signalling, with payloads, and
    // numbers (none makes an invalid operation: no infinities).
    let vals = [
        0x7fc0_0000u32,
        0xffc0_0000,
        0x7f80_0001,
        0xff80_1234,
        0x7fc0_5678,
        0x3f80_0000,
        0xc040_0000,
        0x0000_0000,
    ];
    let input: Vec<u32> = (0..64).flat_map(|l| [vals[l % 8], vals[l / 8]]).collect();
    let nan = |b: u32| b & 0x7fff_ffff > 0x7f80_0000;
    // The first NaN among `ops` (source order), quieted; else `r`.
    let rule = |ops: &[u32], r: f32| {
        ops.iter()
            .find(|&&b| nan(b))
            .map_or(r.to_bits(), |&b| b | 0x0040_0000)
    };
    let f = f32::from_bits;
    let reference: Vec<u32> = input
        .chunks(2)
        .flat_map(|p| {
            let (x, y) = (p[0], p[1]);
            let neg = |b: u32| b ^ 0x8000_0000;
            // v_pk_add: lo = x + -x, hi = x + -y.
            let lo = rule(&[x, neg(x)], f(x) + f(neg(x)));
            let hi = rule(&[x, neg(y)], f(x) + f(neg(y)));
            // v_pk_fma (op_sel [1,0,0], op_sel_hi [0,1,1], neg_lo [0,0,1]):
            // lo = fma(y, x, -x), hi = fma(x, y, y).
            let flo = rule(&[y, x, neg(x)], f(y).mul_add(f(x), f(neg(x))));
            let fhi = rule(&[x, y, y], f(x).mul_add(f(y), f(y)));
            [lo, hi, flo, fhi]
        })
        .collect();
    let guest = common::assemble(src, "gfx950", "nan-order");
    let run = |b: &[u8], t| common::run_words(b, t, "nanord", [64, 64], Some(&input), 256, &[]);
    let show = |got: &[u32]| {
        got.iter()
            .zip(&reference)
            .enumerate()
            .filter(|(_, (g, w))| g != w)
            .take(6)
            .map(|(k, (g, w))| format!("word {k}: {g:#010x}, want {w:#010x}"))
            .collect::<Vec<_>>()
    };
    let g = run(&guest, Target::Gfx950);
    assert!(g == reference, "gfx950: {:?}", show(&g));
    for (h, obj, _) in translate_both(&guest, "nan-order") {
        let got = run(&obj, h);
        assert!(got == reference, "{}: {:?}", h.name(), show(&got));
    }
}
