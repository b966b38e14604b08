//! RON scenarios: a GPU (a preset plus overrides) and a workload (buffers, kernel launches,
//! outputs to write or check), loaded and checked before anything runs.
//!
//! ```ron
//! (
//!     gpu: "mi300x",
//!     overrides: {"xcds": 2, "xcd.active_cus": 8},
//!     threads: 2,
//!     buffers: [
//!         (name: "a", elem: F32, len: 1000, init: Random(seed: 1, lo: -1.0, hi: 1.0)),
//!         (name: "c", elem: F32, len: 1000),
//!     ],
//!     launches: [(
//!         code_object: "../../corpus/build/gfx942/vadd.hsaco",
//!         kernel: "vadd",
//!         grid: (1000, 1, 1),
//!         workgroup: (256, 1, 1),
//!         args: [Buffer("a"), Buffer("a"), Buffer("c"), U32(1000)],
//!     )],
//!     outputs: [(buffer: "c", write: Some("c.bin"), check: Some(Sum(value: 12.5, rel: 1e-6)))],
//! )
//! ```
//!
//! [`Scenario::parse`] reads the text (errors carry file:line:column and the field path),
//! [`Scenario::resolve`] turns it into a [`Workload`]: the GPU config with overrides applied
//! and validated, every buffer's initial bytes, every code object parsed and every launch
//! checked against its kernel's metadata.

mod check;
mod error;
mod init;
mod run;

pub use check::{checksum, compare, CheckOutcome};
pub use error::ScenarioError;
pub use init::ElemType;
pub use run::{Modules, RunError, RunOptions, RunOutcome};

use gpu_model::config::{GpuConfig, Overrides};
use gpu_model::loader::CodeObject;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A scenario as written in its RON file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name of the GPU preset (`mi300x`, `mi355x`, `mi250x`, `mi210`, `rx9070xt`, `rx9060xt`).
    pub gpu: String,
    /// Config fields to change, by dotted path (see [`GpuConfig::with_overrides`]).
    #[serde(default)]
    pub overrides: Overrides,
    /// Worker threads (partitions); the command line's `--threads` wins. Default 1.
    #[serde(default)]
    pub threads: Option<usize>,
    /// How components are spread over the threads. Default [`Partition::PerXcd`].
    #[serde(default)]
    pub partition: Partition,
    /// `Functional` (default) or `Clocked` (cycle-level timing; the preset needs a
    /// `timing` section). Same as the override `"exec_mode"`.
    #[serde(default)]
    pub exec_mode: Option<gpu_model::config::ExecMode>,
    /// Device buffers, allocated and initialized before the first launch.
    #[serde(default)]
    pub buffers: Vec<BufferSpec>,
    /// Kernel launches, run one after another in this order.
    #[serde(default)]
    pub launches: Vec<LaunchSpec>,
    /// What to do with buffers after the last launch.
    #[serde(default)]
    pub outputs: Vec<OutputSpec>,
}

/// How the SoC's components are assigned to worker threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Partition {
    /// Each XCD (with its CP, caches and CUs) is a unit; units are dealt to the threads
    /// round-robin; IODs and the driver go with thread 0.
    #[default]
    PerXcd,
    /// simkit's automatic partitioner (balances component count, cuts few links).
    Auto,
}

/// One device buffer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Name that launches and outputs refer to.
    pub name: String,
    /// Element type.
    pub elem: ElemType,
    /// Size in elements.
    pub len: u64,
    /// Initial contents (default zeros).
    #[serde(default)]
    pub init: Init,
}

/// Initial contents of a buffer. The random generators are the corpus's (see
/// `corpus/README.md`, "Init generators"), so its Python reference reproduces them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Init {
    /// All zero.
    #[default]
    Zeros,
    /// Element i = i (converted to the element type, wrapping for narrow integers).
    Iota,
    /// Every element the same value (converted to the element type).
    Fill(f64),
    /// Seeded uniform values in `lo..=hi` (integers: inclusive; floats: `lo + (hi-lo)*u`).
    Random {
        /// Seed.
        seed: u32,
        /// Lower bound.
        lo: f64,
        /// Upper bound.
        hi: f64,
    },
    /// Seeded raw bits.
    Bits {
        /// Seed.
        seed: u32,
    },
    /// Raw little-endian elements read from a file (relative to the scenario file); its
    /// size must be exactly `len` elements.
    File(String),
}

