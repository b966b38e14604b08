//! `gfxsim exec -- rocminfo`: Debian's unmodified rocminfo (ROCr 5.2.3 + libhsakmt 5.2.3)
//! runs on the emulated KFD and lists the simulated gfx90a agent with the preset's values.

use std::process::Command;

use kmd::GpuNode;

fn gfxsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
}

/// The value after `label` on the first line of the GPU agent's section that has it.
fn field<'a>(agent: &'a str, label: &str) -> &'a str {
    agent
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` in rocminfo's agent:\n{agent}"))
        .trim()
}

/// rocminfo's section of the gfx90a agent.
fn gpu_agent(out: &str) -> &str {
    let at = out
        .find("Name:                    gfx90a")
        .unwrap_or_else(|| panic!("rocminfo lists no gfx90a agent:\n{out}"));
    &out[at..]
}

fn run_rocminfo(preset: &str) -> String {
    let out = gfxsim()
        .args(["exec", "--gpu", preset, "--", "rocminfo"])
        .output()
        .expect("run gfxsim exec (is rocminfo installed? scripts/install-deps.sh)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "gfxsim exec -- rocminfo exited {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn check_agent(preset: &str, out: &str) {
    let gpu = GpuNode::from_preset(preset).unwrap();
    let agent = gpu_agent(out);
    assert_eq!(field(agent, "Marketing Name:"), gpu.marketing_name);
    assert_eq!(field(agent, "Device Type:"), "GPU");
    assert_eq!(field(agent, "Compute Unit:"), gpu.compute_units.to_string());
    assert_eq!(field(agent, "SIMDs per CU:"), gpu.simds_per_cu.to_string());
    assert_eq!(
        field(agent, "Wavefront Size:"),
        format!("{0}(0x{0:x})", gpu.wave_size)
    );
    assert_eq!(gpu.wave_size, 64);
    assert_eq!(
        field(agent, "Max Clock Freq. (MHz):"),
        gpu.engine_mhz.to_string()
    );
    // Pool 1 is the device memory (coarse grained), the GROUP pool is the LDS; rocminfo
    // prints sizes in KiB.
    let pools = &agent[agent.find("Pool Info:").expect("pool info")..];
    let vram_kib = gpu.vram_bytes / 1024;
    assert_eq!(
        field(pools, "Size:"),
        format!("{vram_kib}(0x{vram_kib:x}) KB")
    );
    let group = &pools[pools
        .find("Segment:                 GROUP")
        .expect("GROUP pool")..];
    let lds_kib = gpu.lds_bytes / 1024;
    assert_eq!(
        field(group, "Size:"),
        format!("{lds_kib}(0x{lds_kib:x}) KB")
    );
    assert!(
        field(agent, "Name:").starts_with("gfx90a"),
        "agent name: {}",
        field(agent, "Name:")
    );
}

#[test]
fn rocminfo_lists_the_simulated_mi210() {
    let out = run_rocminfo("mi210");
    check_agent("mi210", &out);
    // The ISA in the project's production modes for gfx9 (sramecc on, xnack off).
    let isa = gpu_model::loader::TargetId::production(gpu_model::Target::Gfx90a);
    assert!(
        out.contains(&format!("amdgcn-amd-amdhsa--{isa}\n")),
        "{isa}:\n{out}"
    );
}

#[test]
fn rocminfo_lists_the_simulated_mi250x() {
    check_agent("mi250x", &run_rocminfo("mi250x"));
}

#[test]
fn two_concurrent_runs_do_not_interfere() {
    let a = std::thread::spawn(|| run_rocminfo("mi210"));
    let b = std::thread::spawn(|| run_rocminfo("mi250x"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    check_agent("mi210", &a);
    check_agent("mi250x", &b);
}

#[test]
fn exit_status_is_forwarded_and_bad_presets_are_refused() {
    let st = gfxsim()
        .args(["exec", "--", "sh", "-c", "exit 7"])
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(7));
    let out = gfxsim()
        .args(["exec", "--gpu", "mi300x", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gfx942") && err.contains("mi210"), "{err}");
}

#[test]
fn report_lists_the_dispatches_as_json() {
    let dir = std::env::temp_dir().join(format!("gfxsim-exec-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.json");
    let st = gfxsim()
        .args(["exec", "--report"])
        .arg(&path)
        .args(["--", "rocminfo"])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let report: scenarios::report::RunReport =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(report.gpu, "AMD Instinct MI210");
    // rocminfo dispatches nothing.
    assert!(report.kernels.is_empty());

    // The transport: a process leaves its records where the interposer writes them at
    // exit (kmd::report), and the report lists them in `gfxsim run`'s form.
    let record = "vadd\t256,1,1\t64,1,1\t1200\t5000000\n";
    let st = gfxsim()
        .args(["exec", "--report"])
        .arg(&path)
        .args(["--", "sh", "-c"])
        .arg(format!(
            "mkdir -p \"$GFXSIM_KMD_ROOT/dispatches\" && printf '{record}' > \"$GFXSIM_KMD_ROOT/dispatches/$$.tsv\""
        ))
        .status()
        .unwrap();
    assert!(st.success());
    let report: scenarios::report::RunReport =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let [k] = &report.kernels[..] else {
        panic!("{:?}", report.kernels)
    };
    assert_eq!(
        (k.kernel.as_str(), k.grid, k.workgroup),
        ("vadd", [256, 1, 1], [64, 1, 1])
    );
    assert_eq!(
        (k.workgroups, k.waves, k.instructions["total"]),
        (4, 4, 1200)
    );
    // 5 us at the MI210's 1700 MHz.
    assert_eq!((k.ticks, k.cycles), (5_000_000, 8500));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rocm_agent_enumerator_finds_gfx90a() {
    // Python, through /sys/class/kfd (the class link) with listdir/stat/open.
    let out = gfxsim()
        .args(["exec", "--", "rocm_agent_enumerator"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().collect::<Vec<_>>(), ["gfx000", "gfx90a"]);
}
