//! Assigning components to partitions (one worker thread each): by hand or automatically.

use crate::topology::{Topology, TopologyError};
use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// A partition's index (0-based); each partition runs on its own worker thread.
pub type PartitionIndex = usize;

/// How components are spread over partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Partitioning {
    /// Everything in one partition: the sequential fast path, no barriers.
    Single,
    /// `n` partitions balancing component weight while cutting as little link weight as
    /// possible; components joined by zero-latency links are never separated.
    Auto(usize),
    /// `n` contiguous blocks of component ids.
    Block(usize),
    /// Component `i` goes to partition `i % n`.
    RoundRobin(usize),
    /// A pseudo-random assignment to `parts` partitions from `seed`.
    Random {
        /// Number of partitions.
        parts: usize,
        /// Seed of the assignment.
        seed: u64,
    },
    /// An explicit partition index per component, in component-id order.
    Manual(Vec<PartitionIndex>),
}

/// The strategy part of a [`Partitioning`], as written on command lines:
/// `auto`, `block`, `round-robin` or `random:<seed>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strategy {
    /// [`Partitioning::Auto`].
    Auto,
    /// [`Partitioning::Block`].
    Block,
    /// [`Partitioning::RoundRobin`].
    RoundRobin,
    /// [`Partitioning::Random`] with this seed.
    Random(u64),
}

impl Strategy {
    /// The partitioning over `parts` partitions (1 is always [`Partitioning::Single`]).
    pub fn with_parts(self, parts: usize) -> Partitioning {
        if parts <= 1 {
            return Partitioning::Single;
        }
        match self {
            Strategy::Auto => Partitioning::Auto(parts),
            Strategy::Block => Partitioning::Block(parts),
            Strategy::RoundRobin => Partitioning::RoundRobin(parts),
            Strategy::Random(seed) => Partitioning::Random { parts, seed },
        }
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        match s {
            "auto" => Ok(Strategy::Auto),
            "block" => Ok(Strategy::Block),
            "round-robin" => Ok(Strategy::RoundRobin),
            _ => match s.strip_prefix("random:") {
                Some(seed) => seed
                    .parse()
                    .map(Strategy::Random)
                    .map_err(|_| format!("bad seed in {s:?}")),
                None => Err(format!(
                    "unknown partitioning {s:?} (auto, block, round-robin, random:<seed>)"
                )),
            },
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Auto => f.write_str("auto"),
            Strategy::Block => f.write_str("block"),
            Strategy::RoundRobin => f.write_str("round-robin"),
            Strategy::Random(s) => write!(f, "random:{s}"),
        }
    }
}

impl Partitioning {
    /// Number of partitions this asks for.
    pub fn parts(&self) -> usize {
        match self {
            Partitioning::Single => 1,
            Partitioning::Auto(n) | Partitioning::Block(n) | Partitioning::RoundRobin(n) => *n,
            Partitioning::Random { parts, .. } => *parts,
            Partitioning::Manual(v) => v.iter().copied().max().map_or(1, |m| m + 1),
        }
    }

    /// The partition of every component, in component-id order.
    pub fn assign<M>(&self, topo: &Topology<M>) -> Result<Vec<PartitionIndex>, TopologyError> {
        let n = topo.comps.len();
        let parts = self.parts();
        if parts == 0 {
            return Err(TopologyError::BadPartitioning("zero partitions".to_owned()));
        }
        Ok(match self {
            Partitioning::Single => vec![0; n],
            Partitioning::Block(p) => (0..n).map(|i| i * p / n.max(1)).collect(),
            Partitioning::RoundRobin(p) => (0..n).map(|i| i % p).collect(),
            Partitioning::Random { parts, seed } => (0..n)
                .map(|i| {
                    (crate::phold::splitmix(seed ^ crate::phold::splitmix(i as u64))
                        % *parts as u64) as usize
                })
                .collect(),
            Partitioning::Manual(v) => {
                if v.len() != n {
                    return Err(TopologyError::BadPartitioning(format!(
                        "manual assignment lists {} components, the topology has {n}",
                        v.len()
                    )));
                }
                v.clone()
            }
            Partitioning::Auto(p) => auto(topo, *p),
        })
    }
}

struct UnionFind(Vec<u32>);

