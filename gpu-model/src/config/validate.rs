//! Checks that a config describes a GPU the model can be built from.

use super::{CacheSpec, ConfigError, CuSpec, GpuConfig, WritePolicy};
use crate::target::Family;

impl GpuConfig {
    /// Checks every field; the first problem found is returned, naming its field path.
    pub fn validate(&self) -> Result<(), ConfigError> {
        nonzero("iods", u64::from(self.iods))?;
        nonzero("xcds", u64::from(self.xcds))?;
        nonzero("clocks.shader_mhz", u64::from(self.clocks.shader_mhz))?;
        nonzero("clocks.memory_mhz", u64::from(self.clocks.memory_mhz))?;
        nonzero("quantum", u64::from(self.quantum))?;
        nonzero("sync_cycles", u64::from(self.sync_cycles))?;
        if let Some(t) = &self.timing {
            for (f, v) in [
                ("timing.issue_period", t.issue_period),
                ("timing.simd_lanes", t.simd_lanes),
                ("timing.matrix_pass_cycles", t.matrix_pass_cycles),
                ("timing.lds_banks", t.lds_banks),
                ("timing.lds_lanes_per_cycle", t.lds_lanes_per_cycle),
                ("timing.l1_mshrs", t.l1_mshrs),
                ("timing.l2_atomic_cycles", t.l2_atomic_cycles),
                ("timing.l1_bytes_per_cycle", t.l1_bytes_per_cycle),
                ("timing.l2_bytes_per_cycle", t.l2_bytes_per_cycle),
                ("timing.mall_bytes_per_cycle", t.mall_bytes_per_cycle),
            ] {
                nonzero(f, u64::from(v))?;
            }
        } else if self.exec_mode == super::ExecMode::Clocked {
            return Err(invalid(
                "timing",
                "exec_mode Clocked needs a `timing` section (this preset has none)".into(),
            ));
        }
        nonzero("xcd.shader_engines", u64::from(self.xcd.shader_engines))?;
        nonzero("xcd.active_cus", u64::from(self.xcd.active_cus))?;
        if self.xcd.active_cus < self.xcd.shader_engines {
            return Err(invalid(
                "xcd.active_cus",
                format!(
                    "{} CUs cannot fill {} shader engines",
                    self.xcd.active_cus, self.xcd.shader_engines
                ),
            ));
        }
        if self.wave_sizes.is_empty() {
            return Err(invalid(
                "wave_sizes",
                "at least one wave size is needed".into(),
            ));
        }
        let allowed: &[u32] = match self.target.family() {
            Family::Gfx9 => &[64],
            Family::Gfx12 => &[32, 64],
        };
        for (i, &w) in self.wave_sizes.iter().enumerate() {
            if !allowed.contains(&w) {
                return Err(invalid(
                    &format!("wave_sizes.{i}"),
                    format!(
                        "{} does not run wave{w} (allowed: {allowed:?})",
                        self.target
                    ),
                ));
            }
        }
        nonzero("max_workgroup_size", u64::from(self.max_workgroup_size))?;
        if self.max_workgroup_size > 1024 {
            return Err(invalid(
                "max_workgroup_size",
                format!(
                    "{} exceeds the hardware limit of 1024",
                    self.max_workgroup_size
                ),
            ));
        }
        self.validate_cu()?;
        cache("xcd.l2", &self.xcd.l2)?;
        if self.xcd.l2.write_policy != WritePolicy::WriteBack {
            return Err(invalid(
                "xcd.l2.write_policy",
                "the L2 is write-back".into(),
            ));
        }
        if let Some(mall) = &self.iod.mall {
            cache("iod.mall", mall)?;
        }
        nonzero("dram.capacity_bytes", self.dram.capacity_bytes)?;
        nonzero("dram.channels", u64::from(self.dram.channels))?;
        nonzero(
            "dram.bandwidth_gbytes_per_s",
            u64::from(self.dram.bandwidth_gbytes_per_s),
        )?;
        Ok(())
    }

