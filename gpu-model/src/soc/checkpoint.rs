//! Checkpoints of a whole SoC: device memory, loaded modules, the engine (pending events,
//! messages in flight) and every component's state, as one MessagePack image.
//!
//! The engine part is simkit's checkpoint ([`Simulation::checkpoint_bytes`]), which
//! restores under any partitioning, so a checkpoint taken on one thread continues on two.
//! Messages and components name dispatches by key; the registry they look them up in
//! (queues, dispatches in flight, decoded programs with the bytes they were decoded from)
//! is saved beside the engine and restored before it, so nothing travels on a side channel.
//!
//! [`Simulation::checkpoint_bytes`]: simkit::engine::Simulation::checkpoint_bytes

use crate::dispatch::Fault;
use crate::exec::{FaultReason, Program, Wave, WaveInfo, WaveState, LANES};
use crate::isa::DecodeError;
use crate::loader::CodeObject;
use crate::memory::coherence::CoherenceImage;
use crate::memory::{DeviceMemory, LoadedCodeObject, MemFault};
use crate::service::devmem::{DeviceHeap, HeapImage};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use simkit::checkpoint::{decode, encode};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::launch::{Dispatch, DispatchImage, Module};
use super::queue::{CodeCache, Inner, KnownKernel, QueueEvent, QueueState};
use super::{LiveDispatch, Soc, SocError};

/// Format version of [`SocImage`]; bump when the layout of any saved state changes.
const VERSION: u32 = 8;

/// The registry shared by the packet processor, command processors and CUs.
#[derive(Serialize, Deserialize)]
struct RegistryImage {
    queues: BTreeMap<u32, QueueState>,
    dispatches: Vec<DispatchImage>,
    regions: Vec<(u64, u64)>,
    kernels: BTreeMap<u64, KnownKernel>,
    decoded: Vec<(u64, u64, u32)>,
    /// Programs by id: where they were decoded and the bytes.
    programs: Vec<Option<(u64, Row)>>,
    events: Vec<QueueEvent>,
}

impl RegistryImage {
    fn of(inner: &Inner) -> RegistryImage {
        RegistryImage {
            queues: inner.queues.clone(),
            dispatches: inner.dispatches.values().map(|d| d.image()).collect(),
            regions: inner.code.regions.clone(),
            kernels: inner.code.kernels.clone(),
            decoded: inner.code.decoded().to_vec(),
            programs: inner
                .code
                .programs
                .iter()
                .map(|p| p.as_ref().map(|p| (p.base(), Row(p.text().to_vec()))))
                .collect(),
            events: inner.events.clone(),
        }
    }

    fn build(self, target: crate::Target) -> Result<Inner, SocError> {
        let programs: Vec<Option<Arc<Program>>> = self
            .programs
            .into_iter()
            .map(|p| p.map(|(base, Row(text))| Arc::new(Program::new(target, base, &text))))
            .collect();
        let mut dispatches = BTreeMap::new();
        for d in self.dispatches {
            let d = Dispatch::from_image(d, &programs).map_err(SocError::CheckpointMismatch)?;
            dispatches.insert(d.seq, Arc::new(d));
        }
        let mut code = CodeCache {
            regions: self.regions,
            kernels: self.kernels,
            programs,
            ..CodeCache::default()
        };
        code.set_decoded(self.decoded);
        Ok(Inner {
            queues: self.queues,
            dispatches,
            code,
            events: self.events,
            // The host's timestamp origin is the host's (it sets it before each run).
            ..Inner::default()
        })
    }
}

/// Everything outside the engine, plus the engine's own image.
#[derive(Serialize, Deserialize)]
struct SocImage<Mem> {
    version: u32,
    /// The config as RON: a checkpoint only restores into a SoC of the same config.
    config: String,
    memory: Mem,
    /// What the CUs buffered since the last memory sync point.
    coherence: CoherenceImage,
    modules: Vec<ModuleImage>,
    queue: u64,
    next_index: u64,
    registry: RegistryImage,
    live: Vec<LiveDispatch>,
    #[serde(with = "blob")]
    sim: Vec<u8>,
    /// The device heap behind device-side `malloc` (its addresses; the allocator state and
    /// blocks are in `memory`). An optional section added after version 5 without a version
    /// bump: images without it decode with `None` (a fresh heap), as before.
    #[serde(default)]
    heap: Option<HeapImage>,
}

