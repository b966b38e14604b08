//! AMDGPU code object loading: ELF, kernel descriptors and metadata.
