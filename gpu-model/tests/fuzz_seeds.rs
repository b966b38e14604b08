//! The fuzzers' committed seed corpus (`fuzz/seeds/<target>/`) is what this file makes:
//! instruction bytes and code objects from the kernel corpus, and real SoC checkpoints.
//! (The scenario fuzzer's seeds are the example scenarios themselves, see
//! scripts/fuzz-ci.sh.)
//! `BLESS_FUZZ_SEEDS=1` rewrites it; otherwise the committed seeds must be current (the
//! derived ones byte for byte, the checkpoints restorable and finishing with the right
//! answer), so the fuzzers never start from stale or unreadable inputs.

use gpu_model::config::GpuConfig;
use gpu_model::loader::CodeObject;
use gpu_model::soc::{LaunchRequest, Soc, SocOptions};
use simkit::time::Tick;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Code objects the loader, decode and exec seeds come from: one per target and code
/// object version.
const OBJECTS: &[&str] = &[
    "gfx90a/saxpy",
    "gfx942/vadd",
    "gfx942/reduce_lds",
    "gfx942-v4/vadd",
    "gfx950/matmul_tiled",
    "gfx1200/histogram",
    "gfx1201-w64/vadd",
    "gfx1201-v5/vadd",
];

/// Overrides of the `mi300x` preset the checkpoint seeds are taken on (the same text is in
/// fuzz/fuzz_targets/checkpoint.rs).
const SEED_OVERRIDES: &str = r#"{"xcds": 1, "iods": 1, "xcd.active_cus": 2, "iod.mall.size_bytes": 65536, "xcd.l2.size_bytes": 65536}"#;

const N: usize = 2000;

fn seed_config() -> GpuConfig {
    GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(SEED_OVERRIDES)
        .unwrap()
}

/// A SoC running vadd over `N` elements; returns it and the output address.
fn vadd_soc() -> (Soc, u64) {
    let mut soc = Soc::new(&seed_config(), &SocOptions::default()).unwrap();
    let m = soc
        .load_code_object(&read(&root().join("corpus/build/gfx942/vadd.hsaco")))
        .unwrap();
    let [a, b, c] = [0, 1, 2].map(|_| soc.alloc(4 * N as u64).unwrap());
    let av: Vec<u8> = (0..N).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let bv: Vec<u8> = (0..N)
        .flat_map(|i| (0.5 * i as f32).to_le_bytes())
        .collect();
    soc.write(a, &av).unwrap();
    soc.write(b, &bv).unwrap();
    let args = [a, b, c]
        .map(|x| x.to_le_bytes().to_vec())
        .into_iter()
        .chain([(N as u32).to_le_bytes().to_vec()])
        .collect::<Vec<_>>();
    let req = LaunchRequest {
        kernel: "vadd",
        grid: [N as u32, 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds: 0,
        args: &args,
    };
    soc.submit(m, &req).unwrap();
    (soc, c)
}

fn vadd_correct(soc: &Soc, c: u64) -> bool {
    let mut out = vec![0u8; 4 * N];
    soc.read(c, &mut out).unwrap();
    out.chunks(4)
        .enumerate()
        .all(|(i, b)| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) == 1.5 * i as f32)
}

/// Every seed file by target directory and name.
fn derived_seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut seeds = Vec::new();
    for o in OBJECTS {
        let bytes = read(&root().join(format!("corpus/build/{o}.hsaco")));
        let co = CodeObject::parse(&bytes).unwrap();
        let name = o.replace('/', "_");
        // exec: 16 bytes of register seed, then code.
        let mut exec = vec![0u8; 16];
        exec.extend_from_slice(&co.text()[..co.text().len().min(512)]);
        seeds.push((
            "decode",
            name.clone(),
            co.text()[..co.text().len().min(256)].to_vec(),
        ));
        seeds.push(("exec", name.clone(), exec));
        seeds.push(("loader", format!("{name}.hsaco"), bytes));
    }
    for b in ["app_v2_zstd.hipfb", "app_gfx90a_gfx1201.hipfb"] {
        let p = root().join("gpu-model/tests/fixtures/bundles").join(b);
        seeds.push(("bundle", b.to_string(), read(&p)));
    }
    seeds
}

/// Checkpoints of the vadd SoC: before it runs, a quarter and three quarters in.
fn checkpoint_seeds() -> Vec<(String, Vec<u8>)> {
    let (mut soc, _) = vadd_soc();
    let mut seeds = vec![("vadd_start.ckpt".to_string(), soc.checkpoint().unwrap())];
    let (mut full, _) = vadd_soc();
    full.run().unwrap();
    let end = full.now().0;
    for (q, name) in [(1, "vadd_quarter.ckpt"), (3, "vadd_three_quarters.ckpt")] {
        soc.run_until(Tick(end * q / 4)).unwrap();
        seeds.push((name.to_string(), soc.checkpoint().unwrap()));
    }
    seeds
}

#[test]
fn committed_fuzz_seeds_are_current() {
    let dir = root().join("fuzz/seeds");
    let bless = std::env::var_os("BLESS_FUZZ_SEEDS").is_some();
    let mut all: Vec<(String, Vec<u8>)> = derived_seeds()
        .into_iter()
        .map(|(t, n, b)| (format!("{t}/{n}"), b))
        .collect();
    let ckpts = checkpoint_seeds();
    if bless {
        all.extend(
            ckpts
                .iter()
                .map(|(n, b)| (format!("checkpoint/{n}"), b.clone())),
        );
        for (rel, bytes) in &all {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, bytes).unwrap();
        }
        return;
    }
    for (rel, bytes) in &all {
        let p = dir.join(rel);
        assert!(
            std::fs::read(&p).ok().as_ref() == Some(bytes),
            "{} is missing or stale: rerun with BLESS_FUZZ_SEEDS=1",
            p.display()
        );
    }
    for (n, _) in &ckpts {
        let p = dir.join("checkpoint").join(n);
        let mut soc = Soc::new(&seed_config(), &SocOptions::default()).unwrap();
        soc.restore(&read(&p))
            .unwrap_or_else(|e| panic!("{}: {e}: rerun with BLESS_FUZZ_SEEDS=1", p.display()));
        soc.run().unwrap();
        let (_, c) = vadd_soc();
        assert!(vadd_correct(&soc, c), "{}: wrong vadd result", p.display());
    }
}
