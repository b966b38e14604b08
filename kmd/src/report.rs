//! Dispatch records: how an emulated process tells `gfxsim exec` what its GPU ran.
//!
//! At exit the interposer writes one file per process, `<root>/dispatches/<pid>.tsv`, one
//! line per completed dispatch (`kernel  gx,gy,gz  wx,wy,wz  instructions  ticks`,
//! tab-separated); `gfxsim exec --report` reads them all back and writes the same text or
//! JSON report as `gfxsim run`. A file per process keeps forked children and concurrent
//! runs apart without any locking.

use std::fmt::Write as _;
use std::path::Path;

/// One completed dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Kernel symbol name.
    pub kernel: String,
    /// Grid size in work-items.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u32; 3],
    /// Wave-instructions executed.
    pub instructions: u64,
    /// Simulated time from start to completion, in ticks (picoseconds).
    pub ticks: u64,
}

/// A malformed dispatch record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A line does not have the record's five fields or a field does not parse.
    #[error("{file}:{line}: bad dispatch record ({what})")]
    BadRecord {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Which field.
        what: &'static str,
    },
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        source: std::io::Error,
    },
}

fn dims(d: [u32; 3]) -> String {
    format!("{},{},{}", d[0], d[1], d[2])
}

/// The records as the file's text.
pub fn format(dispatches: &[Dispatch]) -> String {
    let mut s = String::new();
    for d in dispatches {
        // Kernel names are C symbols: no tabs or newlines. Replace any anyway.
        let name: String = d
            .kernel
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let _ = writeln!(
            s,
            "{name}\t{}\t{}\t{}\t{}",
            dims(d.grid),
            dims(d.workgroup),
            d.instructions,
            d.ticks
        );
    }
    s
}

/// Parses a file's text (`file` names it in errors).
pub fn parse(text: &str, file: &str) -> Result<Vec<Dispatch>, ReportError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        let bad = |what| ReportError::BadRecord {
            file: file.to_string(),
            line: i + 1,
            what,
        };
        let f: Vec<&str> = line.split('\t').collect();
        let [kernel, grid, wg, instructions, ticks] = f[..] else {
            return Err(bad("expected 5 tab-separated fields"));
        };
        let dims = |s: &str, what| -> Result<[u32; 3], ReportError> {
            let v: Vec<u32> = s
                .split(',')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad(what))?;
            <[u32; 3]>::try_from(v).map_err(|_| bad(what))
        };
        out.push(Dispatch {
            kernel: kernel.to_string(),
            grid: dims(grid, "grid")?,
            workgroup: dims(wg, "workgroup")?,
            instructions: instructions.parse().map_err(|_| bad("instructions"))?,
            ticks: ticks.parse().map_err(|_| bad("ticks"))?,
        });
    }
    Ok(out)
}

/// Every record under `<root>/dispatches/`, ordered by process id, then completion.
pub fn collect(root: &Path) -> Result<Vec<Dispatch>, ReportError> {
    let dir = root.join("dispatches");
    let io = |file: &Path| {
        let file = file.display().to_string();
        move |source| ReportError::Io { file, source }
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(&dir)(e)),
    };
    let mut files: Vec<(u64, std::path::PathBuf)> = Vec::new();
    for e in entries {
        let path = e.map_err(io(&dir))?.path();
        let pid = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse().ok());
        if let (Some(pid), true) = (pid, path.extension().is_some_and(|e| e == "tsv")) {
            files.push((pid, path));
        }
    }
    files.sort();
    let mut out = Vec::new();
    for (_, path) in files {
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        out.extend(parse(&text, &path.display().to_string())?);
    }
    Ok(out)
}

/// Writes this process's records (`<root>/dispatches/<pid>.tsv`); nothing when empty.
pub fn write(root: &Path, pid: u32, dispatches: &[Dispatch]) -> std::io::Result<()> {
    if dispatches.is_empty() {
        return Ok(());
    }
    let dir = root.join("dispatches");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(format!("{pid}.tsv")), format(dispatches))
}

/// Where one emulated process's time went, and how much simulation its GPU did: written
/// at exit next to its records (`<root>/dispatches/<pid>.stats`, `key value` lines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessStats {
    /// Engine events the SoC handled.
    pub events: u64,
    /// Nanoseconds the service thread spent running the model (`Soc::run`).
    pub model_ns: u64,
    /// Nanoseconds of emulation: ioctl handlers (blocking WAIT_EVENTS excluded) and the
    /// service thread's own work around the model (polling queues, records, wake-ups).
    pub emulation_ns: u64,
    /// Nanoseconds from the emulation's start to the process's exit.
    pub wall_ns: u64,
}

const STATS_KEYS: [&str; 4] = ["events", "model_ns", "emulation_ns", "wall_ns"];

