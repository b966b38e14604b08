//! Errors in a scenario: each says which file, field, launch, argument or buffer is wrong.

use gpu_model::config::ConfigError;
use gpu_model::loader::LoadError;
use std::path::Path;

/// Why a scenario cannot be run. All are fatal for that scenario: fix the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The RON text does not parse or does not fit the schema.
    #[error("{origin}:{line}:{column}: {message}{}", at_path(path))]
    Ron {
        /// The file.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Dotted field path where it went wrong (empty when unknown).
        path: String,
        /// What the parser said.
        message: String,
    },
    /// The GPU preset or an override is wrong.
    #[error("gpu config: {0}")]
    Config(#[from] ConfigError),
    /// Two buffers share a name.
    #[error("buffer `{name}` is declared twice")]
    DuplicateBuffer {
        /// The name.
        name: String,
    },
    /// A buffer of zero elements.
    #[error("buffer `{name}` has zero elements")]
    EmptyBuffer {
        /// The name.
        name: String,
    },
    /// The buffers do not fit in the GPU's device memory.
    #[error("buffer `{name}`: the buffers up to it take {total} bytes, more than the {capacity} bytes of device memory of the `{gpu}`")]
    OutOfDeviceMemory {
        /// The first buffer that does not fit.
        name: String,
        /// Bytes of the buffers up to and including it (each in whole 64 KiB pages).
        total: u64,
        /// The GPU's memory size (`dram.capacity_bytes`).
        capacity: u64,
        /// The GPU.
        gpu: String,
    },
    /// A buffer whose initializer is wrong (range, file size).
    #[error("buffer `{name}`: {message}")]
    BadInit {
        /// The buffer.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A launch argument names a buffer that does not exist.
    #[error("launch {launch} (`{kernel}`), argument {arg}: no buffer named `{name}` (buffers: {available})")]
    UnknownBuffer {
        /// Launch index (0-based).
        launch: usize,
        /// Kernel name.
        kernel: String,
        /// Argument index (0-based).
        arg: usize,
        /// The name used.
        name: String,
        /// The buffers that exist.
        available: String,
    },
    /// A launch's arguments or LDS do not fit its kernel (checked the way the dispatch
    /// builds the kernarg segment): static plus dynamic LDS over the GPU's per-workgroup
    /// LDS, or an argument of the wrong size.
    #[error("launch {launch} (`{kernel}`): {source}")]
    Kernarg {
        /// Launch index (0-based).
        launch: usize,
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        #[source]
        source: gpu_model::dispatch::kernarg::KernargError,
    },
    /// An output names a buffer that does not exist.
    #[error("output {output}: no buffer named `{name}` (buffers: {available})")]
    UnknownOutputBuffer {
        /// Output index (0-based).
        output: usize,
        /// The name used.
        name: String,
        /// The buffers that exist.
        available: String,
    },
    /// A code object did not load.
    #[error("launch {launch}: code object {path}: {source}")]
    CodeObject {
        /// Launch index.
        launch: usize,
        /// The file.
        path: String,
        /// Why.
        source: LoadError,
    },
    /// The code object is for another GPU than the scenario's.
    #[error(
        "launch {launch}: code object {path} is for {found}, but the gpu `{gpu}` is {expected}"
    )]
    WrongTarget {
        /// Launch index.
        launch: usize,
        /// The file.
        path: String,
        /// The code object's target.
        found: String,
        /// The GPU's name.
        gpu: String,
        /// The GPU's target.
        expected: String,
    },
    /// A launch asked for translation and the code object does not translate.
    #[error("launch {launch}: code object {path} does not translate to {host}: {why}")]
    Translate {
        /// Launch index.
        launch: usize,
        /// The file.
        path: String,
        /// The requested host.
        host: String,
        /// The translator's diagnostics (or why translation cannot be asked for).
        why: String,
    },
    /// The kernel is not in the code object.
    #[error("launch {launch}: no kernel `{kernel}` in {path} (kernels: {available})")]
    UnknownKernel {
        /// Launch index.
        launch: usize,
        /// The name asked for.
        kernel: String,
        /// The code object.
        path: String,
        /// Kernels present.
        available: String,
    },
    /// The kernel has no metadata, so its arguments cannot be checked or laid out.
    #[error("launch {launch}: kernel `{kernel}` has no metadata (argument layout unknown)")]
    NoMetadata {
        /// Launch index.
        launch: usize,
        /// The kernel.
        kernel: String,
    },
    /// Wrong number of explicit arguments.
    #[error("launch {launch}: kernel `{kernel}` takes {expected} arguments ({names}), got {got}")]
    ArgCount {
        /// Launch index.
        launch: usize,
        /// The kernel.
        kernel: String,
        /// Explicit arguments in the metadata.
        expected: usize,
        /// Their names.
        names: String,
        /// Arguments given.
        got: usize,
    },
    /// An argument does not fit the metadata.
    #[error("launch {launch}: argument {arg} `{name}` of kernel `{kernel}` expects {expected}, got {got}")]
    ArgMismatch {
        /// Launch index.
        launch: usize,
        /// Argument index.
        arg: usize,
        /// The argument's name in the metadata (`?` when unnamed).
        name: String,
        /// The kernel.
        kernel: String,
        /// What the metadata says.
        expected: String,
        /// What the scenario gives.
        got: String,
    },
    /// A buffer argument is smaller than the grid needs (per `elements_per_item`).
    #[error("launch {launch} (`{kernel}`): buffer `{buffer}` (argument {arg}) has {len} elements but the grid of {items} work-items x {per_item} per item needs {needed}")]
    BufferTooSmall {
        /// Launch index.
        launch: usize,
        /// The kernel.
        kernel: String,
        /// Argument index.
        arg: usize,
        /// The buffer.
        buffer: String,
        /// Its elements.
        len: u64,
        /// Work-items in the grid.
        items: u64,
        /// The launch's hint.
        per_item: u64,
        /// Elements needed.
        needed: u64,
    },
    /// Grid or workgroup sizes that cannot be dispatched.
    #[error("launch {launch} (`{kernel}`): {message}")]
    BadGeometry {
        /// Launch index.
        launch: usize,
        /// The kernel.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// Something the scenario asks for that is not supported.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

fn at_path(path: &str) -> String {
    if path.is_empty() || path == "." {
        String::new()
    } else {
        format!(" (at `{path}`)")
    }
}

impl ScenarioError {
    pub(crate) fn ron(origin: &str, e: &ron::error::SpannedError, path: String) -> ScenarioError {
        ScenarioError::Ron {
            origin: origin.to_string(),
            line: e.span.start.line,
            column: e.span.start.col,
            path,
            message: e.code.to_string(),
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> ScenarioError {
        ScenarioError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