/// One kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// Code object path, relative to the scenario file: an AMDGPU ELF, or an offload
    /// bundle or HIP host binary (the entry for the gpu's target id is used).
    pub code_object: String,
    /// Kernel name (the `.kd` symbol without the suffix).
    pub kernel: String,
    /// Grid size in work-items per dimension (AQL semantics: need not be a multiple of the
    /// workgroup; the last workgroup of a dimension is then partial).
    pub grid: [u32; 3],
    /// Workgroup size in work-items per dimension.
    pub workgroup: [u32; 3],
    /// Bytes of dynamic LDS (HIP `extern __shared__`), after the kernel's static LDS and
    /// the LDS of its `__local` pointer arguments ([`Arg::Lds`]).
    #[serde(default)]
    pub dynamic_lds: u32,
    /// Explicit kernel arguments, in order.
    #[serde(default)]
    pub args: Vec<Arg>,
    /// Hint for the buffer-size check: the kernel touches this many elements per work-item
    /// of every buffer argument without a bounds check, so each buffer must hold at least
    /// `grid items x elements_per_item` elements. Unset: no check (kernels usually guard
    /// with `if (i < n)`, which no static check can see).
    #[serde(default)]
    pub elements_per_item: Option<u64>,
    /// Run a code object compiled for another processor (the guest, e.g. gfx950) on this
    /// GPU (the host, e.g. gfx942 on `mi300x`) through the `dbt` binary translator:
    /// `translate: Some(host: "gfx942")`. The host must be the GPU's processor; a code
    /// object already for the host runs as it is. The report says which kernels ran
    /// translated and their code growth.
    #[serde(default)]
    pub translate: Translate,
}

/// A launch's binary translation (see [`LaunchSpec::translate`]), written the way an
/// `Option` is: `None` (the default) or `Some(host: "gfx942")`. (An enum rather than an
/// `Option` of a struct: RON would want `Some((host: ...))`, and its extension that drops
/// the inner parentheses changes how every other `Some(...)` of a scenario parses.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Translate {
    /// Run the code object as it is.
    #[default]
    None,
    /// Translate the code object for `host`.
    Some {
        /// The host processor (`gfx942`): the GPU's.
        host: String,
    },
}

/// What translation did for a launch's code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    /// The guest processor the code object was compiled for.
    pub guest: gpu_model::Target,
    /// The host processor it ran on.
    pub host: gpu_model::Target,
    /// Bytes of the kernel's reachable guest code and of its host code.
    pub code_bytes: (usize, usize),
    /// Guest instructions that needed a semantic rule.
    pub expanded: usize,
}

/// A kernel argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Arg {
    /// The device address of a named buffer.
    Buffer(String),
    /// A `u8` by value.
    U8(u8),
    /// An `i8` by value.
    I8(i8),
    /// A `u16` by value.
    U16(u16),
    /// An `i16` by value.
    I16(i16),
    /// A `u32` by value.
    U32(u32),
    /// An `i32` by value.
    I32(i32),
    /// A `u64` by value. `U64(0)` is also accepted for a pointer (`global_buffer`)
    /// argument: a null pointer (Triton's unused scratch pointers).
    U64(u64),
    /// An `i64` by value.
    I64(i64),
    /// An `f16` by value (written as f32, rounded to nearest even).
    F16(f32),
    /// An `f32` by value.
    F32(f32),
    /// An `f64` by value.
    F64(f64),
    /// An OpenCL `__local` pointer argument (`dynamic_shared_pointer`) of this many LDS
    /// bytes, as `clSetKernelArg(k, i, bytes, NULL)` sets it. The launch places it after
    /// the kernel's static LDS and the `__local` arguments before it, aligned to the
    /// argument's `.pointee_align`, and passes the kernel its LDS offset.
    Lds(u32),
    /// A by-value argument of any size as raw little-endian bytes, for structs passed by
    /// value (`Bytes([1, 0, 0, 0, 0, 0, 128, 63])`); the length must be the metadata's.
    Bytes(Vec<u8>),
}

