//! simkit: a conservative parallel discrete-event simulation engine.
