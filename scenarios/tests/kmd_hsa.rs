//! An HSA C program (kmd/tests/hsa/bringup.c, built with gcc against Debian's
//! libhsa-runtime-dev) runs on the emulated KFD through every step that needs no GPU
//! execution: init, agent, memory pools, VRAM allocation, AQL queue creation, signals,
//! and the whole teardown, exiting 0; and one (kmd/tests/hsa/dispatch.c) whose code
//! object load and kernel dispatches really run on the simulated GPU.

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

/// Runs `cmd`, failing the test with its output when it fails (a missing tool fails too).
fn run_tool(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} is needed: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An HSA C program (kmd/tests/hsa/dispatch.c) loads a clang-22 gfx90a code object
/// (kmd/tests/hsa/kernels.cl, built here), which makes ROCr copy it into VRAM with its own
/// blit kernel during `hsa_executable_freeze` (it runs on the simulated GPU: without the
/// copy the kernel descriptors would be zeros and nothing below could run), then
/// dispatches a vector add and an LDS reduction on its own AQL queue, waits on their
/// completion signals, checks the results against the CPU, tears down and exits 0. The
/// dispatch records show the blit kernel and both user kernels with their geometry.
#[test]
fn hsa_dispatches_run_on_the_simulated_gpu() {
    let dir = std::env::temp_dir().join(format!("kmd-hsa-dispatch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let obj = dir.join("kernels.o");
    let hsaco = dir.join("kernels.hsaco");
    run_tool(
        Command::new("clang-22")
            .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
            .args([
                "-mcpu=gfx90a",
                "-mcode-object-version=4",
                "-nogpulib",
                "-O2",
            ])
            .arg("-I")
            .arg(here.join("../corpus/include"))
            .arg("-c")
            .arg(here.join("../kmd/tests/hsa/kernels.cl"))
            .arg("-o")
            .arg(&obj),
        "clang-22",
    );
    run_tool(
        Command::new("ld.lld-22")
            .arg("-shared")
            .arg(&obj)
            .arg("-o")
            .arg(&hsaco),
        "ld.lld-22",
    );
    let exe = dir.join("dispatch");
    run_tool(
        Command::new("gcc")
            .args(["-O1", "-Wall", "-Werror", "-o"])
            .arg(&exe)
            .arg(here.join("../kmd/tests/hsa/dispatch.c"))
            .arg("-lhsa-runtime64"),
        "gcc (with libhsa-runtime-dev)",
    );
    let root = dir.join("root");
    let gpu = kmd::GpuNode::from_preset("mi210").unwrap();
    kmd::topology::write(&root, &gpu).unwrap();
    let so = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join("libkmd_preload.so");
    let out = Command::new("timeout")
        .arg("120")
        .arg(&exe)
        .arg(&hsaco)
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
        "load",
        "freeze",
        "symbol-vadd",
        "dispatch-vadd",
        "check-vadd",
        "dispatch-reduce",
        "check-reduce",
        "queue-destroy",
        "shut-down",
    ] {
        assert!(
            text.contains(&format!("step {step} ok\n")),
            "{step}:\n{text}"
        );
    }
    // The dispatch records the interposer wrote at exit: ROCr's blit, then the two
    // kernels with the geometry dispatch.c used (1000 rounded up to 64; 4096).
    let records = std::fs::read_dir(root.join("dispatches"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    let d = kmd::report::parse(&records, "dispatches").unwrap();
    assert_eq!(d.len(), 3, "{records}");
    assert_eq!((d[1].grid, d[1].workgroup), ([1024, 1, 1], [64, 1, 1]));
    assert_eq!((d[2].grid, d[2].workgroup), ([4096, 1, 1], [64, 1, 1]));
    assert!(d.iter().all(|r| r.instructions > 0 && r.ticks > 0), "{d:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
