//! Scenario and `gfxsim run --kernel` forms of the argument kinds beyond buffers and
//! scalars: `Lds(bytes)` / `--arg lds:BYTES` for OpenCL `__local` pointer arguments,
//! `Bytes([..])` / `--arg bytes:HEX` for structs by value, `dynamic_lds` / `--lds`. The
//! kernels are gpu-model's real clang-22 fixtures (`gpu-model/tests/fixtures/abi/args.cl`).

use scenarios::scenario::{RunOptions, Scenario, ScenarioError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const ARGS: &str = "gpu-model/tests/fixtures/abi/args_gfx942_v5.hsaco";

fn scenario(kernel: &str, args: &str, dynamic_lds: u32) -> String {
    format!(
        r#"(
    gpu: "mi300x",
    buffers: [(name: "out", elem: U32, len: 260)],
    launches: [(
        code_object: "{ARGS}",
        kernel: "{kernel}",
        grid: (64, 1, 1),
        workgroup: (64, 1, 1),
        dynamic_lds: {dynamic_lds},
        args: [{args}],
    )],
)"#
    )
}

fn run(src: &str) -> Result<Vec<u32>, ScenarioError> {
    let w = Scenario::parse(src, "t.ron")?.resolve("t.ron", &root())?;
    let out = w
        .run(&RunOptions::default(), &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    Ok(out.buffers[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn lds_arguments_get_consecutive_aligned_offsets_after_static_lds() {
    let got = run(&scenario(
        "lds_args",
        r#"Buffer("out"), Lds(67), Lds(1028), Lds(513)"#,
        0,
    ))
    .unwrap();
    // 40 bytes of static LDS; uchar (align 1) at 40, float4 (16) at 112, double (8) at
    // 112 + 1028 = 1140 -> 1144.
    assert_eq!(&got[..4], &[0, 40, 112, 1144]);
    // Work-item 0 reads back what work-item 63 stored through each array.
    assert_eq!(
        &got[4..8],
        &[
            1000 + 63 % 10,
            (63 * 7) & 0xff,
            (63.5f32 + 126.0).to_bits(),
            63
        ]
    );
}

#[test]
fn structs_pass_as_raw_bytes() {
    let mut p = Vec::new();
    p.extend_from_slice(&2.5f32.to_le_bytes());
    p.extend_from_slice(&7u32.to_le_bytes());
    p.extend_from_slice(&(-0.125f64).to_le_bytes());
    p.extend_from_slice(&[9, 8, 7, 0, 0x34, 0x12, 0, 0]);
    let list: Vec<String> = p.iter().map(u8::to_string).collect();
    let args = format!(r#"Buffer("out"), Bytes([{}]), U32(5)"#, list.join(", "));
    let got = run(&scenario("by_struct", &args, 0)).unwrap();
    let d = (-0.125f64).to_bits();
    assert_eq!(
        &got[..7],
        &[
            2.5f32.to_bits(),
            7,
            d as u32,
            (d >> 32) as u32,
            0x07_08_09,
            0x1234,
            5
        ]
    );
}

fn err(src: &str) -> ScenarioError {
    Scenario::parse(src, "t.ron")
        .and_then(|s| s.resolve("t.ron", &root()))
        .expect_err("scenario should be rejected")
}

#[test]
fn wrong_kinds_sizes_and_too_much_lds_are_rejected_at_resolve() {
    // A struct of the wrong size.
    let e = err(&scenario(
        "by_struct",
        r#"Buffer("out"), Bytes([1, 2, 3]), U32(5)"#,
        0,
    ));
    let t = e.to_string();
    assert!(matches!(e, ScenarioError::ArgMismatch { .. }), "{t}");
    assert!(t.contains("24-byte") && t.contains("3 raw bytes"), "{t}");
    // An LDS size where a buffer goes, and a scalar where an LDS size goes.
    let e = err(&scenario(
        "lds_args",
        "Lds(4), Lds(64), Lds(1024), Lds(512)",
        0,
    ));
    assert!(e.to_string().contains("a buffer"), "{e}");
    let e = err(&scenario(
        "lds_args",
        r#"Buffer("out"), U32(64), Lds(1024), Lds(512)"#,
        0,
    ));
    assert!(e.to_string().contains("an LDS size"), "{e}");
    // Static 40 + 64 -> 112 + 1024 + 512 = 1648, plus dynamic LDS over mi300x's 64 KiB.
    let ok = scenario(
        "lds_args",
        r#"Buffer("out"), Lds(64), Lds(1024), Lds(512)"#,
        65536 - 1648,
    );
    assert!(run(&ok).is_ok());
    let e = err(&scenario(
        "lds_args",
        r#"Buffer("out"), Lds(64), Lds(1024), Lds(512)"#,
        65536 - 1648 + 1,
    ));
    let t = e.to_string();
    assert!(matches!(e, ScenarioError::Kernarg { launch: 0, .. }), "{t}");
    assert!(
        t.contains("`lds_args`") && t.contains("65537") && t.contains("65536"),
        "{t}"
    );
}

fn gfxsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn cli_takes_lds_bytes_and_dynamic_lds() {
    let k = format!("{ARGS}:lds_args");
    let ok = gfxsim(&[
        "run",
        "--kernel",
        &k,
        "--grid",
        "64",
        "--block",
        "64",
        "--arg",
        "buf:u32:260",
        "--arg",
        "lds:67",
        "--arg",
        "lds:1028",
        "--arg",
        "lds:513",
        "--lds",
        "1000",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let too_much = gfxsim(&[
        "run",
        "--kernel",
        &k,
        "--grid",
        "64",
        "--block",
        "64",
        "--arg",
        "buf:u32:260",
        "--arg",
        "lds:64",
        "--arg",
        "lds:1024",
        "--arg",
        "lds:512",
        "--lds",
        "64000",
    ]);
    let e = String::from_utf8_lossy(&too_much.stderr);
    assert!(
        !too_much.status.success() && e.contains("lds_args") && e.contains("65536"),
        "{e}"
    );
    let s = format!("{ARGS}:by_struct");
    let hex = "0000204007000000000000000000c0bf0908070034120000";
    let ok = gfxsim(&[
        "run",
        "--kernel",
        &s,
        "--grid",
        "64",
        "--block",
        "64",
        "--arg",
        "buf:u32:8",
        "--arg",
        &format!("bytes:{hex}"),
        "--arg",
        "u32:5",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    for bad in ["bytes:0g", "bytes:123", "lds:-1"] {
        let out = gfxsim(&[
            "run",
            "--kernel",
            &s,
            "--arg",
            "buf:u32:8",
            "--arg",
            bad,
            "--arg",
            "u32:5",
        ]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(bad), "{bad}: {e}");
    }
}

#[test]
fn soc_submit_refuses_lds_beyond_the_cu_naming_the_kernel() {
    use gpu_model::config::GpuConfig;
    use gpu_model::dispatch::kernarg::KernargError;
    use gpu_model::soc::{LaunchRequest, Soc, SocError, SocOptions};
    // mi300x (gfx942): 64 KiB of LDS per workgroup; the kernel uses 1648 before dynamic LDS.
    let cfg = GpuConfig::preset("mi300x").unwrap();
    let mut soc = Soc::new(&cfg, &SocOptions::default()).unwrap();
    let m = soc
        .load_code_object(&std::fs::read(root().join(ARGS)).unwrap())
        .unwrap();
    let out = soc.alloc(4096).unwrap();
    let args = [
        out.to_le_bytes().to_vec(),
        64u32.to_le_bytes().to_vec(),
        1024u32.to_le_bytes().to_vec(),
        512u32.to_le_bytes().to_vec(),
    ];
    let req = |dynamic_lds| LaunchRequest {
        kernel: "lds_args",
        grid: [64, 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds,
        args: &args,
    };
    let e = soc.submit(m, &req(65536 - 1648 + 1)).unwrap_err();
    match &e {
        SocError::Kernarg {
            kernel,
            source: KernargError::LdsTooLarge { total, limit, .. },
        } => assert_eq!(
            (kernel.as_str(), *total, *limit),
            ("lds_args", 65537, 65536)
        ),
        other => panic!("unexpected {other}"),
    }
    soc.submit(m, &req(65536 - 1648)).unwrap();
    soc.run().unwrap();
    let mut b = [0u8; 16];
    soc.read(out, &mut b).unwrap();
    let offsets: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(offsets, [0, 40, 112, 1136]);
}
