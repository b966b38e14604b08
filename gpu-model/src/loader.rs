//! AMDGPU code object loading: ELF, kernel descriptors and metadata.
//!
//! [`CodeObject::parse`] reads a code object (v4, v5 or v6, as produced by clang, hipcc,
//! Triton or `ld.lld`) from bytes, validates it and decodes everything the simulator needs:
//!
//! * the target and its xnack/sramecc modes (from `e_flags`),
//! * the loadable image (PT_LOAD segments, placed in device memory by
//!   [`crate::memory::DeviceMemory::load_code_object`]) and its dynamic relocations,
//! * the `.text` bytes and the symbol table (labels for the disassembler),
//! * every kernel: its 64-byte [`KernelDescriptor`], entry address and [`KernelMetadata`]
//!   from the `NT_AMDGPU_METADATA` note.
//!
//! ```no_run
//! use gpu_model::loader::CodeObject;
//! let bytes = std::fs::read("vadd.hsaco").unwrap();
//! let co = CodeObject::parse(&bytes).unwrap();
//! for k in co.kernels() {
//!     println!("{} at {:#x}, kernarg {} bytes", k.name, k.entry_address, k.descriptor.kernarg_size);
//! }
//! ```
//!
//! HIP host binaries and clang offload bundles (compressed or not) hold one code object per
//! target: [`bundle::extract`] picks the one for a target id before parsing.
//!
//! [`writer`] goes the other way: it rewrites a code object (new `.text`, descriptors,
//! `e_flags`, metadata) for the binary translator.
//!
//! Parsing never panics: every read is bounds-checked and every error names the file
//! offset, field or kernel that is wrong.

pub mod bundle;
mod descriptor;
mod elf;
mod metadata;
pub mod writer;

pub use bundle::{BundleError, TargetId};
pub use descriptor::{KernelDescriptor, UserSgpr, UserSgprLayout, KERNEL_DESCRIPTOR_SIZE};
pub use elf::{
    DynReloc, FeatureMode, LoadImage, RelocKind, Segment, Symbol, SymbolKind, ELFOSABI_AMDGPU_HSA,
    EM_AMDGPU,
};
pub use metadata::{AddressSpace, KernelArg, KernelMetadata, PrintfFormat, ValueKind};

use crate::Target;
use std::fmt;

