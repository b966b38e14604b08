//! gpu-model: the AMD GPU as simkit components, plus the AMDGPU ISA layer.
//!
//! * [`isa`]: decode, encode and disassemble machine code for gfx90a, gfx942, gfx950,
//!   gfx1200 and gfx1201 (usable without the simulator, e.g. by the binary translator).
//! * [`loader`]: AMDGPU code objects (ELF, kernel descriptors, metadata).

pub mod isa;
pub mod loader;
pub mod target;

pub use target::{Family, Target};