impl Arg {
    /// Size in bytes of a by-value argument (`None` for a buffer or an LDS size).
    pub fn scalar_size(&self) -> Option<u32> {
        Some(match self {
            Arg::Buffer(_) | Arg::Lds(_) => return None,
            Arg::Bytes(b) => u32::try_from(b.len()).unwrap_or(u32::MAX),
            Arg::U8(_) | Arg::I8(_) => 1,
            Arg::U16(_) | Arg::I16(_) | Arg::F16(_) => 2,
            Arg::U32(_) | Arg::I32(_) | Arg::F32(_) => 4,
            Arg::U64(_) | Arg::I64(_) | Arg::F64(_) => 8,
        })
    }

    /// Little-endian bytes of a by-value argument (empty for a buffer or an LDS size).
    pub fn scalar_bytes(&self) -> Vec<u8> {
        match *self {
            Arg::Buffer(_) | Arg::Lds(_) => Vec::new(),
            Arg::Bytes(ref b) => b.clone(),
            Arg::U8(v) => v.to_le_bytes().to_vec(),
            Arg::I8(v) => v.to_le_bytes().to_vec(),
            Arg::U16(v) => v.to_le_bytes().to_vec(),
            Arg::I16(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) => v.to_le_bytes().to_vec(),
            Arg::I64(v) => v.to_le_bytes().to_vec(),
            Arg::F16(v) => half::f16::from_f32(v).to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// How the argument reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Arg::Buffer(b) => format!("buffer `{b}`"),
            Arg::Lds(n) => format!("{n} bytes of LDS"),
            Arg::Bytes(b) => format!("{} raw bytes", b.len()),
            other => format!("a {}-byte scalar", other.scalar_size().unwrap_or(0)),
        }
    }
}

/// What to do with one buffer after the last launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// The buffer.
    pub buffer: String,
    /// Write its raw little-endian contents to this file (relative to the scenario file,
    /// or to the current directory for the embedded default scenario).
    #[serde(default)]
    pub write: Option<String>,
    /// Compare its contents.
    #[serde(default)]
    pub check: Option<Check>,
}

/// An expected buffer content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Check {
    /// FNV-1a 64 of the raw little-endian bytes, written as hex (`"0x..."`): exact.
    Fnv1a(String),
    /// Sum of all elements (as f64) within `rel * |value|` (plus `abs`, default 0).
    Sum {
        /// Expected sum.
        value: f64,
        /// Relative tolerance.
        rel: f64,
        /// Absolute tolerance.
        #[serde(default)]
        abs: f64,
    },
    /// Element-wise against a file of raw little-endian elements of the buffer's type.
    File {
        /// Path, relative to the scenario file.
        path: String,
        /// Per-element tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// [`Check::File`] with the file's bytes built in (what resolving makes of a
    /// `File` check of an embedded scenario); never written in a scenario.
    #[serde(skip)]
    Expected {
        /// The path the scenario named (for messages).
        path: String,
        /// The expected elements.
        bytes: Arc<[u8]>,
        /// Per-element tolerance.
        tolerance: Tolerance,
    },
}

/// Per-element tolerance of a [`Check::File`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Tolerance {
    /// Bit-exact.
    #[default]
    Exact,
    /// `|got - want| <= abs + rel * |want|` (f16 elements widened first; integer types
    /// compared as f64).
    Float {
        /// Relative part.
        rel: f64,
        /// Absolute part.
        abs: f64,
    },
}

/// A loaded, checked scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Where the scenario came from (a path, or `<embedded default>`).
    pub origin: String,
    /// Folder relative paths are resolved against.
    pub base_dir: PathBuf,
    /// The GPU, with overrides applied and validated.
    pub config: GpuConfig,
    /// Threads asked for by the scenario (default 1).
    pub threads: usize,
    /// Partitioning asked for.
    pub partition: Partition,
    /// Buffers with their initial bytes.
    pub buffers: Vec<Buffer>,
    /// Launches with resolved code objects and arguments.
    pub launches: Vec<Launch>,
    /// Outputs with their buffer index.
    pub outputs: Vec<Output>,
}

