//! The CU allocator places exactly as many workgroups as `occupancy()` says fit, refuses
//! the next one with the binding resource, and returns to empty when all are freed.

use gpu_model::config::GpuConfig;
use gpu_model::occupancy::{
    occupancy, CuResources, KernelResources, Limiter, OccupancyError, PlaceError, WaveAlloc,
    WorkgroupAlloc,
};
use gpu_model::Target;

fn kernel(
    wave_size: u32,
    wg: u32,
    vgprs: u32,
    agprs: u32,
    sgprs: u32,
    lds: u32,
) -> KernelResources {
    KernelResources {
        wave_size,
        vgprs,
        agprs,
        sgprs,
        lds_bytes: lds,
        workgroup_size: wg,
        scratch_bytes_per_lane: 0,
    }
}

/// Fills an empty CU with workgroups of `k`; returns how many fit and the refusal.
fn fill(preset: &str, k: &KernelResources) -> (u32, PlaceError, u32) {
    let cfg = GpuConfig::preset(preset).unwrap();
    let occ = occupancy(&cfg.xcd.cu, cfg.target, k).unwrap();
    let mut cu = CuResources::new(&cfg.xcd.cu);
    let mut placed: Vec<(WorkgroupAlloc, Vec<WaveAlloc>)> = Vec::new();
    let mut waves = Vec::new();
    let refusal = loop {
        match cu.place_workgroup(&occ.shape, &mut waves) {
            Ok(wg) => placed.push((wg, waves.clone())),
            Err(e) => break e,
        }
        assert!(placed.len() < 10_000);
    };
    assert_eq!(placed.len() as u32, occ.workgroups_per_cu, "{preset} {k:?}");
    assert_eq!(cu.waves_resident(), occ.waves_per_cu);
    // No two waves share a slot or overlapping registers; LDS ranges do not overlap.
    let all: Vec<&WaveAlloc> = placed.iter().flat_map(|(_, w)| w.iter()).collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.simd == b.simd {
                assert_ne!(a.slot, b.slot);
                let (a0, a1) = (a.vgpr_granule_base, a.vgpr_granule_base + a.vgpr_granules);
                let (b0, b1) = (b.vgpr_granule_base, b.vgpr_granule_base + b.vgpr_granules);
                assert!(a1 <= b0 || b1 <= a0, "vgpr overlap {a:?} {b:?}");
                if a.sgpr_granules > 0 {
                    let (a0, a1) = (a.sgpr_granule_base, a.sgpr_granule_base + a.sgpr_granules);
                    let (b0, b1) = (b.sgpr_granule_base, b.sgpr_granule_base + b.sgpr_granules);
                    assert!(a1 <= b0 || b1 <= a0, "sgpr overlap {a:?} {b:?}");
                }
            }
        }
    }
    for (i, (a, _)) in placed.iter().enumerate() {
        for (b, _) in &placed[i + 1..] {
            let (a0, a1) = (a.lds_granule_base, a.lds_granule_base + a.lds_granules);
            let (b0, b1) = (b.lds_granule_base, b.lds_granule_base + b.lds_granules);
            assert!(a.lds_granules == 0 || b.lds_granules == 0 || a1 <= b0 || b1 <= a0);
        }
    }
    // Freeing one workgroup makes room for exactly one more.
    let (wg, ws) = placed.pop().unwrap();
    for w in &ws {
        cu.release_wave(w);
    }
    cu.release_workgroup(&wg);
    let again = cu.place_workgroup(&occ.shape, &mut waves).unwrap();
    placed.push((again, waves.clone()));
    assert!(cu.place_workgroup(&occ.shape, &mut waves).is_err());
    // Free everything: the CU is empty again.
    for (wg, ws) in &placed {
        for w in ws {
            cu.release_wave(w);
        }
        cu.release_workgroup(wg);
    }
    assert!(cu.is_empty());
    (placed.len() as u32, refusal, occ.waves_per_simd)
}

