//! The built-in GPU presets, embedded from `scenarios/presets/*.ron`.

use super::{ConfigError, GpuConfig};

/// (name, RON text) of every preset, in a fixed order.
const PRESETS: [(&str, &str); 6] = [
    (
        "mi300x",
        include_str!("../../../scenarios/presets/mi300x.ron"),
    ),
    (
        "mi355x",
        include_str!("../../../scenarios/presets/mi355x.ron"),
    ),
    (
        "mi250x",
        include_str!("../../../scenarios/presets/mi250x.ron"),
    ),
    (
        "mi210",
        include_str!("../../../scenarios/presets/mi210.ron"),
    ),
    (
        "rx9070xt",
        include_str!("../../../scenarios/presets/rx9070xt.ron"),
    ),
    (
        "rx9060xt",
        include_str!("../../../scenarios/presets/rx9060xt.ron"),
    ),
];

/// Names of the built-in presets.
pub const PRESET_NAMES: [&str; 6] = [
    PRESETS[0].0,
    PRESETS[1].0,
    PRESETS[2].0,
    PRESETS[3].0,
    PRESETS[4].0,
    PRESETS[5].0,
];

impl GpuConfig {
    /// The built-in preset `name` (case-insensitive), parsed and validated.
    pub fn preset(name: &str) -> Result<GpuConfig, ConfigError> {
        let lower = name.to_ascii_lowercase();
        let Some((key, src)) = PRESETS.iter().find(|(n, _)| *n == lower) else {
            return Err(ConfigError::UnknownPreset {
                name: name.to_string(),
                available: PRESET_NAMES.join(", "),
            });
        };
        let cfg = GpuConfig::from_ron(src, &format!("preset:{key}"))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The RON source text of the built-in preset `name`, as embedded.
    pub fn preset_source(name: &str) -> Option<&'static str> {
        let lower = name.to_ascii_lowercase();
        PRESETS.iter().find(|(n, _)| *n == lower).map(|(_, s)| *s)
    }
}