/// A loaded module: the code object to parse again and where it was placed.
#[derive(Serialize, Deserialize)]
struct ModuleImage {
    #[serde(with = "blob")]
    code_object: Vec<u8>,
    loaded: LoadedCodeObject,
}

impl Soc {
    /// The complete state of the SoC (device memory, modules, queues, waves, caches,
    /// statistics, messages in flight) as bytes. Call between runs; a SoC built from the
    /// same config and given these bytes by [`Soc::restore`] continues exactly as this one
    /// would, on any number of threads.
    pub fn checkpoint(&self) -> Result<Vec<u8>, SocError> {
        if let Some((va, len)) = self.mem_read().host_ranges().next() {
            return Err(SocError::CheckpointMismatch(format!(
                "host memory is mapped at {va:#x} ({len} bytes): host ranges belong to the \
                 host process and are not part of checkpoints"
            )));
        }
        // Runtime services of a running dispatch (hostcall packets being served, a printf
        // buffer not yet printed) are not saved: checkpoints are taken between dispatches.
        let heap = {
            let t = self.services.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(seq) = t.first_live() {
                return Err(SocError::CheckpointMismatch(format!(
                    "dispatch {seq} has runtime service buffers (hostcall or printf) in use: \
                     take the checkpoint after it completes"
                )));
            }
            t.heap_image()
        };
        let sim = self.sim.checkpoint_bytes()?;
        let config = self
            .config
            .to_ron()
            .map_err(|e| SocError::Config(e.to_string()))?;
        let modules = self
            .modules
            .iter()
            .map(|m| ModuleImage {
                code_object: m.bytes.clone(),
                loaded: m.loaded.clone(),
            })
            .collect();
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mem = self.mem_read();
        let image = SocImage {
            version: VERSION,
            config,
            memory: &*mem,
            coherence: self.coherence.image(),
            modules,
            queue: self.queue,
            next_index: self.next_index.load(Ordering::Relaxed),
            registry: RegistryImage::of(&self.shared.read()),
            live,
            sim,
            heap: Some(heap),
        };
        Ok(encode(&image)?)
    }

    /// Writes [`Soc::checkpoint`] to `path`.
    pub fn save_checkpoint(&self, path: impl AsRef<Path>) -> Result<(), SocError> {
        let bytes = self.checkpoint()?;
        std::fs::write(path.as_ref(), bytes).map_err(|source| {
            SocError::Checkpoint(simkit::checkpoint::CheckpointError::Io {
                path: path.as_ref().display().to_string(),
                source,
            })
        })
    }

