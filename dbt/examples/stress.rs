//! Stress driver for the translator (a development aid, not run in CI): generated kernels
//! (tools/difftest) of many seeds, compiled by clang-22 for gfx950, translated to gfx942
//! and gfx1201, run on the models and compared bit for bit with the gfx950 run (and the
//! host reference, reported apart: known LLVM 22 miscompiles differ on every target).
//!
//! `cargo run --release -p dbt --example stress -- SEED_FROM SEED_TO COUNT FEATURES OPTS`
//! e.g. `... -- 2 30 150 all 0,1,3`; the work directory is `$TMPDIR/dbt-stress`.
//! `... -- min SEED INDEX FEATURES OPT HOST` removes kernel lines while the translated
//! run still differs from the gfx950 run and prints the result.
use difftest::{batch_source, compile_device, gen, host_reference, run_device, Build};
use gpu_model::Target;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.first().map(String::as_str) == Some("min") {
        return minimize(&a[1..]);
    }
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let from: u64 = arg(0, "2").parse().expect("seed from");
    let to: u64 = arg(1, "2").parse().expect("seed to");
    let count: u64 = arg(2, "100").parse().expect("count");
    let features = gen::Features::parse(&arg(3, "")).expect("features");
    let opts: Vec<u8> = arg(4, "0,1,3")
        .split(',')
        .map(|o| o.parse().expect("opt"))
        .collect();
    let hosts = [Target::Gfx942, Target::Gfx1201];
    let root = std::env::temp_dir().join("dbt-stress");
    let (mut ok, mut bad, mut refused, mut hostdiff) = ([0usize; 2], [0usize; 2], [0usize; 2], 0);
    for seed in from..=to {
        let dir = root.join(format!("s{seed}"));
        std::fs::create_dir_all(&dir).unwrap();
        let kernels: Vec<gen::Kernel> = (0..count)
            .map(|i| gen::kernel_with(seed, i, features))
            .collect();
        let inputs: Vec<u32> = (0..count).flat_map(|i| gen::input(seed, i)).collect();
        let src = batch_source(&kernels);
        let cl = dir.join("batch.cl");
        std::fs::write(&cl, &src).unwrap();
        let host = match host_reference(&dir, &src, &kernels, &inputs) {
            Ok(h) => Some(h),
            Err(e) => {
                println!("seed {seed}: host reference failed: {e}");
                None
            }
        };
        for &opt in &opts {
            let b = Build {
                target: Target::Gfx950,
                wave64: true,
                opt,
            };
            let guest = match compile_device(&cl, b, &dir.join(format!("gfx950-O{opt}.hsaco"))) {
                Ok(g) => g,
                Err(e) => {
                    println!("seed {seed} -O{opt}: clang failed: {e}");
                    continue;
                }
            };
            let want = run_device(b, &guest, &kernels, &inputs);
            if let Some(h) = &host {
                for (i, w) in want.iter().enumerate() {
                    if w.as_ref().ok() != Some(&h[i]) && !features.transc {
                        hostdiff += 1;
                        println!("seed {seed} k{i} -O{opt}: gfx950 differs from the host");
                    }
                }
            }
            for (hi, &ht) in hosts.iter().enumerate() {
                let t = std::panic::catch_unwind(|| dbt::translate(&guest, ht));
                let t = match t {
                    Ok(t) => t,
                    Err(_) => {
                        println!("seed {seed} -O{opt} {}: PANIC in translate", ht.name());
                        bad[hi] += kernels.len();
                        continue;
                    }
                };
                if !t.translated {
                    refused[hi] += kernels.len();
                    for d in &t.diagnostics {
                        println!("seed {seed} -O{opt} {}: REFUSED {d}", ht.name());
                    }
                    continue;
                }
                let out = dir.join(format!("{}-O{opt}.hsaco", ht.name()));
                std::fs::write(&out, &t.object).unwrap();
                let od = std::process::Command::new("llvm-objdump-22")
                    .arg("-d")
                    .arg(format!("--mcpu={}", ht.name()))
                    .arg(&out)
                    .output()
                    .expect("llvm-objdump-22");
                let text = String::from_utf8_lossy(&od.stdout);
                if !od.status.success() || text.contains("<unknown>") {
                    println!(
                        "seed {seed} -O{opt} {}: llvm-objdump-22 rejects {} ({})",
                        ht.name(),
                        out.display(),
                        String::from_utf8_lossy(&od.stderr).trim()
                    );
                }
                let hb = Build { target: ht, ..b };
                let got = run_device(hb, &t.object, &kernels, &inputs);
                for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                    if w == g {
                        ok[hi] += 1;
                    } else {
                        bad[hi] += 1;
                        let detail = match (w, g) {
                            (Ok(w), Ok(g)) => {
                                let d: Vec<usize> =
                                    (0..w.len()).filter(|&j| w.get(j) != g.get(j)).collect();
                                format!(
                                    "{} words differ, first {:?}: {:x?} vs {:x?}",
                                    d.len(),
                                    d.first(),
                                    d.first().and_then(|&j| w.get(j)),
                                    d.first().and_then(|&j| g.get(j))
                                )
                            }
                            (w, g) => format!("{:?} vs {:?}", w.as_ref().err(), g.as_ref().err()),
                        };
                        println!("seed {seed} k{i} -O{opt} {}: MISMATCH {detail}", ht.name());
                    }
                }
            }
        }
        println!(
            "after seed {seed}: gfx942 ok {} bad {} refused {}; gfx1201 ok {} bad {} refused {}; gfx950 vs host {hostdiff}",
            ok[0], bad[0], refused[0], ok[1], bad[1], refused[1]
        );
    }
}

