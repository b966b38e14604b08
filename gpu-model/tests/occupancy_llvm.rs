//! Occupancy against LLVM: kernels with chosen VGPR/AGPR/SGPR/LDS use and workgroup size
//! are compiled with clang-22 `-Rpass-analysis=kernel-resource-usage`; the resources LLVM
//! reports are fed to `occupancy()`, whose waves/SIMD must equal LLVM's "Occupancy
//! [waves/SIMD]". RDNA is compiled with `-mcumode` (the model runs RDNA in CU mode).
//! Fails when clang-22 is not installed (scripts/install-deps.sh installs it).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use gpu_model::config::GpuConfig;
use gpu_model::occupancy::{occupancy, KernelResources};
use gpu_model::Target;

/// One generated kernel: name, workgroup size, highest VGPR/AGPR/SGPR clobbered, LDS.
struct Case {
    name: String,
    wg: u32,
}

fn source(target: Target, lds_max: u32) -> (String, Vec<Case>) {
    let mut src = String::from(
        "#define ID __builtin_amdgcn_workitem_id_x()\n\
         typedef __attribute__((address_space(1))) float gfloat;\n",
    );
    let mut cases = Vec::new();
    let mut add = |src: &mut String, wg: u32, v: u32, a: u32, s: u32, lds: u32| {
        let name = format!("k_wg{wg}_v{v}_a{a}_s{s}_l{lds}");
        let mut clobbers = vec![format!("\"v{}\"", v - 1)];
        if a > 0 {
            clobbers.push(format!("\"a{}\"", a - 1));
        }
        if s > 0 {
            clobbers.push(format!("\"s{}\"", s - 1));
        }
        let body = if lds > 0 {
            let n = lds / 4;
            writeln!(src, "static __attribute__((address_space(3), loader_uninitialized)) float lds_{name}[{n}];").unwrap();
            format!(
                "lds_{name}[ID % {n}] = p[ID]; __builtin_amdgcn_s_barrier(); \
                 p[ID] = lds_{name}[(ID + 1) % {n}];"
            )
        } else {
            "p[ID] = p[ID] + 1.0f;".to_string()
        };
        writeln!(
            src,
            "__attribute__((amdgpu_kernel, amdgpu_flat_work_group_size({wg}, {wg}))) \
             void {name}(gfloat *p) {{ {body} __asm__ volatile(\"\" ::: {}); }}",
            clobbers.join(", ")
        )
        .unwrap();
        cases.push(Case { name, wg });
    };
    let cdna = target.has_agprs();
    // VGPR sweep around the granule edges.
    for v in [
        1, 8, 9, 24, 25, 48, 49, 64, 65, 72, 96, 97, 128, 129, 168, 170, 200, 256,
    ] {
        for wg in [64, 256] {
            add(&mut src, wg, v, 0, 0, 0);
        }
    }
    if cdna {
        // AGPRs start at align(vgprs, 4).
        for (v, a) in [
            (71, 21),
            (30, 100),
            (1, 64),
            (65, 63),
            (128, 128),
            (100, 29),
            (256, 256),
        ] {
            add(&mut src, 256, v, a, 0, 0);
        }
        // SGPRs: 800 per SIMD in granules of 16 (80 -> 10 waves, 96 -> 8, 112 -> 7).
        for s in [10, 40, 70, 74, 80, 86, 90, 94, 100, 102] {
            add(&mut src, 64, 8, 0, s, 0);
        }
    }
    // LDS x workgroup size.
    let mut ldss = vec![1024, 4096, 8192, 16384, 20480, 30720, 40960, 65536];
    if lds_max > 65536 {
        ldss.extend([98304, 163840]);
    }
    for lds in ldss {
        for wg in [64, 128, 192, 256, 512, 1024] {
            add(&mut src, wg, 16, 0, 0, lds);
        }
    }
    // LDS and registers together.
    add(&mut src, 256, 96, 0, 0, 16384);
    add(&mut src, 512, 128, 0, 0, 8192);
    (src, cases)
}

