//! Batched, crash-tolerant questions to `llvm-mc-22 --disassemble`: the oracle of the ISA
//! tests and of `isa-gen`.
//!
//! Each probe (a byte line) is decoded from its start; the answer is LLVM's text and length
//! for the first instruction, "invalid", or "crash" when the probe makes llvm-mc crash
//! (TOOLCHAIN.md: some random GFX9 words do). Probes travel in batches of many lines, each
//! followed by two helper lines:
//! - a sentinel (`s_nop 0x1234`, the same word on both ISA families) that splits the
//!   output per probe without trusting lengths;
//! - a progress marker, `0xffffffff`, an invalid word on all five targets: llvm-mc reports
//!   invalid words on stderr, which is unbuffered, as it goes, so after a crash the markers
//!   reported tell which probe crashed it (stdout, buffered, is lost). A crash therefore
//!   costs one rerun of the probes before it, not a bisection.
//!
//! Batches run on rayon's pool (one worker thread per core).
//!
//! Module [`mca`] asks `llvm-mca-22` the same way (instruction tables, one-iteration
//! simulations): what LLVM's scheduling model says about assembly text.

pub mod mca;

pub use mca::{Analyzer, InstInfo, RegionStats};

use std::io::Write;
use std::process::{Command, Stdio};

/// The oracle's answer for the first instruction of one probe line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Decoded: text (trimmed, comment removed) and length in bytes (from the encoding
    /// llvm-mc shows).
    Inst(String, usize),
    /// "invalid instruction encoding" at the first byte.
    Invalid,
    /// The oracle crashed on this line (alone).
    Crash,
}

/// Why the oracle could not be asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OracleError {
    /// llvm-mc-22 could not be started.
    #[error("cannot run llvm-mc-22 ({0}); install LLVM 22 (scripts/install-deps.sh)")]
    Spawn(std::io::Error),
    /// llvm-mca-22 could not be started.
    #[error("cannot run llvm-mca-22 ({0}); install LLVM 22 (scripts/install-deps.sh)")]
    SpawnMca(std::io::Error),
}

/// The disassembler oracle for one target and attribute set.
#[derive(Debug, Clone)]
pub struct Disassembler {
    cpu: String,
    mattr: String,
    pad: bool,
    chunk: usize,
}

/// The sentinel line after each probe.
const SENTINEL: &str = "[0x34,0x12,0x80,0xbf]";
/// The sentinel as llvm-mc prints it (text, then the encoding after `; encoding: [`).
const SENTINEL_TEXT: (&str, &str) = ("s_nop 0x1234", "0x34,0x12,0x80,0xbf]");
/// The progress marker line after each sentinel.
const MARKER: &str = "[0xff,0xff,0xff,0xff]";

/// Why one batch gave no answers.
enum Failed {
    /// llvm-mc crashed on this probe (every probe before it was processed).
    At(usize),
    /// llvm-mc crashed somewhere, or its output could not be aligned.
    Unknown,
}

impl Disassembler {
    /// An oracle for `-mcpu=cpu` with `-mattr=mattr` (may be empty).
    pub fn new(cpu: &str, mattr: &str) -> Disassembler {
        Disassembler {
            cpu: cpu.to_string(),
            mattr: mattr.to_string(),
            pad: false,
            chunk: 2000,
        }
    }

    /// Appends a padding dword (`s_nop 0`) to every probe, so that an instruction that
    /// wants a trailing literal does not run off the end of its line (an oracle crash).
    pub fn with_padding(mut self, pad: bool) -> Disassembler {
        self.pad = pad;
        self
    }

    /// The `-mcpu=` value.
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// The `-mattr=` value.
    pub fn mattr(&self) -> &str {
        &self.mattr
    }

    /// Answers for every probe, in order.
    pub fn ask<L: AsRef<[u8]> + Sync>(&self, probes: &[L]) -> Result<Vec<Answer>, OracleError> {
        use rayon::prelude::*;
        let answers: Vec<Vec<Answer>> = probes
            .par_chunks(self.chunk.max(1))
            .map(|c| self.ask_located(c))
            .collect::<Result<_, _>>()?;
        Ok(answers.concat())
    }