impl UnionFind {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let p = self.0[x as usize];
            self.0[x as usize] = self.0[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller id becomes the root so group order follows component order.
        if a < b {
            self.0[b as usize] = a;
        } else if b < a {
            self.0[a as usize] = b;
        }
    }
}

/// Weight-balanced, cut-minimizing assignment: contract zero-latency groups, lay groups out
/// in breadth-first order over the link graph (neighbours end up close), cut that order into
/// equal-weight runs, then greedily move boundary groups to the side most of their link weight
/// goes to while the balance stays within 5%.
fn auto<M>(topo: &Topology<M>, parts: usize) -> Vec<PartitionIndex> {
    let n = topo.comps.len();
    if n == 0 {
        return Vec::new();
    }
    let mut uf = UnionFind((0..n as u32).collect());
    for l in &topo.links {
        if l.latency.0 == 0 {
            uf.union(l.src, l.dst);
        }
    }
    for net in &topo.nets {
        if net.latency.0 == 0 {
            for w in net.members.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
    }
    // Dense group ids in order of their lowest component.
    let mut gid = vec![u32::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for c in 0..n as u32 {
        let r = uf.find(c) as usize;
        if gid[r] == u32::MAX {
            gid[r] = groups.len() as u32;
            groups.push(Vec::new());
        }
        let g = gid[r];
        gid[c as usize] = g;
        groups[g as usize].push(c);
    }
    let g_n = groups.len();
    let gw: Vec<u64> = groups
        .iter()
        .map(|m| {
            m.iter()
                .map(|&c| topo.comps[c as usize].weight.max(1))
                .sum()
        })
        .collect();
    // Group adjacency with summed link weights (both directions; the cut is symmetric).
    let mut adj: Vec<Vec<(u32, u64)>> = vec![Vec::new(); g_n];
    for l in &topo.links {
        let (a, b) = (gid[l.src as usize], gid[l.dst as usize]);
        if a != b {
            adj[a as usize].push((b, l.weight));
            adj[b as usize].push((a, l.weight));
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup_by(|x, y| {
            if x.0 == y.0 {
                y.1 += x.1;
                true
            } else {
                false
            }
        });
    }
    // Breadth-first layout from a pseudo-peripheral group of each connected piece: layers
    // from an end of the graph form a band, so contiguous runs of it cut few links.
    let bfs = |start: usize, seen: &mut Vec<bool>, out: &mut Vec<u32>| {
        seen[start] = true;
        let mut q = VecDeque::from([start as u32]);
        while let Some(g) = q.pop_front() {
            out.push(g);
            for &(h, _) in &adj[g as usize] {
                if !seen[h as usize] {
                    seen[h as usize] = true;
                    q.push_back(h);
                }
            }
        }
    };
    let mut order = Vec::with_capacity(g_n);
    let mut seen = vec![false; g_n];
    let mut probe_seen = vec![false; g_n];
    let mut probe = Vec::new();
    for start in 0..g_n {
        if seen[start] {
            continue;
        }
        probe.clear();
        bfs(start, &mut probe_seen, &mut probe);
        let far = probe.last().map_or(start, |&g| g as usize);
        bfs(far, &mut seen, &mut order);
    }
    let total: u64 = gw.iter().sum();
    let mut part = vec![0usize; g_n];
    let mut load = vec![0u64; parts];
    let mut acc = 0u64;
    for &g in &order {
        // Place by the midpoint of the group's weight span so runs come out even.
        let mid = acc as u128 * 2 + gw[g as usize] as u128;
        let p = ((mid * parts as u128) / (2 * total.max(1) as u128)) as usize;
        let p = p.min(parts - 1);
        part[g as usize] = p;
        load[p] += gw[g as usize];
        acc += gw[g as usize];
    }
    let cap = total.div_ceil(parts as u64) + total / (20 * parts as u64);
    for _pass in 0..8 {
        let mut moved = false;
        for &g in &order {
            let g = g as usize;
            let from = part[g];
            let mut to_w = vec![0u64; parts];
            for &(h, w) in &adj[g] {
                to_w[part[h as usize]] += w;
            }
            let mut best = from;
            for p in 0..parts {
                if p != from && to_w[p] > to_w[best] && load[p] + gw[g] <= cap && load[from] > gw[g]
                {
                    best = p;
                }
            }
            if best != from {
                load[from] -= gw[g];
                load[best] += gw[g];
                part[g] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    (0..n).map(|c| part[gid[c] as usize]).collect()
}