#[test]
fn mi300x_known_limits() {
    // 256 work-items = 4 waves; 128 VGPRs -> 512/128 = 4 waves per SIMD -> 16 waves per CU.
    let k = kernel(64, 256, 128, 0, 32, 0);
    let cfg = GpuConfig::preset("mi300x").unwrap();
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!(
        (o.workgroups_per_cu, o.waves_per_simd, o.limiter),
        (4, 4, Limiter::Vgprs)
    );
    assert_eq!(fill("mi300x", &k), (4, PlaceError::Waves { wave: 0 }, 4));

    // 64 KiB LDS per workgroup: one workgroup per CU.
    let k = kernel(64, 256, 32, 0, 32, 65536);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!((o.workgroups_per_cu, o.limiter), (1, Limiter::Lds));
    assert_eq!(fill("mi300x", &k).0, 1);

    // Small kernel, one wave per workgroup: the 8 wave slots of each SIMD bind.
    let k = kernel(64, 64, 8, 0, 16, 0);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!(
        (o.workgroups_per_cu, o.waves_per_simd, o.limiter),
        (32, 8, Limiter::WaveSlots)
    );
    assert_eq!(fill("mi300x", &k).0, 32);

    // Two-wave workgroups with tiny resources: 16 barriers and 32 slots / 2 waves tie;
    // occupancy() names wave slots first, the allocator checks barriers first.
    let k = kernel(64, 128, 8, 0, 16, 0);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!((o.workgroups_per_cu, o.limiter), (16, Limiter::WaveSlots));
    let k = kernel(64, 65, 8, 0, 16, 0);
    assert_eq!(
        occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap().waves_per_cu,
        32
    );
    assert_eq!(
        fill("mi300x", &kernel(64, 128, 8, 0, 16, 0)).1,
        PlaceError::Barriers
    );
    // Three-wave workgroups: 32 / 3 = 10 by slots, below 16 barriers; the 11th finds
    // room for two of its waves only.
    let k = kernel(64, 192, 8, 0, 16, 0);
    assert_eq!(
        occupancy(&cfg.xcd.cu, cfg.target, &k)
            .unwrap()
            .workgroups_per_cu,
        10
    );
    assert_eq!(fill("mi300x", &k).1, PlaceError::Waves { wave: 2 });

    // AGPRs: 71 VGPRs + 21 AGPRs -> align(71, 4) + 21 = 93 -> 96 -> 5 waves per SIMD
    // (LLVM reports 5 for this kernel on gfx90a/gfx942/gfx950).
    let k = kernel(64, 256, 71, 21, 55, 0);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!((o.waves_per_simd, o.shape.vgprs_allocated), (5, 96));
    assert_eq!(fill("mi300x", &k).0, 5);

    // 108 SGPRs -> 112 allocated -> 800 / 112 = 7 waves per SIMD.
    let k = kernel(64, 64, 8, 0, 108, 0);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!((o.waves_per_simd, o.limiter), (7, Limiter::Sgprs));
    assert_eq!(fill("mi300x", &k).0, 28);
}

#[test]
fn barriers_bind_with_small_multi_wave_workgroups_on_rdna() {
    // wave32, 64 work-items = 2 waves: 2 SIMDs x 16 slots = 32 waves = 16 workgroups,
    // and 16 barriers: equal; wave slots are reported first on a tie.
    let cfg = GpuConfig::preset("rx9070xt").unwrap();
    let o = occupancy(&cfg.xcd.cu, cfg.target, &kernel(32, 64, 8, 0, 10, 0)).unwrap();
    assert_eq!((o.workgroups_per_cu, o.limiter), (16, Limiter::WaveSlots));
    // 33 work-items = 2 waves too.
    let o = occupancy(&cfg.xcd.cu, cfg.target, &kernel(32, 33, 8, 0, 10, 0)).unwrap();
    assert_eq!(o.workgroups_per_cu, 16);
    // wave32 with 256 VGPRs: 256 -> 264 (granule 24) -> 1536 / 264 = 5 per SIMD.
    let k = kernel(32, 32, 256, 0, 10, 0);
    let o = occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap();
    assert_eq!(
        (o.waves_per_simd, o.workgroups_per_cu, o.limiter),
        (5, 10, Limiter::Vgprs)
    );
    assert_eq!(fill("rx9070xt", &k).0, 10);
    // SGPRs never limit on RDNA.
    let o = occupancy(&cfg.xcd.cu, cfg.target, &kernel(32, 32, 8, 0, 108, 0)).unwrap();
    assert_eq!(o.waves_per_simd, 16);
}

