//! Kernels of the differential-testing generator (tools/difftest: random, well-defined
//! OpenCL C, seed 1, kernels 0..40) compiled by clang-22 for gfx950 at -O0, -O1 and -O3,
//! translated to gfx942: each translated object passes llvm-readelf-22/llvm-objdump-22 and
//! on the gfx942 model writes, bit for bit, what the original writes on the gfx950 model
//! and what the same source computes on the host. Needs clang-22 (fails without it).

mod common;

use difftest::{batch_source, compile_device, gen, host_reference, run_device, Build};
use gpu_model::Target;

#[test]
fn generated_kernels_translate_and_match_the_host() {
    let dir = std::env::temp_dir().join(format!("dbt-difftest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kernels: Vec<gen::Kernel> = (0..40).map(|i| gen::kernel(1, i)).collect();
    let inputs: Vec<u32> = (0..40).flat_map(|i| gen::input(1, i)).collect();
    let src = batch_source(&kernels);
    let cl = dir.join("batch.cl");
    std::fs::write(&cl, &src).unwrap();
    let host = host_reference(&dir, &src, &kernels, &inputs).expect("host reference (clang-22)");
    let mut problems = Vec::new();
    let mut compared = 0;
    for opt in [0, 1, 3] {
        let b = Build {
            target: Target::Gfx950,
            wave64: true,
            opt,
        };
        let guest = compile_device(&cl, b, &dir.join(format!("gfx950-O{opt}.hsaco")))
            .expect("clang-22 for gfx950");
        let t = dbt::translate(&guest, Target::Gfx942);
        if !t.translated {
            problems.push(format!("-O{opt}: {:?}", t.diagnostics));
            continue;
        }
        common::llvm_accepts(&t.object, &format!("difftest-O{opt}"));
        let hb = Build {
            target: Target::Gfx942,
            ..b
        };
        let want = run_device(b, &guest, &kernels, &inputs);
        let got = run_device(hb, &t.object, &kernels, &inputs);
        for (i, k) in kernels.iter().enumerate() {
            match (&want[i], &got[i]) {
                (Ok(w), Ok(g)) if w == g && *g == host[i] => compared += 1,
                (Ok(w), Ok(g)) if w == g => {
                    problems.push(format!("{} -O{opt}: both differ from the host", k.name))
                }
                (w, g) => problems.push(format!(
                    "{} -O{opt}: gfx950 {:?} vs translated {:?}",
                    k.name,
                    w.as_ref().map(|v| v.len()),
                    g.as_ref().map(|v| v.len())
                )),
            }
        }
    }
    eprintln!("{compared} generated kernels run the same translated");
    assert!(
        problems.is_empty(),
        "{}\n(sources and objects kept in {})",
        problems.join("\n"),
        dir.display()
    );
    assert_eq!(compared, 120);
    let _ = std::fs::remove_dir_all(&dir);
}
