//! Shared helpers for the throughput benchmarks.
