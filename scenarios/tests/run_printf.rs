//! `gfxsim run` prints what kernels print: a scenario with two launches of a real HIP
//! kernel that calls printf through the hostcall buffer
//! (`gpu-model/tests/fixtures/service/printf.hip`, clang-15 with ROCm 5.2.3's device
//! libraries), on 1 and 2 threads. The text comes first, launch by launch, then the report;
//! the JSON report carries it per kernel.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const SCENARIO: &str = r#"(
    gpu: "mi250x",
    overrides: {"xcds": 2, "iods": 2, "xcd.shader_engines": 2, "xcd.active_cus": 2},
    buffers: [(name: "ret", elem: I32, len: 128)],
    launches: [
        (
            code_object: "FIXTURES/printf_clang15_gfx90a_v5.hsaco",
            kernel: "print_some",
            grid: (128, 1, 1),
            workgroup: (64, 1, 1),
            args: [Buffer("ret"), U32(10)],
        ),
        (
            code_object: "FIXTURES/printf_clang15_gfx90a_v4.hsaco",
            kernel: "print_some",
            grid: (64, 1, 1),
            workgroup: (64, 1, 1),
            args: [Buffer("ret"), U32(7)],
        ),
    ],
)"#;

fn gfxsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn run_prints_kernel_printf_in_launch_order() {
    let dir = std::env::temp_dir().join(format!("gfxsim-printf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("printf.ron");
    let fixtures = root().join("gpu-model/tests/fixtures/service");
    let src = SCENARIO.replace("FIXTURES", fixtures.to_str().unwrap());
    std::fs::write(&path, src).unwrap();
    let p = path.to_str().unwrap();
    let mut expected = String::new();
    for limit in [10, 7] {
        for i in (0..limit).filter(|i| i % 3 == 0) {
            expected.push_str(&format!("lane {i} of {limit} says hello\n"));
        }
    }
    let mut texts = Vec::new();
    for threads in ["1", "2"] {
        let out = gfxsim(&["run", p, "--threads", threads]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.starts_with(&expected),
            "printed text missing or out of order:\n{stdout}"
        );
        // The report follows the text.
        assert!(stdout[expected.len()..].contains("print_some"), "{stdout}");
        texts.push(stdout[..expected.len()].to_string());
    }
    assert_eq!(texts[0], texts[1]);
    let json = gfxsim(&["run", p, "--json"]);
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let k = v["kernels"].as_array().unwrap();
    let per: String = k.iter().map(|k| k["stdout"].as_str().unwrap()).collect();
    assert_eq!(per, expected);
    std::fs::remove_dir_all(&dir).ok();
}
