//! Overrides: change fields of a config by dotted path (`"xcd.l2.size_bytes"`) or by a
//! partial struct (`"xcd": (l2: (ways: 8))`).
//!
//! The config is turned into a generic value tree, each override is merged into it and the
//! tree is turned back into a [`GpuConfig`] after every override, so a value that does not
//! fit its field is reported with that override's path.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{ConfigError, GpuConfig};

/// Overrides as written in RON: field path -> value. A path of `""` merges into the
/// whole config. Enum values are written as strings (`"Hbm3"`, `"gfx942"`), because
/// RON's untyped values cannot carry bare identifiers.
pub type Overrides = BTreeMap<String, Value>;

impl GpuConfig {
    /// Parses an override map from RON text (`{"path": value, ...}`) and applies it.
    /// Parse errors carry line:column; field errors carry the field path.
    pub fn with_overrides_ron(&self, src: &str) -> Result<GpuConfig, ConfigError> {
        let overrides: Overrides = ron::Options::default()
            .from_str(src)
            .map_err(|e| ConfigError::ron("override", &e))?;
        self.with_overrides(&overrides)
    }

    /// Returns a copy of `self` with `overrides` applied in key order. The result is not
    /// validated: call [`GpuConfig::validate`] once all changes are in.
    pub fn with_overrides(&self, overrides: &Overrides) -> Result<GpuConfig, ConfigError> {
        let mut tree = serde_json::to_value(self).map_err(|e| ConfigError::Serialize {
            message: e.to_string(),
        })?;
        let mut out = self.clone();
        for (path, value) in overrides {
            let target = locate(&mut tree, path)?;
            merge(target, value, path)?;
            out = serde_json::from_value(tree.clone()).map_err(|e| {
                // A bare RON identifier (an enum variant) arrives as `()`: say how to
                // write it instead.
                let hint = if value.is_null() {
                    "; write enum values as strings, e.g. \"Hbm3e\""
                } else {
                    ""
                };
                ConfigError::BadOverride {
                    path: path.clone(),
                    message: format!("{e}{hint}"),
                }
            })?;
        }
        Ok(out)
    }
}

/// The node at `path` in `tree`.
fn locate<'t>(tree: &'t mut Value, path: &str) -> Result<&'t mut Value, ConfigError> {
    let mut cur = tree;
    if path.is_empty() {
        return Ok(cur);
    }
    let mut walked = String::new();
    for part in path.split('.') {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        cur = match cur {
            Value::Object(map) => {
                let hint = format!(" (fields here: {})", keys(map));
                match map.get_mut(part) {
                    Some(v) => v,
                    None => return Err(ConfigError::UnknownField { path: walked, hint }),
                }
            }
            Value::Array(items) => {
                let len = items.len();
                match part.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                    Some(v) => v,
                    None => {
                        return Err(ConfigError::UnknownField {
                            path: walked,
                            hint: format!(" (a list of {len}: use an index below {len})"),
                        })
                    }
                }
            }
            Value::Null => {
                let parent = walked.rsplit_once('.').map_or("", |(p, _)| p).to_string();
                return Err(ConfigError::BadOverride {
                    path: walked,
                    message: format!("`{parent}` is None in this config: set it whole"),
                });
            }
            _ => {
                return Err(ConfigError::UnknownField {
                    path: walked,
                    hint: " (its parent is a plain value, not a struct)".to_string(),
                })
            }
        };
    }
    Ok(cur)
}

/// Merges `value` into `target`: structs field by field (unknown fields are errors),
/// anything else replaces the target.
fn merge(target: &mut Value, value: &Value, path: &str) -> Result<(), ConfigError> {
    match (target, value) {
        (Value::Object(dst), Value::Object(src)) => {
            for (k, v) in src {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let hint = format!(" (fields here: {})", keys(dst));
                match dst.get_mut(k) {
                    Some(d) => merge(d, v, &sub)?,
                    None => return Err(ConfigError::UnknownField { path: sub, hint }),
                }
            }
            Ok(())
        }
        (dst, v) => {
            *dst = v.clone();
            Ok(())
        }
    }
}

fn keys(map: &serde_json::Map<String, Value>) -> String {
    map.keys()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}
