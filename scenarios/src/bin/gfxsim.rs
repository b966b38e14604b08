//! The gfxsim command line.
fn main() {}
