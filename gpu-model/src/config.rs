//! Hardware description of a GPU: immutable specs deserialized from RON, with presets.
//!
//! A [`GpuConfig`] describes one GPU: `iods` I/O dies (each with a memory-side cache and
//! DRAM controllers) and `xcds` accelerator dies (each with an L2 and shader engines of
//! compute units). Every XCD is identical ([`XcdSpec`]), every CU is identical ([`CuSpec`]).
//!
//! Presets live as RON files in `scenarios/presets/` and are embedded in the binary, so
//! `GpuConfig::preset("mi300x")` works from any directory. Overrides
//! ([`GpuConfig::apply_overrides`]) change any field by its dotted path, and
//! [`GpuConfig::validate`] checks the result before a model is built from it.
//!
//! ```
//! use gpu_model::config::GpuConfig;
//! let mi300x = GpuConfig::preset("mi300x").unwrap();
//! assert_eq!(mi300x.total_cus(), 304);
//! let bigger = mi300x.with_overrides_ron(r#"{"xcd.l2.size_bytes": 8388608}"#).unwrap();
//! assert_eq!(bigger.xcd.l2.size_bytes, 8 << 20);
//! ```

mod overrides;
pub use overrides::Overrides;
mod presets;
mod timing;
mod validate;
pub use timing::{ExecMode, TimingSpec};

use serde::{Deserialize, Serialize};

use crate::target::Target;

pub use presets::PRESET_NAMES;

/// The default number of instructions a CU executes per quantum in functional mode.
pub const DEFAULT_QUANTUM: u32 = 1024;

/// A whole GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Marketing name, e.g. "AMD Instinct MI300X".
    pub name: String,
    /// ISA target the CUs execute.
    pub target: Target,
    /// Clock frequencies.
    pub clocks: ClockSpec,
    /// Number of I/O dies (memory-side cache + DRAM controllers); at least 1.
    pub iods: u32,
    /// Number of accelerator (compute) dies; at least 1.
    pub xcds: u32,
    /// What each XCD contains.
    pub xcd: XcdSpec,
    /// What each IOD contains.
    pub iod: IodSpec,
    /// Device memory (HBM or GDDR), for the whole GPU.
    pub dram: DramSpec,
    /// Wave sizes the CUs can run (32 and/or 64).
    pub wave_sizes: Vec<u32>,
    /// Largest workgroup (work-items) a dispatch may request.
    #[serde(default = "default_max_workgroup_size")]
    pub max_workgroup_size: u32,
    /// Instructions a CU executes per quantum in functional mode.
    #[serde(default = "default_quantum")]
    pub quantum: u32,
    /// Instruction budget of one wave: a wave that executes more faults with
    /// `FaultReason::Budget` and stops its dispatch (so a kernel that never ends is a
    /// report, not a hang). Per wave rather than per dispatch so the fault point does not
    /// depend on how waves interleave across threads.
    #[serde(default = "default_max_wave_instructions")]
    pub max_wave_instructions: u64,
    /// Shader cycles between memory sync points: a CU's stores become visible to other CUs,
    /// and atomics are performed (their waves wait for it), at the next multiple of this
    /// (see `gpu_model::memory::coherence`). What makes runs on several host threads
    /// identical; it also stands for the latency of a device-scope atomic.
    #[serde(default = "default_sync_cycles")]
    pub sync_cycles: u32,
    /// Functional (default) or clocked execution.
    #[serde(default)]
    pub exec_mode: ExecMode,
    /// Timing of the clocked mode (required by [`ExecMode::Clocked`]).
    #[serde(default)]
    pub timing: Option<TimingSpec>,
}

/// The default memory sync interval in shader cycles.
pub const DEFAULT_SYNC_CYCLES: u32 = 100;

/// The default instruction budget of one wave (2^32, minutes of simulation).
pub const DEFAULT_MAX_WAVE_INSTRUCTIONS: u64 = 1 << 32;

/// Clock frequencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    /// Peak shader (engine) clock in MHz.
    pub shader_mhz: u32,
    /// Memory clock in MHz.
    pub memory_mhz: u32,
}

/// One accelerator die: command processor, L2, shader engines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XcdSpec {
    /// Shader engines per XCD.
    pub shader_engines: u32,
    /// Active CUs per XCD, spread over the shader engines (see [`XcdSpec::cus_in_se`]).
    pub active_cus: u32,
    /// What each CU contains.
    pub cu: CuSpec,
    /// The XCD's L2 cache (write-back).
    pub l2: CacheSpec,
}

