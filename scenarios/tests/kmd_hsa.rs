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
    let (hsaco, exe) = build_hsa_client(&dir, "dispatch");
    let root = dir.join("root");
    let out = run_emulated(&root, &exe, &hsaco);
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
    let d = kmd::report::collect(&root).unwrap();
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!((d[1].grid, d[1].workgroup), ([1024, 1, 1], [64, 1, 1]));
    assert_eq!((d[2].grid, d[2].workgroup), ([4096, 1, 1], [64, 1, 1]));
    assert!(d.iter().all(|r| r.instructions > 0 && r.ticks > 0), "{d:?}");
    // Profiling: ROCr read the completion signals' start_ts/end_ts (the packet processor
    // wrote them in the clock counter's domain) and converted them to system time; each
    // dispatch's span is its simulated duration from the records (ticks are ps; the
    // timestamps count 10 ns, and ROCr scales by its clock samples' ratio).
    for (name, rec) in [("vadd", &d[1]), ("reduce", &d[2])] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("time {name} ")))
            .unwrap_or_else(|| panic!("no time line for {name}:\n{text}"));
        let f: Vec<&str> = line.split(' ').collect();
        let (start, end): (u64, u64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        assert_eq!(
            f[5], "0",
            "hsa_amd_profiling_get_dispatch_time status: {line}"
        );
        assert!(start > 0 && end > start, "{line}");
        let got = (end - start) as f64;
        let want = rec.ticks as f64 / 1000.0;
        assert!(
            (got - want).abs() <= 30.0 + want * 0.05,
            "{name}: profiled {got} ns, simulated {want} ns ({line})"
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("time stamps may be invalid"), "{stderr}");
    // The process's statistics: engine events, time in the model and around it.
    let stats = kmd::report::collect_stats(&root).unwrap();
    assert_eq!(stats.len(), 1);
    let s = stats[0];
    assert!(
        s.events > 0 && s.model_ns > 0 && s.emulation_ns > 0,
        "{s:?}"
    );
    assert!(
        s.model_ns < s.wall_ns && s.emulation_ns < s.wall_ns,
        "{s:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Builds kmd/tests/hsa/kernels.cl with clang-22 and the HSA client
/// kmd/tests/hsa/`name`.c with gcc into a fresh `dir`: (code object, executable).
fn build_hsa_client(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
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
    let exe = dir.join(name);
    run_tool(
        Command::new("gcc")
            .args(["-O1", "-Wall", "-Werror", "-o"])
            .arg(&exe)
            .arg(here.join(format!("../kmd/tests/hsa/{name}.c")))
            .arg("-lhsa-runtime64"),
        "gcc (with libhsa-runtime-dev)",
    );
    (hsaco, exe)
}

/// Runs `exe hsaco` on an emulated mi210 whose topology and records live in `root`.
fn run_emulated(root: &Path, exe: &Path, hsaco: &Path) -> std::process::Output {
    let gpu = kmd::GpuNode::from_preset("mi210").unwrap();
    kmd::topology::write(root, &gpu).unwrap();
    let so = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join("libkmd_preload.so");
    Command::new("timeout")
        .arg("120")
        .arg(exe)
        .arg(hsaco)
        .env("LD_PRELOAD", &so)
        .env("GFXSIM_KMD_ROOT", root)
        .env("GFXSIM_KMD_GPU", "mi210")
        .output()
        .unwrap()
}

/// USERPTR pages the client protects (mprotect PROT_NONE) or unmaps while registered
/// (kmd/tests/hsa/userptr_protect.c): the dispatch that reads them faults on the GPU and
/// is reported, the host process is not hurt, nothing is stored; once the pages are
/// accessible again the same dispatch gives the right result. The process exits 0.
#[test]
fn protected_userptr_pages_fault_the_dispatch_not_the_process() {
    let dir = std::env::temp_dir().join(format!("kmd-hsa-userptr-{}", std::process::id()));
    let (hsaco, exe) = build_hsa_client(&dir, "userptr_protect");
    let root = dir.join("root");
    let out = run_emulated(&root, &exe, &hsaco);
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}\n{text}\n{stderr}", out.status);
    for step in [
        "lock-b",
        "check-accessible",
        "dispatch-protected",
        "protected-no-store",
        "check-restored",
        "dispatch-unmapped",
        "shut-down",
    ] {
        assert!(
            text.contains(&format!("step {step} ok\n")),
            "{step}:\n{text}\n{stderr}"
        );
    }
    // The emulation reported both faulting dispatches as memory faults.
    let faults = stderr
        .lines()
        .filter(|l| l.contains("faulted") && l.contains("Unmapped"))
        .count();
    assert_eq!(faults, 2, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
