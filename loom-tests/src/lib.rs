//! Loom models of simkit's concurrency; the models live in `tests/` and only exist under
//! `RUSTFLAGS="--cfg loom"` (without it this crate and its tests are empty):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p loom-tests --release
//! ```
//!
//! simkit routes every atomic, lock and condition variable through its `sync` shim, so under
//! loom these models exercise the engine's real handle and epoch barrier code.
