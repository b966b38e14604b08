//! The generator's oracle: `llvm-mc-22 --disassemble` and `llvm-mca-22` (crate
//! `llvm-oracle`) with an answer cache.

use std::collections::HashMap;

pub use llvm_oracle::{Answer, InstInfo, RegionStats};

/// A disassembler oracle for one target and attribute set, with an answer cache.
#[derive(Debug)]
pub struct Oracle {
    /// `-mcpu=` value.
    pub cpu: String,
    /// `-mattr=` value (may be empty).
    pub mattr: String,
    dis: llvm_oracle::Disassembler,
    cache: HashMap<Vec<u8>, Answer>,
    mca: llvm_oracle::Analyzer,
    rows: HashMap<String, Option<InstInfo>>,
    sims: HashMap<Vec<String>, Option<RegionStats>>,
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
            mca: llvm_oracle::Analyzer::new(cpu, mattr),
            rows: HashMap::new(),
            sims: HashMap::new(),
        }
    }

    /// The cache file of this oracle's `kind` of answers, if `ISA_GEN_CACHE` is set.
    fn cache_file(&self, kind: &str) -> Option<std::path::PathBuf> {
        let dir = std::env::var_os("ISA_GEN_CACHE")?;
        Some(std::path::Path::new(&dir).join(format!("{}{}{kind}.txt", self.cpu, self.mattr)))
    }

    /// Loads answers saved by [`Oracle::save`] from `$ISA_GEN_CACHE/<cpu>.txt` (a
    /// development aid: reruns after a change to the learning logic skip the oracle).
    pub fn load(&mut self) {
        self.load_mca();
        let Some(path) = self.cache_file("") else {
            return;
        };
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
        self.save_mca();
        let Some(path) = self.cache_file("") else {
            return;
        };
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

impl Oracle {
    /// llvm-mca's instruction-table row of every line (`None`: it could not parse it).
    pub fn rows(&mut self, lines: &[String]) -> Vec<Option<InstInfo>> {
        let todo: Vec<String> = {
            let mut seen = std::collections::HashSet::new();
            lines
                .iter()
                .filter(|l| !self.rows.contains_key(*l) && seen.insert((*l).clone()))
                .cloned()
                .collect()
        };
        let answers = self
            .mca
            .tables(&todo)
            .unwrap_or_else(|e| panic!("isa-gen: {e}"));
        for (l, a) in todo.into_iter().zip(answers) {
            self.rows.insert(l, a);
        }
        lines.iter().map(|l| self.rows[l].clone()).collect()
    }

    /// llvm-mca's one-iteration simulation of every sequence.
    pub fn simulate(&mut self, seqs: &[Vec<String>]) -> Vec<Option<RegionStats>> {
        let todo: Vec<Vec<String>> = {
            let mut seen = std::collections::HashSet::new();
            seqs.iter()
                .filter(|s| !self.sims.contains_key(*s) && seen.insert((*s).clone()))
                .cloned()
                .collect()
        };
        let t0 = std::time::Instant::now();
        let answers = self
            .mca
            .simulate(&todo)
            .unwrap_or_else(|e| panic!("isa-gen: {e}"));
        if std::env::var_os("ISA_GEN_VERBOSE").is_some() {
            eprintln!(
                "isa-gen: {}: {} simulations in {:.2}s",
                self.cpu,
                todo.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        for (s, a) in todo.into_iter().zip(answers) {
            self.sims.insert(s, a);
        }
        seqs.iter().map(|s| self.sims[s]).collect()
    }

    /// Takes `other`'s llvm-mca simulations if both oracles' instruction tables agree on
    /// every line `other` asked about (a simulation depends only on the scheduling
    /// model, which the tables show, and on the instruction set, which the same
    /// attributes give). Returns whether it did.
    pub fn adopt(&mut self, other: &mut Oracle) -> bool {
        if self.mattr != other.mattr {
            return false;
        }
        let mut lines: Vec<String> = other.rows.keys().cloned().collect();
        let mut seen: std::collections::HashSet<String> = lines.iter().cloned().collect();
        for seq in other.sims.keys() {
            for l in seq {
                if seen.insert(l.clone()) {
                    lines.push(l.clone());
                }
            }
        }
        lines.sort();
        if self.rows(&lines) != other.rows(&lines) {
            return false;
        }
        for (k, v) in &other.sims {
            self.sims.entry(k.clone()).or_insert(*v);
        }
        true
    }

    /// Loads llvm-mca answers saved by [`Oracle::save_mca`] (lines: `R\t<line>\t<row>`
    /// or `S\t<seq joined by \x1f>\t<stats>`; `-` for none).
    fn load_mca(&mut self) {
        let Some(path) = self.cache_file(".mca") else {
            return;
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        for l in text.lines() {
            let mut it = l.splitn(3, '\t');
            let (Some(k), Some(key), Some(v)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let f: Vec<&str> = v.split(' ').collect();
            match k {
                "R" => {
                    let row = (f.len() == 7).then(|| InstInfo {
                        uops: f[0].parse().unwrap_or(0),
                        latency: f[1].parse().unwrap_or(0),
                        may_load: f[2] == "1",
                        may_store: f[3] == "1",
                        side_effects: f[4] == "1",
                        resources: f[5]
                            .split(',')
                            .filter(|r| !r.is_empty() && *r != "-")
                            .filter_map(|r| {
                                let (n, c) = r.split_once(':')?;
                                Some((n.to_string(), c.parse().ok()?))
                            })
                            .collect(),
                        opcode: f[6].to_string(),
                    });
                    self.rows.insert(key.to_string(), row);
                }
                "S" => {
                    let seq = key.split('\x1f').map(str::to_string).collect();
                    let st = (f.len() == 3).then(|| RegionStats {
                        instructions: f[0].parse().unwrap_or(0),
                        cycles: f[1].parse().unwrap_or(0),
                        mappings: f[2].parse().unwrap_or(0),
                    });
                    self.sims.insert(seq, st);
                }
                _ => {}
            }
        }
    }

    /// Saves the llvm-mca answers (see [`Oracle::load_mca`]).
    fn save_mca(&self) {
        let Some(path) = self.cache_file(".mca") else {
            return;
        };
        let mut s = String::new();
        for (l, r) in &self.rows {
            s.push_str("R\t");
            s.push_str(l);
            s.push('\t');
            match r {
                None => s.push('-'),
                Some(r) => {
                    let res: Vec<String> = r
                        .resources
                        .iter()
                        .map(|(n, c)| format!("{n}:{c}"))
                        .collect();
                    s.push_str(&format!(
                        "{} {} {} {} {} {} {}",
                        r.uops,
                        r.latency,
                        u8::from(r.may_load),
                        u8::from(r.may_store),
                        u8::from(r.side_effects),
                        if res.is_empty() {
                            "-".to_string()
                        } else {
                            res.join(",")
                        },
                        r.opcode
                    ));
                }
            }
            s.push('\n');
        }
        for (q, r) in &self.sims {
            s.push_str("S\t");
            s.push_str(&q.join("\x1f"));
            s.push('\t');
            match r {
                None => s.push('-'),
                Some(r) => s.push_str(&format!("{} {} {}", r.instructions, r.cycles, r.mappings)),
            }
            s.push('\n');
        }
        let _ = std::fs::write(path, s);
    }
}