/// Whether kernel `k` run translated to `host` differs from its gfx950 run (a refusal or a
/// clang error counts as "no").
fn differs(dir: &std::path::Path, k: &gen::Kernel, input: &[u32], opt: u8, host: Target) -> bool {
    let ks = std::slice::from_ref(k);
    let cl = dir.join("min.cl");
    std::fs::write(&cl, batch_source(ks)).unwrap();
    let b = Build {
        target: Target::Gfx950,
        wave64: true,
        opt,
    };
    let Ok(guest) = compile_device(&cl, b, &dir.join("min.hsaco")) else {
        return false;
    };
    let t = dbt::translate(&guest, host);
    if !t.translated {
        return false;
    }
    std::fs::write(dir.join("min-host.hsaco"), &t.object).unwrap();
    let want = run_device(b, &guest, ks, input);
    let got = run_device(Build { target: host, ..b }, &t.object, ks, input);
    if std::env::var_os("STRESS_SHOW").is_some() {
        for (w, g) in want.iter().zip(&got) {
            match (w, g) {
                (Ok(w), Ok(g)) => {
                    for j in (0..w.len()).filter(|&j| w[j] != g[j]).take(8) {
                        println!("word {j}: gfx950 {:#010x} host {:#010x}", w[j], g[j]);
                    }
                }
                _ => println!("gfx950 {:?}\nhost {:?}", w.as_ref().err(), g.as_ref().err()),
            }
        }
    }
    want != got
}

fn minimize(a: &[String]) {
    let seed: u64 = a[0].parse().unwrap();
    let index: u64 = a[1].parse().unwrap();
    let features = gen::Features::parse(&a[2]).unwrap();
    let opt: u8 = a[3].parse().unwrap();
    let host = if a[4] == "gfx1201" {
        Target::Gfx1201
    } else {
        Target::Gfx942
    };
    let dir = std::env::temp_dir().join(format!("dbt-stress-min-s{seed}-k{index}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut k = gen::kernel_with(seed, index, features);
    let input = gen::input(seed, index);
    if !differs(&dir, &k, &input, opt, host) {
        println!("does not differ");
        return;
    }
    loop {
        let lines: Vec<String> = k.source.lines().map(String::from).collect();
        let mut changed = false;
        let mut cur = lines;
        let mut i = cur.len().saturating_sub(2);
        while i >= 1 {
            let mut trial = cur.clone();
            trial.remove(i);
            let cand = gen::Kernel {
                source: trial.join("\n") + "\n",
                ..k.clone()
            };
            if differs(&dir, &cand, &input, opt, host) {
                cur = trial;
                k = cand;
                changed = true;
            }
            i -= 1;
        }
        if !changed {
            break;
        }
    }
    differs(&dir, &k, &input, opt, host);
    println!("{}\n(objects in {})", k.source, dir.display());
}
