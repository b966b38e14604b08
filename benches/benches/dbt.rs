//! Translation throughput and text growth (`cargo bench -p gfxsim-benches --bench dbt`):
//! translates every gfx950 code object of corpus/ and corpus/triton/ to gfx942 and prints
//! bytes of guest `.text` per second (fastest and median of the passes), then each
//! object's `.text` growth: objects whose kernels need no gfx950-only instruction stay in
//! place (target: at most 1.05x), the others are relocated with their EXPAND rules.

use gpu_model::Target;
use std::path::Path;
use std::time::Instant;

fn objects() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut out = Vec::new();
    for dir in [
        "build/gfx950",
        "build/gfx950-v4",
        "build/gfx950-v5",
        "triton/build/gfx950",
    ] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "hsaco") {
                if let Ok(b) = std::fs::read(&p) {
                    out.push((format!("{dir}/{}", e.file_name().to_string_lossy()), b));
                }
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let objs = objects();
    if objs.is_empty() {
        eprintln!("dbt bench: no gfx950 code objects under corpus/");
        std::process::exit(1);
    }
    let text: usize = objs
        .iter()
        .filter_map(|(_, b)| gpu_model::loader::CodeObject::parse(b).ok())
        .map(|c| c.text().len())
        .sum();
    let mut times = Vec::new();
    for _ in 0..15 {
        let t0 = Instant::now();
        let mut ok = 0;
        for (_, b) in &objs {
            ok += usize::from(dbt::translate(std::hint::black_box(b), Target::Gfx942).translated);
        }
        times.push(t0.elapsed().as_secs_f64());
        std::hint::black_box(ok);
    }
    times.sort_by(f64::total_cmp);
    let rate = |s: f64| text as f64 / s / 1e6;
    println!(
        "dbt gfx950->gfx942: {} objects, {text} bytes of .text: {:.2} MB/s fastest, {:.2} MB/s median",
        objs.len(),
        rate(times[0]),
        rate(times[times.len() / 2])
    );
    let (mut worst_in_place, mut n_in_place) = (0f64, 0);
    for (name, b) in &objs {
        let t = dbt::translate(b, Target::Gfx942);
        if !t.translated {
            println!("  {name}: not translated: {}", t.diagnostics[0]);
            continue;
        }
        let g = t.text_bytes.1 as f64 / t.text_bytes.0 as f64;
        let relocated = t
            .kernels
            .iter()
            .any(|k| k.status == dbt::KernelStatus::Relocated);
        let scope: (usize, usize) = t
            .kernels
            .iter()
            .fold((0, 0), |a, k| (a.0 + k.code_before, a.1 + k.code_after));
        if relocated {
            println!(
                "  {name}: relocated, .text {} -> {} ({g:.3}x), kernel code {} -> {} ({:.3}x)",
                t.text_bytes.0,
                t.text_bytes.1,
                scope.0,
                scope.1,
                scope.1 as f64 / scope.0.max(1) as f64
            );
        } else {
            n_in_place += 1;
            worst_in_place = worst_in_place.max(g);
        }
    }
    println!("  {n_in_place} objects translated in place: worst .text growth {worst_in_place:.3}x");
    gfx1201(&objs, text);
}

/// The same objects to gfx1201 (RDNA4, wave64): throughput over every object (refused
/// ones included: they are translated up to their refusal), and the kernel-code growth
/// of those that translate (every GFX12 body is relocated).
fn gfx1201(objs: &[(String, Vec<u8>)], text: usize) {
    let mut times = Vec::new();
    for _ in 0..15 {
        let t0 = Instant::now();
        for (_, b) in objs {
            std::hint::black_box(dbt::translate(std::hint::black_box(b), Target::Gfx1201));
        }
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let rate = |s: f64| text as f64 / s / 1e6;
    let (mut n, mut before, mut after) = (0, 0usize, 0usize);
    for (_, b) in objs {
        let t = dbt::translate(b, Target::Gfx1201);
        if t.translated {
            n += 1;
            before += t.kernels.iter().map(|k| k.code_before).sum::<usize>();
            after += t.kernels.iter().map(|k| k.code_after).sum::<usize>();
        }
    }
    println!(
        "dbt gfx950->gfx1201: {:.2} MB/s fastest, {:.2} MB/s median; {n} of {} objects translate, kernel code {before} -> {after} bytes ({:.3}x)",
        rate(times[0]),
        rate(times[times.len() / 2]),
        objs.len(),
        after as f64 / before.max(1) as f64
    );
}
