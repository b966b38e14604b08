//! Batched questions to `llvm-mca-22`: per instruction, what LLVM's scheduling model says
//! (resources, latency, may-load/may-store, opcode name), and per short instruction
//! sequence, a one-iteration simulation (cycles, register mappings).
//!
//! The input is assembly text. Lines LLVM cannot parse are skipped
//! (`-skip-unsupported-instructions=any`), so one bad line does not stop a batch:
//! - [`Analyzer::tables`] puts a sentinel (`s_nop 0x1234`) after every line and reads the
//!   rows of `--instruction-tables=full` between sentinels (no row: skipped);
//! - [`Analyzer::simulate`] puts every sequence in a code region of its own (`#
//!   LLVM-MCA-BEGIN r<i>`); llvm-mca simulates regions independently and names them in
//!   its output (a region whose every line was skipped is not printed).
//!
//! What the simulation is good for (measured on LLVM 22, in-order AMDGPU models): the
//! register file counts one *mapping* per register an instruction defines, implicit
//! definitions (SCC, VCC, EXEC, MODE) included and a register tuple counted once; and an
//! instruction that reads a register waits for the latency of the instruction that
//! wrote it, so a sequence `writer; probe` takes more cycles than `other-writer; probe`
//! exactly when the probe reads the writer's register.
//!
//! Batches run on rayon's pool (one worker thread per core); a batch on which llvm-mca
//! crashes is split in halves down to the sequence that crashes it (answered `None`).

use crate::OracleError;
use std::io::Write;
use std::process::{Command, Stdio};

/// One instruction's row of `llvm-mca --instruction-tables=full`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstInfo {
    /// Micro-ops.
    pub uops: u32,
    /// Latency in cycles.
    pub latency: u32,
    /// `MayLoad`.
    pub may_load: bool,
    /// `MayStore`.
    pub may_store: bool,
    /// `HasSideEffects`.
    pub side_effects: bool,
    /// Scheduling resources and the cycles they are held (`HWXDL[8]` is `("HWXDL",
    /// 8)`, a plain `HWVALU` holds 1).
    pub resources: Vec<(String, u32)>,
    /// LLVM's opcode name (`V_ADD_F32_e32_vi`, `GLOBAL_ATOMIC_ADD_RTN_vi`).
    pub opcode: String,
}

impl InstInfo {
    /// Whether the instruction uses scheduling resource `name`.
    pub fn uses(&self, name: &str) -> bool {
        self.resources.iter().any(|(r, _)| r == name)
    }
}

/// What a one-iteration simulation of one sequence gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionStats {
    /// Instructions llvm-mca parsed (fewer than the sequence's lines: some were skipped).
    pub instructions: u32,
    /// Total cycles.
    pub cycles: u64,
    /// Register mappings created (registers defined, each tuple once).
    pub mappings: u32,
}

/// `llvm-mca-22` for one target and attribute set.
#[derive(Debug, Clone)]
pub struct Analyzer {
    cpu: String,
    mattr: String,
    chunk: usize,
}

/// The sentinel line after every line of [`Analyzer::tables`], and its row's opcode.
const SENTINEL: &str = "s_nop 0x1234";
const SENTINEL_TEXT: &str = "s_nop 0x1234";

impl Analyzer {
    /// An analyzer for `-mcpu=cpu` with `-mattr=mattr` (may be empty).
    pub fn new(cpu: &str, mattr: &str) -> Analyzer {
        Analyzer {
            cpu: cpu.to_string(),
            mattr: mattr.to_string(),
            chunk: 1500,
        }
    }

    /// The instruction-table row of every line (`None`: llvm-mca skipped it).
    pub fn tables<L: AsRef<str> + Sync>(
        &self,
        lines: &[L],
    ) -> Result<Vec<Option<InstInfo>>, OracleError> {
        use rayon::prelude::*;
        // Instruction tables need no simulation: big batches are cheap.
        let out: Vec<Vec<Option<InstInfo>>> = lines
            .par_chunks(self.chunk.max(1) * 4)
            .map(|c| self.located(c, &|c| self.tables_batch(c)))
            .collect::<Result<_, _>>()?;
        Ok(out.concat())
    }

    /// A one-iteration simulation of every sequence (`None`: every line skipped).
    pub fn simulate<S: AsRef<[String]> + Sync>(
        &self,
        seqs: &[S],
    ) -> Result<Vec<Option<RegionStats>>, OracleError> {
        use rayon::prelude::*;
        let out: Vec<Vec<Option<RegionStats>>> = seqs
            .par_chunks(self.chunk.max(1))
            .map(|c| self.located(c, &|c| self.simulate_batch(c)))
            .collect::<Result<_, _>>()?;
        Ok(out.concat())
    }

