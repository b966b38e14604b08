//! The AMDGPU ISA layer: decode, encode, disassemble.
