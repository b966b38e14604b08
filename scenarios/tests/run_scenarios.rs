//! Example scenarios run on the SoC model and pass their checks (expected values come from
//! the corpus's independent CPU references); 1 and 2 threads give identical results.

use scenarios::scenario::{RunOptions, Scenario, Workload};
use std::path::Path;
use std::process::Command;

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

fn load(name: &str) -> Workload {
    let p = examples().join(name);
    Scenario::load(&p)
        .unwrap()
        .resolve(name, &examples())
        .unwrap()
}

#[test]
fn default_scenario_passes_its_checks() {
    let w = load("default.ron");
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(out.report.kernels.len(), 5);
    assert_eq!(out.report.checks.len(), 5);
    for c in &out.report.checks {
        assert!(c.passed, "{}: {}", c.buffer, c.detail);
    }
    // vadd: 1000 work-items in workgroups of 256 -> 4 workgroups of 4 waves.
    let vadd = &out.report.kernels[0];
    assert_eq!((vadd.workgroups, vadd.waves), (4, 16));
    // Workgroups are dealt round-robin over the 8 XCDs: 4 workgroups -> 4 CUs.
    assert_eq!(vadd.occupancy.len(), 4);
    assert_mix_is_consistent(&out.report);
    // On gfx942 these kernels have no cache-maintenance instructions: every vmem
    // instruction is an access.
    for k in &out.report.kernels {
        let n = |c: &str| k.instructions.get(c).copied().unwrap_or(0);
        let seen = n("vmem_load") + n("vmem_store") + n("vmem_atomic");
        assert_eq!(seen, n("vmem"), "{}", k.kernel);
    }
    // vadd (gfx942, straight-line): two global loads and one store per wave.
    let n = |c: &str| vadd.instructions.get(c).copied().unwrap_or(0);
    assert_eq!((n("vmem_load"), n("vmem_store")), (2 * 16, 16));
    // matmul_tiled stages its tiles through LDS.
    let mm = out
        .report
        .kernels
        .iter()
        .find(|k| k.kernel == "matmul_tiled");
    assert!(mm.is_some_and(|k| k.instructions["lds"] > 0));
}

/// Instruction mix: the classes partition the total, and the caches see a load, store or
/// atomic for every vector-memory instruction that is not cache maintenance
/// (`buffer_inv`, `buffer_wbinvl1_vol`, `global_inv`, ... are `vmem` too).
fn assert_mix_is_consistent(r: &scenarios::report::RunReport) {
    let classes = ["salu", "control", "smem", "valu", "vop3p", "lds", "vmem"];
    for k in &r.kernels {
        let n = |c: &str| k.instructions.get(c).copied().unwrap_or(0);
        let sum: u64 = classes.iter().map(|c| n(c)).sum();
        assert_eq!(sum, n("total"), "{}: {:?}", k.kernel, k.instructions);
        let seen = n("vmem_load") + n("vmem_store") + n("vmem_atomic");
        assert!(
            seen > 0 && seen <= n("vmem"),
            "{}: {:?}",
            k.kernel,
            k.instructions
        );
    }
}

#[test]
fn one_and_two_threads_agree() {
    let threads = agree_on_one_and_two_threads("two_xcds.ron");
    assert_eq!(threads, 2);
}

/// Global atomics (min/max/and/or/xor/sub, 64-bit add and max, f32 add, histogram adds)
/// from workgroups on all eight XCDs: performed at memory sync points in a fixed order, so
/// results and statistics agree on 1 and 2 threads; outputs match the Python references.
#[test]
fn atomics_from_every_xcd_agree_on_one_and_two_threads() {
    assert_eq!(agree_on_one_and_two_threads("atomics.ron"), 2);
}

/// Every preset runs its example scenario (its own target's corpus objects, CDNA2/3/4 and
/// RDNA4) with passing checks, identically on 1 and 2 threads (single-XCD GPUs have one
/// partition, so they run on one thread either way).
#[test]
fn every_preset_runs_its_example_scenario() {
    for name in ["mi355x", "mi250x", "mi210", "rx9070xt", "rx9060xt"] {
        agree_on_one_and_two_threads(&format!("{name}.ron"));
    }
}

/// Runs a scenario on 1 and 2 threads, checks that everything agrees; returns the thread
/// count the 2-thread run used.
fn agree_on_one_and_two_threads(name: &str) -> usize {
    let w = load(name);
    let run = |threads| {
        let opts = RunOptions {
            threads: Some(threads),
            trace: true,
        };
        w.run(&opts, &mut |_, _| {}).unwrap()
    };
    let (a, b) = (run(1), run(2));
    let threads = b.report.threads;
    assert_mix_is_consistent(&a.report);
    assert!(a.report.all_passed() && b.report.all_passed(), "{name}");
    assert!(!a.report.checks.is_empty(), "{name}");
    assert_eq!(a.buffers, b.buffers);
    assert_eq!(a.spans, b.spans);
    let strip = |mut r: scenarios::report::RunReport| {
        r.host_seconds = 0.0;
        r.threads = 0;
        r.epochs = 0;
        for k in &mut r.kernels {
            k.host_seconds = 0.0;
        }
        r
    };
    assert_eq!(strip(a.report), strip(b.report), "{name}");
    threads
}

