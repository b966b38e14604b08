//! Helpers shared by the dbt integration tests: the LLVM 22 tools as oracles.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

fn tool(name: &str, args: &[&str], file: &Path) -> String {
    let out = Command::new(name)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{name} is required (scripts/install-deps.sh): {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{name} {args:?} {}: {err}",
        file.display()
    );
    assert!(
        !err.contains("warning"),
        "{name} {args:?} {}: {err}",
        file.display()
    );
    text
}

/// llvm-readelf-22 accepts the object and llvm-objdump-22 decodes all of its .text as
/// gfx942 (no `<unknown>` word); returns the disassembly.
pub fn llvm_accepts(bytes: &[u8], tag: &str) -> String {
    llvm_accepts_as(bytes, tag, "gfx942")
}

/// llvm-readelf-22 accepts the object, its metadata names `cpu`, and llvm-objdump-22
/// decodes all of its .text as `cpu` (no `<unknown>` word); returns the disassembly.
pub fn llvm_accepts_as(bytes: &[u8], tag: &str, cpu: &str) -> String {
    // One directory per test binary and target; the file is per tag.
    let dir = std::env::temp_dir().join(format!("dbt-test-{cpu}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{tag}.hsaco"));
    std::fs::write(&f, bytes).unwrap();
    let h = tool(
        "llvm-readelf-22",
        &["-h", "-l", "-S", "-s", "-n", "--dyn-relocations"],
        &f,
    );
    assert!(h.contains(cpu), "{tag}: not a {cpu} object:\n{h}");
    let dis = tool("llvm-objdump-22", &["-d", &format!("--mcpu={cpu}")], &f);
    assert!(
        !dis.contains("<unknown>"),
        "{tag}: undecodable words:\n{dis}"
    );
    let _ = std::fs::remove_file(&f);
    dis
}

/// Assembles GFX9 assembly for `cpu` with llvm-mc-22 and links it with ld.lld-22 (as
/// corpus/build.sh does); returns the code object.
pub fn assemble(src: &str, cpu: &str, tag: &str) -> Vec<u8> {
    // One directory per test (tests of one binary run in parallel and each removes its own).
    let dir = std::env::temp_dir().join(format!("dbt-asm-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (s, o, co) = (
        dir.join(format!("{tag}.s")),
        dir.join(format!("{tag}.o")),
        dir.join(format!("{tag}.hsaco")),
    );
    std::fs::write(&s, src).unwrap();
    let run = |cmd: &mut Command| {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("{cmd:?} is required (scripts/install-deps.sh): {e}"));
        assert!(
            out.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(Command::new("llvm-mc-22")
        .args([
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-filetype=obj",
        ])
        .arg(&s)
        .arg("-o")
        .arg(&o));
    run(Command::new("ld.lld-22")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&co));
    let bytes = std::fs::read(&co).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}
