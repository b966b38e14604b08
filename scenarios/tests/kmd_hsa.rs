//! An HSA C program (kmd/tests/hsa/bringup.c, built with gcc against Debian's
//! libhsa-runtime-dev) runs on the emulated KFD through every step that needs no GPU
//! execution: init, agent, memory pools, VRAM allocation, AQL queue creation, signals,
//! and the whole teardown, exiting 0.

use std::path::Path;
use std::process::Command;

#[test]
fn hsa_bringup_and_teardown() {
    let dir = std::env::temp_dir().join(format!("kmd-hsa-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kmd/tests/hsa/bringup.c");
    let exe = dir.join("bringup");
    let cc = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-lhsa-runtime64")
        .output()
        .expect("gcc is needed");
    assert!(
        cc.status.success(),
        "gcc (needs libhsa-runtime-dev): {}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let root = dir.join("root");
    let gpu = kmd::GpuNode::from_preset("mi210").unwrap();
    kmd::topology::write(&root, &gpu).unwrap();
    let so = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join("libkmd_preload.so");
    // `timeout`: a step that waits on the GPU must fail the test, not hang it.
    let out = Command::new("timeout")
        .arg("60")
        .arg(&exe)
        .env("LD_PRELOAD", &so)
        .env("GFXSIM_KMD_ROOT", &root)
        .env("GFXSIM_KMD_GPU", "mi210")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for step in [
        "init",
        "agent",
        "vram-alloc",
        "queue-create",
        "signal-wait",
        "queue-destroy",
        "shut-down",
    ] {
        assert!(
            text.contains(&format!("step {step} ok\n")),
            "{step}:\n{text}"
        );
    }
    assert!(text.contains("agent gfx90a\n"), "{text}");
    assert!(
        text.contains(&format!("vram {}\n", gpu.vram_bytes)),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
