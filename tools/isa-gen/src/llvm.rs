//! Batched queries to `llvm-mc-22 --disassemble`, robust against oracle crashes.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// The oracle's answer for the first instruction of one probe line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Decoded: text (trimmed, comments removed) and length in bytes.
    Inst(String, usize),
    /// "invalid instruction encoding" at the first byte.
    Invalid,
    /// The oracle crashed on this line (alone).
    Crash,
}

/// A disassembler oracle for one target and attribute set.
#[derive(Debug)]
pub struct Oracle {
    /// `-mcpu=` value.
    pub cpu: String,
    /// `-mattr=` value (may be empty).
    pub mattr: String,
    cache: HashMap<Vec<u8>, Answer>,
}

impl Oracle {
    /// An oracle for `cpu` with `mattr`.
    pub fn new(cpu: &str, mattr: &str) -> Oracle {
        Oracle {
            cpu: cpu.to_string(),
            mattr: mattr.to_string(),
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
        for chunk in todo.chunks(1000) {
            let t0 = std::time::Instant::now();
            let answers = self.ask_bisect(chunk);
            if std::env::var_os("ISA_GEN_VERBOSE").is_some() {
                eprintln!(
                    "isa-gen: {} lines in {:.2}s",
                    chunk.len(),
                    t0.elapsed().as_secs_f64()
                );
            }
            for (l, a) in chunk.iter().zip(answers) {
                self.cache.insert(l.clone(), a);
            }
        }
        lines.iter().map(|l| self.cache[l].clone()).collect()
    }

    /// Answers for `lines`; a line that crashes the oracle gets [`Answer::Crash`]. A crash
    /// costs one rerun of the lines before it (located by the progress markers), or a
    /// bisection when it cannot be located.
    fn ask_bisect(&self, lines: &[Vec<u8>]) -> Vec<Answer> {
        let verbose = std::env::var_os("ISA_GEN_VERBOSE").is_some();
        let mut out = Vec::with_capacity(lines.len());
        let mut rest = lines;
        while !rest.is_empty() {
            let r = run_batch(&self.cpu, &self.mattr, rest);
            if verbose {
                eprintln!("batch {} -> {}", rest.len(), r.is_ok());
            }
            match r {
                Ok(a) => {
                    out.extend(a);
                    break;
                }
                Err(Failed::At(k)) => {
                    if verbose {
                        eprintln!("isa-gen: oracle crash on {:02x?}", rest[k]);
                    }
                    if k > 0 {
                        out.extend(self.ask_bisect(&rest[..k]));
                    }
                    out.push(Answer::Crash);
                    rest = &rest[k + 1..];
                }
                Err(Failed::Unknown) if rest.len() == 1 => {
                    out.push(Answer::Crash);
                    break;
                }
                Err(Failed::Unknown) => {
                    let (a, b) = rest.split_at(rest.len() / 2);
                    out.extend(self.ask_bisect(a));
                    out.extend(self.ask_bisect(b));
                    break;
                }
            }
        }
        out
    }
}

/// Why a batch gave no answers.
enum Failed {
    /// llvm-mc crashed on this line (every line before it was processed).
    At(usize),
    /// llvm-mc crashed somewhere, or its output could not be aligned.
    Unknown,
}

/// The progress marker after each probe: `0xffffffff` is an invalid word on all five
/// targets, and llvm-mc reports invalid words on stderr (unbuffered) as it goes, so after
/// a crash the markers reported tell which line crashed it (buffered stdout is lost).
const MARKER: &str = "[0xff,0xff,0xff,0xff]";

/// Runs one batch.
fn run_batch(cpu: &str, mattr: &str, lines: &[Vec<u8>]) -> Result<Vec<Answer>, Failed> {
    // Every probe line is followed by a sentinel line (`s_nop 0x1234`, the same word on
    // both families) so that the output can be split per probe without trusting lengths.
    let mut input = String::with_capacity(lines.len() * 80);
    for l in lines {
        input.push('[');
        for (i, b) in l.iter().enumerate() {
            if i > 0 {
                input.push(',');
            }
            input.push_str(&format!("0x{b:02x}"));
        }
        // A padding dword (s_nop 0) so that an instruction wanting a trailing literal
        // does not run off the end of the line (an oracle crash).
        input.push_str(",0x00,0x00,0x80,0xbf");
        input.push_str("]\n[0x34,0x12,0x80,0xbf]\n");
        input.push_str(MARKER);
        input.push('\n');
    }
    let mut cmd = Command::new("llvm-mc-22");
    cmd.env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .env("LLVM_DISABLE_CRASH_REPORT", "1");
    cmd.args([
        "-arch=amdgcn",
        &format!("-mcpu={cpu}"),
        "--disassemble",
        "-show-encoding",
    ]);
    if !mattr.is_empty() {
        cmd.arg(format!("-mattr={mattr}"));
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("isa-gen: cannot run llvm-mc-22 ({e}); install LLVM 22"));
    let Some(mut stdin) = child.stdin.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(Failed::Unknown);
    };
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().map_err(|_| Failed::Unknown)?;
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Probe lines (3k+1) whose first word is invalid, and the markers (3k+3) reported.
    let mut invalid = std::collections::HashSet::new();
    let mut markers = 0;
    let mut errs = stderr.lines().peekable();
    while let Some(l) = errs.next() {
        let Some(rest) = l.strip_prefix("<stdin>:") else {
            continue;
        };
        if !l.contains("invalid instruction encoding") {
            continue;
        }
        let mut it = rest.split(':');
        let (Some(Ok(line)), Some(Ok(col))) = (
            it.next().map(str::parse::<usize>),
            it.next().map(str::parse::<usize>),
        ) else {
            return Err(Failed::Unknown);
        };
        if col != 2 || line == 0 {
            continue;
        }
        match (line - 1) % 3 {
            0 => {
                invalid.insert((line - 1) / 3);
            }
            2 if errs.peek() == Some(&MARKER) && line == 3 * markers + 3 => markers += 1,
            _ => {}
        }
    }
    // A crash (signal) gives no exit code; exit code 1 only means some lines were invalid.
    if out.status.code().is_none() {
        return Err(if markers < lines.len() {
            Failed::At(markers)
        } else {
            Failed::Unknown
        });
    }
    let mut answers = Vec::with_capacity(lines.len());
    let mut cur: Option<Answer> = None;
    for o in stdout.lines() {
        let Some((text, enc)) = o.split_once("; encoding: [") else {
            continue;
        };
        let text = text.trim();
        if text == "s_nop 0x1234" && enc == "0x34,0x12,0x80,0xbf]" {
            let i = answers.len();
            if i >= lines.len() {
                return Err(Failed::Unknown);
            }
            answers.push(if invalid.contains(&i) {
                Answer::Invalid
            } else {
                cur.take().unwrap_or(Answer::Invalid)
            });
            cur = None;
            continue;
        }
        if cur.is_none() {
            let n = enc.trim_end_matches(']').split(',').count();
            cur = Some(Answer::Inst(text.to_string(), n));
        }
    }
    if answers.len() != lines.len() {
        return Err(Failed::Unknown);
    }
    Ok(answers)
}
