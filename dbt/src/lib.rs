//! dbt: binary translation of AMDGPU code objects (gfx950 to gfx942 and gfx1201).
//!
//! Nothing is translated yet; the crate exists so the workspace has its final shape.
