//! Real HIP programs under `gfxsim exec`: compiled here with Debian's `hipcc` (HIP 5.2.3,
//! clang-15, gfx90a code objects in the executable's fat binary) and run unmodified on the
//! emulated KFD. HIP's runtime (ROCclr on ROCr) loads the program's code object, copies
//! with ROCr's blit kernels (the simulated device has no SDMA engine) and launches the
//! user kernels; the programs check every result against the CPU themselves and exit
//! non-zero on a mismatch.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gfxsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
}

/// A scratch directory of this test process, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("gfxsim-hip-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Self(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds `kmd/tests/hip/<name>.hip` with `hipcc --offload-arch=gfx90a` into `dir`.
fn hipcc(name: &str, dir: &Path) -> PathBuf {
    hipcc_with(name, dir, &[])
}

/// [`hipcc`], linking `libs` too.
fn hipcc_with(name: &str, dir: &Path, libs: &[&str]) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../kmd/tests/hip/{name}.hip"));
    let exe = dir.join(name);
    let out = Command::new("hipcc")
        .args(["--offload-arch=gfx90a", "-O2"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(libs)
        .output()
        .expect("hipcc is needed (scripts/install-deps.sh installs hipcc and libamdhip64-dev)");
    assert!(
        out.status.success(),
        "hipcc {}: {}{}",
        src.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_steps(out: &Output, steps: &[&str]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    for step in steps {
        assert!(
            stdout.contains(&format!("step {step} ok\n")),
            "step {step}:\n{}",
            text(out)
        );
    }
}

/// A vector add and a shared-memory reduction (hipMalloc, hipMemcpy both ways,
/// hipLaunchKernelGGL, hipDeviceSynchronize), checked by the program against the CPU;
/// the report lists ROCr's blit copies and both user kernels with their geometry.
#[test]
fn hip_vector_add_and_reduction() {
    let dir = Dir::new("vadd");
    let exe = hipcc("vadd_reduce", &dir.0);
    // Without the emulation there is no device: the program fails (its error path works).
    let bare = Command::new(&exe).output().unwrap();
    assert!(!bare.status.success(), "{}", text(&bare));

    let report = dir.0.join("r.json");
    let out = gfxsim()
        .args(["exec", "--gpu", "mi210", "--report"])
        .arg(&report)
        .arg("--")
        .arg(&exe)
        .arg("5000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_steps(
        &out,
        &["init", "copy-in", "check-vadd", "check-reduce", "done"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("device AMD Instinct MI210 gfx90a") && stdout.contains("cus 104"),
        "{stdout}"
    );
    // The sum the program computed on the CPU and found on the GPU.
    let want: u64 = (0..5000u32)
        .map(|i| u64::from(i.wrapping_mul(2_654_435_761) >> 20))
        .sum();
    assert!(stdout.contains(&format!("sum {want}\n")), "{stdout}");

    let path = report;
    let report: scenarios::report::RunReport =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let user: Vec<_> = report
        .kernels
        .iter()
        .filter(|k| k.workgroup == [256, 1, 1])
        .collect();
    // vadd and block_sum: 20 blocks of 256 each, named by the code object's symbols.
    assert_eq!(user.len(), 2, "{:#?}", report.kernels);
    assert_eq!(user[0].kernel, "_Z4vaddPKfS0_Pfi");
    assert_eq!(user[1].kernel, "_Z9block_sumPKjPji");
    // Each record carries its own dispatch's count.
    assert!(
        user.iter()
            .all(|k| k.grid == [5120, 1, 1] && k.workgroups == 20 && k.instructions["total"] > 0),
        "{user:#?}"
    );
    // Three copies in and two out, each through ROCr's blit kernels.
    assert!(report.kernels.len() >= 7, "{:#?}", report.kernels);
    assert!(
        report.kernels.iter().all(|k| k.ticks > 0),
        "{:#?}",
        report.kernels
    );
    // The summary adds up the dispatches' simulated time.
    assert_eq!(
        report.ticks,
        report.kernels.iter().map(|k| k.ticks).sum::<u64>()
    );
    assert!(report.host_seconds > 0.0);
    // The engine's events are counted, and the time split between the model and the
    // emulation is in the JSON.
    assert!(report.events > 0, "events {}", report.events);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let split = &v["time_split"];
    let model = split["model_seconds"].as_f64().unwrap();
    let wall = split["wall_seconds"].as_f64().unwrap();
    assert!(model > 0.0 && model < wall, "{split}");
    assert!(
        split["emulation_seconds"].as_f64().unwrap() > 0.0,
        "{split}"
    );
}

/// Two streams with hipMemsetAsync, an event that orders one stream after the other
/// (hipEventRecord / hipStreamWaitEvent, barrier packets whose completion signals wake
/// ROCr), hipMemset, and one kernel launched 1000 times; checked by the program. The
/// report shows the 1000 launches by name and HIP's own fill kernels (OpenCL C that
/// ROCclr compiles at run time through comgr) by theirs.
#[test]
fn hip_streams_events_memset_and_1000_launches() {
    let dir = Dir::new("streams");
    let exe = hipcc("streams", &dir.0);
    let report = dir.0.join("r.json");
    let out = gfxsim()
        .args(["exec", "--gpu", "mi210", "--report"])
        .arg(&report)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_steps(&out, &["init", "check-streams", "check-loop", "done"]);
    let report: scenarios::report::RunReport =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let count = |name: &str| report.kernels.iter().filter(|k| k.kernel == name).count();
    assert_eq!(count("_Z4bumpPji"), 1000);
    assert_eq!(count("_Z9scale_addPiiii"), 2);
    assert_eq!(count("_Z7combinePKiS0_Pii"), 1);
    assert!(
        count("__amd_rocclr_fillBufferAligned") >= 3,
        "{:#?}",
        report.kernels
    );
    // Every record carries its own dispatch's wave-instructions, also when dispatches ran
    // at the same time (the 1000 launches are queued without waiting): every dispatch
    // retires at least its waves' s_endpgm, and the same kernel on the same grid and data
    // size retires the same count each time.
    assert!(
        report.kernels.iter().all(|k| k.instructions["total"] > 0),
        "{:#?}",
        report.kernels
    );
    let bumps: Vec<u64> = report
        .kernels
        .iter()
        .filter(|k| k.kernel == "_Z4bumpPji")
        .map(|k| k.instructions["total"])
        .collect();
    assert!(bumps.iter().all(|&n| n == bumps[0]), "{bumps:?}");
}

/// rocSPARSE (Debian's librocsparse0 5.3.0, its own gfx90a code objects) computes a CSR
/// y = alpha*A*x + beta*y with rocsparse_scsrmv, checked by the program against the CPU,
/// while a second program (the HIP vector add) runs at the same time under its own
/// `gfxsim exec`, with its own emulated device: neither disturbs the other.
#[test]
fn rocsparse_csrmv_next_to_another_program() {
    let dir = Dir::new("rocsparse");
    let csrmv = hipcc_with("csrmv", &dir.0, &["-lrocsparse"]);
    let vadd = hipcc("vadd_reduce", &dir.0);
    let report = dir.0.join("r.json");
    let run = {
        let report = report.clone();
        std::thread::spawn(move || {
            gfxsim()
                .args(["exec", "--gpu", "mi210", "--report"])
                .arg(&report)
                .arg("--")
                .arg(&csrmv)
                .output()
                .unwrap()
        })
    };
    let other = gfxsim()
        .args(["exec", "--gpu", "mi250x", "--"])
        .arg(&vadd)
        .arg("20000")
        .output()
        .unwrap();
    let out = run.join().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_steps(&out, &["copy-in", "handle", "check-csrmv", "done"]);
    // Row 0: alpha * (1.5*1 - 2*0.5) + beta * 1 = 0.5 (the program checks every row).
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("y[0] 0.5\n"),
        "{}",
        text(&out)
    );
    assert!(other.status.success(), "{}", text(&other));
    assert_steps(&other, &["check-vadd", "check-reduce", "done"]);
    assert!(
        String::from_utf8_lossy(&other.stdout).contains("device AMD Instinct MI250X"),
        "{}",
        text(&other)
    );
    let report: scenarios::report::RunReport =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // The library's own SpMV kernel ran on the simulated GPU.
    assert!(
        report
            .kernels
            .iter()
            .any(|k| k.kernel.contains("csrmv") && k.instructions["total"] > 0),
        "{:#?}",
        report.kernels
    );
}