    /// Replaces the whole state with a checkpoint from [`Soc::checkpoint`] of a SoC built
    /// from the same config (the thread count may differ). Submitters made before the
    /// restore do not know the restored modules; make new ones. Atomic: a refused
    /// checkpoint (one that does not decode, is from another config, or that any part
    /// refuses) leaves the SoC exactly as it was. Every part outside the engine is decoded
    /// and checked first, then the engine restores atomically (see
    /// [`Simulation::restore_bytes_with`]), then the rest is put in place, which cannot
    /// fail.
    ///
    /// [`Simulation::restore_bytes_with`]: simkit::engine::Simulation::restore_bytes_with
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), SocError> {
        let mut image: SocImage<DeviceMemory> = decode(bytes)?;
        if image.version != VERSION {
            return Err(SocError::CheckpointMismatch(format!(
                "checkpoint format version {} (this build reads {VERSION})",
                image.version
            )));
        }
        let config = self
            .config
            .to_ron()
            .map_err(|e| SocError::Config(e.to_string()))?;
        if image.config != config {
            let name = crate::config::GpuConfig::from_ron(&image.config, "checkpoint")
                .map_or_else(|_| "unreadable".to_string(), |c| c.name);
            return Err(SocError::CheckpointMismatch(format!(
                "checkpoint is of a `{name}` config that differs from this soc's `{}`",
                self.config.name
            )));
        }
        let coherence = self
            .coherence
            .prepare(&image.coherence)
            .map_err(SocError::CheckpointMismatch)?;
        let mut modules = Vec::with_capacity(image.modules.len());
        for m in image.modules {
            let co = CodeObject::parse(&m.code_object)?;
            modules.push(Arc::new(Module {
                bytes: m.code_object,
                co,
                loaded: m.loaded,
            }));
        }
        let heap = image
            .heap
            .take()
            .map(DeviceHeap::from_image)
            .transpose()
            .map_err(|e| SocError::CheckpointMismatch(format!("device heap: {e}")))?
            .unwrap_or_default();
        let registry = image.registry.build(self.config.target)?;
        // The components look dispatches up in the registry as they restore; a component
        // refusing its state gets its old one back, which names the old registry's
        // dispatches: put that back first.
        let old = std::mem::replace(&mut *self.shared.write(), registry);
        let mut old = Some(old);
        let shared = self.shared.clone();
        let restored = self.sim.restore_bytes_with(&image.sim, || {
            if let Some(o) = old.take() {
                *shared.write() = o;
            }
        });
        if let Err(e) = restored {
            if let Some(o) = old.take() {
                *self.shared.write() = o;
            }
            return Err(e.into());
        }
        image.memory.set_capacity(self.config.dram.capacity_bytes);
        *self.mem_write() = image.memory;
        self.coherence.install(coherence);
        self.modules = modules;
        self.queue = image.queue;
        self.next_index.store(image.next_index, Ordering::Relaxed);
        *self.live.lock().unwrap_or_else(|p| p.into_inner()) = image.live;
        {
            let mut t = self.services.lock().unwrap_or_else(|p| p.into_inner());
            t.restore(heap);
        }
        Ok(())
    }

    /// Restores the checkpoint in `path` (see [`Soc::restore`]).
    pub fn restore_checkpoint(&mut self, path: impl AsRef<Path>) -> Result<(), SocError> {
        let bytes = std::fs::read(path.as_ref()).map_err(|source| {
            SocError::Checkpoint(simkit::checkpoint::CheckpointError::Io {
                path: path.as_ref().display().to_string(),
                source,
            })
        })?;
        self.restore(&bytes)
    }
}

