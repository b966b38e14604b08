//! Decode throughput over the kernel corpus: prints decoded instructions per second on
//! one core, for the fastest and the median of many passes (`cargo bench -p gfxsim-benches
//! --bench decode`).

use gpu_model::isa;
use gpu_model::loader::CodeObject;
use gpu_model::{Family, Target};
use std::path::Path;
use std::time::Instant;

fn corpus() -> Vec<(Target, bool, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hsaco") {
                let Ok(bytes) = std::fs::read(&p) else {
                    continue;
                };
                let Ok(co) = CodeObject::parse(&bytes) else {
                    continue;
                };
                let t = co.target();
                let w32 = t.family() == Family::Gfx12
                    && co.kernels().iter().all(|k| k.wave_size(t) == 32);
                out.push((t, w32, co.text().to_vec()));
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let objs = corpus();
    if objs.is_empty() {
        eprintln!("decode bench: no corpus code objects under corpus/");
        std::process::exit(1);
    }
    let pass = |objs: &[(Target, bool, Vec<u8>)]| -> (u64, u64) {
        let (mut n, mut acc) = (0u64, 0u64);
        for (t, w32, text) in objs {
            let mut off = 0;
            while off < text.len() {
                match isa::decode(*t, &text[off..], *w32) {
                    Ok(i) => {
                        acc = acc.wrapping_add(i.op as u64);
                        off += usize::from(i.len);
                    }
                    Err(_) => off += 4,
                }
                n += 1;
            }
        }
        (n, acc)
    };
    let (per_pass, _) = pass(&objs);
    // Timed passes for two seconds; the fastest is the one least disturbed by whatever
    // else the host was doing, the median says how typical that was.
    let t0 = Instant::now();
    let mut times = Vec::new();
    let mut sink = 0u64;
    while t0.elapsed().as_secs_f64() < 2.0 {
        let t = Instant::now();
        let (_, a) = pass(std::hint::black_box(&objs));
        times.push(t.elapsed().as_secs_f64());
        sink ^= a;
    }
    times.sort_by(f64::total_cmp);
    let rate = |s: f64| per_pass as f64 / s / 1e6;
    println!(
        "decode: {} code objects, {per_pass} instructions per pass, {:.1} M instructions/s (one core; fastest of {} passes, median {:.1}) [{sink}]",
        objs.len(),
        rate(times[0]),
        times.len(),
        rate(times[times.len() / 2]),
    );
}
