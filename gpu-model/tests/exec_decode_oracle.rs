//! The executor's program (shared decoder + lowering) against llvm-objdump-22: every
//! instruction of every GFX9 corpus code object must lower to an instruction that keeps
//! LLVM's mnemonic (encoding suffixes `_e32`, `_e64`, `_sdwa`, `_dpp` removed) and length.

use gpu_model::exec::Program;
use gpu_model::loader::CodeObject;
use gpu_model::Target;
use std::path::PathBuf;
use std::process::Command;

fn objects(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build")
        .join(target);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hsaco"))
        .collect();
    v.sort();
    v
}

fn strip(m: &str) -> &str {
    for s in ["_e32", "_e64", "_sdwa", "_dpp"] {
        if let Some(x) = m.strip_suffix(s) {
            return x;
        }
    }
    m
}

fn check_target(t: Target) {
    let mut checked = 0;
    let mut bad = Vec::new();
    for path in objects(t.name()) {
        let bytes = std::fs::read(&path).unwrap();
        let co = CodeObject::parse(&bytes).unwrap();
        let prog = Program::new(t, co.text_address(), co.text());
        let out = Command::new("llvm-objdump-22")
            .args(["-d", "--no-leading-addr"])
            .arg(&path)
            .output()
            .expect("llvm-objdump-22 must be installed (scripts/test-all.sh installs LLVM 22)");
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            // "\tmnemonic operands  // 000000001900: C00200C0 0000002C"
            let Some((asm, enc)) = line.split_once("//") else {
                continue;
            };
            let Some((addr, words)) = enc.trim().split_once(':') else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
                continue;
            };
            let mnemonic = asm.split_whitespace().next().unwrap_or("");
            let nwords = words
                .split_whitespace()
                .take_while(|w| w.len() == 8)
                .count();
            if mnemonic.is_empty() || nwords == 0 {
                continue;
            }
            checked += 1;
            match prog.fetch(addr) {
                Ok(i) => {
                    let mine = i.mnemonic();
                    if mine != strip(mnemonic) || i.len as usize != 4 * nwords {
                        bad.push(format!(
                            "{} {addr:#x}: llvm `{}` ({} bytes), executor `{mine}` ({} bytes)",
                            path.display(),
                            asm.trim(),
                            4 * nwords,
                            i.len
                        ));
                    }
                }
                Err(e) => bad.push(format!(
                    "{} {addr:#x}: llvm `{}`: {e}",
                    path.display(),
                    asm.trim()
                )),
            }
        }
    }
    assert!(checked > 1000, "only {checked} instructions found");
    eprintln!(
        "{t}: {checked} instructions checked, {} mismatches",
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(40)].join("\n"));
}

#[test]
fn gfx90a_corpus_decodes_like_llvm() {
    check_target(Target::Gfx90a);
}

#[test]
fn gfx942_corpus_decodes_like_llvm() {
    check_target(Target::Gfx942);
}

#[test]
fn gfx950_corpus_decodes_like_llvm() {
    check_target(Target::Gfx950);
}