impl ProcessStats {
    fn fields(&self) -> [u64; 4] {
        [self.events, self.model_ns, self.emulation_ns, self.wall_ns]
    }

    /// The sum of `all`.
    pub fn sum(all: &[ProcessStats]) -> ProcessStats {
        all.iter()
            .fold(ProcessStats::default(), |a, b| ProcessStats {
                events: a.events + b.events,
                model_ns: a.model_ns + b.model_ns,
                emulation_ns: a.emulation_ns + b.emulation_ns,
                wall_ns: a.wall_ns + b.wall_ns,
            })
    }

    /// The file's text.
    pub fn format(&self) -> String {
        let mut s = String::new();
        for (k, v) in STATS_KEYS.iter().zip(self.fields()) {
            let _ = writeln!(s, "{k} {v}");
        }
        s
    }

    /// Parses a stats file (`file` names it in errors).
    pub fn parse(text: &str, file: &str) -> Result<ProcessStats, ReportError> {
        let mut v = [None; 4];
        for (i, line) in text.lines().enumerate() {
            let bad = |what| ReportError::BadRecord {
                file: file.to_string(),
                line: i + 1,
                what,
            };
            let (k, n) = line.split_once(' ').ok_or_else(|| bad("key value"))?;
            let slot = STATS_KEYS
                .iter()
                .position(|x| *x == k)
                .ok_or_else(|| bad("key"))?;
            v[slot] = Some(n.trim().parse().map_err(|_| bad("value"))?);
        }
        let missing = |k| ReportError::BadRecord {
            file: file.to_string(),
            line: 0,
            what: k,
        };
        let get = |i: usize| v[i].ok_or_else(|| missing(STATS_KEYS[i]));
        Ok(ProcessStats {
            events: get(0)?,
            model_ns: get(1)?,
            emulation_ns: get(2)?,
            wall_ns: get(3)?,
        })
    }
}

/// Writes this process's stats (`<root>/dispatches/<pid>.stats`).
pub fn write_stats(root: &Path, pid: u32, stats: &ProcessStats) -> std::io::Result<()> {
    let dir = root.join("dispatches");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(format!("{pid}.stats")), stats.format())
}

/// Every process's stats under `<root>/dispatches/`.
pub fn collect_stats(root: &Path) -> Result<Vec<ProcessStats>, ReportError> {
    let dir = root.join("dispatches");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ReportError::Io {
                file: dir.display().to_string(),
                source,
            })
        }
    };
    let mut out = Vec::new();
    for e in entries {
        let path = e
            .map_err(|source| ReportError::Io {
                file: dir.display().to_string(),
                source,
            })?
            .path();
        if path.extension().is_none_or(|e| e != "stats") {
            continue;
        }
        let file = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Io {
            file: file.clone(),
            source,
        })?;
        out.push(ProcessStats::parse(&text, &file)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_round_trip_and_bad_lines_name_their_place() {
        let s = ProcessStats {
            events: 12,
            model_ns: 3,
            emulation_ns: 4,
            wall_ns: 99,
        };
        assert_eq!(ProcessStats::parse(&s.format(), "f").unwrap(), s);
        let e = ProcessStats::parse("events 1\nmodel_ns x\n", "p.stats").unwrap_err();
        assert_eq!(e.to_string(), "p.stats:2: bad dispatch record (value)");
        let e = ProcessStats::parse("events 1\n", "p.stats").unwrap_err();
        assert!(e.to_string().contains("model_ns"), "{e}");
        assert_eq!(ProcessStats::sum(&[s, s]).wall_ns, 198);
    }

    #[test]
    fn records_round_trip_and_bad_lines_name_their_place() {
        let d = vec![
            Dispatch {
                kernel: "vadd".into(),
                grid: [256, 1, 1],
                workgroup: [64, 1, 1],
                instructions: 40,
                ticks: 9000,
            },
            Dispatch {
                kernel: "reduce".into(),
                grid: [1024, 2, 1],
                workgroup: [256, 1, 1],
                instructions: 7,
                ticks: 1,
            },
        ];
        assert_eq!(parse(&format(&d), "f").unwrap(), d);
        let e = parse("vadd\t1,1,1\t1,1\t3\t4\n", "p.tsv")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "p.tsv:1: bad dispatch record (workgroup)");
        let e = parse("\nx\t1\n", "p.tsv").unwrap_err().to_string();
        assert!(e.starts_with("p.tsv:2:"), "{e}");

        let root = std::env::temp_dir().join(format!("kmd-report-{}", std::process::id()));
        write(&root, 20, &d[1..]).unwrap();
        write(&root, 3, &d[..1]).unwrap();
        write(&root, 4, &[]).unwrap();
        assert_eq!(collect(&root).unwrap(), d, "ordered by pid");
        std::fs::remove_dir_all(&root).unwrap();
        assert!(collect(&root).unwrap().is_empty());
    }
}
