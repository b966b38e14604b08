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

/// Runs `kernel` of the code object `bytes` on a `target` device over `grid` in
/// `workgroup`s and returns its output buffer as words. Arguments: a buffer holding
/// `input` (when given), then a zeroed output buffer of `out_words` words, then `extra`.
pub fn run_words(
    bytes: &[u8],
    target: gpu_model::Target,
    kernel: &str,
    [grid, workgroup]: [u32; 2],
    input: Option<&[u32]>,
    out_words: usize,
    extra: &[gpu_model::device::ArgValue],
) -> Vec<u32> {
    use gpu_model::device::{ArgValue, Device, LaunchConfig};
    let mut dev = Device::new(target);
    let m = dev.load_code_object(bytes).expect("loads");
    let mut args = Vec::new();
    if let Some(input) = input {
        let inb: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        let ia = dev.alloc(inb.len() as u64).unwrap();
        dev.copy_in(ia, &inb).unwrap();
        args.push(ArgValue::ptr(ia));
    }
    let oa = dev.alloc(4 * out_words as u64).unwrap();
    dev.copy_in(oa, &vec![0u8; 4 * out_words]).unwrap();
    args.push(ArgValue::ptr(oa));
    args.extend_from_slice(extra);
    let cfg = LaunchConfig::new([grid, 1, 1], [workgroup, 1, 1]);
    let id = dev.dispatch(m, kernel, &cfg, &args).expect("dispatch");
    dev.wait(id).expect("runs");
    let mut out = vec![0u8; 4 * out_words];
    dev.copy_out(oa, &mut out).unwrap();
    out.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The bound the issue sets for gfx950 -> gfx1201 on kernels without matrix instructions:
/// translated code and dynamic wave-instructions at most 1.3x the guest's.
pub const GFX1201_GROWTH: f64 = 1.3;

/// Whether the gfx950 object's `.text` holds a matrix (MAI: MFMA) instruction, decoded
/// from the start of `.text` (undecodable words, e.g. data, are stepped over by four bytes).
pub fn has_mfma(bytes: &[u8]) -> bool {
    use gpu_model::isa;
    let co = gpu_model::loader::CodeObject::parse(bytes).expect("code object");
    let text = co.text();
    let mut off = 0;
    while off < text.len() {
        match isa::decode(gpu_model::Target::Gfx950, &text[off..], false) {
            Ok(i) if i.format == isa::Format::Mai => return true,
            Ok(i) => off += usize::from(i.len),
            Err(_) => off += 4,
        }
    }
    false
}

/// The code object clang-22 builds from `src` (a path below the dbt crate) with `args`
/// and `-I corpus/include`, in a directory of its own (tests run in parallel) that is
/// removed afterwards; `tag` names the directory. Fails without clang-22.
pub fn clang(args: &[&str], src: &str, tag: &str) -> Vec<u8> {
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("dbt-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.hsaco");
    let st = Command::new("clang-22")
        .args(args)
        .arg("-I")
        .arg(here.join("../corpus/include"))
        .arg(here.join(src))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("clang-22 is required (scripts/install-deps.sh)");
    assert!(
        st.status.success(),
        "clang-22: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}
