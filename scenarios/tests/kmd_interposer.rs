//! The kmd interposer under real C programs (kmd/tests/c): unrelated file operations pass through untouched,
//! and garbage sent to the emulated /dev/kfd gets errors while later calls are served.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `libkmd_preload.so`, built by cargo (the dev-dependency) next to this test binary, in
/// target/<profile>/deps.
fn preload() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let so = exe.parent().unwrap().join("libkmd_preload.so");
    assert!(so.is_file(), "{} not built", so.display());
    so
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kmd-preload-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn build(src: &str, dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kmd/tests/c")
        .join(src);
    let exe = dir.join(src.file_stem().unwrap());
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("gcc is needed");
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `exe args` with the interposer active on a fresh topology root.
fn run_preloaded(exe: &Path, args: &[&Path], root: &Path) -> Output {
    let gpu = kmd::GpuNode::from_preset("mi210").unwrap();
    kmd::topology::write(root, &gpu).unwrap();
    Command::new(exe)
        .args(args)
        .env("LD_PRELOAD", preload())
        .env("GFXSIM_KMD_ROOT", root)
        .env("GFXSIM_KMD_GPU", "mi210")
        .output()
        .unwrap()
}

#[test]
fn unrelated_file_operations_pass_through() {
    let dir = scratch("io");
    let exe = build("fileio.c", &dir);
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let plain = Command::new(&exe).arg(&work).output().unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let pre = run_preloaded(&exe, &[&work], &dir.join("root"));
    assert!(pre.status.success(), "{pre:?}");
    let text = String::from_utf8(pre.stdout).unwrap();
    assert_eq!(text, String::from_utf8(plain.stdout).unwrap());
    assert!(
        text.contains("read hello kmd\n") && text.contains("fionread 3\n"),
        "{text}"
    );
    assert!(
        text.contains("size 10 mode 640\n") && text.contains("entries 1\n"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn garbage_ioctls_fail_and_the_next_call_is_served() {
    let dir = scratch("garbage");
    let exe = build("garbage.c", &dir);
    let out = run_preloaded(&exe, &[], &dir.join("root"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("GET_VERSION null: Bad address\n"), "{text}");
    assert!(
        text.contains("FREE bad handle: Invalid argument\n"),
        "{text}"
    );
    assert!(text.contains("version 1.8\n"), "{text}");
    assert!(
        text.contains("child GET_VERSION: Bad file descriptor\n"),
        "{text}"
    );
    assert!(
        text.contains("simd_count 416\n") && text.contains("gfx_target_version 90010\n"),
        "{text}"
    );
    // Without the interposer the same program finds no /dev/kfd.
    let plain = Command::new(&exe).output().unwrap();
    assert!(!plain.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
