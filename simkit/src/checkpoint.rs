//! Checkpoints: the complete engine state (pending events, component state, engine and
//! statistics state, injection numbering) serialized with serde as MessagePack.
//!
//! A checkpoint restores into a simulation built from the same topology (checked by a
//! fingerprint of names, ports, links and nets), under any partitioning: events are stored
//! with global component ids and re-placed on restore. Restoring and continuing gives exactly
//! the run that was never interrupted.

use crate::engine::worker::{CompState, ExitReq};
use crate::engine::{place_injections, Simulation};
use crate::event::{Entry, EventKey, TickEntry};
use crate::stats::SavedStats;
use crate::time::Tick;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// Errors saving or restoring a checkpoint.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// A component does not implement `save`/`restore`.
    #[error("component does not support checkpointing")]
    Unsupported,
    /// A component failed to save or restore.
    #[error("component {component}: {source}")]
    Component {
        /// The component's name.
        component: String,
        /// What went wrong.
        source: Box<CheckpointError>,
    },
    /// Serialization failed.
    #[error("encoding checkpoint: {0}")]
    Encode(String),
    /// The bytes are not a checkpoint this code can read.
    #[error("decoding checkpoint: {0}")]
    Decode(String),
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A component refused its saved state and one restored before it could not be put
    /// back as it was: its `save` and `restore` do not round-trip. Fatal: the simulation is
    /// in a mixed state.
    #[error("component {component} could not be put back after a refused checkpoint: {source}")]
    RollbackFailed {
        /// The component that could not be put back.
        component: String,
        /// Why.
        source: Box<CheckpointError>,
    },
    /// The checkpoint was taken from a different topology.
    #[error(
        "checkpoint is from a different topology (fingerprint {found:#x}, expected {expected:#x})"
    )]
    TopologyMismatch {
        /// In the checkpoint.
        found: u64,
        /// Of this simulation.
        expected: u64,
    },
}

/// Serializes `value` as MessagePack (for [`Component::save`](crate::component::Component::save)).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CheckpointError> {
    rmp_serde::to_vec(value).map_err(|e| CheckpointError::Encode(e.to_string()))
}

/// Deserializes MessagePack written by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CheckpointError> {
    rmp_serde::from_slice(bytes).map_err(|e| CheckpointError::Decode(e.to_string()))
}

const VERSION: u32 = 3;

#[derive(Serialize, Deserialize)]
struct CompImage {
    engine: CompState,
    stats: SavedStats,
    #[serde(with = "bytes")]
    model: Vec<u8>,
}

