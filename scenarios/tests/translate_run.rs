//! Runtime binary translation (`translate: Some(host: "gfx942")` on a launch, `gfxsim run
//! --translate`): gfx950 code objects run translated on the MI300X preset (and on the
//! RX 9070 XT, translated to gfx1201 wave64) and give what
//! the CPU references and the native runs give; the report says which kernels ran
//! translated and their code growth.

use scenarios::scenario::{RunOptions, Scenario};
use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Runs the MI355X example (gfx950 kernels, outputs checked against the corpus's CPU
/// references) on preset `gpu` with every launch translated to `host`: the checks pass,
/// every kernel ran translated and the report says so.
fn example_runs_translated(gpu: &str, host: &str) {
    let src = std::fs::read_to_string(examples().join("mi355x.ron")).unwrap();
    assert!(src.contains("gpu: \"mi355x\""));
    let src = src
        .replace("gpu: \"mi355x\"", &format!("gpu: \"{gpu}\""))
        .replace(
            "            args:",
            &format!("            translate: Some(host: \"{host}\"),\n            args:"),
        );
    let name = format!("mi355x-on-{gpu}.ron");
    let w = Scenario::parse(&src, &name)
        .unwrap()
        .resolve(&name, &examples())
        .unwrap();
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    assert!(!out.report.checks.is_empty());
    for c in &out.report.checks {
        assert!(c.passed, "{}: {}", c.buffer, c.detail);
    }
    assert_eq!(out.report.kernels.len(), w.launches.len());
    for k in &out.report.kernels {
        let t = k
            .translated
            .as_ref()
            .unwrap_or_else(|| panic!("{} did not run translated", k.kernel));
        assert_eq!((t.guest.as_str(), t.host.as_str()), ("gfx950", host));
        assert!(t.code_bytes_before > 0 && t.code_bytes_after > 0);
        if host == "gfx942" {
            // Relocated gfx942 code only grows.
            assert!(t.code_bytes_after >= t.code_bytes_before);
        }
    }
    let text = out.report.to_text();
    assert!(
        text.contains(&format!("translated gfx950 -> {host}: code")),
        "{text}"
    );
}

/// The MI355X example on the MI300X, translated to gfx942.
#[test]
fn gfx950_example_runs_translated_on_mi300x_and_passes_its_checks() {
    example_runs_translated("mi300x", "gfx942");
}

/// The same example on the RX 9070 XT, translated to gfx1201 wave64 (`dbt`'s RDNA host).
#[test]
fn gfx950_example_runs_translated_on_rx9070xt_and_passes_its_checks() {
    example_runs_translated("rx9070xt", "gfx1201");
}

/// A one-launch scenario of the corpus's `const_table` (it uses `v_bitop3_b32`, which
/// gfx942 lacks: the kernel is relocated with expansions) for `gpu`, from `object`.
fn const_table(gpu: &str, object: &str, translate: bool) -> Vec<Vec<u8>> {
    let t = if translate {
        "translate: Some(host: \"gfx942\"),"
    } else {
        ""
    };
    let src = format!(
        r#"(
    gpu: "{gpu}",
    buffers: [
        (name: "data", elem: U8, len: 4800, init: Bits(seed: 51)),
        (name: "out", elem: U32, len: 300),
    ],
    launches: [
        (
            code_object: "{object}",
            kernel: "const_table",
            grid: (300, 1, 1),
            workgroup: (64, 1, 1),
            {t}
            args: [Buffer("data"), Buffer("out"), U32(300)],
        ),
    ],
)"#
    );
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build");
    let w = Scenario::parse(&src, "const_table.ron")
        .unwrap()
        .resolve("const_table.ron", &corpus)
        .unwrap();
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    let k = &out.report.kernels[0];
    if translate {
        let tr = k.translated.as_ref().expect("ran translated");
        assert!(
            tr.expanded > 0 && tr.code_bytes_after > tr.code_bytes_before,
            "{tr:?}"
        );
    } else {
        assert!(k.translated.is_none());
    }
    out.buffers
}

#[test]
fn relocated_kernel_runs_translated_like_the_native_builds() {
    let translated = const_table("mi300x", "gfx950/const_table.hsaco", true);
    let gfx950 = const_table("mi355x", "gfx950/const_table.hsaco", false);
    let gfx942 = const_table("mi300x", "gfx942/const_table.hsaco", false);
    assert!(
        translated[1].iter().any(|&b| b != 0),
        "the kernel wrote nothing"
    );
    assert_eq!(
        translated[1], gfx950[1],
        "translated vs gfx950 on the MI355X"
    );
    assert_eq!(translated[1], gfx942[1], "translated vs the gfx942 build");
}

#[test]
fn translating_to_another_processor_than_the_gpus_is_refused() {
    let src = r#"(
    gpu: "mi300x",
    launches: [(code_object: "gfx950/vadd.hsaco", kernel: "vadd", grid: (64, 1, 1),
                workgroup: (64, 1, 1), translate: Some(host: "gfx1201"), args: [])],
)"#;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build");
    let e = Scenario::parse(src, "bad.ron")
        .unwrap()
        .resolve("bad.ron", &corpus)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("launch 0") && e.contains("gfx1201") && e.contains("gfx942"),
        "{e}"
    );
}

#[test]
fn gfxsim_run_translate_runs_a_gfx950_kernel_on_mi300x() {
    let object =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build/gfx950/const_table.hsaco");
    let spec = format!("{}:const_table", object.display());
    let run = |translate: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gfxsim"));
        c.args(["run", "--kernel", &spec, "--gpu", "mi300x", "--grid", "300"])
            .args([
                "--arg",
                "buf:u8:4800:rand",
                "--arg",
                "buf:u32:300",
                "--arg",
                "u32:300",
            ]);
        if translate {
            c.arg("--translate");
        }
        c.output().unwrap()
    };
    let r = run(true);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(text.contains("translated gfx950 -> gfx942: code"), "{text}");
    // Without --translate the gfx950 object is refused on the MI300X.
    let r = run(false);
    assert!(!r.status.success());
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("gfx950"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}
