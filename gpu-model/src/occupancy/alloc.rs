//! The resource allocator of one CU: wave slots, VGPR and SGPR blocks per SIMD, LDS ranges
//! and barriers. Placement is all-or-nothing per workgroup.

use serde::{Deserialize, Serialize};

use super::WorkgroupShape;
use crate::config::CuSpec;

/// Where one wave was placed. Registers are contiguous blocks, as the hardware allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WaveAlloc {
    /// SIMD index in the CU.
    pub simd: u32,
    /// Wave slot on that SIMD.
    pub slot: u32,
    /// First VGPR granule (in the SIMD's byte granules).
    pub vgpr_granule_base: u32,
    /// VGPR granules held.
    pub vgpr_granules: u32,
    /// First SGPR granule.
    pub sgpr_granule_base: u32,
    /// SGPR granules held (0 where SGPRs are per slot).
    pub sgpr_granules: u32,
}

/// What a workgroup holds beyond its waves; released when its last wave ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WorkgroupAlloc {
    /// First LDS granule.
    pub lds_granule_base: u32,
    /// LDS granules held (0 when the kernel uses no LDS).
    pub lds_granules: u32,
    /// Byte offset of the workgroup's LDS in the CU's LDS.
    pub lds_base_bytes: u32,
    /// Whether it holds a barrier resource.
    pub barrier: bool,
}

/// Why a workgroup cannot be placed now. Not fatal: it may fit once others finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum PlaceError {
    /// No free barrier resource.
    #[error("no free barrier on the cu")]
    Barriers,
    /// No contiguous LDS range large enough.
    #[error("no free lds range of {granules} granules")]
    Lds {
        /// Granules needed.
        granules: u32,
    },
    /// Some wave found no SIMD with a free slot and room for its registers.
    #[error("wave {wave} of the workgroup finds no simd with a free slot, vgprs and sgprs")]
    Waves {
        /// Index of the wave in the workgroup.
        wave: u32,
    },
}

/// Free/used flags over allocation granules, with first-fit contiguous search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Bitmap {
    used: Vec<bool>,
}

impl Bitmap {
    fn new(len: u32) -> Bitmap {
        Bitmap {
            used: vec![false; len as usize],
        }
    }

    /// First index of `n` contiguous free granules.
    fn find_run(&self, n: u32) -> Option<u32> {
        let n = n as usize;
        if n == 0 {
            return Some(0);
        }
        let mut run = 0;
        for (i, used) in self.used.iter().enumerate() {
            if *used {
                run = 0;
            } else {
                run += 1;
                if run == n {
                    return Some((i + 1 - n) as u32);
                }
            }
        }
        None
    }

    fn set(&mut self, base: u32, n: u32, used: bool) {
        let (b, n) = (base as usize, n as usize);
        if let Some(range) = self.used.get_mut(b..b + n) {
            range.fill(used);
        }
    }

    fn all_free(&self) -> bool {
        self.used.iter().all(|u| !*u)
    }
}

/// One SIMD's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Simd {
    /// Bit i set: wave slot i in use.
    slots: u32,
    vgprs: Bitmap,
    sgprs: Bitmap,
}

/// The allocatable resources of one CU. Serializable, for checkpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuResources {
    slots_per_simd: u32,
    simds: Vec<Simd>,
    lds: Bitmap,
    lds_granule_bytes: u32,
    max_barriers: u32,
    barriers_used: u32,
    waves_resident: u32,
}

impl CuResources {
    /// An empty CU as described by `cu`.
    pub fn new(cu: &CuSpec) -> CuResources {
        let vgpr_granules = cu.vgpr_file_bytes / cu.vgpr_granule_bytes.max(1);
        let sgpr_granules = cu.sgprs_per_simd.map_or(0, |s| s / cu.sgpr_granule.max(1));
        let simd = Simd {
            slots: 0,
            vgprs: Bitmap::new(vgpr_granules),
            sgprs: Bitmap::new(sgpr_granules),
        };
        CuResources {
            // Slots are bits of a u32; validation keeps the config at 32 or fewer.
            slots_per_simd: cu.wave_slots_per_simd.min(32),
            simds: vec![simd; cu.simds as usize],
            lds: Bitmap::new(cu.lds_bytes / cu.lds_granule_bytes.max(1)),
            lds_granule_bytes: cu.lds_granule_bytes.max(1),
            max_barriers: cu.max_barrier_workgroups,
            barriers_used: 0,
            waves_resident: 0,
        }
    }

    /// Waves resident now.
    pub fn waves_resident(&self) -> u32 {
        self.waves_resident
    }