/// Byte vectors as MessagePack binaries rather than arrays of integers.
pub(crate) mod bytes {
    use serde::{Deserializer, Serializer};
    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[derive(Serialize, Deserialize)]
struct Image<M> {
    version: u32,
    fingerprint: u64,
    frontier: Tick,
    now: Vec<Tick>,
    epochs: u64,
    late: u64,
    /// The last sync point the model's hook ran for.
    synced: Tick,
    events_handled: u64,
    cross: u64,
    barrier_wait: Duration,
    next_injection: u64,
    /// Pending events, `dst` as a global component id, sorted by key.
    events: Vec<Entry<M>>,
    /// Pending clock ticks with the global id of the ticking component, sorted by key.
    ticks: Vec<(EventKey, u32)>,
    comps: Vec<CompImage>,
    /// The earliest exit request not yet honored (a run that stopped at its tick limit
    /// before the request's cap).
    exit: Option<ExitReq>,
    /// The largest key of a partition's last-primary release not yet honored; which
    /// partition holds it does not matter, only the largest counts.
    released: Option<EventKey>,
}

impl<M: Serialize + DeserializeOwned + Clone + Send + 'static> Simulation<M> {
    /// The complete engine state as bytes. Call between runs.
    pub fn checkpoint_bytes(&self) -> Result<Vec<u8>, CheckpointError> {
        let mut events = Vec::new();
        let mut ticks = Vec::new();
        for p in &self.parts {
            for e in p.core.queue.iter() {
                let mut e = e.clone();
                e.dst = p.core.l2g[e.dst as usize];
                events.push(e);
            }
            for t in p.core.ticks.iter() {
                ticks.push((t.key, p.core.l2g[t.local as usize]));
            }
        }
        // Injections not taken yet (a submission made between runs): placed exactly as the
        // next run would place them, so the restored run sees them as this one would.
        let (_, late) = place_injections(
            &self.tables,
            self.handle.pending_injections(),
            self.frontier.max(self.now()),
            |p, mut e| {
                e.dst = self.parts[p as usize].core.l2g[e.dst as usize];
                events.push(e);
            },
        );
        events.sort_by_key(|e| e.key);
        ticks.sort();
        let mut comps = Vec::with_capacity(self.tables.place.len());
        for (g, pl) in self.tables.place.iter().enumerate() {
            let part = &self.parts[pl.part as usize];
            let l = pl.local as usize;
            let model = part.comps[l]
                .save()
                .map_err(|e| CheckpointError::Component {
                    component: self.tables.names[g].clone(),
                    source: Box::new(e),
                })?;
            comps.push(CompImage {
                engine: part.core.st[l].clone(),
                stats: part.core.stats.comps[l].save(),
                model,
            });
        }
        let image = Image {
            version: VERSION,
            fingerprint: self.tables.fingerprint,
            frontier: self.frontier,
            now: self.parts.iter().map(|p| p.core.now).collect(),
            epochs: self.epochs,
            late: self.late + late,
            synced: self.synced,
            events_handled: self.parts.iter().map(|p| p.core.events).sum(),
            cross: self.parts.iter().map(|p| p.core.cross).sum(),
            barrier_wait: self.parts.iter().map(|p| p.core.barrier_wait).sum(),
            next_injection: self.handle.next_seq(),
            events,
            ticks,
            comps,
            exit: self
                .parts
                .iter()
                .filter_map(|p| p.core.exit.clone())
                .min_by_key(|x| x.key),
            released: self.parts.iter().filter_map(|p| p.core.released).max(),
        };
        encode(&image)
    }

    /// Writes the complete engine state to `path`.
    pub fn save_checkpoint(&self, path: impl AsRef<Path>) -> Result<(), CheckpointError> {
        let bytes = self.checkpoint_bytes()?;
        std::fs::write(path.as_ref(), bytes).map_err(|source| CheckpointError::Io {
            path: path.as_ref().display().to_string(),
            source,
        })
    }

    /// Replaces the whole state with a checkpoint taken from the same topology (the
    /// partitioning may differ). Atomic: a checkpoint that is refused leaves the simulation
    /// exactly as it was (see [`Simulation::restore_bytes_with`]). Injections made before
    /// the restore and not yet delivered are dropped.
    pub fn restore_bytes(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        self.restore_bytes_with(bytes, || {})
    }

