//! Integration tests of the simkit engine; every engine test runs on one partition and on
//! several (see `support::layouts`).

#[path = "engine/checkpoint.rs"]
mod checkpoint;
#[path = "engine/clock.rs"]
mod clock;
#[path = "engine/control.rs"]
mod control;
#[path = "engine/determinism.rs"]
mod determinism;
#[path = "engine/exits.rs"]
mod exits;
#[path = "engine/ordering.rs"]
mod ordering;
#[path = "engine/stats.rs"]
mod stats;
#[path = "engine/support.rs"]
mod support;
#[path = "engine/syncpoints.rs"]
mod syncpoints;
#[path = "engine/topology.rs"]
mod topology;
