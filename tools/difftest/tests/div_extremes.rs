//! Regression test for f32/f64 division with extreme operands (`v_div_scale`'s reciprocal
//! and quotient tiny cases, `v_div_fixup`'s overflow and underflow cases; see
//! `gpu_model::exec::float::div_scale32`): a clang-22 kernel divides every pair of a table
//! of extreme values (f32: 16 x 16, f64: 16 x 16, divisors above 2^126 / 2^1022, quotients
//! that overflow and underflow, subnormals, zeros, infinities, NaN), compiled for every
//! target, wave size and -O level, against the same source compiled for the host (IEEE
//! division, correctly rounded). Before the fix, `1.0f / 3.4e38f` gave 0 instead of the
//! subnormal 0x002006ce and `3.4e38f / 1e-40f` gave NaN instead of infinity. Needs clang-22
//! (fails without it).

use difftest::gen::{Kernel, IN_WORDS};
use difftest::{all_builds, batch_source, compile_device, host_reference, run_device};

const SRC: &str = r#"
GFX_KERNEL GFX_WG_MAX(256) void kdiv(GFX_GLOBAL const u32_t *restrict in, GFX_GLOBAL u32_t *restrict out, GFX_GLOBAL u32_t *restrict atom) {
  const u32_t gid = get_global_id(0);
  for (u32_t j = 0u; j < 2u; ++j) {
    u32_t p = gid * 2u + j;
    f32_t n = ld_f32(in, p >> 4), d = ld_f32(in, p & 15u);
    out[gid * 8u + j] = bits_f32(n / d);
    f64_t n64 = ld_f64(in, p >> 4), d64 = ld_f64(in, p & 15u);
    u64_t q = bits_f64(n64 / d64);
    out[gid * 8u + 2u + 2u * j] = (u32_t)q;
    out[gid * 8u + 3u + 2u * j] = (u32_t)(q >> 32);
  }
  /* float4 division, lane by lane (the vector form of the same sequence). */
  v4f32 a = mk_v4f32(ld_f32(in, gid & 15u), ld_f32(in, (gid >> 4) & 15u), ld_f32(in, 15u - (gid & 15u)), ld_f32(in, 3u));
  v4f32 b = mk_v4f32(ld_f32(in, (gid >> 3) & 15u), ld_f32(in, gid & 15u), ld_f32(in, 8u), ld_f32(in, (gid + 5u) & 15u));
  v4f32 c = a / b;
  out[gid * 8u + 6u] = bits_f32(c.x) ^ (bits_f32(c.y) * 3u);
  out[gid * 8u + 7u] = bits_f32(c.z) ^ (bits_f32(c.w) * 5u);
}
"#;

fn inputs() -> Vec<u32> {
    let f32s: [f32; 16] = [
        1.0,
        -3.0,
        f32::from_bits(0x7f7f_c99e), // 3.4e38
        f32::MAX,
        1.7e38,
        8.5e37,
        65504.0,
        1e-40,
        -1e-45,
        f32::MIN_POSITIVE,
        1e30,
        -1e-30,
        0.0,
        f32::INFINITY,
        f32::NAN,
        2e-38,
    ];
    let f64s: [f64; 16] = [
        1.0,
        -3.0,
        1.7e308,
        f64::MAX,
        8.9e307,
        1e300,
        -1e-300,
        1e-310,
        4.9e-324,
        f64::MIN_POSITIVE,
        1e200,
        -1e-200,
        0.0,
        f64::INFINITY,
        f64::NAN,
        3.4e38,
    ];
    let mut w = vec![0u32; IN_WORDS];
    for (i, f) in f32s.iter().enumerate() {
        w[256 + i] = f.to_bits();
    }
    for (i, f) in f64s.iter().enumerate() {
        let b = f.to_bits();
        w[512 + 2 * i] = b as u32;
        w[512 + 2 * i + 1] = (b >> 32) as u32;
    }
    w
}

#[test]
fn extreme_divisions_match_the_host_on_every_build() {
    let k = Kernel {
        name: "kdiv".into(),
        wg: 64,
        tail: 0,
        source: SRC.into(),
        transc: Vec::new(),
    };
    let dir = std::env::temp_dir().join(format!("difftest-div-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ks = std::slice::from_ref(&k);
    let src = batch_source(ks);
    let input = inputs();
    let host = host_reference(&dir, &src, ks, &input).expect("host build (needs clang-22)");
    // The host side is IEEE: spot-check the reproducers.
    assert_eq!(host[0][8], 0x0020_06ce, "1 / 3.4e38 on the host");
    let cl = dir.join("div.cl");
    std::fs::write(&cl, &src).unwrap();
    let mut bad = Vec::new();
    for b in all_builds() {
        let obj = compile_device(&cl, b, &dir.join(format!("{b}.hsaco"))).expect("clang-22");
        let dev = run_device(b, &obj, ks, &input).pop().unwrap();
        match dev {
            Err(e) => bad.push(format!("{b}: {e}")),
            Ok(d) => {
                let diffs: Vec<String> = host[0]
                    .iter()
                    .zip(&d)
                    .enumerate()
                    .filter(|(_, (h, d))| h != d)
                    .take(3)
                    .map(|(i, (h, d))| format!("word {i}: host {h:#010x} device {d:#010x}"))
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
