//! simkit engine benchmarks (PHOLD, ping-pong, clocked ticks).
fn main() {}
