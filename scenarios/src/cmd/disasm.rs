//! `gfxsim disasm`: prints the disassembly of a code object's `.text`, like
//! `llvm-objdump -d`, with a label line per function symbol and branch targets.

use crate::CliError;
use gpu_model::isa::{self, Format};
use gpu_model::loader::{CodeObject, SymbolKind};
use gpu_model::Family;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `gfxsim disasm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code object (ELF, `.hsaco`), offload bundle or HIP host binary.
    pub path: PathBuf,
    /// For a bundle or HIP binary with several device entries: the target id whose entry
    /// to disassemble (`gfx1201`, `gfx942:xnack-`; one per translation unit).
    #[arg(long)]
    pub target: Option<String>,
}

/// Runs `gfxsim disasm`.
pub fn main(args: Args) -> Result<(), CliError> {
    let target = super::parse_target(args.target.as_deref())?;
    // With a target, the entry of each translation unit's bundle.
    let objects = match &target {
        Some(t) => super::read_candidates(&args.path, t)?,
        None => vec![super::read_code_object(&args.path, None)?],
    };
    for l in &objects {
        let name = match &l.entry {
            Some(id) => format!("{} [{id}]", args.path.display()),
            None => args.path.display().to_string(),
        };
        print!("{}", disassemble(&l.co, &name));
    }
    Ok(())
}

/// The disassembly listing of a code object.
pub fn disassemble(co: &CodeObject, name: &str) -> String {
    let t = co.target();
    // The wave size is per kernel in the descriptor; LLVM prints a whole object with one
    // setting, so use wave64 if any kernel is wave64 (GFX9 is always wave64).
    let wave32 = t.family() == Family::Gfx12 && co.kernels().iter().all(|k| k.wave_size(t) == 32);
    let text = co.text();
    let base = co.text_address();
    let mut labels: Vec<(u64, &str)> = co
        .symbols()
        .iter()
        .filter(|s| s.defined && matches!(s.kind, SymbolKind::Func | SymbolKind::NoType))
        .filter(|s| s.address >= base && s.address < base + text.len() as u64)
        .filter(|s| !s.name.is_empty())
        .map(|s| (s.address, s.name.as_str()))
        .collect();
    labels.sort();
    labels.dedup_by_key(|l| l.0);
    let label_of = |addr: u64| -> String {
        let i = labels.partition_point(|l| l.0 <= addr);
        match i.checked_sub(1).map(|i| labels[i]) {
            Some((a, n)) if a == addr => format!("<{n}>"),
            Some((a, n)) => format!("<{n}+{:#x}>", addr - a),
            None => String::new(),
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:"
    );
    let mut off = 0usize;
    let mut line = String::new();
    while off < text.len() {
        let addr = base + off as u64;
        if let Ok(i) = labels.binary_search_by_key(&addr, |l| l.0) {
            let _ = writeln!(out, "\n{addr:016x} <{}>:", labels[i].1);
        }
        // llvm-objdump (without --disassemble-zeroes) prints a run of at least 8 zero
        // bytes up to the next symbol as `...` and skips it in whole dwords.
        let end = labels
            .get(labels.partition_point(|l| l.0 <= addr))
            .map_or(text.len(), |l| (l.0 - base) as usize);
        let zeros = text[off..end].iter().take_while(|&&b| b == 0).count();
        if zeros >= 8 {
            out.push_str("\t\t...\n");
            off += zeros & !3;
            continue;
        }
        line.clear();
        let (len, target) = match isa::decode(t, &text[off..], wave32) {
            Ok(inst) => {
                let _ = write!(line, "{inst}");
                let target =
                    (inst.format == Format::Sopp && is_branch(inst.mnemonic())).then(|| {
                        let simm = inst.field(isa::layout::F::Simm16) as u16 as i16;
                        addr.wrapping_add(4)
                            .wrapping_add_signed(i64::from(simm) * 4)
                    });
                (usize::from(inst.len), target)
            }
            Err(e) => {
                let n = (text.len() - off).min(4);
                let mut w = [0u8; 4];
                w[..n].copy_from_slice(&text[off..off + n]);
                // Keep the listing in step over encodings the decoder knows the length
                // of but does not decode yet (DPP/SDWA extension dwords).
                let len = match e {
                    isa::DecodeError::Unsupported {
                        what: "sdwa" | "dpp",
                        ..
                    } => 8,
                    isa::DecodeError::Unsupported {
                        what: "vop3-dpp", ..
                    } => 12,
                    _ => 4,
                };
                let _ = write!(line, ".long 0x{:08x} ; {e}", u32::from_le_bytes(w));
                (len.min(text.len() - off).max(n), None)
            }
        };
        // llvm-objdump pads the text to 59 columns and writes the comment right after.
        let _ = write!(out, "\t{line:<59}// {addr:012X}:");
        for k in (off..(off + len).min(text.len())).step_by(4) {
            let mut w = [0u8; 4];
            let n = (text.len() - k).min(4);
            w[..n].copy_from_slice(&text[k..k + n]);
            let _ = write!(out, " {:08X}", u32::from_le_bytes(w));
        }
        if let Some(tg) = target {
            let _ = write!(out, " {}", label_of(tg));
        }
        out.push('\n');
        off += len;
    }
    out
}

fn is_branch(m: &str) -> bool {
    m.starts_with("s_branch") || m.starts_with("s_cbranch")
}
