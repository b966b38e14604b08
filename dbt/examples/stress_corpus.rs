//! Stress driver for the translator over the corpus (a development aid, not run in CI):
//! every manifest case with a gfx950 build is run from other gfx950 builds of its source
//! (the objects given in a directory as `<stem>-<tag>.hsaco`, e.g. -O0/-O1/-Os/-O3,
//! -ffast-math, code object v4/v5, made by a script), on the gfx950 model and translated
//! to gfx942 and gfx1201; each translated run must write bit for bit what the gfx950
//! run writes.
//!
//! `cargo run --release -p dbt --example stress_corpus -- DIR TAG...`; the objects and the
//! run: `scripts/dbt-stress-corpus.sh`.
#[path = "../../gpu-model/tests/corpus/manifest.rs"]
#[allow(dead_code)]
mod manifest;

use gpu_model::Target;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::PathBuf::from(&a[0]);
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let text = std::fs::read_to_string(root.join("manifest.ron")).expect("manifest.ron");
    let m: manifest::Manifest = ron::from_str(&text).expect("manifest parses");
    let (mut ok, mut bad, mut skipped) = (0, 0, 0);
    for case in &m.kernels {
        if !case.variants.iter().any(|v| v == "gfx950") {
            continue;
        }
        for tag in &a[1..] {
            let p = dir.join(format!("{}-{tag}.hsaco", case.stem));
            let Ok(bytes) = std::fs::read(&p) else {
                skipped += 1;
                continue;
            };
            let want = match manifest::launch(case, &bytes, Target::Gfx950) {
                Ok(r) => r.outputs,
                Err(e) => {
                    println!("{} {tag}: gfx950 run fails: {e}", case.name);
                    skipped += 1;
                    continue;
                }
            };
            for h in [Target::Gfx942, Target::Gfx1201] {
                let t = dbt::translate(&bytes, h);
                if !t.translated {
                    bad += 1;
                    println!(
                        "{} {tag} {}: REFUSED {:?}",
                        case.name,
                        h.name(),
                        t.diagnostics
                    );
                    continue;
                }
                match manifest::launch(case, &t.object, h) {
                    Ok(r) => {
                        let diff: Vec<&String> = want
                            .iter()
                            .filter(|(n, w)| r.outputs.get(*n).map(|g| &g.raw) != Some(&w.raw))
                            .map(|(n, _)| n)
                            .collect();
                        if diff.is_empty() {
                            ok += 1;
                        } else {
                            bad += 1;
                            println!("{} {tag} {}: MISMATCH in {diff:?}", case.name, h.name());
                        }
                    }
                    Err(e) => {
                        bad += 1;
                        println!("{} {tag} {}: ERROR {e}", case.name, h.name());
                    }
                }
            }
        }
    }
    println!("corpus variants: {ok} translated runs the same, {bad} not, {skipped} skipped");
}
