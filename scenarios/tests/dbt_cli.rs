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

/// A gfx950 kernel whose scaled `f8f6f4` MFMA takes a run-time block scale (GFX12 WMMAs
/// have no block scales: refused by name), compiled by clang-22.
fn scaled_mfma_object(dir: &std::path::Path) -> PathBuf {
    let (src, obj) = (dir.join("scaled.cl"), dir.join("scaled.hsaco"));
    std::fs::write(
        &src,
        "typedef int i32x8 __attribute__((ext_vector_type(8)));\n\
         __kernel void scaled(__global const i32x8 *in, __global float *out, int s) {\n\
           uint l = __builtin_amdgcn_workitem_id_x();\n\
           float16 acc = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(in[l], in[64 + l], (float16)0.0f, 0, 0, 0, s, 0, s);\n\
           for (int r = 0; r < 16; r++) out[l * 16 + r] = acc[r];\n\
         }\n",
    )
    .unwrap();
    let r = Command::new("clang-22")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
        .args(["-mcpu=gfx950", "-O2", "-nogpulib"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("clang-22 is required (scripts/install-deps.sh)");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    obj
}

#[test]
fn untranslatable_objects_fail_with_the_kernel_and_pc() {
    let dir = std::env::temp_dir().join(format!("dbt-cli-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.hsaco");
    let r = Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(["dbt", "translate"])
        .arg(scaled_mfma_object(&dir))
        .args(["--host", "gfx1201", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("kernel `scaled` pc 0x"), "{err}");
    assert!(err.contains("scaled f8f6f4"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
