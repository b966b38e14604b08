//! `gfxsim disasm` against `llvm-objdump-22 -d` on every code object of the kernel corpus
//! (all five targets; GFX12 with `+real-true16`, and `+wavefrontsize64` for the wave64
//! builds): the whole listing — header, labels, instruction text, encodings, branch
//! targets, `...` for zero padding — must be byte-identical.

use std::path::{Path, PathBuf};
use std::process::Command;

fn hsaco_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hsaco_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "hsaco") {
            out.push(p);
        }
    }
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn corpus_listings_match_llvm_objdump() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = Vec::new();
    hsaco_files(&root.join("corpus/build"), &mut files);
    assert!(files.len() >= 400, "corpus code objects: {}", files.len());
    for f in &files {
        let rel = f.strip_prefix(root).expect("under the repository");
        let dir = rel.parent().and_then(|d| d.file_name()).unwrap_or_default();
        let dir = dir.to_string_lossy();
        let mut objdump = Command::new("llvm-objdump-22");
        objdump.arg("-d").current_dir(root);
        if dir.starts_with("gfx12") {
            objdump.arg(if dir.contains("w64") {
                "--mattr=+real-true16,+wavefrontsize64"
            } else {
                "--mattr=+real-true16"
            });
        }
        let want = stdout(objdump.arg(rel));
        let got = stdout(
            Command::new(env!("CARGO_BIN_EXE_gfxsim"))
                .current_dir(root)
                .args(["disasm".as_ref(), rel.as_os_str()]),
        );
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            panic!(
                "{}: first difference at line {}:\n gfxsim: {:?}\n objdump: {:?}",
                rel.display(),
                line + 1,
                got.lines().nth(line),
                want.lines().nth(line)
            );
        }
    }
}