    /// [`Simulation::restore_bytes`], for models whose component state decodes against
    /// context the caller sets up (a thread-local table, say): `before_rollback` runs when
    /// a component refuses its saved state, before the components restored ahead of it are
    /// given back their previous state, so the caller can put back the context that state
    /// was saved under.
    ///
    /// How it stays atomic: everything the engine owns is decoded and checked first
    /// (version, topology, statistics shapes, event and tick destinations). Component
    /// models are opaque bytes to the engine and only their own `restore` can judge them, so
    /// each model's current state is saved before any is restored, and if one refuses its
    /// new state the ones before it are restored from what was saved. Only then is the
    /// engine state replaced, which cannot fail.
    pub fn restore_bytes_with(
        &mut self,
        bytes: &[u8],
        before_rollback: impl FnOnce(),
    ) -> Result<(), CheckpointError> {
        let image: Image<M> = decode(bytes)?;
        if image.version != VERSION {
            return Err(CheckpointError::Decode(format!(
                "checkpoint version {} (this build reads {VERSION})",
                image.version
            )));
        }
        let mismatch = CheckpointError::TopologyMismatch {
            found: image.fingerprint,
            expected: self.tables.fingerprint,
        };
        if image.fingerprint != self.tables.fingerprint
            || image.comps.len() != self.tables.place.len()
            || image.now.is_empty()
        {
            return Err(mismatch);
        }
        for (g, c) in image.comps.iter().enumerate() {
            let pl = self.tables.place[g];
            if !self.parts[pl.part as usize].core.stats.comps[pl.local as usize].fits(&c.stats) {
                return Err(mismatch);
            }
        }
        let components = self.tables.place.len();
        if let Some(e) = image.events.iter().find(|e| e.dst as usize >= components) {
            return Err(CheckpointError::Decode(format!(
                "event for unknown component {}",
                e.dst
            )));
        }
        if let Some((_, g)) = image.ticks.iter().find(|(_, g)| *g as usize >= components) {
            return Err(CheckpointError::Decode(format!(
                "tick for unknown component {g}"
            )));
        }
        // The models: saved first, so a refusal can be undone.
        let mut previous = Vec::with_capacity(components);
        for (g, pl) in self.tables.place.iter().enumerate() {
            let saved = self.parts[pl.part as usize].comps[pl.local as usize]
                .save()
                .map_err(|e| CheckpointError::Component {
                    component: self.tables.names[g].clone(),
                    source: Box::new(e),
                })?;
            previous.push(saved);
        }
        for (g, c) in image.comps.iter().enumerate() {
            let pl = self.tables.place[g];
            let refused = self.parts[pl.part as usize].comps[pl.local as usize]
                .restore(&c.model)
                .err();
            if let Some(e) = refused {
                before_rollback();
                // The refusing component too: its restore may have failed part-way.
                for (h, saved) in previous.iter().enumerate().take(g + 1) {
                    let pl = self.tables.place[h];
                    let part = &mut self.parts[pl.part as usize];
                    if let Err(e) = part.comps[pl.local as usize].restore(saved) {
                        return Err(CheckpointError::RollbackFailed {
                            component: self.tables.names[h].clone(),
                            source: Box::new(e),
                        });
                    }
                }
                return Err(CheckpointError::Component {
                    component: self.tables.names[g].clone(),
                    source: Box::new(e),
                });
            }
        }
        // Nothing below can fail.
        let now = image.now.iter().copied().max().unwrap_or(Tick::ZERO);
        for p in &mut self.parts {
            p.core.queue.clear();
            p.core.ticks.clear();
            p.core.held = 0;
            p.core.events = 0;
            p.core.cross = 0;
            p.core.barrier_wait = Duration::ZERO;
            p.core.now = now;
            p.core.stop_at = Tick::MAX;
            p.core.exit = None;
            p.core.released = None;
            p.core.error = None;
            p.core.sent_min = Tick::MAX;
            for o in &mut p.core.out {
                o.clear();
            }
        }
        for (g, c) in image.comps.into_iter().enumerate() {
            let pl = self.tables.place[g];
            let core = &mut self.parts[pl.part as usize].core;
            let l = pl.local as usize;
            core.held += c.engine.holding as u32;
            core.st[l] = c.engine;
            core.stats.comps[l].restore(&c.stats);
        }
        for mut e in image.events {
            let pl = self.tables.place[e.dst as usize];
            e.dst = pl.local;
            self.parts[pl.part as usize].core.queue.push(e);
        }
        for (key, g) in image.ticks {
            let pl = self.tables.place[g as usize];
            self.parts[pl.part as usize].core.ticks.push(TickEntry {
                key,
                local: pl.local,
            });
        }
        let first = &mut self.parts[0].core;
        first.exit = image.exit;
        first.released = image.released;
        first.events = image.events_handled;
        first.cross = image.cross;
        first.barrier_wait = image.barrier_wait;
        self.frontier = image.frontier;
        self.epochs = image.epochs;
        self.late = image.late;
        self.synced = image.synced;
        self.handle.reset_injections(image.next_injection);
        self.handle.publish_now(now);
        Ok(())
    }

    /// Restores the state saved by [`Simulation::save_checkpoint`].
    pub fn restore_checkpoint(&mut self, path: impl AsRef<Path>) -> Result<(), CheckpointError> {
        let bytes = std::fs::read(path.as_ref()).map_err(|source| CheckpointError::Io {
            path: path.as_ref().display().to_string(),
            source,
        })?;
        self.restore_bytes(&bytes)
    }
}