#[test]
fn cli_exit_codes_tell_bad_input_from_failed_checks() {
    let exe = env!("CARGO_BIN_EXE_gfxsim");
    let dir = std::env::temp_dir().join(format!("gfxsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "(gpu: \"mi300x\", bufers: [])").unwrap();
    let o = Command::new(exe).arg("run").arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.ron:1:"), "{err}");

    // A kernel that writes past its buffer faults: exit code 3, with the fault report.
    let vadd = format!(
        "{}/../corpus/build/gfx942/vadd.hsaco:vadd",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = Command::new(exe)
        .args(["run", "--kernel", &vadd, "--grid", "1000", "--block", "256"])
        .args([
            "--arg",
            "buf:f32:1000",
            "--arg",
            "buf:f32:1000",
            "--arg",
            "buf:f32:10",
        ])
        .args(["--arg", "u32:1000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("kernel `vadd` workgroup (0, 0, 0) wave 0"),
        "{err}"
    );
    assert!(err.contains("global_store_dword"), "{err}");
    assert!(err.contains("memory fault in lane 10"), "{err}");

    // A wrong expected checksum: the run succeeds, the check fails with exit code 4.
    let src = std::fs::read_to_string(examples().join("default.ron"))
        .unwrap()
        .replace(
            "../../corpus",
            &format!("{}/../corpus", env!("CARGO_MANIFEST_DIR")),
        )
        .replace(
            "\"data/",
            &format!("\"{}/examples/data/", env!("CARGO_MANIFEST_DIR")),
        );
    let i = src.find("Fnv1a(\"0x").unwrap() + 9;
    let mut wrong = src.clone();
    wrong.replace_range(
        i..i + 4,
        if &src[i..i + 4] == "0000" {
            "1111"
        } else {
            "0000"
        },
    );
    let f = dir.join("wrong.ron");
    std::fs::write(&f, wrong).unwrap();
    let o = Command::new(exe)
        .arg("run")
        .arg(&f)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kernels"].as_array().unwrap().len(), 5);
    assert_eq!(v["checks"][0]["passed"], false);
}

/// A report without what depends on the host (times, threads, epoch barriers), as JSON.
fn simulated_statistics(r: &scenarios::report::RunReport) -> String {
    let mut r = r.clone();
    (r.host_seconds, r.threads, r.epochs) = (0.0, 0, 0);
    for k in &mut r.kernels {
        k.host_seconds = 0.0;
    }
    serde_json::to_string_pretty(&r).unwrap()
}

/// The corpus's cross-workgroup semaphore (hand-written assembly: coherent loads, s_sleep,
/// atomics): workgroup 0 produces, workgroups 1..7 spin on a flag, on other XCDs and, with
/// two threads, in another partition. Expected values are the manifest's statement.
#[test]
fn cross_cu_semaphore_completes_and_sees_the_producers_data() {
    let src = format!(
        r#"(
    gpu: "mi300x",
    buffers: [
        (name: "data", elem: U32, len: 32),
        (name: "flag", elem: U32, len: 3),
        (name: "out", elem: U32, len: 256),
    ],
    launches: [(
        code_object: "{}/../corpus/build/gfx942/asm_semaphore.hsaco",
        kernel: "asm_semaphore",
        grid: (256, 1, 1),
        workgroup: (32, 1, 1),
        args: [Buffer("data"), Buffer("flag"), Buffer("out")],
    )],
)"#,
        env!("CARGO_MANIFEST_DIR")
    );
    let w = Scenario::parse(&src, "semaphore.ron")
        .unwrap()
        .resolve("semaphore.ron", Path::new("."))
        .unwrap();
    let u32s = |b: &[u8]| -> Vec<u32> {
        b.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let data: Vec<u32> = (0..32).map(|l| l * l + 1).collect();
    let mut out = vec![0u32; 256];
    for g in 1..8 {
        for l in 0..32 {
            out[32 * g + l] = data[l] + g as u32;
        }
    }
    let mut reference = None;
    // Two threads several times: how the host threads interleave must not show.
    for threads in [1, 2, 2, 2, 2, 2] {
        let opts = RunOptions {
            threads: Some(threads),
            trace: false,
        };
        let r = w.run(&opts, &mut |_, _| {}).unwrap();
        // Every statistic, spin loops included, is the same on 1 and 2 threads.
        let stats = simulated_statistics(&r.report);
        match &reference {
            None => reference = Some(stats),
            Some(s) => assert_eq!(&stats, s, "{threads} threads"),
        }
        assert_eq!(u32s(&r.buffers[0]), data, "{threads} threads");
        assert_eq!(u32s(&r.buffers[1]), [1, 7, 7], "{threads} threads");
        assert_eq!(u32s(&r.buffers[2]), out, "{threads} threads");
        // One workgroup per XCD: workgroups are dealt round-robin over the 8 XCDs.
        let k = &r.report.kernels[0];
        let xcds: std::collections::BTreeSet<&str> =
            k.occupancy.iter().map(|c| &c.cu[..10]).collect();
        assert_eq!(xcds.len(), 8, "{:?}", k.occupancy);
        // The producer's `buffer_wbl2 sc1` writes its XCD's dirty L2 lines back; the
        // consumers' `buffer_inv sc1` drops their XCDs' L2 lines (their V$ holds none:
        // their loads are coherent and bypass it).
        let level = |n: &str| k.caches.iter().find(|c| c.level == n).unwrap();
        assert!(level("L2").writebacks > 0, "{:?}", k.caches);
        assert!(level("L2").invalidations > 0, "{:?}", k.caches);
    }
}

#[test]
fn trace_option_writes_a_perfetto_trace() {
    let exe = env!("CARGO_BIN_EXE_gfxsim");
    let path = std::env::temp_dir().join(format!("gfxsim-trace-{}.json", std::process::id()));
    let o = Command::new(exe)
        .args(["run", "--trace"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let evs = v["traceEvents"].as_array().unwrap();
    let waves = evs.iter().filter(|e| e["ph"] == "X").count();
    // The default scenario's five kernels run 16 + 64 + 160 + 80 + 79 waves (histogram:
    // 5000 items in workgroups of 128 = 39 full workgroups of 2 waves, then 8 items).
    assert_eq!(waves, 399);
    assert!(evs
        .iter()
        .all(|e| e["ph"] != "X" || e["dur"].as_f64().unwrap() >= 0.0));
    let procs = evs.iter().filter(|e| e["name"] == "process_name").count();
    assert_eq!(procs, 8, "one process per XCD");
}

/// The example scenarios' expected values are what the corpus's Python references say
/// (regenerating them changes nothing).
#[test]
fn example_expectations_are_current() {
    let gen = examples().join("gen.py");
    let o = Command::new("python3")
        .arg(&gen)
        .arg("--check")
        .output()
        .expect(
            "python3 is needed to check the example scenarios against corpus/hostcheck/refs.py",
        );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A wave that runs past its instruction budget is a kernel fault naming the budget, the
/// kernel and the wave, never a hang; the same on 1 and 2 threads.
#[test]
fn wave_instruction_budget_stops_the_kernel_with_a_report() {
    let mut w = load("two_xcds.ron");
    // matmul_tiled's waves run a few hundred instructions each.
    w.config.max_wave_instructions = 50;
    let fault = |threads| {
        let opts = RunOptions {
            threads: Some(threads),
            trace: false,
        };
        match w.run(&opts, &mut |_, _| {}) {
            Err(scenarios::scenario::RunError::Fault { launch, fault }) => (launch, fault),
            other => panic!("expected a budget fault, got {:?}", other.map(|o| o.report)),
        }
    };
    let (launch, text) = fault(1);
    assert_eq!(launch, 0);
    assert!(text.contains("budget of 50"), "{text}");
    assert!(text.contains("matmul_tiled"), "{text}");
    assert_eq!(fault(2), (launch, text));
}

/// A Triton 3.9 kernel from corpus/triton, launched as Triton launches it: launch LDS as
/// `dynamic_lds` and null (`U64(0)`) trailing scratch pointers. Its output matches the
/// numpy reference; the speed-anchor GEMM scenarios resolve (their run is a benchmark).
#[test]
fn triton_softmax_scenario_passes_and_gemm_scenarios_resolve() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/triton/scenarios");
    let w = Scenario::load(&dir.join("softmax_mi300x.ron"))
        .unwrap()
        .resolve("softmax_mi300x.ron", &dir)
        .unwrap();
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(out.report.checks.len(), 1);
    assert!(out.report.all_passed(), "{:?}", out.report.checks);
    for name in ["gemm1024_fp8_mi355x.ron", "gemm1024_f16_mi300x.ron"] {
        Scenario::load(&dir.join(name))
            .unwrap()
            .resolve(name, &dir)
            .unwrap();
    }
    // A non-null raw address for a pointer argument is still refused.
    let src = std::fs::read_to_string(dir.join("softmax_mi300x.ron"))
        .unwrap()
        .replacen("U64(0)", "U64(4096)", 1);
    let err = Scenario::parse(&src, "bad.ron")
        .unwrap()
        .resolve("bad.ron", &dir)
        .unwrap_err();
    assert!(err.to_string().contains("null pointer"), "{err}");
}

/// An IREE 3.13 dispatch from corpus/iree, launched as IREE's HIP HAL launches it (binding
/// pointers only, static LDS): its output matches the numpy reference.
#[test]
fn iree_matmul_scenario_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/iree/scenarios");
    let w = Scenario::load(&dir.join("matmul_f16_mi300x.ron"))
        .unwrap()
        .resolve("matmul_f16_mi300x.ron", &dir)
        .unwrap();
    let out = w.run(&RunOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(out.report.checks.len(), 1);
    assert!(out.report.all_passed(), "{:?}", out.report.checks);
}
