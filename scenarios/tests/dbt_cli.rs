//! `gfxsim dbt translate`: writes a gfx942 object that loads, prints a per-kernel report,
//! and fails with a diagnostic (exit code 2, nothing written) when a kernel cannot be
//! translated.

use std::path::PathBuf;
use std::process::Command;

fn corpus(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(p)
}

#[test]
fn translate_writes_a_loadable_gfx942_object_and_a_report() {
    let out = std::env::temp_dir().join(format!("dbt-cli-{}.hsaco", std::process::id()));
    let r = Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(["dbt", "translate"])
        .arg(corpus("build/gfx950/const_table.hsaco"))
        .args(["--host", "gfx942", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    // const_table uses v_bitop3_b32 (gfx950 only): relocated with expansions.
    assert!(
        text.contains("const_table: translated (relocated)"),
        "{text}"
    );
    assert!(
        text.contains("expanded") && text.contains("vgprs"),
        "{text}"
    );
    let bytes = std::fs::read(&out).unwrap();
    let co = gpu_model::loader::CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.target(), gpu_model::Target::Gfx942);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn untranslatable_objects_fail_with_the_kernel_and_pc() {
    let out = std::env::temp_dir().join(format!("dbt-cli-fail-{}.hsaco", std::process::id()));
    let r = Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(["dbt", "translate"])
        // f32 MFMAs have no gfx1201 WMMA (GFX12 WMMAs take no f32 inputs): refused by name.
        .arg(corpus("build/gfx950/mfma_f32.hsaco"))
        .args(["--host", "gfx1201", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("kernel `mfma_f32` pc 0x"), "{err}");
    assert!(!out.exists());
}
