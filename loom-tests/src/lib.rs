//! Loom models of simkit's concurrency; the models live in `tests/`.
