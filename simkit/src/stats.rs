//! Statistics: per-component named counters and latency histograms, and engine counters.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One of a component's counters (an index into that component's own counter list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CounterId(pub(crate) u32);

/// One of a component's histograms (an index into that component's own histogram list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HistogramId(pub(crate) u32);

impl CounterId {
    /// The component's `i`-th declared counter (ids are handed out 0, 1, 2, ... per
    /// component, so a component can know its ids before it is added).
    pub fn from_index(i: usize) -> CounterId {
        CounterId(i as u32)
    }

    /// Position among the component's counters.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl HistogramId {
    /// The component's `i`-th declared histogram.
    pub fn from_index(i: usize) -> HistogramId {
        HistogramId(i as u32)
    }

    /// Position among the component's histograms.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Names and bounds of one component's statistics, fixed when the topology is built.
#[derive(Clone, Debug, Default)]
pub(crate) struct StatSpec {
    pub(crate) counters: Vec<String>,
    /// (name, highest trackable value)
    pub(crate) histograms: Vec<(String, u64)>,
}

/// The live statistics of one component.
#[derive(Debug, Clone)]
pub(crate) struct CompStats {
    pub(crate) counters: Vec<u64>,
    pub(crate) hists: Vec<Histogram<u64>>,
}

impl CompStats {
    pub(crate) fn new(spec: &StatSpec) -> CompStats {
        CompStats {
            counters: vec![0; spec.counters.len()],
            hists: spec
                .histograms
                .iter()
                .map(|(_, high)| new_hist(*high))
                .collect(),
        }
    }

    /// Checkpoint form: counters and, per histogram, its (value, count) buckets.
    pub(crate) fn save(&self) -> SavedStats {
        SavedStats {
            counters: self.counters.clone(),
            hists: self
                .hists
                .iter()
                .map(|h| {
                    h.iter_recorded()
                        .map(|v| (v.value_iterated_to(), v.count_at_value()))
                        .collect()
                })
                .collect(),
        }
    }

    /// Whether `s` was saved from statistics of this shape (what [`Self::restore`] needs).
    pub(crate) fn fits(&self, s: &SavedStats) -> bool {
        s.counters.len() == self.counters.len() && s.hists.len() == self.hists.len()
    }

    /// Replaces the values with `s`, which [`Self::fits`]; one that does not is ignored.
    pub(crate) fn restore(&mut self, s: &SavedStats) {
        if !self.fits(s) {
            return;
        }
        self.counters.copy_from_slice(&s.counters);
        for (h, buckets) in self.hists.iter_mut().zip(&s.hists) {
            h.reset();
            for &(v, n) in buckets {
                h.saturating_record_n(v, n);
            }
        }
    }
}

fn new_hist(high: u64) -> Histogram<u64> {
    // 3 significant digits; bounds are checked when the histogram is declared.
    Histogram::new_with_bounds(1, high.max(2), 3)
        .unwrap_or_else(|_| Histogram::new_with_bounds(1, 2, 3).expect("1..2 is a valid range"))
}

/// Checks histogram bounds at declaration time so creation later cannot fail.
pub(crate) fn valid_hist_bound(high: u64) -> bool {
    Histogram::<u64>::new_with_bounds(1, high.max(2), 3).is_ok()
}

/// Checkpointed statistics of one component.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct SavedStats {
    pub(crate) counters: Vec<u64>,
    pub(crate) hists: Vec<Vec<(u64, u64)>>,
}

/// A partition's statistics storage, indexed by local component.
#[derive(Debug)]
pub(crate) struct StatsTable {
    pub(crate) comps: Vec<CompStats>,
}

