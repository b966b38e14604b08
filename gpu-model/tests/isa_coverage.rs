//! `gfxsim coverage --isa` as a test: every instruction form of every target's ISA table
//! (GFX12 in wave32 and wave64), instantiated with the encoder and executed once in a
//! sandbox wave, runs — except the graphics-pipeline classes, which fault naming their
//! class. Nothing else may be refused.

use gpu_model::coverage::isa_coverage;
use gpu_model::{Family, Target};

#[test]
fn every_compute_instruction_executes() {
    let mut report = Vec::new();
    for t in Target::ALL {
        let waves: &[u32] = if t.family() == Family::Gfx12 {
            &[32, 64]
        } else {
            &[64]
        };
        for &w in waves {
            let r = isa_coverage(t, w);
            println!(
                "{} wave{}: {} entries, {} forms, {} executed, {} graphics, {} refused",
                t.name(),
                w,
                r.entries,
                r.forms,
                r.executed,
                r.graphics.len(),
                r.refused.len()
            );
            // Every form is accounted for, and the tables are not empty.
            assert_eq!(r.executed + r.graphics.len() + r.refused.len(), r.forms);
            assert!(r.entries > 1000, "{}: {} entries", t.name(), r.entries);
            for x in &r.refused {
                report.push(format!(
                    "{} wave{}: {:<56} {}",
                    t.name(),
                    w,
                    x.text,
                    x.reason
                ));
            }
        }
    }
    assert!(
        report.is_empty(),
        "{} compute instruction forms refused:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The executor's graphics-only forms are the ones the ISA metadata flags as graphics.
#[test]
fn graphics_forms_match_the_isa_metadata() {
    for t in Target::ALL {
        let waves: &[u32] = if t.family() == Family::Gfx12 {
            &[32, 64]
        } else {
            &[64]
        };
        for &w in waves {
            let r = isa_coverage(t, w);
            let mut ran: Vec<&str> = r.graphics.iter().map(|(_, s)| s.as_str()).collect();
            ran.sort();
            let forms = gpu_model::isa::Inst::instances(t, w == 32);
            let mut flagged: Vec<String> = forms
                .iter()
                .filter(|i| i.is_graphics())
                .map(|i| i.to_string())
                .collect();
            flagged.sort();
            let only_exec: Vec<&&str> = ran
                .iter()
                .filter(|s| !flagged.iter().any(|f| f == **s))
                .collect();
            let only_meta: Vec<&String> = flagged
                .iter()
                .filter(|f| !ran.contains(&f.as_str()))
                .collect();
            assert!(
                only_exec.is_empty() && only_meta.is_empty(),
                "{} wave{w}: graphics only in the executor: {only_exec:?}; only in the metadata: {only_meta:?}",
                t.name()
            );
        }
    }
}