    /// Waves resident on SIMD `simd` now.
    pub fn waves_on_simd(&self, simd: u32) -> u32 {
        self.simds
            .get(simd as usize)
            .map_or(0, |s| s.slots.count_ones())
    }

    /// Whether nothing is allocated (every resource back to its initial state).
    pub fn is_empty(&self) -> bool {
        self.waves_resident == 0
            && self.barriers_used == 0
            && self.lds.all_free()
            && self
                .simds
                .iter()
                .all(|s| s.slots == 0 && s.vgprs.all_free() && s.sgprs.all_free())
    }

    /// Places a whole workgroup of `shape`, or nothing. Each wave goes to the SIMD with
    /// the fewest resident waves that has a slot and room for its registers (lowest index
    /// on ties), spreading waves as the hardware's dispatcher does. The placed waves are
    /// written to `waves` (cleared first; reuse it to avoid allocating).
    pub fn place_workgroup(
        &mut self,
        shape: &WorkgroupShape,
        waves: &mut Vec<WaveAlloc>,
    ) -> Result<WorkgroupAlloc, PlaceError> {
        waves.clear();
        if shape.uses_barrier && self.barriers_used >= self.max_barriers {
            return Err(PlaceError::Barriers);
        }
        let lds_base = if shape.lds_granules > 0 {
            self.lds
                .find_run(shape.lds_granules)
                .ok_or(PlaceError::Lds {
                    granules: shape.lds_granules,
                })?
        } else {
            0
        };
        for w in 0..shape.waves {
            match self.place_wave(shape) {
                Some(a) => waves.push(a),
                None => {
                    for a in waves.drain(..) {
                        self.release_wave(&a);
                    }
                    return Err(PlaceError::Waves { wave: w });
                }
            }
        }
        self.lds.set(lds_base, shape.lds_granules, true);
        if shape.uses_barrier {
            self.barriers_used += 1;
        }
        Ok(WorkgroupAlloc {
            lds_granule_base: lds_base,
            lds_granules: shape.lds_granules,
            lds_base_bytes: lds_base * self.lds_granule_bytes,
            barrier: shape.uses_barrier,
        })
    }

    fn place_wave(&mut self, shape: &WorkgroupShape) -> Option<WaveAlloc> {
        // (load, simd, vgpr base, sgpr base) of the best SIMD so far.
        let mut best: Option<(u32, u32, u32, u32)> = None;
        for (i, s) in self.simds.iter().enumerate() {
            let load = s.slots.count_ones();
            if load >= self.slots_per_simd || best.is_some_and(|b| b.0 <= load) {
                continue;
            }
            let Some(v) = s.vgprs.find_run(shape.vgpr_granules) else {
                continue;
            };
            let Some(g) = s.sgprs.find_run(shape.sgpr_granules) else {
                continue;
            };
            best = Some((load, i as u32, v, g));
        }
        let (_, simd, v, g) = best?;
        let s = &mut self.simds[simd as usize];
        // load < slots_per_simd <= 32, so a clear bit exists below 32.
        let slot = (!s.slots).trailing_zeros();
        s.slots |= 1 << slot;
        s.vgprs.set(v, shape.vgpr_granules, true);
        s.sgprs.set(g, shape.sgpr_granules, true);
        self.waves_resident += 1;
        Some(WaveAlloc {
            simd,
            slot,
            vgpr_granule_base: v,
            vgpr_granules: shape.vgpr_granules,
            sgpr_granule_base: g,
            sgpr_granules: shape.sgpr_granules,
        })
    }

    /// Frees a wave's slot and registers (at `s_endpgm`). Releasing twice is harmless.
    pub fn release_wave(&mut self, a: &WaveAlloc) {
        let Some(s) = self.simds.get_mut(a.simd as usize) else {
            return;
        };
        if a.slot >= 32 || s.slots & (1 << a.slot) == 0 {
            return;
        }
        s.slots &= !(1 << a.slot);
        s.vgprs.set(a.vgpr_granule_base, a.vgpr_granules, false);
        s.sgprs.set(a.sgpr_granule_base, a.sgpr_granules, false);
        self.waves_resident -= 1;
    }

    /// Frees a workgroup's LDS and barrier (when its last wave has ended).
    pub fn release_workgroup(&mut self, wg: &WorkgroupAlloc) {
        self.lds.set(wg.lds_granule_base, wg.lds_granules, false);
        if wg.barrier {
            self.barriers_used = self.barriers_used.saturating_sub(1);
        }
    }
}
