//! What a run reports, per kernel and overall, as text or JSON (`--json`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Everything a `gfxsim run` found out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The scenario (a path, or `<embedded default>`).
    pub scenario: String,
    /// The GPU's name.
    pub gpu: String,
    /// Worker threads (= partitions).
    pub threads: usize,
    /// Host seconds for the whole run (simulation only, not loading).
    pub host_seconds: f64,
    /// Simulated time at the end, in ticks (picoseconds).
    pub ticks: u64,
    /// Engine events handled.
    pub events: u64,
    /// Synchronization epochs (0 on one thread).
    pub epochs: u64,
    /// One entry per launch, in order.
    pub kernels: Vec<KernelReport>,
    /// One entry per output check.
    pub checks: Vec<CheckReport>,
}

/// One kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelReport {
    /// Kernel name.
    pub kernel: String,
    /// Code object file.
    pub code_object: String,
    /// Grid in work-items.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u32; 3],
    /// Host seconds from submission to completion.
    pub host_seconds: f64,
    /// Simulated ticks (picoseconds) from submission to completion.
    pub ticks: u64,
    /// Shader-clock cycles of that time.
    pub cycles: u64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions executed: `total`; by class `salu`, `control` (branches, waits,
    /// barriers), `smem`, `valu`, `vop3p` (packed math, dot, matrix), `lds`, `vmem`
    /// (these sum to `total`); and the global-memory instructions the caches saw by kind,
    /// `vmem_load`, `vmem_store`, `vmem_atomic`.
    pub instructions: BTreeMap<String, u64>,
    /// Per-CU occupancy, in CU order (CUs that ran nothing are left out).
    pub occupancy: Vec<CuOccupancy>,
    /// Cache statistics per level, summed over the instances of that level.
    pub caches: Vec<CacheLevel>,
    /// Bytes read from HBM.
    pub hbm_read_bytes: u64,
    /// Bytes written to HBM.
    pub hbm_write_bytes: u64,
    /// What the kernel printed to standard output (device `printf`, served through the
    /// hostcall buffer; see `gpu_model::service`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    /// What the kernel printed to standard error.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Set when the kernel ran translated from another processor (a launch's
    /// `translate:`, `gfxsim run --translate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translated: Option<TranslatedReport>,
}

/// How a kernel was translated (the `dbt` crate's report for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranslatedReport {
    /// The processor the code object was compiled for.
    pub guest: String,
    /// The processor it ran on.
    pub host: String,
    /// Bytes of the kernel's reachable guest code.
    pub code_bytes_before: usize,
    /// Bytes of its host code.
    pub code_bytes_after: usize,
    /// Guest instructions that needed a semantic rule.
    pub expanded: usize,
}

/// How full one CU was during a kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CuOccupancy {
    /// The CU's hierarchical name (`soc.xcd[0].se[1].cu[3]`).
    pub cu: String,
    /// Workgroups it ran.
    pub workgroups: u64,
    /// Waves it ran.
    pub waves: u64,
    /// Most waves resident at once.
    pub peak_waves: u32,
    /// Time-weighted mean of resident waves over the kernel's duration.
    pub mean_waves: f64,
    /// Wave slots of the CU.
    pub wave_slots: u32,
}

/// Statistics of one cache level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheLevel {
    /// `L1K` (scalar), `L1V` (vector), `L2`, `MALL` (memory-side cache).
    pub level: String,
    /// Instances summed.
    pub instances: u32,
    /// Hits.
    pub hits: u64,
    /// Misses.
    pub misses: u64,
    /// Accesses that bypassed the level (memory type UC/NT).
    pub bypasses: u64,
    /// Dirty lines written to the next level (evictions, write-back instructions).
    #[serde(default)]
    pub writebacks: u64,
    /// Lines dropped by invalidation (cache-maintenance instructions, CC loads, atomics).
    #[serde(default)]
    pub invalidations: u64,
}

impl CacheLevel {
    /// Hits over lookups (0 when nothing was looked up).
    pub fn hit_rate(&self) -> f64 {
        let n = self.hits + self.misses;
        if n == 0 {
            0.0
        } else {
            self.hits as f64 / n as f64
        }
    }
}

/// The outcome of one output check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The buffer.
    pub buffer: String,
    /// Whether it passed.
    pub passed: bool,
    /// What was compared.
    pub detail: String,
}

impl RunReport {
    /// Whether every check passed.
    pub fn all_passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        // A report holds only strings, numbers and maps with string keys: serializing it
        // cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The report as text for a terminal.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} on {} ({} thread{}): {} kernel{}, {:.3} s host, {:.3} us simulated, {} events",
            self.scenario,
            self.gpu,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.kernels.len(),
            if self.kernels.len() == 1 { "" } else { "s" },
            self.host_seconds,
            self.ticks as f64 / 1e6,
            self.events,
        );
        for k in &self.kernels {
            k.write_text(&mut s);
        }
        for c in &self.checks {
            let _ = writeln!(
                s,
                "check {:<12} {}  {}",
                c.buffer,
                if c.passed { "ok  " } else { "FAIL" },
                c.detail
            );
        }
        s
    }
}