/// A buffer with its initial contents.
#[derive(Debug, Clone)]
pub struct Buffer {
    /// Its name.
    pub name: String,
    /// Element type.
    pub elem: ElemType,
    /// Elements.
    pub len: u64,
    /// Initial bytes (`len * elem.size()`), or none for a buffer that starts as zeros:
    /// nothing is held on the host for it, and device memory reads as zeros until written.
    pub bytes: Vec<u8>,
}

impl Buffer {
    /// Its size in bytes (`len * elem.size()`; resolving checked that it fits in a u64).
    pub fn size(&self) -> u64 {
        self.len.saturating_mul(self.elem.size() as u64)
    }
}

/// A kernel argument with buffer names resolved to indices into [`Workload::buffers`].
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// Device address of buffer `i`.
    Buffer(usize),
    /// By-value bytes (for a `dynamic_shared_pointer` argument: its LDS byte count, as a
    /// little-endian integer of the argument's size).
    Bytes(Vec<u8>),
}

/// A checked launch.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Code object path as resolved.
    pub code_object_path: PathBuf,
    /// The offload-bundle entry the code object came from, as `ID (bundle N)` (`None` for a
    /// bare code object).
    pub code_object_entry: Option<String>,
    /// The parsed code object (shared by launches of the same file).
    pub code_object: Arc<CodeObject>,
    /// Raw bytes of the code object.
    pub code_object_bytes: Arc<Vec<u8>>,
    /// Kernel name.
    pub kernel: String,
    /// Grid in work-items.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u32; 3],
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
    /// Arguments in order.
    pub args: Vec<ArgValue>,
    /// Set when the code object ran translated from another processor.
    pub translated: Option<Translated>,
}

/// A checked output.
#[derive(Debug, Clone)]
pub struct Output {
    /// Index into [`Workload::buffers`].
    pub buffer: usize,
    /// Resolved file to write.
    pub write: Option<PathBuf>,
    /// Check to run (file paths resolved).
    pub check: Option<Check>,
}

/// Options of every scenario parse: `Option` fields may be written without `Some(...)`.
fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

impl Scenario {
    /// Parses scenario text. `origin` (a file path) prefixes error positions.
    pub fn parse(src: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let opts = ron_options();
        let mut de = ron::Deserializer::from_str_with_options(src, &opts)
            .map_err(|e| ScenarioError::ron(origin, &e, String::new()))?;
        let mut track = serde_path_to_error::Track::new();
        let parsed = {
            let pd = serde_path_to_error::Deserializer::new(&mut de, &mut track);
            Scenario::deserialize(pd)
        };
        match parsed {
            Ok(s) => {
                de.end()
                    .map_err(|e| ScenarioError::ron(origin, &de.span_error(e), String::new()))?;
                Ok(s)
            }
            Err(e) => {
                let path = track.path().to_string();
                let spanned = de.span_error(e);
                Err(ScenarioError::ron(origin, &spanned, path))
            }
        }
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let src = std::fs::read_to_string(path).map_err(|e| ScenarioError::io(path, e))?;
        Scenario::parse(&src, &path.display().to_string())
    }

    /// Applies the overrides, initializes buffers, parses code objects and checks every
    /// launch against its kernel's metadata. Relative paths resolve against `base_dir`.
    pub fn resolve(&self, origin: &str, base_dir: &Path) -> Result<Workload, ScenarioError> {
        check::resolve(self, origin, base_dir, &[])
    }

    /// [`Scenario::resolve`], taking code objects and expected-output files from
    /// `embedded` (by the path exactly as the scenario writes it) before looking in
    /// `base_dir`: for scenarios built into a binary with their files, which must not
    /// depend on where the binary was built or is run.
    pub fn resolve_embedded(
        &self,
        origin: &str,
        base_dir: &Path,
        embedded: &[(&str, &[u8])],
    ) -> Result<Workload, ScenarioError> {
        check::resolve(self, origin, base_dir, embedded)
    }
}
