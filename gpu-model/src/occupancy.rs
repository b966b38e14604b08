//! Occupancy: how many workgroups and waves of a kernel fit on a CU, and which limit binds.
//!
//! [`occupancy`] computes the limits from a [`CuSpec`] and a kernel's [`KernelResources`];
//! [`CuResources`] (in `occupancy/alloc.rs`) is the allocator a CU uses to place and free
//! workgroups, refusing what does not fit.
//!
//! The rules, and where they come from:
//!
//! * Waves per workgroup = ceil(work-items / wave size).
//! * VGPRs (LLVM AMDGPUUsage, "AMDGPU Register Classes" / COMPUTE_PGM_RSRC3 ACCUM_OFFSET,
//!   and LLVM's `totalnumvgprs`): on CDNA (gfx90a+) VGPRs and AGPRs share one file per
//!   SIMD; when a kernel uses AGPRs they start at ACCUM_OFFSET = VGPRs rounded up to 4,
//!   so a wave needs `align(vgprs, 4) + agprs` registers, else just `vgprs`. Registers are
//!   allocated in granules ([`CuSpec::vgpr_granule`]: 8 on CDNA; 24 at wave32 and 12 at
//!   wave64 on RDNA4, read from clang-22's occupancy formula). A SIMD holds
//!   `file / align(total, granule)` waves.
//! * SGPRs: on GFX9 a SIMD has 800 SGPRs shared by its waves, allocated in granules of 16
//!   (AMDGPUUsage GRANULATED_WAVEFRONT_SGPR_COUNT); the count includes VCC, FLAT_SCRATCH
//!   and XNACK_MASK. On GFX10+ every wave slot has its own SGPRs and they never limit
//!   occupancy (LLVM `getOccupancyWithNumSGPRs`). LLVM itself uses a table for GFX8/9
//!   (<= 80 -> 10, <= 88 -> 9, <= 100 -> 8, else 7 waves) that rounds totals 97..100
//!   more kindly than a 16-granule allocation does; this model follows the allocation.
//! * LDS: per workgroup, rounded up to the allocation granule (AMDGPUUsage
//!   COMPUTE_PGM_RSRC2.LDS_SIZE: 128 dwords); a CU holds `lds / that` workgroups.
//! * Barriers: a CU has 16 barrier resources, one per resident workgroup of more than
//!   one wave (LLVM `getMaxWorkGroupsPerCU`).
//! * Wave slots: `wave_slots_per_simd` per SIMD (8 on CDNA, 16 on RDNA4; LLVM
//!   `getMaxWavesPerEU`); a workgroup's waves may sit on different SIMDs of the CU.
//! * Scratch does not limit occupancy here: the driver sizes the scratch ring
//!   (TMPRING_SIZE.WAVES) for the waves the CU can hold.
//!
//! RDNA runs in CU mode in this model (2 SIMDs, half the WGP's LDS).

mod alloc;

use serde::{Deserialize, Serialize};

use crate::config::CuSpec;
use crate::target::Target;

pub use alloc::{CuResources, PlaceError, WaveAlloc, WorkgroupAlloc};

/// What one kernel asks of a CU, from its code object (kernel descriptor and metadata).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelResources {
    /// Lanes per wave (32 or 64).
    pub wave_size: u32,
    /// Architectural VGPRs per wave.
    pub vgprs: u32,
    /// Accumulation VGPRs (AGPRs) per wave; 0 where the target has none.
    pub agprs: u32,
    /// SGPRs per wave, including VCC, FLAT_SCRATCH and XNACK_MASK.
    pub sgprs: u32,
    /// LDS bytes per workgroup (static group segment plus dynamic LDS).
    pub lds_bytes: u32,
    /// Work-items per workgroup.
    pub workgroup_size: u32,
    /// Private (scratch) bytes per lane.
    pub scratch_bytes_per_lane: u32,
}

/// The resource that binds, in the order they are reported when several bind equally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Limiter {
    /// Wave slots per SIMD.
    WaveSlots,
    /// Vector registers.
    Vgprs,
    /// Scalar registers.
    Sgprs,
    /// Local data share.
    Lds,
    /// Barrier resources (workgroups of more than one wave).
    Barriers,
}