#[test]
fn lds_granule_and_mi355x_lds() {
    let cfg = GpuConfig::preset("mi355x").unwrap();
    // 160 KiB: 40 KiB workgroups -> 4 fit; one byte more rounds to the next granule.
    let o = occupancy(&cfg.xcd.cu, cfg.target, &kernel(64, 256, 16, 0, 16, 40960)).unwrap();
    assert_eq!((o.workgroups_per_cu, o.limiter), (4, Limiter::Lds));
    let o = occupancy(&cfg.xcd.cu, cfg.target, &kernel(64, 256, 16, 0, 16, 40961)).unwrap();
    assert_eq!(o.shape.lds_allocated, 40960 + 512);
    assert_eq!(o.workgroups_per_cu, 3);
    assert_eq!(fill("mi355x", &kernel(64, 256, 16, 0, 16, 40961)).0, 3);
}

#[test]
fn impossible_kernels_are_typed_errors() {
    let cfg = GpuConfig::preset("mi300x").unwrap();
    let cu = &cfg.xcd.cu;
    assert!(matches!(
        occupancy(cu, Target::Gfx942, &kernel(32, 64, 8, 0, 16, 0)),
        Err(OccupancyError::WaveSize { wave_size: 32, .. })
    ));
    assert!(matches!(
        occupancy(cu, Target::Gfx942, &kernel(64, 2048, 8, 0, 16, 0)),
        Err(OccupancyError::WorkgroupSize { size: 2048 })
    ));
    assert!(matches!(
        occupancy(cu, Target::Gfx942, &kernel(64, 64, 8, 0, 16, 65537)),
        Err(OccupancyError::TooBig {
            what: "lds bytes per workgroup",
            ..
        })
    ));
    assert!(matches!(
        occupancy(cu, Target::Gfx942, &kernel(64, 64, 300, 300, 16, 0)),
        Err(OccupancyError::TooBig {
            what: "vgprs per wave",
            ..
        })
    ));
    // 1024 work-items = 16 waves of 512 VGPRs: only 4 fit per CU (1 per SIMD).
    let e = occupancy(cu, Target::Gfx942, &kernel(64, 1024, 256, 256, 16, 0)).unwrap_err();
    assert_eq!(
        e,
        OccupancyError::TooBig {
            what: "vgpr waves per cu",
            need: 16,
            have: 4
        }
    );
    assert!(e.to_string().contains("16 vgpr waves per cu"), "{e}");
}

#[test]
fn allocator_state_survives_a_checkpoint_round_trip() {
    let cfg = GpuConfig::preset("mi300x").unwrap();
    let occ = occupancy(&cfg.xcd.cu, cfg.target, &kernel(64, 192, 40, 0, 30, 10000)).unwrap();
    let mut cu = CuResources::new(&cfg.xcd.cu);
    let mut waves = Vec::new();
    cu.place_workgroup(&occ.shape, &mut waves).unwrap();
    cu.release_wave(&waves[1]);
    let mut back: CuResources = serde_json::from_slice(&serde_json::to_vec(&cu).unwrap()).unwrap();
    assert_eq!(back, cu);
    let mut w2 = Vec::new();
    assert_eq!(
        back.place_workgroup(&occ.shape, &mut w2),
        cu.place_workgroup(&occ.shape, &mut waves)
    );
    assert_eq!(w2, waves);
}
