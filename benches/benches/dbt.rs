//! Translation throughput and text growth (`cargo bench -p gfxsim-benches --bench dbt`):
//! translates every gfx950 code object of corpus/ and corpus/triton/ to gfx942 and prints
//! bytes of guest `.text` per second (fastest and median of the passes), then each
//! object's `.text` growth: objects whose kernels need no gfx950-only instruction stay in
//! place (target: at most 1.05x), the others are relocated with their EXPAND rules.
//! Last, on the simulator: dynamic wave-instructions of every clang-corpus case (the
//! manifest's inputs) translated to gfx942 and to gfx1201 (wave64) against the native
//! gfx942 and gfx1201 wave64 builds of the same source, and against the gfx950 original.

#[path = "../../gpu-model/tests/corpus/manifest.rs"]
#[allow(dead_code)]
mod manifest;

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
    dynamic();
}

/// Wave-instructions retired by `case` from `bytes` on `target`, or why it did not run.
fn retired(case: &manifest::Case, bytes: &[u8], target: Target) -> Result<u64, String> {
    manifest::launch(case, bytes, target).map(|r| r.instructions)
}

/// Dynamic wave-instructions on the simulator: for each host, the cases that have a
/// native build of the same source, split by whether the translation kept the guest's
/// instruction stream (in place) or relocated it; totals against the native builds and
/// against the gfx950 original.
fn dynamic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let Ok(text) = std::fs::read_to_string(root.join("manifest.ron")) else {
        println!("dynamic instructions: no corpus/manifest.ron");
        return;
    };
    let m: manifest::Manifest = match ron::from_str(&text) {
        Ok(m) => m,
        Err(e) => {
            println!("dynamic instructions: corpus/manifest.ron: {e}");
            return;
        }
    };
    let read =
        |dir: &str, stem: &str| std::fs::read(root.join(format!("build/{dir}/{stem}.hsaco")));
    for (host, native_dir) in [(Target::Gfx942, "gfx942"), (Target::Gfx1201, "gfx1201-w64")] {
        // [in place, relocated]: (cases, gfx950 original, translated, native host build)
        let mut sums = [(0usize, 0u64, 0u64, 0u64); 2];
        let mut skipped = Vec::new();
        for case in m
            .kernels
            .iter()
            .filter(|c| c.variants.iter().any(|v| v == "gfx950"))
        {
            let (Ok(guest), Ok(native)) =
                (read("gfx950", &case.stem), read(native_dir, &case.stem))
            else {
                continue;
            };
            let t = dbt::translate(&guest, host);
            if !t.translated {
                skipped.push(format!("{}: not translated", case.name));
                continue;
            }
            let moved = t
                .kernels
                .iter()
                .any(|k| k.status == dbt::KernelStatus::Relocated);
            match (
                retired(case, &guest, Target::Gfx950),
                retired(case, &t.object, host),
                retired(case, &native, host),
            ) {
                (Ok(g), Ok(h), Ok(n)) => {
                    let s = &mut sums[usize::from(moved)];
                    *s = (s.0 + 1, s.1 + g, s.2 + h, s.3 + n);
                }
                (g, h, n) => skipped.push(format!("{}: {g:?} {h:?} {n:?}", case.name)),
            }
        }
        for (k, what) in ["in place", "relocated"].iter().enumerate() {
            let (n, g, h, nat) = sums[k];
            if n == 0 {
                continue;
            }
            println!(
                "dynamic wave-instructions gfx950->{}, {n} cases {what}: translated {h}, native {native_dir} build {nat} ({:.3}x), gfx950 original {g} ({:.3}x)",
                host.name(),
                h as f64 / nat.max(1) as f64,
                h as f64 / g.max(1) as f64
            );
        }
        for s in &skipped {
            println!("  not counted: {s}");
        }
    }
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