    /// Answers for one chunk: a crash located by the markers costs a rerun of the probes
    /// before it; one that cannot be located is bisected.
    fn ask_located<L: AsRef<[u8]>>(&self, probes: &[L]) -> Result<Vec<Answer>, OracleError> {
        let mut out = Vec::with_capacity(probes.len());
        let mut rest = probes;
        while !rest.is_empty() {
            match self.batch(rest)? {
                Ok(a) => {
                    out.extend(a);
                    break;
                }
                Err(Failed::At(k)) => {
                    if k > 0 {
                        out.extend(self.ask_located(&rest[..k])?);
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
                    out.extend(self.ask_located(a)?);
                    out.extend(self.ask_located(b)?);
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Runs llvm-mc once over `probes`.
    fn batch<L: AsRef<[u8]>>(
        &self,
        probes: &[L],
    ) -> Result<Result<Vec<Answer>, Failed>, OracleError> {
        let mut input = String::with_capacity(probes.len() * 100);
        for p in probes {
            input.push('[');
            for (i, b) in p.as_ref().iter().enumerate() {
                if i > 0 {
                    input.push(',');
                }
                input.push_str(&format!("0x{b:02x}"));
            }
            if self.pad {
                input.push_str(",0x00,0x00,0x80,0xbf");
            }
            input.push_str("]\n");
            input.push_str(SENTINEL);
            input.push('\n');
            input.push_str(MARKER);
            input.push('\n');
        }
        let mut cmd = Command::new("llvm-mc-22");
        cmd.env("LLVM_DISABLE_SYMBOLIZATION", "1")
            .env("LLVM_DISABLE_CRASH_REPORT", "1")
            .args([
                "-arch=amdgcn",
                &format!("-mcpu={}", self.cpu),
                "--disassemble",
                "-show-encoding",
            ]);
        if !self.mattr.is_empty() {
            cmd.arg(format!("-mattr={}", self.mattr));
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(OracleError::Spawn)?;
        let Some(mut stdin) = child.stdin.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Err(Failed::Unknown));
        };
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let Ok(out) = child.wait_with_output() else {
            return Ok(Err(Failed::Unknown));
        };
        let _ = writer.join();
        Ok(parse(probes.len(), &out))
    }
}

/// Splits llvm-mc's output into one answer per probe.
fn parse(n: usize, out: &std::process::Output) -> Result<Vec<Answer>, Failed> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Probes (line 3k+1) whose first word is invalid, and the markers (line 3k+3) reported.
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
        return Err(if markers < n {
            Failed::At(markers)
        } else {
            Failed::Unknown
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut answers = Vec::with_capacity(n);
    let mut cur: Option<Answer> = None;
    for o in stdout.lines() {
        let Some((text, enc)) = o.split_once("; encoding: [") else {
            continue;
        };
        let text = text.trim();
        if (text, enc) == SENTINEL_TEXT {
            let i = answers.len();
            if i >= n {
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
            let len = enc.trim_end_matches(']').split(',').count();
            cur = Some(Answer::Inst(text.to_string(), len));
        }
    }
    if answers.len() == n {
        Ok(answers)
    } else {
        Err(Failed::Unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probe that crashes llvm-mc-22 (gfx942; a MUBUF word with soffset 0xff, found by a
    /// random sweep) between valid and invalid probes: the answers around it are the same
    /// as without it.
    #[test]
    fn a_crash_is_located_and_costs_only_its_probe() {
        let crash = [0xecu8, 0xa0, 0x37, 0xe9, 0xac, 0x05, 0xca, 0xff];
        let nop = [0x00u8, 0x00, 0x80, 0xbf];
        let bad = [0xffu8, 0xff, 0xff, 0xff];
        let d = Disassembler::new("gfx942", "");
        let alone = d.ask(&[&crash[..]]).expect("llvm-mc-22");
        assert_eq!(
            alone,
            [Answer::Crash],
            "the probe no longer crashes llvm-mc-22"
        );
        let probes: Vec<&[u8]> = vec![&nop, &bad, &crash, &nop, &bad];
        let a = d.ask(&probes).expect("llvm-mc-22");
        let nop_a = Answer::Inst("s_nop 0".into(), 4);
        assert_eq!(
            a,
            [
                nop_a.clone(),
                Answer::Invalid,
                Answer::Crash,
                nop_a,
                Answer::Invalid
            ]
        );
    }
}