    fn validate_cu(&self) -> Result<(), ConfigError> {
        let cu: &CuSpec = &self.xcd.cu;
        nonzero("xcd.cu.simds", u64::from(cu.simds))?;
        nonzero(
            "xcd.cu.wave_slots_per_simd",
            u64::from(cu.wave_slots_per_simd),
        )?;
        if cu.wave_slots_per_simd > 32 {
            return Err(invalid(
                "xcd.cu.wave_slots_per_simd",
                format!("{} exceeds the model's limit of 32", cu.wave_slots_per_simd),
            ));
        }
        nonzero("xcd.cu.vgpr_file_bytes", u64::from(cu.vgpr_file_bytes))?;
        nonzero(
            "xcd.cu.vgpr_granule_bytes",
            u64::from(cu.vgpr_granule_bytes),
        )?;
        if !cu.vgpr_file_bytes.is_multiple_of(cu.vgpr_granule_bytes) {
            return Err(invalid(
                "xcd.cu.vgpr_file_bytes",
                format!(
                    "{} is not a multiple of vgpr_granule_bytes ({})",
                    cu.vgpr_file_bytes, cu.vgpr_granule_bytes
                ),
            ));
        }
        for &w in &self.wave_sizes {
            if !cu.vgpr_granule_bytes.is_multiple_of(4 * w) {
                return Err(invalid(
                    "xcd.cu.vgpr_granule_bytes",
                    format!(
                        "{} is not a whole number of wave{w} registers",
                        cu.vgpr_granule_bytes
                    ),
                ));
            }
        }
        nonzero(
            "xcd.cu.max_vgprs_per_wave",
            u64::from(cu.max_vgprs_per_wave),
        )?;
        if let Some(s) = cu.sgprs_per_simd {
            nonzero("xcd.cu.sgprs_per_simd", u64::from(s))?;
        }
        nonzero("xcd.cu.sgpr_granule", u64::from(cu.sgpr_granule))?;
        nonzero(
            "xcd.cu.max_sgprs_per_wave",
            u64::from(cu.max_sgprs_per_wave),
        )?;
        nonzero("xcd.cu.lds_bytes", u64::from(cu.lds_bytes))?;
        nonzero("xcd.cu.lds_granule_bytes", u64::from(cu.lds_granule_bytes))?;
        if !cu.lds_bytes.is_multiple_of(cu.lds_granule_bytes) {
            return Err(invalid(
                "xcd.cu.lds_bytes",
                format!(
                    "{} is not a multiple of lds_granule_bytes ({})",
                    cu.lds_bytes, cu.lds_granule_bytes
                ),
            ));
        }
        nonzero(
            "xcd.cu.max_barrier_workgroups",
            u64::from(cu.max_barrier_workgroups),
        )?;
        cache("xcd.cu.scalar_cache", &cu.scalar_cache)?;
        cache("xcd.cu.vector_cache", &cu.vector_cache)?;
        if cu.vector_cache.write_policy != WritePolicy::WriteThrough {
            return Err(invalid(
                "xcd.cu.vector_cache.write_policy",
                "the vector L1 is write-through".into(),
            ));
        }
        if cu.scalar_cache.shared_by > self.xcd.active_cus {
            return Err(invalid(
                "xcd.cu.scalar_cache.shared_by",
                format!(
                    "{} CUs share one cache but an XCD has only {}",
                    cu.scalar_cache.shared_by, self.xcd.active_cus
                ),
            ));
        }
        Ok(())
    }
}

fn nonzero(field: &str, v: u64) -> Result<(), ConfigError> {
    if v == 0 {
        return Err(ConfigError::Zero {
            field: field.to_string(),
        });
    }
    Ok(())
}

fn invalid(field: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        field: field.to_string(),
        message,
    }
}

fn cache(field: &str, c: &CacheSpec) -> Result<(), ConfigError> {
    nonzero(&format!("{field}.size_bytes"), c.size_bytes)?;
    nonzero(&format!("{field}.line_bytes"), u64::from(c.line_bytes))?;
    nonzero(&format!("{field}.ways"), u64::from(c.ways))?;
    nonzero(&format!("{field}.shared_by"), u64::from(c.shared_by))?;
    if !c.line_bytes.is_power_of_two() {
        return Err(ConfigError::NotPowerOfTwo {
            field: format!("{field}.line_bytes"),
            value: u64::from(c.line_bytes),
        });
    }
    let per_set = u64::from(c.line_bytes) * u64::from(c.ways);
    if !c.size_bytes.is_multiple_of(per_set) {
        return Err(ConfigError::CacheGeometry {
            field: field.to_string(),
            size: c.size_bytes,
            line: c.line_bytes,
            ways: c.ways,
        });
    }
    // Sets must be a power of two so the set index is a bit field of the address.
    let sets = c.size_bytes / per_set;
    if !sets.is_power_of_two() {
        return Err(ConfigError::NotPowerOfTwo {
            field: format!("{field} (sets = size / (line * ways))"),
            value: sets,
        });
    }
    Ok(())
}