/// A workgroup's allocation request, in the allocator's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WorkgroupShape {
    /// Waves in the workgroup.
    pub waves: u32,
    /// Lanes per wave.
    pub wave_size: u32,
    /// VGPR granules per wave.
    pub vgpr_granules: u32,
    /// VGPRs per wave as allocated (granule-rounded), in registers of `wave_size` lanes.
    pub vgprs_allocated: u32,
    /// SGPR granules per wave (0 where SGPRs are per slot).
    pub sgpr_granules: u32,
    /// SGPRs per wave as allocated (granule-rounded).
    pub sgprs_allocated: u32,
    /// LDS granules per workgroup.
    pub lds_granules: u32,
    /// LDS bytes per workgroup as allocated (granule-rounded).
    pub lds_allocated: u32,
    /// Whether the workgroup takes a barrier resource (more than one wave).
    pub uses_barrier: bool,
    /// Scratch bytes per wave.
    pub scratch_bytes_per_wave: u64,
}

/// How many of a kernel's workgroups fit on one CU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Occupancy {
    /// What one workgroup needs.
    pub shape: WorkgroupShape,
    /// Workgroups resident at once on an empty CU.
    pub workgroups_per_cu: u32,
    /// Waves resident at once (`workgroups_per_cu * shape.waves`).
    pub waves_per_cu: u32,
    /// Most waves on any one SIMD when resident workgroups spread evenly: the figure
    /// LLVM reports as "Occupancy [waves/SIMD]".
    pub waves_per_simd: u32,
    /// The resource that binds.
    pub limiter: Limiter,
    /// Waves per SIMD allowed by the register files alone (min of VGPR and SGPR limits).
    pub register_waves_per_simd: u32,
}

/// Why a kernel cannot run on a CU at all. Fatal for the dispatch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OccupancyError {
    /// The CU cannot run waves of this size.
    #[error("{target} cannot run wave{wave_size}")]
    WaveSize {
        /// The target.
        target: Target,
        /// The wave size asked for.
        wave_size: u32,
    },
    /// The workgroup size is zero or above the hardware limit.
    #[error("workgroup size {size} is outside 1..=1024")]
    WorkgroupSize {
        /// The size asked for.
        size: u32,
    },
    /// One wave or workgroup needs more of a resource than a CU has.
    #[error("kernel needs {need} {what} but a CU offers at most {have}")]
    TooBig {
        /// The resource.
        what: &'static str,
        /// What the kernel needs.
        need: u64,
        /// What the CU offers.
        have: u64,
    },
}

/// The VGPRs a wave occupies, AGPRs included (see the module docs).
pub fn total_vgprs(target: Target, vgprs: u32, agprs: u32) -> u32 {
    if target.has_agprs() && agprs > 0 {
        vgprs.next_multiple_of(4) + agprs
    } else {
        vgprs
    }
}