/// One compute unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CuSpec {
    /// SIMD units per CU.
    pub simds: u32,
    /// Wave slots per SIMD (most waves a SIMD holds at once).
    pub wave_slots_per_simd: u32,
    /// Bytes of vector register file per SIMD (VGPRs and, on CDNA, AGPRs share it).
    pub vgpr_file_bytes: u32,
    /// VGPR allocation granule in bytes (a wave's VGPRs are allocated in these blocks;
    /// in registers it is `vgpr_granule_bytes / (4 * wave_size)`).
    pub vgpr_granule_bytes: u32,
    /// Most VGPRs (plus AGPRs on CDNA) one wave may allocate.
    pub max_vgprs_per_wave: u32,
    /// SGPRs per SIMD shared by its waves, or `None` where every wave slot has its own
    /// fixed SGPR set (RDNA), so SGPRs never limit occupancy.
    #[serde(default)]
    pub sgprs_per_simd: Option<u32>,
    /// SGPR allocation granule in registers.
    pub sgpr_granule: u32,
    /// Most SGPRs one wave may allocate (including VCC, FLAT_SCRATCH, XNACK_MASK).
    pub max_sgprs_per_wave: u32,
    /// Local data share bytes per CU.
    pub lds_bytes: u32,
    /// LDS allocation granule in bytes.
    pub lds_granule_bytes: u32,
    /// Most workgroups of more than one wave resident at once (barrier resources).
    pub max_barrier_workgroups: u32,
    /// Scalar L1 cache (K$), read-only.
    pub scalar_cache: CacheSpec,
    /// Vector L1 cache (V$), write-through.
    pub vector_cache: CacheSpec,
}

/// Geometry and timing of one cache instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSpec {
    /// Capacity in bytes.
    pub size_bytes: u64,
    /// Line size in bytes (a power of two).
    pub line_bytes: u32,
    /// Associativity.
    pub ways: u32,
    /// Hit latency in shader clock cycles.
    pub latency_cycles: u32,
    /// Whether stores are kept (write-back) or passed on (write-through).
    #[serde(default)]
    pub write_policy: WritePolicy,
    /// How many CUs share one instance (the CDNA3 scalar cache is shared by 2 CUs).
    #[serde(default = "one")]
    pub shared_by: u32,
}

/// What a cache does with stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum WritePolicy {
    /// Stores update a present line and always go on to the next level (L1).
    #[default]
    WriteThrough,
    /// Stores allocate and dirty the line; dirty lines go on when evicted (L2).
    WriteBack,
}

/// One I/O die.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IodSpec {
    /// Memory-side cache (Infinity Cache / MALL) slice on this IOD, if the GPU has one.
    #[serde(default)]
    pub mall: Option<CacheSpec>,
}

/// Device memory technology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DramKind {
    /// HBM2e.
    Hbm2e,
    /// HBM3.
    Hbm3,
    /// HBM3E.
    Hbm3e,
    /// GDDR6.
    Gddr6,
}

/// Device memory for the whole GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramSpec {
    /// Memory technology.
    pub kind: DramKind,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// HBM stacks (0 for GDDR).
    pub stacks: u32,
    /// Independent memory channels.
    pub channels: u32,
    /// Peak bandwidth in GB/s (10^9 bytes per second).
    pub bandwidth_gbytes_per_s: u32,
    /// Load-to-use latency of a DRAM access in shader clock cycles.
    pub latency_cycles: u32,
}

fn default_quantum() -> u32 {
    DEFAULT_QUANTUM
}

fn default_sync_cycles() -> u32 {
    DEFAULT_SYNC_CYCLES
}

fn default_max_wave_instructions() -> u64 {
    DEFAULT_MAX_WAVE_INSTRUCTIONS
}

fn default_max_workgroup_size() -> u32 {
    1024
}

fn one() -> u32 {
    1
}

impl XcdSpec {
    /// CUs in shader engine `se`: the active CUs spread as evenly as possible, the first
    /// shader engines taking one extra each when the count does not divide (which SEs
    /// have a CU fused off is not published; this only affects naming, not totals).
    pub fn cus_in_se(&self, se: u32) -> u32 {
        if self.shader_engines == 0 || se >= self.shader_engines {
            return 0;
        }
        let base = self.active_cus / self.shader_engines;
        let extra = self.active_cus % self.shader_engines;
        base + u32::from(se < extra)
    }
}

