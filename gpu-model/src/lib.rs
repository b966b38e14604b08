//! gpu-model: the AMD GPU as simkit components, plus the AMDGPU ISA layer.
//!
//! * [`isa`]: decode, encode and disassemble machine code for gfx90a, gfx942, gfx950,
//!   gfx1200 and gfx1201 (usable without the simulator, e.g. by the binary translator).
//! * [`loader`]: AMDGPU code objects (ELF, kernel descriptors, metadata).
//! * [`config`]: GPU hardware descriptions (RON presets, overrides, validation).
//! * [`cache`]: set-associative cache model with per-access memory types.
//! * [`occupancy`]: workgroups per CU from kernel resources, and the CU allocator.
//! * [`memory`]: device memory (allocations, typed accesses, atomics, faults).

pub mod cache;
pub mod config;
pub mod coverage;
pub mod device;
pub mod dispatch;
pub mod exec;
pub mod isa;
pub mod loader;
pub mod memory;
pub mod occupancy;
pub mod service;
pub mod soc;
pub mod target;

pub use target::{Family, Target};