impl StatsTable {
    #[inline]
    pub(crate) fn count(&mut self, local: u32, c: CounterId, n: u64) {
        // Ids come from the builder; one from another component that is out of range for
        // this one is ignored rather than panicking.
        if let Some(v) = self.comps[local as usize].counters.get_mut(c.0 as usize) {
            *v = v.wrapping_add(n);
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, local: u32, h: HistogramId, value: u64) {
        if let Some(hist) = self.comps[local as usize].hists.get_mut(h.0 as usize) {
            hist.saturating_record(value);
        }
    }
}

/// Engine-wide counters of a simulation, accumulated over all runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineStats {
    /// Events handled (committed), clock ticks included.
    pub events: u64,
    /// Synchronization epochs (zero on a one-partition simulation, which needs none).
    pub epochs: u64,
    /// Messages that crossed a partition boundary.
    pub cross_partition_messages: u64,
    /// Explicit-tick injections that arrived after the engine had passed their tick and were
    /// delivered at the earliest time still possible instead.
    pub late_injections: u64,
    /// Total time worker threads spent waiting at epoch barriers, summed over threads.
    pub barrier_wait: Duration,
    /// Number of partitions (= worker threads).
    pub partitions: usize,
}

impl EngineStats {
    /// Mean events per epoch (all events when there were no epochs).
    pub fn events_per_epoch(&self) -> f64 {
        if self.epochs == 0 {
            self.events as f64
        } else {
            self.events as f64 / self.epochs as f64
        }
    }
}

/// Summary of one latency histogram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramSummary {
    /// The histogram's name.
    pub name: String,
    /// Values recorded.
    pub count: u64,
    /// Smallest value (0 if empty).
    pub min: u64,
    /// Largest value (0 if empty).
    pub max: u64,
    /// Mean value.
    pub mean: f64,
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
}

/// The statistics of one component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentReport {
    /// The component's hierarchical name.
    pub name: String,
    /// Counters, in declaration order.
    pub counters: Vec<(String, u64)>,
    /// Histograms, in declaration order.
    pub histograms: Vec<HistogramSummary>,
}

impl ComponentReport {
    /// The value of the counter called `name`.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// The histogram called `name`.
    pub fn histogram(&self, name: &str) -> Option<&HistogramSummary> {
        self.histograms.iter().find(|h| h.name == name)
    }
}

/// Everything a report needs: engine counters and every component's statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Engine counters.
    pub engine: EngineStats,
    /// Per-component statistics in component-id order (components with none are left out).
    pub components: Vec<ComponentReport>,
}

impl Report {
    /// The statistics of the component called `name`.
    pub fn component(&self, name: &str) -> Option<&ComponentReport> {
        self.components.iter().find(|c| c.name == name)
    }
}

pub(crate) fn component_report(name: &str, spec: &StatSpec, s: &CompStats) -> ComponentReport {
    ComponentReport {
        name: name.to_owned(),
        counters: spec
            .counters
            .iter()
            .cloned()
            .zip(s.counters.iter().copied())
            .collect(),
        histograms: spec
            .histograms
            .iter()
            .zip(&s.hists)
            .map(|((n, _), h)| {
                let empty = h.is_empty();
                HistogramSummary {
                    name: n.clone(),
                    count: h.len(),
                    min: if empty { 0 } else { h.min() },
                    max: if empty { 0 } else { h.max() },
                    mean: h.mean(),
                    p50: h.value_at_quantile(0.5),
                    p99: h.value_at_quantile(0.99),
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_round_trip_through_save() {
        let spec = StatSpec {
            counters: vec!["a".into(), "b".into()],
            histograms: vec![("lat".into(), 1_000_000)],
        };
        let mut t = StatsTable {
            comps: vec![CompStats::new(&spec)],
        };
        t.count(0, CounterId(1), 5);
        t.count(0, CounterId(7), 5); // out of range: ignored
        for v in [0, 10, 10, 2000, 999_999, 5_000_000] {
            t.record(0, HistogramId(0), v);
        }
        let saved = t.comps[0].save();
        let mut fresh = CompStats::new(&spec);
        assert!(fresh.fits(&saved));
        fresh.restore(&saved);
        let r1 = component_report("x", &spec, &t.comps[0]);
        let r2 = component_report("x", &spec, &fresh);
        assert_eq!(r1, r2);
        assert_eq!(r1.counter("b"), Some(5));
        let h = r1.histogram("lat").unwrap();
        assert_eq!(h.count, 6);
        assert_eq!(h.min, 0);
        // Saturated at the declared bound (within 3 significant digits).
        assert!(h.max >= 1_000_000 && h.max < 1_001_000, "{}", h.max);
        assert_eq!(h.p50, 10);
    }
}