    /// Runs `batch` over `items`; where llvm-mca crashes, halves the batch down to the
    /// item that crashes it (answered `None`).
    #[allow(clippy::type_complexity)]
    fn located<I, T: Clone>(
        &self,
        items: &[I],
        batch: &dyn Fn(&[I]) -> Result<Option<Vec<Option<T>>>, OracleError>,
    ) -> Result<Vec<Option<T>>, OracleError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(a) = batch(items)? {
            return Ok(a);
        }
        if items.len() == 1 {
            return Ok(vec![None]);
        }
        let (a, b) = items.split_at(items.len() / 2);
        let mut out = self.located(a, batch)?;
        out.extend(self.located(b, batch)?);
        Ok(out)
    }

    /// Runs llvm-mca over `input` with `args`; `None` if it crashed.
    fn run(&self, args: &[&str], input: String) -> Result<Option<String>, OracleError> {
        let mut cmd = Command::new("llvm-mca-22");
        cmd.env("LLVM_DISABLE_SYMBOLIZATION", "1")
            .env("LLVM_DISABLE_CRASH_REPORT", "1")
            .args([
                "-mtriple=amdgcn",
                &format!("-mcpu={}", self.cpu),
                "-skip-unsupported-instructions=any",
            ])
            .args(args);
        if !self.mattr.is_empty() {
            cmd.arg(format!("-mattr={}", self.mattr));
        }
        let mut child = cmd
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(OracleError::SpawnMca)?;
        let Some(mut stdin) = child.stdin.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        };
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let Ok(out) = child.wait_with_output() else {
            return Ok(None);
        };
        let _ = writer.join();
        // A crash (signal) gives no exit code.
        if out.status.code().is_none() {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&out.stdout).into_owned()))
    }

    fn tables_batch<L: AsRef<str>>(
        &self,
        lines: &[L],
    ) -> Result<Option<Vec<Option<InstInfo>>>, OracleError> {
        let mut input = String::with_capacity(lines.len() * 64);
        for l in lines {
            input.push_str(one_line(l.as_ref()));
            input.push('\n');
            input.push_str(SENTINEL);
            input.push('\n');
        }
        let Some(out) = self.run(
            &[
                "--instruction-tables=full",
                "-resource-pressure=false",
                "-iterations=1",
            ],
            input,
        )?
        else {
            return Ok(None);
        };
        Ok(parse_tables(lines.len(), &out))
    }

    fn simulate_batch<S: AsRef<[String]>>(
        &self,
        seqs: &[S],
    ) -> Result<Option<Vec<Option<RegionStats>>>, OracleError> {
        let mut input = String::with_capacity(seqs.len() * 128);
        for (i, s) in seqs.iter().enumerate() {
            input.push_str(&format!("# LLVM-MCA-BEGIN r{i}\n"));
            for l in s.as_ref() {
                input.push_str(one_line(l));
                input.push('\n');
            }
            input.push_str("# LLVM-MCA-END\n");
        }
        let Some(out) = self.run(
            &[
                "-iterations=1",
                "-instruction-info=false",
                "-resource-pressure=false",
                "-register-file-stats",
            ],
            input,
        )?
        else {
            return Ok(None);
        };
        Ok(Some(parse_regions(seqs.len(), &out)))
    }
}

/// The text up to the first line break (a line must stay one line of the input).
fn one_line(s: &str) -> &str {
    s.split(['\n', '\r']).next().unwrap_or("")
}

/// Rows of the instruction table, one per input line (the rows between sentinels).
/// `None` if the output does not align with the input.
fn parse_tables(n: usize, out: &str) -> Option<Vec<Option<InstInfo>>> {
    let mut lines = out.lines();
    let header = lines.find(|l| l.starts_with("[1]") && l.contains("Instructions:"))?;
    let col = |k: &str| header.find(k);
    let cols = [
        col("[1]")?,
        col("[2]")?,
        col("[3]")?,
        col("[4]")?,
        col("[5]")?,
        col("[6]")?,
        col("[7]")?,
        col("[8]")?,
    ];
    let mut answers = Vec::with_capacity(n);
    let mut cur: Option<InstInfo> = None;
    for l in lines {
        if l.trim().is_empty() {
            break;
        }
        let cell = |k: usize| -> &str {
            let a = cols[k].min(l.len());
            let b = cols.get(k + 1).copied().unwrap_or(l.len()).min(l.len());
            l.get(a..b).unwrap_or("").trim()
        };
        let tail = l.get(cols[7]..).unwrap_or("");
        let mut toks = tail.split_whitespace();
        let first = toks.next().unwrap_or("");
        // Resource names (HWSALU, HWXDL[8], ...) have no '_'; opcode names do.
        let (res, opcode) = if first.contains('_') {
            ("", first)
        } else {
            (first, toks.next().unwrap_or(""))
        };
        let text = toks.collect::<Vec<_>>().join(" ");
        if opcode.starts_with("S_NOP") && text == SENTINEL_TEXT {
            if answers.len() >= n {
                return None;
            }
            answers.push(cur.take());
            continue;
        }
        if cur.is_some() {
            // Two rows between sentinels: the output does not align.
            return None;
        }
        cur = Some(InstInfo {
            uops: cell(0).parse().unwrap_or(0),
            latency: cell(1).parse().unwrap_or(0),
            may_load: cell(3) == "*",
            may_store: cell(4) == "*",
            side_effects: cell(5) == "U",
            resources: parse_resources(res),
            opcode: opcode.to_string(),
        });
    }
    (answers.len() == n).then_some(answers)
}

