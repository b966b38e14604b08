//! State across ranks: bringing every component's state and statistics to rank 0, and
//! checkpoints written as one part per rank.

use super::{Cluster, DistError, DistSim};
use crate::engine::worker::CompState;
use crate::stats::{Report, SavedStats};
use mpi::collective::Root;
use mpi::datatype::PartitionMut;
use mpi::topology::Communicator;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What [`DistSim::collect`] gives rank 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    /// Engine counters and every component's statistics, as one process would report them.
    pub report: Report,
    /// The whole event trace's hash ([`Simulation::trace_hash`](crate::engine::Simulation::trace_hash)).
    pub trace_hash: u64,
}

#[derive(Serialize, Deserialize)]
struct CompPart {
    id: u32,
    engine: CompState,
    stats: SavedStats,
    /// The model's saved state, if it can save it.
    model: Option<ModelBytes>,
}

/// A component's saved state, as one MessagePack byte string (a plain `Vec<u8>` would be
/// an array of numbers, decoded one by one: megabytes of GPU state took seconds).
#[derive(Serialize, Deserialize)]
struct ModelBytes(#[serde(with = "crate::checkpoint::bytes")] Vec<u8>);

#[derive(Serialize, Deserialize)]
struct RankPart {
    /// (partition, events, cross-partition messages, barrier wait)
    parts: Vec<(u32, u64, u64, Duration)>,
    comps: Vec<CompPart>,
}

/// A rank's part of a checkpoint.
#[derive(Serialize, Deserialize)]
struct RankImage {
    version: u32,
    rank: u32,
    ranks: u32,
    placement: Vec<u32>,
    config: u64,
    #[serde(with = "crate::checkpoint::bytes")]
    sim: Vec<u8>,
}

const VERSION: u32 = 1;

fn part_file(dir: &Path, rank: usize, ranks: usize) -> PathBuf {
    dir.join(format!("rank-{rank}-of-{ranks}.simkit"))
}

/// MPI counts and displacements for parts of `lens` bytes (32-bit, as MPI's are).
fn layout(lens: &[u64]) -> Result<(Vec<i32>, Vec<i32>), String> {
    let counts = lens
        .iter()
        .map(|&l| i32::try_from(l))
        .collect::<Result<Vec<i32>, _>>()
        .map_err(|_| "a rank's state is over 2 GiB".to_owned())?;
    if lens.iter().sum::<u64>() > i32::MAX as u64 {
        return Err("the ranks' states are over 2 GiB together".to_owned());
    }
    let displs = counts
        .iter()
        .scan(0i32, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect();
    Ok((counts, displs))
}

impl Cluster {
    /// Whether every rank succeeded: `mine` is this rank's failure, if any; returns the
    /// lowest failing rank and its failure word (`what`), the same on every rank.
    fn agree(&self, mine: Option<u64>) -> Option<(usize, u64)> {
        let mut all = Vec::new();
        self.all_gather(&[mine.is_some() as u64, mine.unwrap_or(0)], &mut all);
        (0..self.size)
            .find(|&r| all[2 * r] != 0)
            .map(|r| (r, all[2 * r + 1]))
    }
}

impl<M> DistSim<'_, M>
where
    M: Serialize + DeserializeOwned + Send + 'static,
{
    /// Brings every component's engine state, statistics and (where it can
    /// [`save`](crate::component::Component::save)) model state to rank 0, whose
    /// [`sim`](DistSim::sim) then reads like a single-process simulation's: its
    /// `component`, `report` and `trace_hash` cover every rank. Collective (between runs);
    /// rank 0 gets the report and trace hash, the others `None`.
    pub fn collect(&mut self) -> Result<Option<Collected>, DistError> {
        let me = self.cluster.rank;
        let wire = |rank: usize, e: String| DistError::Wire { rank, msg: e };
        let bytes = self.my_part()?;
        let root = self.cluster.world.process_at_rank(0);
        let len = [bytes.len() as u64];
        if me != 0 {
            root.gather_into(&len[..]);
            root.gather_varcount_into(&bytes[..]);
            return Ok(None);
        }
        let mut lens = vec![0u64; self.cluster.size];
        root.gather_into_root(&len[..], &mut lens[..]);
        let (counts, displs) = layout(&lens).map_err(|e| wire(me, e))?;
        let total: u64 = lens.iter().sum();
        let mut buf = vec![0u8; total as usize];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(&bytes[..], &mut part);
        }
        self.apply_all(&buf, &counts, &displs)?;
        Ok(Some(Collected {
            report: self.sim.report(),
            trace_hash: self.sim.trace_hash(),
        }))
    }

    /// As [`DistSim::collect`] (everything to rank 0), and also the state of the components
    /// `shared` onto every rank: the ones the model reads on every rank after a run (a GPU's
    /// packet processor, whose completions every rank's host side looks at). Everything
    /// else stays where it ran, so a model spread again afterwards has to use
    /// [`DistSim::over_described`] (the ranks hold different state for partitions that they
    /// do not run). Collective (between runs), with the same `shared` on every rank.
    ///
    /// Rank 0 alone writes reports, so the rest of the state goes there only: sending every
    /// component's state to every rank cost each rank as much as rank 0.
    pub fn collect_sharing(
        &mut self,
        shared: &[crate::component::ComponentId],
    ) -> Result<Option<Collected>, DistError> {
        let me = self.cluster.rank;
        let mut owners: Vec<usize> = Vec::new();
        for &id in shared {
            let p = self.sim.partition_of(id).ok_or_else(|| DistError::Wire {
                rank: me,
                msg: format!("no component {}", id.index()),
            })?;
            if !owners.contains(&self.rank_of[p]) {
                owners.push(self.rank_of[p]);
            }
        }
        owners.sort_unstable();
        for owner in owners {
            let mine = if owner == me {
                let ids: Vec<u32> = shared.iter().map(|id| id.index() as u32).collect();
                self.encode_part(|id| ids.contains(&id), false)?
            } else {
                Vec::new()
            };
            let bytes = self.cluster.broadcast_bytes(owner, mine);
            if owner != me {
                let theirs: RankPart =
                    rmp_serde::from_slice(&bytes).map_err(|e| DistError::Wire {
                        rank: owner,
                        msg: e.to_string(),
                    })?;
                self.apply(owner, theirs)?;
            }
        }
        self.collect()
    }

    /// Every other rank's part in `buf` (at `displs`, `counts` bytes each), applied here.
    fn apply_all(&mut self, buf: &[u8], counts: &[i32], displs: &[i32]) -> Result<(), DistError> {
        for r in (0..self.cluster.size).filter(|&r| r != self.cluster.rank) {
            let (at, n) = (displs[r] as usize, counts[r] as usize);
            let theirs: RankPart =
                rmp_serde::from_slice(&buf[at..at + n]).map_err(|e| DistError::Wire {
                    rank: r,
                    msg: e.to_string(),
                })?;
            self.apply(r, theirs)?;
        }
        Ok(())
    }

    /// This rank's partitions' engine state, statistics and model state, encoded.
    fn my_part(&self) -> Result<Vec<u8>, DistError> {
        self.encode_part(|_| true, true)
    }

    /// The engine state, statistics and model state of this rank's components that `pick`
    /// (by global index), with the partitions' counters if `counters`, encoded.
    fn encode_part(
        &self,
        pick: impl Fn(u32) -> bool,
        counters: bool,
    ) -> Result<Vec<u8>, DistError> {
        let me = self.cluster.rank;
        let mut mine = RankPart {
            parts: Vec::new(),
            comps: Vec::new(),
        };
        for &p in &self.local {
            let part = &self.sim.parts[p];
            let c = &part.core;
            if counters {
                mine.parts
                    .push((p as u32, c.events, c.cross, c.barrier_wait));
            }
            for (l, comp) in part.comps.iter().enumerate() {
                if !pick(c.l2g[l]) {
                    continue;
                }
                mine.comps.push(CompPart {
                    id: c.l2g[l],
                    engine: c.st[l].clone(),
                    stats: c.stats.comps[l].save(),
                    model: comp.save().ok().map(ModelBytes),
                });
            }
        }
        rmp_serde::to_vec(&mine).map_err(|e| DistError::Wire {
            rank: me,
            msg: e.to_string(),
        })
    }

    fn apply(&mut self, rank: usize, theirs: RankPart) -> Result<(), DistError> {
        let bad = |msg: String| DistError::Wire { rank, msg };
        let sim: &mut crate::engine::Simulation<M> = &mut self.sim;
        for (p, events, cross, wait) in theirs.parts {
            let core = &mut sim
                .parts
                .get_mut(p as usize)
                .ok_or_else(|| bad(format!("unknown partition {p}")))?
                .core;
            (core.events, core.cross, core.barrier_wait) = (events, cross, wait);
        }
        for c in theirs.comps {
            let pl = *sim
                .tables
                .place
                .get(c.id as usize)
                .ok_or_else(|| bad(format!("unknown component {}", c.id)))?;
            let part = &mut sim.parts[pl.part as usize];
            let l = pl.local as usize;
            if !part.core.stats.comps[l].fits(&c.stats) {
                return Err(bad(format!(
                    "statistics of {} do not fit",
                    sim.tables.names[c.id as usize]
                )));
            }
            part.core.st[l] = c.engine;
            part.core.stats.comps[l].restore(&c.stats);
            if let Some(ModelBytes(m)) = c.model {
                part.comps[l]
                    .restore(&m)
                    .map_err(|e| bad(format!("{}: {e}", sim.tables.names[c.id as usize])))?;
            }
        }
        Ok(())
    }
}

impl<M> DistSim<'_, M>
where
    M: Serialize + DeserializeOwned + Clone + Send + 'static,
{
    /// Writes this rank's part of a checkpoint into directory `dir` (created if needed), as
    /// `rank-<r>-of-<n>.simkit`: its partitions' events and its components' state. Collective;
    /// every rank returns the error of the lowest rank that failed.
    pub fn save_checkpoint(&self, dir: impl AsRef<Path>) -> Result<(), DistError> {
        let (me, n) = (self.cluster.rank, self.cluster.size);
        let fail = |msg: String| DistError::Checkpoint { rank: me, msg };
        let mine = (|| {
            let sim = self
                .sim
                .checkpoint_bytes()
                .map_err(|e| fail(e.to_string()))?;
            let image = RankImage {
                version: VERSION,
                rank: me as u32,
                ranks: n as u32,
                placement: self.rank_of.iter().map(|&r| r as u32).collect(),
                config: self.config,
                sim,
            };
            let bytes = rmp_serde::to_vec(&image).map_err(|e| fail(e.to_string()))?;
            let dir = dir.as_ref();
            std::fs::create_dir_all(dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
            let path = part_file(dir, me, n);
            std::fs::write(&path, bytes).map_err(|e| fail(format!("{}: {e}", path.display())))
        })();
        self.settle(mine, dir.as_ref())
    }

    /// The same result on every rank: this rank's, or the lowest failing rank's.
    fn settle(&self, mine: Result<(), DistError>, dir: &Path) -> Result<(), DistError> {
        let word = match &mine {
            Ok(()) => None,
            Err(DistError::CheckpointRanks { found, .. }) => Some(1 + *found as u64),
            Err(_) => Some(0),
        };
        match self.cluster.agree(word) {
            None => Ok(()),
            Some((r, _)) if r == self.cluster.rank => mine,
            Some((_, w)) if w > 0 => Err(DistError::CheckpointRanks {
                dir: dir.display().to_string(),
                found: (w - 1) as usize,
                expected: self.cluster.size,
            }),
            Some((r, _)) => Err(DistError::Checkpoint {
                rank: r,
                msg: "failed on that rank (its stderr or result says why)".to_owned(),
            }),
        }
    }

    /// Restores the checkpoint in `dir` written by [`DistSim::save_checkpoint`] with the
    /// same number of ranks, placement and configuration; another rank count is refused
    /// with [`DistError::CheckpointRanks`]. Collective.
    pub fn restore_checkpoint(&mut self, dir: impl AsRef<Path>) -> Result<(), DistError> {
        let dir = dir.as_ref();
        let me = self.cluster.rank;
        let image = match self.read_part(dir) {
            Ok(image) => {
                self.settle(Ok(()), dir)?;
                image
            }
            // Refused here, so refused on every rank.
            Err(e) => return self.settle(Err(e), dir),
        };
        let restored = self
            .sim
            .restore_bytes(&image.sim)
            .map_err(|e| DistError::Checkpoint {
                rank: me,
                msg: e.to_string(),
            });
        if restored.is_ok() {
            // The engine puts run-wide counters and pending requests on partition 0, which
            // may be another rank's here: they go to this rank's first partition.
            let first = self.local.first().copied();
            for (p, part) in self.sim.parts.iter_mut().enumerate() {
                if self.rank_of[p] != me {
                    part.core.held = 0;
                }
            }
            if let Some(f) = first.filter(|&f| f != 0 && self.rank_of[0] != me) {
                let c0 = &mut self.sim.parts[0].core;
                let moved = (
                    c0.exit.take(),
                    c0.released.take(),
                    std::mem::take(&mut c0.events),
                    std::mem::take(&mut c0.cross),
                    std::mem::take(&mut c0.barrier_wait),
                );
                let c = &mut self.sim.parts[f].core;
                (c.exit, c.released, c.events, c.cross, c.barrier_wait) = moved;
            }
        }
        self.settle(restored, dir)
    }

    fn read_part(&self, dir: &Path) -> Result<RankImage, DistError> {
        let (me, n) = (self.cluster.rank, self.cluster.size);
        let fail = |msg: String| DistError::Checkpoint { rank: me, msg };
        let path = part_file(dir, me, n);
        if !path.exists() {
            // Written by another number of ranks? Its rank 0 part says how many.
            let found = std::fs::read_dir(dir)
                .ok()
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    let name = e.ok()?.file_name().into_string().ok()?;
                    name.strip_prefix("rank-0-of-")?
                        .strip_suffix(".simkit")?
                        .parse::<usize>()
                        .ok()
                })
                .next();
            return Err(match found {
                Some(found) => DistError::CheckpointRanks {
                    dir: dir.display().to_string(),
                    found,
                    expected: n,
                },
                None => fail(format!("{}: no such checkpoint part", path.display())),
            });
        }
        let bytes = std::fs::read(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
        let image: RankImage =
            rmp_serde::from_slice(&bytes).map_err(|e| fail(format!("{}: {e}", path.display())))?;
        if image.version != VERSION {
            return Err(fail(format!(
                "{}: version {} (this build reads {VERSION})",
                path.display(),
                image.version
            )));
        }
        if image.ranks as usize != n {
            return Err(DistError::CheckpointRanks {
                dir: dir.display().to_string(),
                found: image.ranks as usize,
                expected: n,
            });
        }
        let placement: Vec<u32> = self.rank_of.iter().map(|&r| r as u32).collect();
        if image.rank as usize != me || image.placement != placement {
            return Err(fail(format!(
                "{}: written for another placement of partitions on ranks",
                path.display()
            )));
        }
        if image.config != self.config {
            return Err(fail(format!(
                "{}: written for another configuration ({:#x}, this run has {:#x})",
                path.display(),
                image.config,
                self.config
            )));
        }
        Ok(image)
    }
}
