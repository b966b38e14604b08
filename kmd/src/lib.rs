//! kmd: an emulated KFD driver so unmodified ROCm runs on the model.
//!
//! Nothing is emulated yet; the crate exists so the workspace has its final shape.
