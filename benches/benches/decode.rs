//! Decode throughput over the kernel corpus.
fn main() {}
