//! `gfxsim info`: describe a code object (target, image, kernels, arguments, resources and
//! the decoded kernel descriptor bits).

use crate::CliError;
use gpu_model::loader::bundle::{self, Container, Fatbin, Storage, FATBIN_SECTION};
use gpu_model::loader::{CodeObject, Kernel, RelocKind, UserSgpr};
use gpu_model::{Family, Target};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `gfxsim info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code object (`.hsaco`, `.co`: an AMDGPU ELF file), a clang offload bundle
    /// (`.hipfb`, compressed or not) or a HIP host executable or shared library.
    pub code_object: PathBuf,
    /// Only describe this kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    /// For a bundle or HIP binary: describe the entry for this target id (`gfx942`,
    /// `gfx942:sramecc+:xnack-`; one per translation unit); without it, every entry gfxsim
    /// can load.
    #[arg(long)]
    pub target: Option<String>,
}

/// Runs `gfxsim info`.
pub fn main(args: Args) -> Result<(), CliError> {
    let path = args.code_object.display().to_string();
    let target = super::parse_target(args.target.as_deref())?;
    let bytes = super::read_file(&args.code_object)?;
    let mut out = String::new();
    let loaded = if bundle::is_container(&bytes) {
        let fb = Fatbin::parse(&bytes).map_err(|e| CliError::BadInput(format!("{path}: {e}")))?;
        out.push_str(&describe_bundle(&path, &fb));
        match &target {
            Some(t) => super::read_candidates(&args.code_object, t)?,
            None => super::read_all_code_objects(&args.code_object)?.0,
        }
    } else {
        vec![super::read_code_object(&args.code_object, None)?]
    };
    for l in &loaded {
        if let Some(k) = &args.kernel {
            if l.co.kernel(k).is_none() {
                let names: Vec<&str> = l.co.kernels().iter().map(|k| k.name.as_str()).collect();
                return Err(CliError::BadInput(format!(
                    "{path}: no kernel `{k}` (kernels: {})",
                    names.join(", ")
                )));
            }
        }
        let name = match &l.entry {
            Some(id) => format!("{path} [{id}]"),
            None => path.clone(),
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&describe(&name, &l.co, args.kernel.as_deref()));
    }
    print!("{out}");
    Ok(())
}

/// The entry table of a bundle or HIP binary.
pub fn describe_bundle(path: &str, fb: &Fatbin) -> String {
    let mut s = String::new();
    let what = match fb.container {
        Container::HostElf { section_offset } => {
            format!("HIP host binary, {FATBIN_SECTION} at file offset {section_offset:#x}")
        }
        _ => "clang offload bundle".to_string(),
    };
    let _ = writeln!(s, "{path}: {what}, {} entries", fb.entries.len());
    for e in &fb.entries {
        let storage = match e.storage {
            Storage::Plain => "plain".to_string(),
            Storage::Compressed { version, method } => format!("CCOB v{version} {method}"),
        };
        let note = match e.target.as_ref().map(|t| t.target()) {
            None => "",
            Some(Some(_)) => "",
            Some(None) => " (target not simulated)",
        };
        let _ = writeln!(
            s,
            "  bundle {} {storage:<13} {:>7} bytes  {}{note}",
            e.bundle,
            e.bytes.len(),
            e.id
        );
    }
    s
}

/// The whole description as text.
pub fn describe(path: &str, co: &CodeObject, only: Option<&str>) -> String {
    let mut s = String::new();
    let t = co.target();
    let _ = writeln!(s, "{path}");
    let _ = writeln!(
        s,
        "  target {} (e_flags {:#x}: xnack {}, sramecc {}), code object v{}{}",
        co.target_id(),
        co.e_flags(),
        co.xnack(),
        co.sramecc(),
        co.version(),
        co.generic_version()
            .map(|g| format!(", generic version {g}"))
            .unwrap_or_default()
    );
    match (co.metadata_target(), co.metadata_version()) {
        (Some(tgt), Some((a, b))) => {
            let _ = writeln!(s, "  metadata amdhsa.target {tgt}, amdhsa.version {a}.{b}");
        }
        (tgt, ver) => {
            let _ = writeln!(s, "  metadata target {tgt:?}, version {ver:?}");
        }
    }
    let img = co.image();
    let _ = writeln!(
        s,
        "  image: load size {:#x}, base alignment {:#x}, .text at {:#x} ({} bytes)",
        img.load_size,
        img.align,
        co.text_address(),
        co.text().len()
    );
    for seg in &img.segments {
        let _ = writeln!(
            s,
            "    segment {:#07x}..{:#07x} {}{}{} ({} file bytes from offset {:#x})",
            seg.vaddr,
            seg.vaddr + seg.mem_size,
            if seg.read { 'r' } else { '-' },
            if seg.write { 'w' } else { '-' },
            if seg.execute { 'x' } else { '-' },
            seg.data.len(),
            seg.file_offset
        );
    }
    if !co.relocations().is_empty() {
        let _ = writeln!(s, "  dynamic relocations: {}", co.relocations().len());
        for r in co.relocations() {
            let kind = match r.kind {
                RelocKind::Abs64 => "R_AMDGPU_ABS64".to_string(),
                RelocKind::Relative64 => "R_AMDGPU_RELATIVE64".to_string(),
                RelocKind::Other(n) => format!("type {n} (unsupported)"),
            };
            let _ = writeln!(
                s,
                "    {:#07x} {kind} {}{:+#x}",
                r.offset,
                if r.symbol.is_empty() {
                    "base"
                } else {
                    &r.symbol
                },
                r.addend
            );
        }
    }
    for k in co.kernels() {
        if only.is_some_and(|n| n != k.name) {
            continue;
        }
        kernel(&mut s, t, k);
    }
    s
}

/// Describes one kernel.
fn kernel(s: &mut String, t: Target, k: &Kernel) {
    let d = &k.descriptor;
    let _ = writeln!(s, "\nkernel {}", k.name);
    let _ = writeln!(
        s,
        "  descriptor at {:#x}, entry at {:#x} (descriptor {:+#x}){}",
        k.descriptor_address,
        k.entry_address,
        d.kernel_code_entry_byte_offset,
        if d.kernarg_preload_length() > 0 && t.family() == Family::Gfx9 {
            format!(", preload entry {:#x}", k.preload_entry_address(t))
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "  wave{}, kernarg {} bytes, LDS {} bytes static, scratch {} bytes per work-item",
        k.wave_size(t),
        d.kernarg_size,
        d.group_segment_fixed_size,
        d.private_segment_fixed_size
    );
    let sgprs = d
        .allocated_sgprs(t)
        .map(|n| format!(", {n} SGPRs"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "  allocated: {} VGPRs{sgprs}{}",
        d.allocated_vgprs(t),
        if t.has_agprs() {
            format!(" (AGPRs from v{})", d.first_agpr())
        } else {
            String::new()
        }
    );
    match &k.metadata {
        None => {
            let _ = writeln!(s, "  metadata: none (no NT_AMDGPU_METADATA entry)");
        }
        Some(m) => {
            let _ = writeln!(
                s,
                "  metadata: sgpr {}, vgpr {}, agpr {}, spills sgpr {} vgpr {}, max workgroup {}, kernarg align {}, dynamic stack {}{}",
                m.sgpr_count,
                m.vgpr_count,
                m.agpr_count,
                m.sgpr_spill_count.unwrap_or(0),
                m.vgpr_spill_count.unwrap_or(0),
                m.max_flat_workgroup_size,
                m.kernarg_segment_align,
                if m.uses_dynamic_stack { "yes" } else { "no" },
                m.language
                    .as_ref()
                    .map(|l| format!(", language {l}"))
                    .unwrap_or_default()
            );
            let _ = writeln!(
                s,
                "  {:>6} {:>4}  {:<26} {:<9} {:<14} name",
                "offset", "size", "value kind", "space", "type"
            );
            for a in &m.args {
                let _ = writeln!(
                    s,
                    "  {:>6} {:>4}  {:<26} {:<9} {:<14} {}{}",
                    a.offset,
                    a.size,
                    a.value_kind.as_str(),
                    a.address_space.as_ref().map_or("-", |x| x.as_str()),
                    a.type_name.as_deref().unwrap_or("-"),
                    a.name.as_deref().unwrap_or("-"),
                    if a.is_const { " (const)" } else { "" }
                );
            }
        }
    }
    descriptor_bits(s, t, k);
}

/// Decodes the descriptor's bit fields.
fn descriptor_bits(s: &mut String, t: Target, k: &Kernel) {
    let d = &k.descriptor;
    let f = t.family();
    let on = |b: bool, name: &'static str| if b { Some(name) } else { None };
    let list = |v: Vec<Option<&str>>| {
        let v: Vec<&str> = v.into_iter().flatten().collect();
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join(" ")
        }
    };
    let _ = writeln!(
        s,
        "  rsrc1 {:#010x}: vgpr granules {}, sgpr granules {}, round f32 {} f16/64 {}, denorm f32 {} f16/64 {}, {}",
        d.compute_pgm_rsrc1,
        d.granulated_workitem_vgpr_count(),
        d.granulated_wavefront_sgpr_count(),
        d.float_round_mode_32(),
        d.float_round_mode_16_64(),
        d.float_denorm_mode_32(),
        d.float_denorm_mode_16_64(),
        list(vec![
            on(d.priv_(), "priv"),
            on(d.debug_mode(), "debug"),
            on(f == Family::Gfx9 && d.rsrc1_bit21(), "dx10_clamp"),
            on(f == Family::Gfx9 && d.rsrc1_bit23(), "ieee"),
            on(f == Family::Gfx12 && d.rsrc1_bit21(), "wg_rr_en"),
            on(f == Family::Gfx12 && d.rsrc1_bit23(), "disable_perf"),
            on(d.fp16_ovfl(), "fp16_ovfl"),
            on(f == Family::Gfx12 && d.wgp_mode(), "wgp_mode"),
            on(f == Family::Gfx12 && d.mem_ordered(), "mem_ordered"),
            on(f == Family::Gfx12 && d.fwd_progress(), "fwd_progress"),
        ])
    );
    let wi = ["x", "x,y", "x,y,z", "x,y,z (3)"][d.vgpr_workitem_id() as usize];
    let _ = writeln!(
        s,
        "  rsrc2 {:#010x}: user sgprs {}, work-item ids {wi}, exceptions {:#x}, {}",
        d.compute_pgm_rsrc2,
        d.user_sgpr_count(),
        d.exception_enables(),
        list(vec![
            on(d.enable_private_segment(), "private_segment"),
            on(d.enable_trap_handler(), "trap_handler"),
            on(d.enable_workgroup_id_x(), "wg_id_x"),
            on(d.enable_workgroup_id_y(), "wg_id_y"),
            on(d.enable_workgroup_id_z(), "wg_id_z"),
            on(d.enable_workgroup_info(), "wg_info"),
        ])
    );
    match f {
        Family::Gfx9 => {
            let _ = writeln!(
                s,
                "  rsrc3 {:#010x}: accum_offset {} (first AGPR {}), tg_split {}",
                d.compute_pgm_rsrc3,
                d.accum_offset(),
                d.first_agpr(),
                d.tg_split() as u8
            );
        }
        Family::Gfx12 => {
            let _ = writeln!(
                s,
                "  rsrc3 {:#010x}: inst_pref_size {}, glg_en {}, image_op {}",
                d.compute_pgm_rsrc3,
                d.inst_pref_size(),
                d.glg_en() as u8,
                d.image_op() as u8
            );
        }
    }
    let l = d.user_sgpr_layout();
    let mut sg = Vec::new();
    for u in UserSgpr::ORDER {
        let at = match u {
            UserSgpr::PrivateSegmentBuffer => l.private_segment_buffer,
            UserSgpr::DispatchPtr => l.dispatch_ptr,
            UserSgpr::QueuePtr => l.queue_ptr,
            UserSgpr::KernargSegmentPtr => l.kernarg_segment_ptr,
            UserSgpr::DispatchId => l.dispatch_id,
            UserSgpr::FlatScratchInit => l.flat_scratch_init,
            UserSgpr::PrivateSegmentSize => l.private_segment_size,
        };
        if let Some(r) = at {
            let n = u.count();
            let regs = if n == 1 {
                format!("s{r}")
            } else {
                format!("s[{r}:{}]", r + n - 1)
            };
            sg.push(format!("{regs} {u:?}"));
        }
    }
    if let Some(r) = l.kernarg_preload {
        sg.push(format!(
            "s[{r}:{}] kernarg preload ({} dwords from dword {})",
            l.end.saturating_sub(1),
            d.kernarg_preload_length(),
            d.kernarg_preload_offset()
        ));
    }
    let _ = writeln!(
        s,
        "  kernel_code_properties {:#06x}: {}{}{}",
        d.kernel_code_properties,
        if sg.is_empty() {
            "no user SGPRs".to_string()
        } else {
            sg.join(", ")
        },
        if d.wavefront_size32() { ", wave32" } else { "" },
        if d.uses_dynamic_stack() {
            ", dynamic stack"
        } else {
            ""
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_kernels_arguments_and_descriptor_bits() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu-model/tests/fixtures");
        let bytes = std::fs::read(dir.join("kernels_gfx950_v5.hsaco")).unwrap();
        let co = CodeObject::parse(&bytes).unwrap();
        let text = describe("k.hsaco", &co, None);
        assert!(
            text.contains("target gfx950 (e_flags 0x54f: xnack any, sramecc any), code object v5"),
            "{text}"
        );
        assert!(text.contains("\nkernel vadd\n"), "{text}");
        assert!(text.contains("\nkernel lds_dyn\n"), "{text}");
        // vadd's fourth argument, `int n` at offset 24 (from the metadata note).
        assert!(text.contains("      24    4  by_value"), "{text}");
        assert!(text.contains("hidden_block_count_x"), "{text}");
        assert!(text.contains("s[0:1] KernargSegmentPtr"), "{text}");
        let only = describe("k.hsaco", &co, Some("lds_dyn"));
        assert!(!only.contains("kernel vadd"));
        assert!(only.contains("dynamic_shared_pointer"));
    }
}