/// Computes the occupancy of `k` on a CU described by `cu` of `target`.
pub fn occupancy(
    cu: &CuSpec,
    target: Target,
    k: &KernelResources,
) -> Result<Occupancy, OccupancyError> {
    let ws = k.wave_size;
    let wave_ok = match target.family() {
        crate::target::Family::Gfx9 => ws == 64,
        crate::target::Family::Gfx12 => ws == 32 || ws == 64,
    };
    if !wave_ok {
        return Err(OccupancyError::WaveSize {
            target,
            wave_size: ws,
        });
    }
    if k.workgroup_size == 0 || k.workgroup_size > 1024 {
        return Err(OccupancyError::WorkgroupSize {
            size: k.workgroup_size,
        });
    }
    let waves = k.workgroup_size.div_ceil(ws);

    if target.has_agprs() {
        // CDNA: 256 architectural VGPRs and 256 AGPRs at most (AMDGPUUsage).
        for (what, n) in [("vgprs per wave", k.vgprs), ("agprs per wave", k.agprs)] {
            if n > 256 {
                return Err(OccupancyError::TooBig {
                    what,
                    need: n.into(),
                    have: 256,
                });
            }
        }
    }
    let total = total_vgprs(target, k.vgprs, k.agprs).max(1);
    if total > cu.max_vgprs_per_wave {
        return Err(OccupancyError::TooBig {
            what: "vgprs per wave",
            need: total.into(),
            have: cu.max_vgprs_per_wave.into(),
        });
    }
    let vgpr_granule = cu.vgpr_granule(ws);
    let vgprs_allocated = total.next_multiple_of(vgpr_granule);
    let vgpr_waves = cu.vgprs_per_simd(ws) / vgprs_allocated;

    let sgprs = k.sgprs.max(1);
    if sgprs > cu.max_sgprs_per_wave {
        return Err(OccupancyError::TooBig {
            what: "sgprs per wave",
            need: sgprs.into(),
            have: cu.max_sgprs_per_wave.into(),
        });
    }
    let (sgprs_allocated, sgpr_granules, sgpr_waves) = match cu.sgprs_per_simd {
        Some(file) => {
            let g = cu.sgpr_granule.max(1);
            let alloc = sgprs.next_multiple_of(g);
            (alloc, alloc / g, file / alloc)
        }
        None => (sgprs, 0, cu.wave_slots_per_simd),
    };

    let lds_granule = cu.lds_granule_bytes.max(1);
    let lds_allocated = k.lds_bytes.next_multiple_of(lds_granule);
    if lds_allocated > cu.lds_bytes {
        return Err(OccupancyError::TooBig {
            what: "lds bytes per workgroup",
            need: k.lds_bytes.into(),
            have: cu.lds_bytes.into(),
        });
    }

    let simds = cu.simds;
    let slots = cu.wave_slots_per_simd;
    let register_waves = vgpr_waves.min(sgpr_waves);
    // Workgroups allowed by each resource alone.
    let by_slots = slots * simds / waves;
    let by_vgprs = vgpr_waves * simds / waves;
    let by_sgprs = sgpr_waves * simds / waves;
    let by_lds = cu.lds_bytes.checked_div(lds_allocated).unwrap_or(u32::MAX);
    let uses_barrier = waves > 1;
    let by_barriers = if uses_barrier {
        cu.max_barrier_workgroups
    } else {
        u32::MAX
    };
    let limits = [
        (by_slots, Limiter::WaveSlots),
        (by_vgprs, Limiter::Vgprs),
        (by_sgprs, Limiter::Sgprs),
        (by_lds, Limiter::Lds),
        (by_barriers, Limiter::Barriers),
    ];
    // min_by_key keeps the first of equal minima: the order above breaks ties.
    let (workgroups, limiter) = limits
        .into_iter()
        .min_by_key(|(n, _)| *n)
        .unwrap_or((0, Limiter::WaveSlots));
    if workgroups == 0 {
        let (what, need, have) = match limiter {
            Limiter::Vgprs => ("vgpr waves per cu", waves, vgpr_waves * simds),
            Limiter::Sgprs => ("sgpr waves per cu", waves, sgpr_waves * simds),
            _ => ("waves per cu", waves, slots * simds),
        };
        return Err(OccupancyError::TooBig {
            what,
            need: need.into(),
            have: have.into(),
        });
    }
    // LLVM's figure: waves of the workgroups that slots, barriers and LDS admit, spread
    // over the SIMDs (rounded up), then capped by what the registers allow per SIMD.
    let placeable = by_slots.min(by_lds).min(by_barriers);
    let waves_per_simd = (placeable * waves)
        .div_ceil(simds)
        .min(slots)
        .min(register_waves);

    Ok(Occupancy {
        shape: WorkgroupShape {
            waves,
            wave_size: ws,
            // In the allocator's byte granules (wave-size independent).
            vgpr_granules: (u64::from(vgprs_allocated) * 4 * u64::from(ws))
                .div_ceil(u64::from(cu.vgpr_granule_bytes.max(1)))
                as u32,
            vgprs_allocated,
            sgpr_granules: if cu.sgprs_per_simd.is_some() {
                sgpr_granules
            } else {
                0
            },
            sgprs_allocated,
            lds_granules: lds_allocated / lds_granule,
            lds_allocated,
            uses_barrier,
            scratch_bytes_per_wave: u64::from(k.scratch_bytes_per_lane) * u64::from(ws),
        },
        workgroups_per_cu: workgroups,
        waves_per_cu: workgroups * waves,
        waves_per_simd,
        limiter,
        register_waves_per_simd: register_waves,
    })
}