/// Remark fields per kernel: name -> (field -> value).
fn remarks(stderr: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut cur = String::new();
    for line in stderr.lines() {
        let Some((_, rest)) = line.split_once("remark: ") else {
            continue;
        };
        let rest = rest
            .trim_end_matches(" [-Rpass-analysis=kernel-resource-usage]")
            .trim();
        let Some((k, v)) = rest.split_once(": ") else {
            continue;
        };
        if k == "Function Name" {
            cur = v.to_string();
        } else {
            out.entry(cur.clone())
                .or_default()
                .insert(k.to_string(), v.to_string());
        }
    }
    out
}

fn check(preset: &str, target_flags: &[&str], wave_size: u32) -> usize {
    let cfg = GpuConfig::preset(preset).unwrap();
    let (src, cases) = source(cfg.target, cfg.xcd.cu.lds_bytes);
    let dir = std::env::temp_dir().join(format!(
        "gfxsim-occ-{}-{preset}-{wave_size}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("k.c");
    std::fs::write(&path, &src).unwrap();
    let out = match Command::new("clang-22")
        .args([
            "-x",
            "c",
            "-target",
            "amdgcn-amd-amdhsa",
            "-nogpulib",
            "-O2",
            "-c",
        ])
        .arg(format!("-mcpu={}", cfg.target))
        .args(target_flags)
        .arg("-Rpass-analysis=kernel-resource-usage")
        .arg(&path)
        .arg("-o")
        .arg(dir.join("k.o"))
        .output()
    {
        Ok(o) => o,
        // The oracle is required: a missing compiler fails rather than passing unchecked.
        Err(e) => {
            panic!("clang-22 ({e}): the LLVM occupancy oracle needs it (scripts/install-deps.sh)")
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rem = remarks(&stderr);
    let mut mismatches = Vec::new();
    let mut legacy = 0;
    for case in &cases {
        let r = rem
            .get(&case.name)
            .unwrap_or_else(|| panic!("no remarks for {}", case.name));
        let num = |k: &str| -> u32 {
            r.get(k)
                .unwrap_or_else(|| panic!("{}: no {k}", case.name))
                .parse()
                .unwrap_or_else(|_| panic!("{}: {k} = {:?}", case.name, r.get(k)))
        };
        let k = KernelResources {
            wave_size,
            vgprs: num("VGPRs"),
            agprs: if r.contains_key("AGPRs") {
                num("AGPRs")
            } else {
                0
            },
            sgprs: num("TotalSGPRs"),
            lds_bytes: num("LDS Size [bytes/block]"),
            workgroup_size: case.wg,
            scratch_bytes_per_lane: num("ScratchSize [bytes/lane]"),
        };
        let llvm = num("Occupancy [waves/SIMD]");
        let ours =
            occupancy(&cfg.xcd.cu, cfg.target, &k).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        // LLVM's GFX8/9 SGPR rule is a legacy table (<= 100 SGPRs -> 8 waves) that
        // disagrees with its own 16-granule allocation of the 800-SGPR file
        // (getMaxNumSGPRs gives 96 for 8 waves). The model follows the allocation: totals
        // 97..100 round to 112 and give 7 waves. Count these instead of failing on them.
        let legacy_table = cfg.target.has_agprs() && (97..=100).contains(&k.sgprs);
        if legacy_table && llvm == 8 && ours.waves_per_simd == 7 {
            legacy += 1;
            continue;
        }
        if ours.waves_per_simd != llvm {
            mismatches.push(format!(
                "{}: llvm {llvm}, ours {} ({:?}) for {k:?}",
                case.name, ours.waves_per_simd, ours.limiter
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{preset}: {} of {} differ:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
    // The SGPR sweep has exactly one total in 97..100 on gfx9 (s94 -> 98 or 100 with VCC,
    // FLAT_SCRATCH, XNACK_MASK).
    let expected_legacy = usize::from(cfg.target.has_agprs());
    assert_eq!(legacy, expected_legacy, "{preset}: SGPR legacy-table cases");
    cases.len()
}

#[test]
fn gfx90a_matches_llvm() {
    check("mi250x", &[], 64);
}

#[test]
fn gfx942_matches_llvm() {
    check("mi300x", &[], 64);
}

#[test]
fn gfx950_matches_llvm() {
    check("mi355x", &[], 64);
}

#[test]
fn gfx1201_wave32_matches_llvm() {
    check("rx9070xt", &["-mcumode"], 32);
}

#[test]
fn gfx1200_wave64_matches_llvm() {
    check("rx9060xt", &["-mcumode", "-mwavefrontsize64"], 64);
}