/// Why a code object could not be loaded.
///
/// Every variant is fatal for the code object it names: nothing of it can be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file is shorter than a structure it must contain.
    #[error(
        "truncated file: {what} needs bytes {offset:#x}..{end:#x} but the file has {len} bytes"
    )]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Its file offset.
        offset: u64,
        /// One past its last byte.
        end: u64,
        /// The file length.
        len: u64,
    },
    /// An ELF identification or header field has a value this loader does not accept.
    #[error("elf header field {field} at offset {offset:#x} is {found:#x}: expected {expected}")]
    BadHeader {
        /// The field (`e_machine`, `EI_OSABI`, ...).
        field: &'static str,
        /// Its file offset.
        offset: u64,
        /// The value found.
        found: u64,
        /// What was expected.
        expected: &'static str,
    },
    /// `e_flags` names a processor that is not one of the supported targets.
    #[error("e_flags {e_flags:#x} (offset 0x30) names processor {name}, which is not supported (supported: gfx90a, gfx942, gfx950, gfx1200, gfx1201)")]
    UnsupportedProcessor {
        /// The raw `e_flags`.
        e_flags: u32,
        /// The processor name, or `mach 0x..` when unknown.
        name: String,
    },
    /// The ELF structure (program/section headers, symbol tables, dynamic section) is malformed.
    #[error("malformed elf: {0}")]
    Elf(String),
    /// A program header or section points outside the file or is inconsistent.
    #[error("{what} {index} at offset {offset:#x}: {reason}")]
    BadTable {
        /// `program header` or `section`.
        what: &'static str,
        /// Its index.
        index: usize,
        /// File offset of its header.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A symbol is malformed.
    #[error("symbol {index}: {reason}")]
    BadSymbol {
        /// Index in the symbol table.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The AMDGPU note is malformed.
    #[error("note at file offset {offset:#x}: {reason}")]
    BadNote {
        /// File offset of the note segment or section.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The AMDGPU metadata (msgpack) is malformed or lacks a required field.
    #[error("metadata {path}: {reason}")]
    BadMetadata {
        /// Field path, e.g. `amdhsa.kernels[1].args[0].size`.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A kernel's descriptor or entry point is not where it must be.
    #[error("kernel `{kernel}`: {reason}")]
    BadKernel {
        /// The kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// An offload bundle or HIP host binary yielded no code object.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// The code object was built for a different device.
    #[error("code object is for {object} but the device is {device}")]
    TargetMismatch {
        /// The code object's target id, e.g. `gfx950:xnack+`.
        object: String,
        /// The device's target id.
        device: String,
    },
}

/// The loader's result type.
pub(crate) type Result<T> = std::result::Result<T, LoadError>;

/// A parsed, validated AMDGPU code object. Owns copies of everything it needs.
#[derive(Debug, Clone)]
pub struct CodeObject {
    target: Target,
    xnack: FeatureMode,
    sramecc: FeatureMode,
    version: u8,
    generic_version: Option<u8>,
    e_flags: u32,
    image: LoadImage,
    text: Vec<u8>,
    text_address: u64,
    symbols: Vec<Symbol>,
    relocations: Vec<DynReloc>,
    metadata_target: Option<String>,
    metadata_version: Option<(u64, u64)>,
    kernels: Vec<Kernel>,
    printf: std::sync::Arc<[PrintfFormat]>,
    sidecars: Vec<VirtualLdsSidecar>,
}

/// Name of the non-allocated section in which a binary translator (the `dbt` crate)
/// describes its virtual-LDS sidecars (../shared/seeds/000_*-dbt-design.txt, "Sidecars
/// and Virtual LDS": "`.rocjitsu.lds` runtime sidecar metadata").
pub const VIRTUAL_LDS_SECTION: &str = ".rocjitsu.lds";

/// Bytes of one [`VIRTUAL_LDS_SECTION`] record. ASSUMPTION: the design names the section
/// but not its layout; this one is ours (little-endian): u64 image address of the normal
/// descriptor, u64 image address of the sidecar descriptor, u32 offset of the
/// [`VIRTUAL_LDS_STATE_BYTES`]-byte dispatch state in the kernarg wrapper, u32 the most
/// LDS bytes per workgroup the sidecar serves (the guest's limit).
pub const VIRTUAL_LDS_RECORD_BYTES: usize = 24;

/// Bytes of the design's `VirtualLdsDispatchState` that the runtime writes into the
/// kernarg wrapper: u64 backing_base, u32 stride_x, stride_y, stride_z, reserved.
pub const VIRTUAL_LDS_STATE_BYTES: usize = 24;

/// A virtual-LDS variant of a kernel: a second descriptor, not exported as a symbol, whose
/// code keeps the workgroup's LDS in global memory the runtime provides. A runtime
/// switches a dispatch to it when `max(descriptor LDS, packet group_segment_size)` exceeds
/// what the device has per workgroup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualLdsSidecar {
    /// Image address of the normal (application-visible) descriptor.
    pub normal: u64,
    /// Image address of the sidecar's descriptor.
    pub descriptor_address: u64,
    /// The sidecar's descriptor.
    pub descriptor: KernelDescriptor,
    /// Offset in the kernarg segment at which the dispatch state goes.
    pub state_offset: u32,
    /// The most LDS bytes per workgroup the sidecar serves.
    pub lds_limit: u32,
}

/// One kernel of a code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel name (the `.kd` symbol without its suffix).
    pub name: String,
    /// Virtual address of the kernel descriptor in the image (relative to the load base).
    pub descriptor_address: u64,
    /// The decoded kernel descriptor.
    pub descriptor: KernelDescriptor,
    /// Entry address in the image: descriptor address + `kernel_code_entry_byte_offset`.
    pub entry_address: u64,
    /// The kernel's entry in the metadata note. `None` for objects without a metadata note
    /// (e.g. hand-written assembly linked without `.amdgpu_metadata`); the descriptor still
    /// has the sizes a dispatcher needs.
    pub metadata: Option<KernelMetadata>,
}

impl Kernel {
    /// The wave size this kernel was compiled for: from the descriptor's
    /// ENABLE_WAVEFRONT_SIZE32 bit on gfx10+, always 64 on gfx9.
    pub fn wave_size(&self, target: Target) -> u32 {
        self.descriptor.wave_size(target)
    }

    /// The entry address used by firmware that supports kernarg preloading: entry + 256
    /// when the kernel preloads kernel arguments on a CDNA target (see CODE-OBJECT.md).
    pub fn preload_entry_address(&self, target: Target) -> u64 {
        if target.family() == crate::Family::Gfx9 && self.descriptor.kernarg_preload_length() > 0 {
            self.entry_address.wrapping_add(256)
        } else {
            self.entry_address
        }
    }
}

impl CodeObject {
    /// Parses and validates a code object.
    pub fn parse(bytes: &[u8]) -> Result<CodeObject> {
        elf::parse(bytes)
    }

    /// The virtual-LDS sidecar of the kernel whose descriptor is at image address `kd`.
    pub fn sidecar(&self, kd: u64) -> Option<&VirtualLdsSidecar> {
        self.sidecars.iter().find(|s| s.normal == kd)
    }

    /// Every virtual-LDS sidecar ([`VIRTUAL_LDS_SECTION`]).
    pub fn sidecars(&self) -> &[VirtualLdsSidecar] {
        &self.sidecars
    }

    /// The processor this object was built for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The XNACK mode the object was built for.
    pub fn xnack(&self) -> FeatureMode {
        self.xnack
    }

    /// The SRAMECC mode the object was built for.
    pub fn sramecc(&self) -> FeatureMode {
        self.sramecc
    }

    /// Code object version: 4, 5 or 6 (from EI_ABIVERSION 2, 3, 4).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// EF_AMDGPU_GENERIC_VERSION (v6 only; `None` when zero or before v6).
    pub fn generic_version(&self) -> Option<u8> {
        self.generic_version
    }

    /// The raw `e_flags`.
    pub fn e_flags(&self) -> u32 {
        self.e_flags
    }

    /// The target id string, e.g. `gfx950:sramecc+:xnack-` (modes Any/Unsupported omitted),
    /// in LLVM's order.
    pub fn target_id(&self) -> String {
        target_id(self.target, self.xnack, self.sramecc)
    }

    /// The loadable image: segments as they must be placed in device memory.
    pub fn image(&self) -> &LoadImage {
        &self.image
    }

    /// The formats of the metadata's `amdhsa.printf` list (buffered printf), shared with
    /// the dispatches that print through them.
    pub fn printf_formats(&self) -> &std::sync::Arc<[PrintfFormat]> {
        &self.printf
    }

    /// The `.text` section bytes.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The virtual address of the `.text` section (relative to the load base).
    pub fn text_address(&self) -> u64 {
        self.text_address
    }

    /// The symbol table (`.symtab`, or `.dynsym` when the object is stripped).
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// Dynamic relocations to apply when the image is placed at a base address.
    pub fn relocations(&self) -> &[DynReloc] {
        &self.relocations
    }

    /// `amdhsa.target` from the metadata note, if present.
    pub fn metadata_target(&self) -> Option<&str> {
        self.metadata_target.as_deref()
    }

    /// `amdhsa.version` from the metadata note, if present ([1,1] v4, [1,2] v5/v6).
    pub fn metadata_version(&self) -> Option<(u64, u64)> {
        self.metadata_version
    }

    /// The kernels, in metadata order (kernels without metadata follow, in symbol order).
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Refuses this object unless a device that is `device_target` with the given
    /// xnack/sramecc settings can run it. On/Off in the object must match the device
    /// exactly; Any and Unsupported in the object match anything.
    pub fn check_device(
        &self,
        device_target: Target,
        device_xnack: FeatureMode,
        device_sramecc: FeatureMode,
    ) -> Result<()> {
        let mode_ok = |obj: FeatureMode, dev: FeatureMode| match obj {
            FeatureMode::On | FeatureMode::Off => obj == dev,
            FeatureMode::Any | FeatureMode::Unsupported => true,
        };
        if self.target == device_target
            && mode_ok(self.xnack, device_xnack)
            && mode_ok(self.sramecc, device_sramecc)
        {
            Ok(())
        } else {
            Err(LoadError::TargetMismatch {
                object: self.target_id(),
                device: target_id(device_target, device_xnack, device_sramecc),
            })
        }
    }
}

/// Formats a target id the way LLVM does (`gfx950:sramecc+:xnack-`).
pub fn target_id(target: Target, xnack: FeatureMode, sramecc: FeatureMode) -> String {
    let mut s = target.name().to_string();
    for (name, mode) in [("sramecc", sramecc), ("xnack", xnack)] {
        match mode {
            FeatureMode::On => s.push_str(&format!(":{name}+")),
            FeatureMode::Off => s.push_str(&format!(":{name}-")),
            FeatureMode::Any | FeatureMode::Unsupported => {}
        }
    }
    s
}

impl fmt::Display for FeatureMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FeatureMode::Unsupported => "unsupported",
            FeatureMode::Any => "any",
            FeatureMode::Off => "off",
            FeatureMode::On => "on",
        })
    }
}
