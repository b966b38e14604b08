//! PHOLD benchmark binary.
fn main() {}
