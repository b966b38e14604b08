//! The isa layer's equivalences (`Op::canonical`) against LLVM: every GFX12 rename is an
//! assembler alias llvm-mc-22 accepts on gfx1200 (the old GFX9 name assembles to the new
//! instruction), and GLOBAL/SCRATCH operations map onto the FLAT operation of the same
//! name.

use gpu_model::isa::{self, Op};
use gpu_model::Target;
use std::io::Write;
use std::process::{Command, Stdio};

/// Segment prefixes of the FLAT family.
const SEGS: [&str; 3] = ["flat_", "global_", "scratch_"];

fn seg(name: &str) -> Option<(&'static str, &str)> {
    SEGS.iter()
        .find_map(|p| name.strip_prefix(p).map(|rest| (*p, rest)))
}

/// Assembles `lines` for gfx1200 and returns the mnemonic LLVM prints for each (empty when
/// it rejects the line).
fn assemble(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        let mut child = Command::new("llvm-mc-22")
            .args([
                "-arch=amdgcn",
                "-mcpu=gfx1200",
                "-mattr=+real-true16",
                "-show-encoding",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("llvm-mc-22 must be installed (scripts/test-all.sh installs LLVM 22)");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(format!("{l}\n").as_bytes())
            .expect("write");
        let o = child.wait_with_output().expect("llvm-mc-22 runs");
        let text = String::from_utf8_lossy(&o.stdout);
        let m = text
            .lines()
            .map(str::trim)
            .find(|t| !t.is_empty() && !t.starts_with('.'))
            .and_then(|t| t.split_whitespace().next())
            .unwrap_or("")
            .to_string();
        out.push(m);
    }
    out
}

fn strip(m: &str) -> &str {
    m.strip_suffix("_e32")
        .or_else(|| m.strip_suffix("_e64"))
        .unwrap_or(m)
}

#[test]
fn gfx12_renames_are_llvm_aliases() {
    let forms = isa::Inst::instances(Target::Gfx1200, true);
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for &(alias, canon) in Op::aliases() {
        let Some(inst) = forms.iter().find(|i| i.op == alias) else {
            // A GFX9-only alias (GLOBAL/SCRATCH onto FLAT): checked below.
            continue;
        };
        let text = inst.to_string();
        let (printed, operands) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        // The GFX9 name, in the alias's segment (global_load_dword for global_load_b32).
        let mut old = canon.name().to_string();
        if let (Some((pa, _)), Some((pc, rest))) = (seg(alias.name()), seg(canon.name())) {
            if pa != pc {
                old = format!("{pa}{rest}");
            }
        }
        let suffix = if printed.ends_with("_e64") {
            "_e64"
        } else {
            ""
        };
        lines.push(format!("{old}{suffix} {operands}"));
        want.push((alias, canon, old));
    }
    let got = assemble(&lines);
    let mut confirmed = 0;
    let mut rejected = Vec::new();
    for ((alias, canon, old), m) in want.iter().zip(&got) {
        if strip(m) == alias.name() {
            confirmed += 1;
        } else {
            rejected.push(format!("{old} ({canon:?}) -> `{m}`, want {}", alias.name()));
        }
    }
    println!(
        "{confirmed} of {} GFX12 renames confirmed by llvm-mc-22",
        want.len()
    );
    // LLVM 22 keeps no assembler alias for these GFX9 names on gfx1200. They are the
    // GFX10 renames of the carry-in adds (RDNA ISA guides: V_ADDC_CO_U32 became
    // V_ADD_CO_CI_U32, "D = S0 + S1 + VCC; VCC = carry out", same for the subtractions),
    // with the same operands (vdst, carry-out mask, src0, vsrc1, carry-in mask).
    let documented: &[&str] = &["v_addc_co_u32 ", "v_subb_co_u32 ", "v_subbrev_co_u32 "];
    rejected.retain(|r| !documented.iter().any(|d| r.starts_with(d)));
    assert!(
        rejected.is_empty(),
        "not aliases in LLVM:\n{}",
        rejected.join("\n")
    );
}

#[test]
fn segment_aliases_keep_the_operation() {
    for &(alias, canon) in Op::aliases() {
        let (Some((pa, ra)), Some((pc, rc))) = (seg(alias.name()), seg(canon.name())) else {
            continue;
        };
        if pa == pc {
            continue;
        }
        // Same operation in another segment: the same name after the prefix, or a GFX12
        // rename of it (checked against LLVM above).
        let renamed = Op::aliases()
            .iter()
            .any(|&(a, c)| c == canon && seg(a.name()).is_some_and(|(_, r)| r == ra));
        assert!(ra == rc || renamed, "{alias:?} -> {canon:?}");
    }
}

#[test]
fn compares_are_read_from_names() {
    let c = Op::VCmpGtU32.compare().expect("a compare");
    assert_eq!((c.ty, c.cond, c.writes_exec), (isa::CmpType::U32, 4, false));
    let c = Op::VCmpxNltF32.compare().expect("a compare");
    assert_eq!((c.ty, c.cond, c.writes_exec), (isa::CmpType::F32, 14, true));
    let c = Op::VCmpClassF16.compare().expect("a compare");
    assert_eq!(c.ty, isa::CmpType::ClassF16);
    assert!(Op::VAddF32.compare().is_none());
    assert_eq!(Op::SAndNot1B32.canonical(), Op::SAndn2B32);
    assert_eq!(Op::GlobalLoadB32.canonical(), Op::FlatLoadDword);
    assert_eq!(Op::VAddF32.canonical(), Op::VAddF32);
}