impl CuSpec {
    /// VGPRs (per lane) in one SIMD's register file at `wave_size`.
    pub fn vgprs_per_simd(&self, wave_size: u32) -> u32 {
        self.vgpr_file_bytes / (4 * wave_size.max(1))
    }

    /// VGPR allocation granule in registers at `wave_size`.
    pub fn vgpr_granule(&self, wave_size: u32) -> u32 {
        (self.vgpr_granule_bytes / (4 * wave_size.max(1))).max(1)
    }
}

impl CacheSpec {
    /// Number of sets (`size / (line * ways)`); 0 if the geometry is degenerate.
    pub fn sets(&self) -> u64 {
        let per_set = u64::from(self.line_bytes) * u64::from(self.ways);
        self.size_bytes.checked_div(per_set).unwrap_or(0)
    }
}

impl GpuConfig {
    /// Total active CUs on the GPU.
    pub fn total_cus(&self) -> u32 {
        self.xcds * self.xcd.active_cus
    }

    /// Total L2 bytes over all XCDs.
    pub fn total_l2_bytes(&self) -> u64 {
        u64::from(self.xcds) * self.xcd.l2.size_bytes
    }

    /// Total memory-side cache bytes over all IODs (0 if there is none).
    pub fn total_mall_bytes(&self) -> u64 {
        self.iod
            .mall
            .as_ref()
            .map_or(0, |m| u64::from(self.iods) * m.size_bytes)
    }

    /// Whether the CUs can run waves of `wave_size` lanes.
    pub fn supports_wave_size(&self, wave_size: u32) -> bool {
        self.wave_sizes.contains(&wave_size)
    }

    /// Parses a whole config from RON text. `origin` names the source (a file path or
    /// `preset:<name>`) in errors, which carry line:column.
    pub fn from_ron(src: &str, origin: &str) -> Result<GpuConfig, ConfigError> {
        ron::Options::default()
            .from_str(src)
            .map_err(|e| ConfigError::ron(origin, &e))
    }

    /// Writes the config as pretty RON (the format of the preset files).
    pub fn to_ron(&self) -> Result<String, ConfigError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).map_err(|e| {
            ConfigError::Serialize {
                message: e.to_string(),
            }
        })
    }
}

/// Errors from loading, overriding or validating a [`GpuConfig`]. All are fatal for the
/// config at hand: the model cannot be built from it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No preset has this name.
    #[error("unknown gpu preset `{name}` (available: {available})")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// Comma-separated list of preset names.
        available: String,
    },
    /// RON text did not parse or did not match the schema.
    #[error("{origin}:{line}:{column}: {message}")]
    Ron {
        /// File path or `preset:<name>` / `override`.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// An override names a field that does not exist.
    #[error("override `{path}`: no such field{hint}")]
    UnknownField {
        /// Dotted field path.
        path: String,
        /// Extra hint (the fields that exist there).
        hint: String,
    },
    /// An override's value does not fit the field.
    #[error("override `{path}`: {message}")]
    BadOverride {
        /// Dotted field path.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// A field that must be non-zero is zero.
    #[error("config field `{field}` must not be zero")]
    Zero {
        /// Dotted field path.
        field: String,
    },
    /// A field that must be a power of two is not.
    #[error("config field `{field}` must be a power of two, got {value}")]
    NotPowerOfTwo {
        /// Dotted field path.
        field: String,
        /// The value found.
        value: u64,
    },
    /// A cache's size is not a whole number of sets.
    #[error("cache `{field}`: size {size} is not a multiple of line ({line}) x ways ({ways})")]
    CacheGeometry {
        /// Dotted path of the cache.
        field: String,
        /// `size_bytes`.
        size: u64,
        /// `line_bytes`.
        line: u32,
        /// `ways`.
        ways: u32,
    },
    /// A field's value is out of range or inconsistent with another.
    #[error("config field `{field}`: {message}")]
    Invalid {
        /// Dotted field path.
        field: String,
        /// What was wrong.
        message: String,
    },
    /// The config could not be written as RON.
    #[error("cannot serialize config: {message}")]
    Serialize {
        /// What the serializer said.
        message: String,
    },
}

impl ConfigError {
    fn ron(origin: &str, e: &ron::error::SpannedError) -> ConfigError {
        ConfigError::Ron {
            origin: origin.to_string(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        }
    }
}
