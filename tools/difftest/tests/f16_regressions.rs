//! Regression tests for two `half` mismatches found by the generator (seed 13 with
//! `--features all`), minimized by hand to the instruction that was wrong, on every target,
//! wave size and -O level, against the host:
//!
//! * Kernel 37: `v_fma_f16` (gfx9) rounded twice: its exact f64 fma went to f16 through
//!   `half::f16::from_f64`, which with F16C rounds to f32 first. 64 products that lie
//!   exactly on an f16 tie, with a subnormal addend of either sign (or zero) that must break
//!   it; scalar `half` (`v_fma_f16`) and `half2` (`v_pk_fma_f16`). The host's rounded-once
//!   reference is itself checked against the expected bits, computed here from the
//!   significands.
//! * Kernel 43: `v_pack_b32_f16 v5, v44, -1.0` read the inline constant as the f32 pattern
//!   0xbf800000 (low half 0), so a `half2` with a constant lane had 0 there (a division by it
//!   gave -inf). Its operands are f16: -1.0 is 0xbc00.
//!
//! Needs clang-22 (fails without it).

use difftest::gen::{Kernel, IN_WORDS};
use difftest::{all_builds, batch_source, compile_device, host_reference, run_device};

const SRC: &str = r#"
GFX_KERNEL GFX_WG_MAX(256) void kf16(GFX_GLOBAL const u32_t *restrict in, GFX_GLOBAL u32_t *restrict out, GFX_GLOBAL u32_t *restrict atom) {
  const u32_t gid = get_global_id(0);
  f16_t a = ld_f16(in, 3u * gid), b = ld_f16(in, 3u * gid + 1u), c = ld_f16(in, 3u * gid + 2u);
  out[gid * 8u + 0u] = bits_f16(fma_f16_t(a, b, c));
  /* Both tie directions in one half2: a * b + c and b * a - c. */
  out[gid * 8u + 1u] = fold_v2f16(fma_v2f16(mk_v2f16(a, b), mk_v2f16(b, a), mk_v2f16(c, -c)));
  /* A half2 with constant lanes (v_pack_b32_f16 with an inline constant). */
  v2f16 x = mk_v2f16(a + bits_to_f16(0xa628u), bits_to_f16(0xbc00u));
  v2f16 y = mk_v2f16(a * b, bits_to_f16(0x3800u));
  out[gid * 8u + 2u] = fold_v2f16(x * mk_v2f16(b, c));
  out[gid * 8u + 3u] = fold_v2f16(y + mk_v2f16(c, a));
  out[gid * 8u + 4u] = fold_v2f16(mk_v2f16(bits_to_f16(0xc8ecu), a) / x);
}
"#;

/// 64 triples `(a, b, c)` of f16 bit patterns: `a * b` exactly on a tie between two normal
/// f16 values, `c` zero or a subnormal; with the expected `fma(a, b, c)` bits. The first is
/// seed 13 kernel 37's `fma(0x71c8, 0xc440, 0x8330)` = -50320.0000486 -> 0xfa25.
fn triples() -> Vec<([u16; 3], u16)> {
    let mut v = vec![([0x71c8, 0xc440, 0x8330], 0xfa25)];
    let mut s = 0x2545_f491_4f6c_dd1du64;
    while v.len() < 64 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (ma, mb) = ((s >> 20) as u32 & 0x3ff, (s >> 40) as u32 & 0x3ff);
        let p = (1024 + ma) * (1024 + mb);
        let wide = p >= 1 << 21;
        let drop = if wide { 11 } else { 10 };
        if p & ((1 << drop) - 1) != 1 << (drop - 1) {
            continue; // not a tie
        }
        // Exponent fields: the product's lands in 13..=27 (normal, with an ulp of at least
        // 2^-12, so a subnormal addend, below 2^-14, only breaks the tie).
        let ea = 10 + (s >> 8) as u32 % 12;
        let eb = 10 + (s >> 14) as u32 % 12;
        let field = ea + eb - 15 + wide as u32;
        if !(13..=27).contains(&field) {
            continue;
        }
        let (na, nb) = ((s >> 2) & 1 != 0, (s >> 3) & 1 != 0);
        let sign = if na != nb { 0x8000u16 } else { 0 };
        let a = (na as u16) << 15 | (ea as u16) << 10 | ma as u16;
        let b = (nb as u16) << 15 | (eb as u16) << 10 | mb as u16;
        let trunc = (field << 10 | ((p >> drop) - 1024)) as u16;
        // c: zero (ties to even), or a subnormal with the product's sign (away from zero)
        // or the other sign (toward zero).
        let (c, mag) = match (s >> 4) % 3 {
            0 => (0u16, trunc + (trunc & 1)),
            1 => (sign | (s >> 48) as u16 & 0x3ff | 1, trunc + 1),
            _ => ((sign ^ 0x8000) | (s >> 48) as u16 & 0x3ff | 1, trunc),
        };
        v.push(([a, b, c], sign | mag));
    }
    v
}

fn inputs(t: &[([u16; 3], u16)]) -> Vec<u32> {
    let halves: Vec<u16> = t.iter().flat_map(|(h, _)| *h).collect();
    let mut w = vec![0u32; IN_WORDS];
    for (i, h) in halves.iter().enumerate() {
        w[768 + i / 2] |= (*h as u32) << (16 * (i % 2));
    }
    w
}

#[test]
fn f16_fma_ties_and_constant_half2_lanes_match_the_host_on_every_build() {
    let k = Kernel {
        name: "kf16".into(),
        wg: 32,
        tail: 0,
        source: SRC.into(),
        transc: Vec::new(),
    };
    let dir = std::env::temp_dir().join(format!("difftest-f16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ks = std::slice::from_ref(&k);
    let src = batch_source(ks);
    let t = triples();
    let input = inputs(&t);
    let host = host_reference(&dir, &src, ks, &input).expect("host build (needs clang-22)");
    // The host reference rounds once: every tie broken as the significands say.
    for (item, (h, want)) in t.iter().enumerate() {
        assert_eq!(
            host[0][item * 8],
            *want as u32,
            "host fma({:#06x}, {:#06x}, {:#06x})",
            h[0],
            h[1],
            h[2]
        );
    }
    let cl = dir.join("f16.cl");
    std::fs::write(&cl, &src).unwrap();
    let mut bad = Vec::new();
    for b in all_builds() {
        let obj = compile_device(&cl, b, &dir.join(format!("{b}.hsaco"))).expect("clang-22");
        match run_device(b, &obj, ks, &input).pop().unwrap() {
            Err(e) => bad.push(format!("{b}: {e}")),
            Ok(d) => {
                let diffs: Vec<String> = host[0]
                    .iter()
                    .zip(&d)
                    .enumerate()
                    .filter(|(_, (h, d))| h != d)
                    .take(3)
                    .map(|(i, (h, d))| {
                        format!(
                            "item {} word {}: host {h:#010x} device {d:#010x}",
                            i / 8,
                            i % 8
                        )
                    })
                    .collect();
                if !diffs.is_empty() {
                    bad.push(format!("{b}: {}", diffs.join("; ")));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