impl KernelReport {
    fn write_text(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "\nkernel {} ({}) grid {:?} workgroup {:?}",
            self.kernel, self.code_object, self.grid, self.workgroup
        );
        let _ = writeln!(
            s,
            "  time       {:.3} ms host, {} cycles ({:.3} us simulated)",
            self.host_seconds * 1e3,
            self.cycles,
            self.ticks as f64 / 1e6
        );
        if let Some(t) = &self.translated {
            let _ = writeln!(
                s,
                "  translated {} -> {}: code {} -> {} bytes ({:.3}x), {} instructions by semantic rules",
                t.guest,
                t.host,
                t.code_bytes_before,
                t.code_bytes_after,
                t.code_bytes_after as f64 / t.code_bytes_before.max(1) as f64,
                t.expanded
            );
        }
        let total = self.instructions.get("total").copied().unwrap_or(0);
        let _ = write!(
            s,
            "  work       {} workgroups, {} waves, {} wave-instructions",
            self.workgroups, self.waves, total
        );
        if self.host_seconds > 0.0 {
            let _ = write!(s, " ({:.1} M/s)", total as f64 / self.host_seconds / 1e6);
        }
        s.push('\n');
        let mix: Vec<String> = self
            .instructions
            .iter()
            .filter(|(k, v)| k.as_str() != "total" && **v > 0)
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if !mix.is_empty() {
            let _ = writeln!(s, "  mix        {}", mix.join(", "));
        }
        if !self.occupancy.is_empty() {
            let n = self.occupancy.len() as f64;
            let mean = self.occupancy.iter().map(|c| c.mean_waves).sum::<f64>() / n;
            let peak = self
                .occupancy
                .iter()
                .map(|c| c.peak_waves)
                .max()
                .unwrap_or(0);
            let slots = self.occupancy[0].wave_slots;
            let _ = writeln!(
                s,
                "  occupancy  {} CUs used, mean {:.2} waves/CU, peak {} of {} slots",
                self.occupancy.len(),
                mean,
                peak,
                slots
            );
        }
        for c in &self.caches {
            let _ = writeln!(
                s,
                "  {:<5}      hit rate {:>6.2}% ({} hits, {} misses, {} bypasses, {} instances)",
                c.level,
                c.hit_rate() * 100.0,
                c.hits,
                c.misses,
                c.bypasses,
                c.instances
            );
            if c.writebacks + c.invalidations > 0 {
                let _ = writeln!(
                    s,
                    "             {} write-backs, {} lines invalidated",
                    c.writebacks, c.invalidations
                );
            }
        }
        let _ = writeln!(
            s,
            "  hbm        {} bytes read, {} bytes written",
            self.hbm_read_bytes, self.hbm_write_bytes
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RunReport {
        RunReport {
            scenario: "x.ron".into(),
            gpu: "AMD Instinct MI300X".into(),
            threads: 2,
            host_seconds: 0.5,
            ticks: 2_000_000,
            events: 10,
            epochs: 3,
            kernels: vec![KernelReport {
                translated: None,
                stdout: String::new(),
                stderr: String::new(),
                kernel: "vadd".into(),
                code_object: "vadd.hsaco".into(),
                grid: [1000, 1, 1],
                workgroup: [256, 1, 1],
                host_seconds: 0.25,
                ticks: 2_000_000,
                cycles: 4200,
                workgroups: 4,
                waves: 16,
                instructions: [("total".to_string(), 640), ("valu".to_string(), 300)].into(),
                occupancy: vec![CuOccupancy {
                    cu: "soc.xcd[0].se[0].cu[0]".into(),
                    workgroups: 4,
                    waves: 16,
                    peak_waves: 16,
                    mean_waves: 12.5,
                    wave_slots: 32,
                }],
                caches: vec![CacheLevel {
                    level: "L2".into(),
                    instances: 1,
                    hits: 3,
                    misses: 1,
                    bypasses: 0,
                    writebacks: 0,
                    invalidations: 0,
                }],
                hbm_read_bytes: 128,
                hbm_write_bytes: 64,
            }],
            checks: vec![CheckReport {
                buffer: "c".into(),
                passed: true,
                detail: "fnv1a ok".into(),
            }],
        }
    }

    #[test]
    fn json_round_trips() {
        let r = sample();
        let back: RunReport = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn text_names_every_section() {
        let t = sample().to_text();
        for needle in [
            "kernel vadd",
            "4200 cycles",
            "16 waves",
            "valu 300",
            "hit rate  75.00%",
            "128 bytes read",
            "check c",
        ] {
            assert!(t.contains(needle), "missing {needle:?} in\n{t}");
        }
    }
}
