//! The generator's oracle: `llvm-mc-22 --disassemble` (crate `llvm-oracle`) with an answer
//! cache.

use std::collections::HashMap;

pub use llvm_oracle::Answer;

/// A disassembler oracle for one target and attribute set, with an answer cache.
#[derive(Debug)]
pub struct Oracle {
    /// `-mcpu=` value.
    pub cpu: String,
    /// `-mattr=` value (may be empty).
    pub mattr: String,
    dis: llvm_oracle::Disassembler,
    cache: HashMap<Vec<u8>, Answer>,
}

impl Oracle {
    /// An oracle for `cpu` with `mattr`.
    pub fn new(cpu: &str, mattr: &str) -> Oracle {
        Oracle {
            cpu: cpu.to_string(),
            mattr: mattr.to_string(),
            // A padding dword (s_nop 0) after each probe, so that an instruction wanting a
            // trailing literal does not run off the end of its line (an oracle crash).
            dis: llvm_oracle::Disassembler::new(cpu, mattr).with_padding(true),
            cache: HashMap::new(),
        }
    }

    /// Loads answers saved by [`Oracle::save`] from `$ISA_GEN_CACHE/<cpu>.txt` (a
    /// development aid: reruns after a change to the learning logic skip the oracle).
    pub fn load(&mut self) {
        let Some(dir) = std::env::var_os("ISA_GEN_CACHE") else {
            return;
        };
        let path = std::path::Path::new(&dir).join(format!("{}{}.txt", self.cpu, self.mattr));
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        for l in text.lines() {
            let mut it = l.splitn(3, '\t');
            let (Some(k), Some(n), Some(t)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let key: Vec<u8> = (0..k.len() / 2)
                .filter_map(|i| u8::from_str_radix(&k[2 * i..2 * i + 2], 16).ok())
                .collect();
            let a = match n {
                "I" => Answer::Invalid,
                "N" => Answer::Crash,
                _ => Answer::Inst(t.to_string(), n.parse().unwrap_or(0)),
            };
            self.cache.insert(key, a);
        }
    }

    /// Saves the answers (see [`Oracle::load`]).
    pub fn save(&self) {
        let Some(dir) = std::env::var_os("ISA_GEN_CACHE") else {
            return;
        };
        let path = std::path::Path::new(&dir).join(format!("{}{}.txt", self.cpu, self.mattr));
        let mut s = String::new();
        for (k, a) in &self.cache {
            for b in k {
                s.push_str(&format!("{b:02x}"));
            }
            match a {
                Answer::Invalid => s.push_str("\tI\t\n"),
                Answer::Crash => s.push_str("\tN\t\n"),
                Answer::Inst(t, n) => s.push_str(&format!("\t{n}\t{t}\n")),
            }
        }
        let _ = std::fs::write(path, s);
    }

    /// Answers for every line of bytes (each decoded from its start).
    pub fn ask(&mut self, lines: &[Vec<u8>]) -> Vec<Answer> {
        let todo: Vec<Vec<u8>> = {
            let mut seen = std::collections::HashSet::new();
            lines
                .iter()
                .filter(|l| !self.cache.contains_key(*l) && seen.insert((*l).clone()))
                .cloned()
                .collect()
        };
        let t0 = std::time::Instant::now();
        let answers = self
            .dis
            .ask(&todo)
            .unwrap_or_else(|e| panic!("isa-gen: {e}"));
        if std::env::var_os("ISA_GEN_VERBOSE").is_some() {
            eprintln!(
                "isa-gen: {} lines in {:.2}s",
                todo.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        for (l, a) in todo.into_iter().zip(answers) {
            self.cache.insert(l, a);
        }
        lines.iter().map(|l| self.cache[l].clone()).collect()
    }
}
