//! Malformed or hostile input is rejected with a diagnostic that says what and where,
//! the original bytes come back unchanged, and nothing panics.

mod common;

use dbt::TranslateError;
use gpu_model::Target;

fn corpus(path: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build")
        .join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Translates and expects a failure; returns the diagnostic text.
fn rejected(bytes: &[u8]) -> (TranslateError, String) {
    let t = dbt::translate(bytes, Target::Gfx942);
    assert!(!t.translated, "accepted");
    assert_eq!(t.object, bytes, "the original comes back");
    let e = t.diagnostics.into_iter().next().expect("a diagnostic");
    let s = e.to_string();
    (e, s)
}

/// Overwrites the 8-byte entry offset of the descriptor at file offset `kd`.
fn set_entry(b: &mut [u8], kd: usize, v: i64) {
    b[kd + 16..kd + 24].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn truncated_elf_is_a_load_error_at_every_length() {
    let b = corpus("gfx950/vadd.hsaco");
    for len in (0..b.len()).step_by(97) {
        let (e, s) = rejected(&b[..len]);
        assert!(matches!(e, TranslateError::Load(_)), "{len}: {s}");
    }
}

#[test]
fn descriptor_pointing_outside_text_is_rejected() {
    // template_scale (two kernels): descriptors at 0xdc0 and 0xe00 (first LOAD segment,
    // file offset = address), entries at 0x1f00 and 0x2000.
    let mut b = corpus("gfx950/template_scale.hsaco");
    set_entry(&mut b, 0xdc0, 0x200 - 0xdc0);
    let (_, s) = rejected(&b);
    assert!(s.contains("entry") && s.contains("template_scale"), "{s}");
}

#[test]
fn overlapping_kernels_are_rejected() {
    let mut b = corpus("gfx950/template_scale.hsaco");
    set_entry(&mut b, 0xe00, 0x1f00 - 0xe00);
    let (e, s) = rejected(&b);
    assert!(
        matches!(e, TranslateError::OverlappingKernels { .. }),
        "{s}"
    );
    assert!(s.contains("template_scale"), "{s}");
}

#[test]
fn branch_into_the_middle_of_an_instruction_is_rejected() {
    // s_mov_b32 with a literal is 8 bytes; the raw s_branch (simm16 -2) lands on its literal.
    let src = "  .amdhsa_code_object_version 6\n  .text\n  .globl mid\n  .p2align 8\n  .type mid,@function\nmid:\n\
               \x20 s_mov_b32 s0, 0x12345678\n  .long 0xbf82fffe\n  s_endpgm\n.Lend:\n  .size mid, .Lend-mid\n\
               \x20 .rodata\n  .p2align 6\n  .amdhsa_kernel mid\n    .amdhsa_next_free_vgpr 1\n\
               \x20   .amdhsa_next_free_sgpr 1\n    .amdhsa_accum_offset 4\n  .end_amdhsa_kernel\n";
    let b = common::assemble(src, "gfx950", "mid");
    let (e, s) = rejected(&b);
    assert!(matches!(e, TranslateError::BadTarget { .. }), "{s}");
    assert!(s.contains("kernel `mid`") && s.contains("inside"), "{s}");
}

#[test]
fn unsupported_pairs_are_named() {
    let b = corpus("gfx942/vadd.hsaco");
    let (e, s) = rejected(&b);
    assert!(matches!(e, TranslateError::UnsupportedPair { .. }), "{s}");
    let b = corpus("gfx950/vadd.hsaco");
    let t = dbt::translate(&b, Target::Gfx90a);
    assert!(!t.translated);
    assert!(t.diagnostics[0].to_string().contains("gfx90a"));
}

#[test]
fn random_corruption_never_panics() {
    let b = corpus("gfx950/bitops.hsaco");
    let mut x = 0x1234_5678u32;
    for _ in 0..300 {
        let mut c = b.clone();
        for _ in 0..8 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let i = x as usize % c.len();
            c[i] ^= (x >> 24) as u8 | 1;
        }
        let t = dbt::translate(&c, Target::Gfx942);
        if !t.translated {
            assert_eq!(t.object, c);
            assert!(!t.diagnostics.is_empty());
        }
    }
}