/// Byte vectors as MessagePack binaries rather than arrays of integers.
pub(crate) mod blob {
    use serde::{Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
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
            // Formats without a binary type write byte strings as sequences.
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Vec<u8>, A::Error> {
                let mut v = Vec::with_capacity(a.size_hint().unwrap_or(0));
                while let Some(b) = a.next_element()? {
                    v.push(b);
                }
                Ok(v)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// A `&'static str` of a restored fault (a mnemonic or format name). Each distinct string
/// is leaked once per process: faults are few and their names come from a fixed set.
fn intern(s: String) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.iter().find(|n| **n == s) {
        return n;
    }
    let n: &'static str = Box::leak(s.into_boxed_str());
    names.push(n);
    n
}

/// [`FaultReason`] with owned strings.
#[derive(Serialize, Deserialize)]
enum ReasonImage {
    Illegal(DecodeImage),
    Unimplemented(String),
    UnsupportedForm(String),
    GraphicsOnly(String),
    PcOutOfCode(u64),
    Memory(u32, MemFault),
    Scratch(u32, u64, u64),
    Trap(u32),
    Budget(u64),
    Deadlock,
    IllegalInstruction(String),
    Service(crate::service::ServiceError),
}

/// [`DecodeError`] with owned strings (word, offset, then the variant's fields).
#[derive(Serialize, Deserialize)]
enum DecodeImage {
    Truncated(u32, usize, usize),
    InvalidOpcode(u32, usize, String, u32),
    InvalidField(u32, usize, String),
    Unsupported(u32, usize, String),
}

/// [`Fault`] with owned strings.
#[derive(Serialize, Deserialize)]
struct FaultImage {
    kernel: String,
    workgroup: [u32; 3],
    wave: u32,
    pc: u64,
    instruction: String,
    reason: ReasonImage,
}

impl Serialize for Fault {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let reason = match &self.reason {
            FaultReason::Illegal(d) => ReasonImage::Illegal(match *d {
                DecodeError::Truncated { word, offset, need } => {
                    DecodeImage::Truncated(word, offset, need)
                }
                DecodeError::InvalidOpcode {
                    word,
                    offset,
                    format,
                    opcode,
                } => DecodeImage::InvalidOpcode(word, offset, format.into(), opcode),
                DecodeError::InvalidField {
                    word,
                    offset,
                    field,
                } => DecodeImage::InvalidField(word, offset, field.into()),
                DecodeError::Unsupported { word, offset, what } => {
                    DecodeImage::Unsupported(word, offset, what.into())
                }
            }),
            FaultReason::Unimplemented(m) => ReasonImage::Unimplemented((*m).into()),
            FaultReason::UnsupportedForm(m) => ReasonImage::UnsupportedForm((*m).into()),
            FaultReason::GraphicsOnly(m) => ReasonImage::GraphicsOnly((*m).into()),
            FaultReason::PcOutOfCode { pc } => ReasonImage::PcOutOfCode(*pc),
            FaultReason::Memory { lane, fault } => ReasonImage::Memory(*lane, *fault),
            FaultReason::Scratch { lane, offset, size } => {
                ReasonImage::Scratch(*lane, *offset, *size)
            }
            FaultReason::Trap(t) => ReasonImage::Trap(*t),
            FaultReason::Budget(b) => ReasonImage::Budget(*b),
            FaultReason::Deadlock => ReasonImage::Deadlock,
            FaultReason::IllegalInstruction(m) => ReasonImage::IllegalInstruction((*m).into()),
            FaultReason::Service(e) => ReasonImage::Service(e.clone()),
        };
        FaultImage {
            kernel: self.kernel.clone(),
            workgroup: self.workgroup,
            wave: self.wave,
            pc: self.pc,
            instruction: self.instruction.clone(),
            reason,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Fault {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Fault, D::Error> {
        let f = FaultImage::deserialize(d)?;
        let reason = match f.reason {
            ReasonImage::Illegal(d) => FaultReason::Illegal(match d {
                DecodeImage::Truncated(word, offset, need) => {
                    DecodeError::Truncated { word, offset, need }
                }
                DecodeImage::InvalidOpcode(word, offset, format, opcode) => {
                    DecodeError::InvalidOpcode {
                        word,
                        offset,
                        format: intern(format),
                        opcode,
                    }
                }
                DecodeImage::InvalidField(word, offset, field) => DecodeError::InvalidField {
                    word,
                    offset,
                    field: intern(field),
                },
                DecodeImage::Unsupported(word, offset, what) => DecodeError::Unsupported {
                    word,
                    offset,
                    what: intern(what),
                },
            }),
            ReasonImage::Unimplemented(m) => FaultReason::Unimplemented(intern(m)),
            ReasonImage::UnsupportedForm(m) => FaultReason::UnsupportedForm(intern(m)),
            ReasonImage::GraphicsOnly(m) => FaultReason::GraphicsOnly(intern(m)),
            ReasonImage::PcOutOfCode(pc) => FaultReason::PcOutOfCode { pc },
            ReasonImage::Memory(lane, fault) => FaultReason::Memory { lane, fault },
            ReasonImage::Scratch(lane, offset, size) => FaultReason::Scratch { lane, offset, size },
            ReasonImage::Trap(t) => FaultReason::Trap(t),
            ReasonImage::Budget(b) => FaultReason::Budget(b),
            ReasonImage::Deadlock => FaultReason::Deadlock,
            ReasonImage::IllegalInstruction(m) => FaultReason::IllegalInstruction(intern(m)),
            ReasonImage::Service(e) => FaultReason::Service(e),
        };
        Ok(Fault {
            kernel: f.kernel,
            workgroup: f.workgroup,
            wave: f.wave,
            pc: f.pc,
            instruction: f.instruction,
            reason,
        })
    }
}

/// A wave's architectural state. VGPR rows that hold only zeros (most of the 528 rows of
/// a typical kernel) are left out.
#[derive(Serialize, Deserialize)]
struct WaveImage {
    s: Vec<u32>,
    /// Non-zero VGPR/AGPR rows: row index and the row's lanes, little-endian.
    v: Vec<(u16, Row)>,
    scc: bool,
    pc: u64,
    mode: u32,
    status: u32,
    trapsts: u32,
    counters: (u32, u32),
    wave_size: u32,
    state: u8,
    info: ([u32; 3], u32),
    scratch_base: u64,
    scratch_per_lane: u64,
    retired: u64,
    classes: Vec<u64>,
}

/// One VGPR row (64 lanes) as bytes.
#[derive(Serialize, Deserialize)]
struct Row(#[serde(with = "blob")] Vec<u8>);

impl Serialize for Wave {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, so a field added to `Wave` fails to compile here rather
        // than being silently left out of checkpoints.
        let Wave {
            s: sgprs,
            v,
            scc,
            pc,
            mode,
            status,
            trapsts,
            counters,
            wave_size,
            state,
            info,
            scratch_base,
            scratch_per_lane,
            retired,
            classes,
        } = self;
        let WaveInfo {
            workgroup,
            wave_in_group,
        } = *info;
        let rows = v
            .iter()
            .enumerate()
            .filter(|(_, r)| r.iter().any(|&x| x != 0))
            .map(|(i, r)| {
                (
                    i as u16,
                    Row(r.iter().flat_map(|x| x.to_le_bytes()).collect()),
                )
            })
            .collect();
        WaveImage {
            s: sgprs.to_vec(),
            v: rows,
            scc: *scc,
            pc: *pc,
            mode: *mode,
            status: *status,
            trapsts: *trapsts,
            counters: (counters.vm, counters.lgkm),
            wave_size: *wave_size,
            state: match state {
                WaveState::Ready => 0,
                WaveState::Barrier => 1,
                WaveState::Ended => 2,
                WaveState::SyncWait => 3,
            },
            info: (workgroup, wave_in_group),
            scratch_base: *scratch_base,
            scratch_per_lane: *scratch_per_lane,
            retired: *retired,
            classes: classes.to_vec(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Wave {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Wave, D::Error> {
        use serde::de::Error;
        let img = WaveImage::deserialize(d)?;
        let mut w = Wave::new(img.wave_size, img.pc);
        if img.s.len() != w.s.len() || img.classes.len() != w.classes.len() {
            return Err(D::Error::custom(format!(
                "wave with {} sgprs and {} instruction classes (expected {} and {})",
                img.s.len(),
                img.classes.len(),
                w.s.len(),
                w.classes.len()
            )));
        }
        w.s.copy_from_slice(&img.s);
        w.classes.copy_from_slice(&img.classes);
        for (i, Row(bytes)) in img.v {
            let row = w.v.get_mut(usize::from(i));
            let Some(row) = row.filter(|_| bytes.len() == 4 * LANES) else {
                return Err(D::Error::custom(format!(
                    "vgpr row {i} of {} bytes is not a register of this wave",
                    bytes.len()
                )));
            };
            for (x, b) in row.iter_mut().zip(bytes.chunks_exact(4)) {
                *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        w.scc = img.scc;
        w.mode = img.mode;
        w.status = img.status;
        w.trapsts = img.trapsts;
        (w.counters.vm, w.counters.lgkm) = img.counters;
        w.state = match img.state {
            0 => WaveState::Ready,
            1 => WaveState::Barrier,
            2 => WaveState::Ended,
            3 => WaveState::SyncWait,
            n => return Err(D::Error::custom(format!("wave state {n}"))),
        };
        w.info = WaveInfo {
            workgroup: img.info.0,
            wave_in_group: img.info.1,
        };
        w.scratch_base = img.scratch_base;
        w.scratch_per_lane = img.scratch_per_lane;
        w.retired = img.retired;
        Ok(w)
    }
}
