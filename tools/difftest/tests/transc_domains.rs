//! The transcendental comparison of `--features transc` (see `difftest::gen::TRANSC_FNS`)
//! on chosen arguments: clang-22 kernels on three builds against the host.
//!
//! * `sin` of a subnormal: LLVM 22 lowers `llvm.sin.f32` to `v_sin_f32` of `x * (1 / 2pi)`
//!   without scaling tiny arguments, and `v_sin_f32` flushes f32 denormals whatever the
//!   mode, so the device gives +-0 where the host (and OpenCL) give `x`: millions of ulp.
//!   The comparison must see it, and the generator's domain (`dom_normal`) must keep it out.
//! * In the domains: sin and exp, log over every kind of argument (including subnormals,
//!   zeros, infinities, NaN for exp and log) stay within OpenCL's bounds.

use difftest::gen::{Kernel, Transc, IN_WORDS, NOUT, TRANSC_FNS};
use difftest::{
    all_builds, batch_source, compile_device, host_reference, run_device, ulp_distance, within_ulp,
};

const SRC: &str = r#"
GFX_KERNEL GFX_WG_MAX(256) void ktransc(GFX_GLOBAL const u32_t *restrict in, GFX_GLOBAL u32_t *restrict out, GFX_GLOBAL u32_t *restrict atom) {
  const u32_t gid = get_global_id(0);
  const f32_t x = ld_f32(in, gid);
  for (u32_t j = 0u; j < 8u; ++j) out[gid * 12u + j] = 0u;
  out[gid * 12u + 8u] = bits_f32(__builtin_sinf(x));
  out[gid * 12u + 9u] = bits_f32(__builtin_sinf(dom_normal(x, 1.5f)));
  out[gid * 12u + 10u] = bits_f32(__builtin_expf(x));
  out[gid * 12u + 11u] = bits_f32(__builtin_logf(x));
}
"#;

fn func(name: &str) -> usize {
    TRANSC_FNS.iter().position(|f| f.name == name).unwrap()
}

/// 128 f32 arguments: 32 subnormals (from 0x1000 on: the smallest are within 4 ulp of 0), 32 normals below 2^-122, 56 values in sin's domain,
/// then zeros, infinities, NaN and large values.
fn args() -> Vec<u32> {
    let mut v = Vec::new();
    for i in 0..32u32 {
        v.push((0x1000 + i * 0x3_ffff) | (i & 1) << 31);
    }
    for i in 0..32u32 {
        v.push((0x0080_0000 + i * 0x0f_ffff) | (i & 1) << 31);
    }
    for i in 0..56 {
        v.push((-1.5f32 + 3.0 * i as f32 / 55.0).to_bits());
    }
    for f in [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.7,
        -103.0,
        1e30,
    ] {
        v.push(f.to_bits());
    }
    v
}

#[test]
fn sin_of_subnormals_is_caught_and_the_domains_hold() {
    let k = Kernel {
        name: "ktransc".into(),
        wg: 64,
        tail: 0,
        source: SRC.into(),
        transc: ["sin", "sin", "exp", "log"]
            .iter()
            .map(|n| Transc { func: func(n) })
            .collect(),
    };
    let a = args();
    let mut input = vec![0u32; IN_WORDS];
    input[256..256 + a.len()].copy_from_slice(&a);
    let dir = std::env::temp_dir().join(format!("difftest-transc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ks = std::slice::from_ref(&k);
    let src = batch_source(ks);
    let host = host_reference(&dir, &src, ks, &input).expect("host build (needs clang-22)");
    let host = &host[0];
    let word = |w: &[u32], item: usize, j: usize| w[item * k.words() + NOUT + j];
    // The host is glibc: sin of a subnormal is the subnormal.
    for (i, &x) in a.iter().enumerate().take(32) {
        assert_eq!(word(host, i, 0), x, "host sin of {x:#010x}");
    }
    let cl = dir.join("transc.cl");
    std::fs::write(&cl, &src).unwrap();
    let builds: Vec<_> = all_builds()
        .into_iter()
        .filter(|b| {
            ["gfx90a-w64-O0", "gfx942-w64-O3", "gfx1201-w32-O1"].contains(&b.to_string().as_str())
        })
        .collect();
    assert_eq!(builds.len(), 3);
    for b in builds {
        let obj = compile_device(&cl, b, &dir.join(format!("{b}.hsaco"))).expect("clang-22");
        let dev = run_device(b, &obj, ks, &input).pop().unwrap().unwrap();
        for (i, &x) in a.iter().enumerate() {
            let (h, d) = (word(host, i, 0), word(&dev, i, 0));
            if i < 32 {
                // Flushed to zero of the same sign, and far outside sin's 4 ulp.
                assert_eq!(d, x & 0x8000_0000, "{b}: sin({x:#010x})");
                assert!(!within_ulp(h, d, TRANSC_FNS[func("sin")].ulp));
                assert!(ulp_distance(h, d) > 1000, "{b}: sin({x:#010x})");
            }
            for (j, name) in ["sin", "exp", "log"].iter().enumerate() {
                let (h, d) = (word(host, i, j + 1), word(&dev, i, j + 1));
                let bound = TRANSC_FNS[func(name)].ulp;
                assert!(
                    within_ulp(h, d, bound),
                    "{b}: {name} of {x:#010x}: host {h:#010x} device {d:#010x}, {} ulp > {bound}",
                    ulp_distance(h, d)
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
