//! Writes the learned tables as Rust source.

use crate::learn::Tables;

/// Generated files: (file name, contents).
pub fn emit(_l: &[(&str, bool, Tables)]) -> Vec<(String, String)> {
    Vec::new()
}
