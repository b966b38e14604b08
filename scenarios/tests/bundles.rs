//! `gfxsim` on HIP host binaries and offload bundles (clang-22 and hipcc 5.2.3, see
//! `gpu-model/tests/fixtures/bundles/build.sh`): kernels run from the entry for the GPU's
//! target and give the CPU reference's results; info, disasm and coverage read the entries;
//! a bundle without an entry for the target is refused with the entries listed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpu-model/tests/fixtures/bundles")
        .join(name)
}

fn gfxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .output()
        .expect("gfxsim runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gfxsim-bundles-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const LEN: usize = 1024;
const N: u32 = 1000;

/// Runs `scale` (and `square_plus_index` where the binary has it) from `file` on `gpu`
/// through a scenario file, and checks the outputs against the CPU reference.
fn run_and_check(file: &str, gpu: &str, square: bool) {
    let dir = tmpdir(&format!("{gpu}-{}", file.replace('.', "_")));
    let co = fixture(file).display().to_string();
    let mut launches = format!(
        r#"(code_object: "{co}", kernel: "scale", grid: ({LEN}, 1, 1), workgroup: (256, 1, 1),
            args: [Buffer("x"), F32(2.0), U32({N})]),"#
    );
    if square {
        launches.push_str(&format!(
            r#"(code_object: "{co}", kernel: "square_plus_index", grid: ({LEN}, 1, 1), workgroup: (128, 1, 1),
            args: [Buffer("sq_in"), Buffer("sq_out"), U32({N})]),"#
        ));
    }
    let scenario = format!(
        r#"(
    gpu: "{gpu}",
    buffers: [
        (name: "x", elem: F32, len: {LEN}, init: Iota),
        (name: "sq_in", elem: U32, len: {LEN}, init: Bits(seed: 5)),
        (name: "sq_out", elem: U32, len: {LEN}, init: Zeros),
    ],
    launches: [{launches}],
    outputs: [
        (buffer: "x", write: "x.bin"),
        (buffer: "sq_in", write: "sq_in.bin"),
        (buffer: "sq_out", write: "sq_out.bin"),
    ],
)"#
    );
    let path = dir.join("s.ron");
    std::fs::write(&path, scenario).unwrap();
    let o = gfxsim(&["run", path.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{file} on {gpu}: {err}\n{out}");
    let words = |n: &str| -> Vec<u32> {
        std::fs::read(dir.join(n))
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    // scale: x[i] = i * 2 + 1 below n (exact in f32), untouched above.
    let x = words("x.bin");
    for (i, &got) in x.iter().enumerate() {
        let want = if (i as u32) < N {
            i as f32 * 2.0 + 1.0
        } else {
            i as f32
        };
        assert_eq!(f32::from_bits(got), want, "{file} on {gpu}: x[{i}]");
    }
    if square {
        let (inp, out) = (words("sq_in.bin"), words("sq_out.bin"));
        for i in 0..LEN {
            let want = if (i as u32) < N {
                inp[i].wrapping_mul(inp[i]).wrapping_add(i as u32)
            } else {
                0
            };
            assert_eq!(out[i], want, "{file} on {gpu}: sq_out[{i}]");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernels_run_from_the_entry_for_the_gpu() {
    // (file, gpu preset): every fixture, every target it holds that a preset simulates.
    for (file, gpu) in [
        ("app_clang22", "mi300x"),
        ("app_clang22", "rx9070xt"),
        ("libapp_clang22_zstd.so", "mi300x"),
        ("libapp_clang22_zstd.so", "mi355x"),
        ("libapp_clang22_zstd.so", "rx9060xt"),
        ("app_gfx90a_gfx1201.hipfb", "mi250x"),
        ("app_gfx90a_gfx1201.hipfb", "rx9070xt"),
        ("app_v2_zstd.hipfb", "mi300x"),
        ("app_v2_zstd.hipfb", "rx9070xt"),
    ] {
        run_and_check(file, gpu, true);
    }
    // hipcc 5.2.3: code object v4, the gfx90a:xnack- entry for an xnack-off MI250X.
    run_and_check("app_hipcc523", "mi250x", false);
}

#[test]
fn run_kernel_takes_app_colon_kernel() {
    for (file, gpu) in [
        ("app_clang22", "rx9070xt"),
        ("libapp_clang22_zstd.so", "mi355x"),
        ("app_hipcc523", "mi250x"),
    ] {
        let spec = format!("{}:scale", fixture(file).display());
        let o = gfxsim(&[
            "run",
            "--gpu",
            gpu,
            "--kernel",
            &spec,
            "--grid",
            "1000",
            "--block",
            "256",
            "--arg",
            "buf:f32:1000:iota",
            "--arg",
            "f32:2.0",
            "--arg",
            "u32:1000",
        ]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{file} on {gpu}: {err}");
        assert!(out.contains("kernel scale"), "{out}");
    }
    // No entry for the gpu: bad input (exit 2), with the target and the entries named.
    let spec = format!("{}:scale", fixture("app_clang22").display());
    let o = gfxsim(&["run", "--gpu", "mi355x", "--kernel", &spec]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no code object for target gfx950:sramecc+:xnack-")
            && err.contains("hipv4-amdgcn-amd-amdhsa--gfx942")
            && err.contains("hipv4-amdgcn-amd-amdhsa--gfx1201"),
        "{err}"
    );
}

#[test]
fn info_lists_the_entries_and_describes_them() {
    let app = fixture("libapp_clang22_zstd.so");
    let o = gfxsim(&["info", app.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("HIP host binary, .hip_fatbin at file offset"),
        "{out}"
    );
    assert!(out.contains("CCOB v3 zstd"), "{out}");
    for t in ["gfx1200", "gfx942:xnack-", "gfx950"] {
        assert!(
            out.contains(&format!("[hipv4-amdgcn-amd-amdhsa--{t}]")),
            "{out}"
        );
    }
    assert_eq!(
        out.matches("\nkernel square_plus_index\n").count(),
        3,
        "{out}"
    );
    // One entry by target id.
    let o = gfxsim(&["info", app.to_str().unwrap(), "--target", "gfx942:xnack-"]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.contains("target gfx942:xnack- (e_flags 0x64c"), "{out}");
    assert_eq!(out.matches("\nkernel scale\n").count(), 1, "{out}");
    // `gfx942` leaves xnack open: it does not select an entry built for xnack- (clang's
    // target-id rule); the error lists what there is.
    let o = gfxsim(&["info", app.to_str().unwrap(), "--target", "gfx942"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("hipv4-amdgcn-amd-amdhsa--gfx942:xnack-"),
        "{err}"
    );
    // hipcc's binary: an entry for a processor gfxsim does not simulate is listed as such.
    let o = gfxsim(&["info", fixture("app_hipcc523").to_str().unwrap()]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.contains("gfx1030 (target not simulated)"), "{out}");
    assert!(out.contains("code object v4"), "{out}");
}

#[test]
fn disasm_needs_a_target_when_there_are_several() {
    let app = fixture("app_clang22");
    let o = gfxsim(&["disasm", app.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("several targets") && err.contains("--gfx1201"),
        "{err}"
    );
    for t in ["gfx942", "gfx1201"] {
        let o = gfxsim(&["disasm", app.to_str().unwrap(), "--target", t]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(
            out.contains("<scale>:") && out.contains("<square_plus_index>:"),
            "{out}"
        );
        assert!(out.contains("s_endpgm") && !out.contains(".long"), "{out}");
        let load = if t == "gfx942" {
            "global_load_dword "
        } else {
            "global_load_b32 "
        };
        assert!(out.contains(load), "{t}: {out}");
    }
}

#[test]
fn disasm_lists_each_translation_unit() {
    let two = fixture("app_two_tu_clang22");
    let o = gfxsim(&[
        "disasm",
        two.to_str().unwrap(),
        "--target",
        "gfx942:sramecc+:xnack-",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        out.matches("Disassembly of section .text:").count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("<scale>:") && out.contains("<negate>:"),
        "{out}"
    );
}

#[test]
fn coverage_counts_every_entry() {
    let app = fixture("app_clang22");
    let o = gfxsim(&["coverage", app.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let objects = |out: &str, t: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(t))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u32>().ok())
            .unwrap_or(0)
    };
    assert_eq!(
        (objects(&out, "gfx942"), objects(&out, "gfx1201")),
        (1, 1),
        "{out}"
    );
    let o = gfxsim(&["coverage", app.to_str().unwrap(), "--target", "gfx1201"]);
    let (out, _) = text(&o);
    assert_eq!(
        (objects(&out, "gfx942"), objects(&out, "gfx1201")),
        (0, 1),
        "{out}"
    );
}

/// Two translation units: `scale` comes from the first bundle of `.hip_fatbin`, `negate`
/// from the second, in one scenario.
#[test]
fn kernels_of_every_translation_unit_run() {
    for gpu in ["mi300x", "rx9070xt"] {
        let dir = tmpdir(&format!("two-tu-{gpu}"));
        let co = fixture("app_two_tu_clang22").display().to_string();
        let scenario = format!(
            r#"(
    gpu: "{gpu}",
    buffers: [(name: "x", elem: F32, len: {LEN}, init: Iota)],
    launches: [
        (code_object: "{co}", kernel: "scale", grid: ({LEN}, 1, 1), workgroup: (64, 1, 1),
         args: [Buffer("x"), F32(2.0), U32({N})]),
        (code_object: "{co}", kernel: "negate", grid: ({LEN}, 1, 1), workgroup: (64, 1, 1),
         args: [Buffer("x"), U32({N})]),
    ],
    outputs: [(buffer: "x", write: "x.bin")],
)"#
        );
        let path = dir.join("s.ron");
        std::fs::write(&path, scenario).unwrap();
        let o = gfxsim(&["run", path.to_str().unwrap()]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{gpu}: {err}\n{out}");
        let x = std::fs::read(dir.join("x.bin")).unwrap();
        for (i, c) in x.chunks_exact(4).enumerate() {
            let got = f32::from_le_bytes(c.try_into().unwrap());
            let want = if (i as u32) < N {
                -(i as f32 * 2.0 + 1.0)
            } else {
                i as f32
            };
            assert_eq!(got, want, "{gpu}: x[{i}]");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
