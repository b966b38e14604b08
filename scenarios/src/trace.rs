//! Chrome / Perfetto trace-event JSON of wave lifetimes (`--trace out.json`).
//!
//! One "process" per XCD, one "thread" per wave slot of a CU, named `se[s].cu[c].slot[k]`
//! and sorted so a CU's slots sit together: waves resident on one CU overlap in time and
//! the trace-event format requires the complete (`"ph": "X"`) events of one thread to nest,
//! so a CU cannot be a single thread without losing slices. Times are microseconds of
//! simulated time. Loads in ui.perfetto.dev and chrome://tracing.

use serde::Serialize;
use std::io::Write;

/// One wave's lifetime on a CU.
#[derive(Debug, Clone, PartialEq)]
pub struct WaveSpan {
    /// XCD index.
    pub xcd: u32,
    /// Shader engine within the XCD.
    pub se: u32,
    /// CU within the shader engine.
    pub cu: u32,
    /// Wave slot on the CU (SIMD x slots-per-SIMD + slot).
    pub slot: u32,
    /// Index of the launch in the scenario.
    pub launch: u32,
    /// Workgroup id.
    pub workgroup: [u32; 3],
    /// Wave index in its workgroup.
    pub wave: u32,
    /// Start (ticks = picoseconds).
    pub start: u64,
    /// End (ticks).
    pub end: u64,
    /// Instructions the wave executed.
    pub instructions: u64,
}

#[derive(Serialize)]
struct TraceFile<'a> {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<Event<'a>>,
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
}

#[derive(Serialize)]
struct Event<'a> {
    name: String,
    ph: &'static str,
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    args: Args<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Args<'a> {
    Name {
        name: String,
    },
    Sort {
        sort_index: u64,
    },
    Wave {
        kernel: &'a str,
        workgroup: [u32; 3],
        wave: u32,
        instructions: u64,
    },
}

/// Picoseconds to microseconds.
fn us(ticks: u64) -> f64 {
    ticks as f64 / 1e6
}

/// Writes the trace of `spans`. `kernels[i]` names launch `i`; `slots_per_cu` and
/// `cus_per_se` (the largest SE) make thread ids unique and ordered.
pub fn write_trace(
    mut out: impl Write,
    spans: &[WaveSpan],
    kernels: &[String],
    cus_per_se: u32,
    slots_per_cu: u32,
) -> std::io::Result<()> {
    let tid = |s: &WaveSpan| {
        (u64::from(s.se) * u64::from(cus_per_se) + u64::from(s.cu)) * u64::from(slots_per_cu)
            + u64::from(s.slot)
    };
    let mut events = Vec::with_capacity(spans.len() + 64);
    let mut named = std::collections::BTreeSet::new();
    for s in spans {
        if named.insert((s.xcd, None)) {
            events.push(Event {
                name: "process_name".into(),
                ph: "M",
                pid: s.xcd,
                tid: None,
                ts: None,
                dur: None,
                cat: None,
                args: Args::Name {
                    name: format!("xcd[{}]", s.xcd),
                },
            });
        }
        let t = tid(s);
        if named.insert((s.xcd, Some(t))) {
            events.push(Event {
                name: "thread_name".into(),
                ph: "M",
                pid: s.xcd,
                tid: Some(t),
                ts: None,
                dur: None,
                cat: None,
                args: Args::Name {
                    name: format!("se[{}].cu[{}].slot[{}]", s.se, s.cu, s.slot),
                },
            });
            events.push(Event {
                name: "thread_sort_index".into(),
                ph: "M",
                pid: s.xcd,
                tid: Some(t),
                ts: None,
                dur: None,
                cat: None,
                args: Args::Sort { sort_index: t },
            });
        }
    }
    for s in spans {
        let kernel = kernels.get(s.launch as usize).map_or("?", String::as_str);
        events.push(Event {
            name: format!(
                "{kernel} wg({},{},{}) w{}",
                s.workgroup[0], s.workgroup[1], s.workgroup[2], s.wave
            ),
            ph: "X",
            pid: s.xcd,
            tid: Some(tid(s)),
            ts: Some(us(s.start)),
            dur: Some(us(s.end.saturating_sub(s.start))),
            cat: Some("wave"),
            args: Args::Wave {
                kernel,
                workgroup: s.workgroup,
                wave: s.wave,
                instructions: s.instructions,
            },
        });
    }
    let file = TraceFile {
        trace_events: events,
        display_time_unit: "ns",
    };
    serde_json::to_writer(&mut out, &file).map_err(std::io::Error::other)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn span(xcd: u32, cu: u32, slot: u32, start: u64, end: u64) -> WaveSpan {
        WaveSpan {
            xcd,
            se: 1,
            cu,
            slot,
            launch: 0,
            workgroup: [cu, 0, 0],
            wave: slot,
            start,
            end,
            instructions: 10,
        }
    }

    #[test]
    fn trace_parses_back_with_the_expected_structure() {
        let spans = vec![
            span(0, 3, 0, 1_000_000, 3_500_000),
            span(0, 3, 1, 2_000_000, 2_500_000),
            span(1, 0, 0, 0, 500_000),
        ];
        let mut buf = Vec::new();
        write_trace(&mut buf, &spans, &["vadd".to_string()], 10, 32).unwrap();
        let v: Value = serde_json::from_slice(&buf).unwrap();
        let evs = v["traceEvents"].as_array().unwrap();
        let complete: Vec<&Value> = evs.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(complete.len(), 3);
        // Times in microseconds of simulated time (1 tick = 1 ps).
        assert_eq!(complete[0]["ts"].as_f64(), Some(1.0));
        assert_eq!(complete[0]["dur"].as_f64(), Some(2.5));
        assert_eq!(complete[0]["pid"], 0);
        assert_eq!(complete[2]["pid"], 1);
        assert_eq!(complete[0]["name"], "vadd wg(3,0,0) w0");
        assert_eq!(complete[0]["args"]["instructions"], 10);
        // Overlapping waves of one CU are on different threads.
        assert_ne!(complete[0]["tid"], complete[1]["tid"]);
        // Every pid has a process name, every (pid, tid) used a thread name.
        let procs: Vec<&Value> = evs.iter().filter(|e| e["name"] == "process_name").collect();
        assert_eq!(procs.len(), 2);
        assert_eq!(procs[1]["args"]["name"], "xcd[1]");
        for c in &complete {
            let named = evs.iter().any(|e| {
                e["name"] == "thread_name" && e["pid"] == c["pid"] && e["tid"] == c["tid"]
            });
            assert!(named, "no thread name for {c}");
        }
        let t = evs
            .iter()
            .find(|e| e["name"] == "thread_name" && e["tid"] == complete[1]["tid"])
            .unwrap();
        assert_eq!(t["args"]["name"], "se[1].cu[3].slot[1]");
    }
}