/// `HWRC,HWXDL[8]` -> `[("HWRC", 1), ("HWXDL", 8)]` (`[a,b]`: held until cycle b).
fn parse_resources(s: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.find([',', '[']).unwrap_or(rest.len());
        let name = &rest[..end];
        rest = &rest[end..];
        let mut cycles = 1;
        if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').unwrap_or(r.len());
            cycles = r[..close]
                .rsplit(',')
                .next()
                .and_then(|c| c.trim().parse().ok())
                .unwrap_or(1);
            rest = r.get(close + 1..).unwrap_or("");
        }
        rest = rest.strip_prefix(',').unwrap_or(rest);
        if !name.is_empty() {
            out.push((name.to_string(), cycles));
        }
    }
    out
}

/// Statistics per region `r<i>` (regions llvm-mca did not print are `None`).
fn parse_regions(n: usize, out: &str) -> Vec<Option<RegionStats>> {
    let mut answers: Vec<Option<RegionStats>> = vec![None; n];
    let mut cur: Option<usize> = None;
    let num = |l: &str| -> u64 {
        l.rsplit(char::is_whitespace)
            .next()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    for l in out.lines() {
        if let Some(p) = l.find("] Code Region - r") {
            cur = l[p + "] Code Region - r".len()..]
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&i| i < n);
            if let Some(i) = cur {
                answers[i] = Some(RegionStats {
                    instructions: 0,
                    cycles: 0,
                    mappings: 0,
                });
            }
            continue;
        }
        let Some(s) = cur.and_then(|i| answers[i].as_mut()) else {
            continue;
        };
        if l.starts_with("Instructions:") {
            s.instructions = num(l) as u32;
        } else if l.starts_with("Total Cycles:") {
            s.cycles = num(l);
        } else if l.starts_with("Total number of mappings created:") {
            s.mappings = num(l) as u32;
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_parse() {
        assert_eq!(
            parse_resources("HWRC,HWXDL[8]"),
            [("HWRC".to_string(), 1), ("HWXDL".to_string(), 8)]
        );
        assert_eq!(parse_resources("HWVMEM[2,4]"), [("HWVMEM".to_string(), 4)]);
        assert!(parse_resources("").is_empty());
    }

    /// The facts the ISA metadata is learned from, on one known sequence each
    /// (gfx942): table rows, a skipped line, a definition count with an implicit SCC, and
    /// a read found by its wait.
    #[test]
    fn llvm_mca_answers_as_documented() {
        let a = Analyzer::new("gfx942", "");
        let rows = a
            .tables(&[
                "s_add_u32 s2, s3, s4",
                "not_an_instruction v1",
                "global_atomic_add v4, v[0:1], v5, off sc0",
            ])
            .expect("llvm-mca-22");
        let add = rows[0].as_ref().expect("s_add_u32 row");
        assert!(add.uses("HWSALU") && !add.may_load);
        assert_eq!(add.opcode, "S_ADD_U32_vi");
        assert_eq!(rows[1], None);
        let at = rows[2].as_ref().expect("atomic row");
        assert!(at.may_load && at.may_store && at.uses("HWVMEM"));
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let sims = a
            .simulate(&[
                s(&["s_add_u32 s2, s3, s4"]),
                s(&[
                    "global_load_dword v1, v[10:11], off",
                    "v_fmac_f32_e32 v1, v2, v3",
                ]),
                s(&[
                    "global_load_dword v9, v[10:11], off",
                    "v_fmac_f32_e32 v1, v2, v3",
                ]),
            ])
            .expect("llvm-mca-22");
        assert_eq!(sims[0].map(|r| r.mappings), Some(2), "s2 and SCC");
        let (dep, free) = (sims[1].expect("dep"), sims[2].expect("free"));
        assert_eq!(dep.instructions, 2);
        assert!(dep.cycles > free.cycles, "v_fmac reads its destination");
    }
}
