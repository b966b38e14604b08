//! dbt: binary translation of AMDGPU code objects from one ISA to another.
//!
//! [`translate`] turns a code object compiled for a guest processor (gfx950, CDNA4) into
//! a loadable code object for a host processor (gfx942, CDNA3, or gfx1201, RDNA4), following
//! ../shared/seeds/000_*-dbt-design.txt:
//!
//! ```text
//! guest ELF -> descriptor plans -> source CFG (cfg) -> kernel scopes (scope)
//!           -> per-instruction legalization (rules: EXPAND, then Identity/Substitute)
//!           -> placement + branch/PC-builder repair -> resource feedback into the
//!              descriptors -> commit through gpu_model::loader::writer -> host ELF
//! ```
//!
//! Placement has two outcomes. When every reachable instruction keeps its size
//! (Identity/Substitute only), nothing moves: the host `.text` is the guest `.text` with
//! each instruction re-encoded at its own address, so indirect calls, function pointers
//! in data and unreferenced bytes all stay valid ("in place"). Otherwise every kernel
//! scope is relocated as a unit into a new `.text`: its descriptor entry keeps the
//! source residue modulo 256, shared helpers are duplicated per scope, SOPP branches and
//! recovered `s_getpc`/`s_add_u32`/`s_addc_u32` builders are repaired, and scratch
//! VGPRs that rules needed grow the descriptor and metadata counts ("relocated").
//!
//! A branch out of the SOPP range after placement takes a long form through an SGPR pair
//! above the scope's SGPRs (`scope::relax`), or, when no pair is free, hops through
//! branch-island pools (`island`).
//!
//! Any failure returns the original object with diagnostics that name the kernel and PC.
//!
//! ```no_run
//! let guest = std::fs::read("k.hsaco").unwrap();
//! let t = dbt::translate(&guest, gpu_model::Target::Gfx942);
//! for k in &t.kernels {
//!     println!("{}: {:?}", k.name, k.status);
//! }
//! std::fs::write("k.gfx942.hsaco", &t.object).unwrap();
//! ```
//!
//! The gfx1201 (RDNA4, wave64) host is `rdna` (GFX12 re-encoding, split wait counters,
//! barriers, the TTMP workgroup-id prologue, gfx1201 descriptors, AGPRs folded into VGPRs;
//! what it refuses is in its module doc).
//!
//! A kernel that needs more LDS than the host has (gfx950 has 160 KiB per workgroup,
//! gfx942 64 KiB) also gets a virtual-LDS sidecar (`vlds`): a second body and a second
//! descriptor (after `.text`, in `.rocjitsu.kd`), named by a record of the `.rocjitsu.lds`
//! section, which the runtime (`gpu_model::device::Device::dispatch` and the SoC's launch
//! path) selects at dispatch time when `max(descriptor LDS, packet group_segment_size)`
//! exceeds the device's LDS; its LDS lives in global memory the runtime allocates (and
//! frees when the dispatch completes). A kernel whose metadata says it takes LDS sized at
//! dispatch (a `dynamic_shared_pointer` or `hidden_dynamic_lds_size` argument) gets one
//! too when it can be built (`KernelReport::no_sidecar` says why not otherwise).
//!
//! EXPAND rules take scratch VGPRs from guest registers that are dead at the instruction
//! (`live`) when there are enough, otherwise above the kernel's highest, and the
//! descriptor grows.
//!
//! Not implemented yet (each is a typed error, never a silent mistranslation): the
//! f32/f64/integer/fp6/fp4/scaled MFMAs on gfx1201 (see `rdna`); sidecars for kernels
//! whose dispatch asks for more LDS without their metadata saying so, and for DS atomics,
//! transposing DS reads and LDS DMA in an over-LDS kernel; entry stubs for kernarg preload when the preload stub grows past 256 bytes
//! (its unreachable padding is refilled so the preload entry stays 256 bytes on), and
//! the gfx950-only instructions without a rule: the scaled and f8f6f4 MFMAs,
//! `ds_read_b64_tr_b4`/`ds_read_b96_tr_b6`, bf16 and f8/f6/f4
//! conversions. Hazard padding (`s_nop`s that the host's pipeline needs and the guest's
//! did not) is not inserted: the model does not check hazards, hardware would (scratch
//! VGPRs reused from dead guest registers add VALU writes after MFMAs and stores that
//! read them, which CDNA3 orders only with such wait states).

pub mod cfg;
mod error;
mod island;
mod live;
mod rdna;
pub mod rules;
pub mod scope;
mod vlds;

pub use error::TranslateError;

use cfg::{Cfg, Root};
use gpu_model::loader::writer::{self, KernelCounts, Rewrite};
use gpu_model::loader::{CodeObject, SymbolKind, ValueKind, KERNEL_DESCRIPTOR_SIZE};
use gpu_model::{Family, Target};
use scope::{Body, Fixup};
use std::collections::BTreeMap;

/// `s_nop 0` on GFX9: fills gaps between relocated bodies.
const GFX9_NOP: [u8; 4] = 0xbf80_0000u32.to_le_bytes();

/// What happened to one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelStatus {
    /// Translated; its code did not move.
    InPlace,
    /// Translated and relocated.
    Relocated,
    /// Not translated (the whole object is then returned unchanged).
    Failed(String),
}

/// Per-kernel figures for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelReport {
    /// Kernel name.
    pub name: String,
    /// What happened.
    pub status: KernelStatus,
    /// Bytes of reachable guest code (the kernel scope).
    pub code_before: usize,
    /// Bytes of host code for the scope.
    pub code_after: usize,
    /// Guest instructions that needed a semantic EXPAND rule.
    pub expanded: usize,
    /// Of those, how many took their scratch VGPRs from guest registers dead at the
    /// instruction (liveness) rather than above the kernel's.
    pub scratch_reused: usize,
    /// VGPRs allocated before/after (descriptor granules, AGPRs included).
    pub vgprs: (u32, u32),
    /// SGPRs allocated before/after.
    pub sgprs: (u32, u32),
    /// Bytes of host code of the virtual-LDS sidecar, when the kernel has one (it needs,
    /// or with dynamic LDS may need, more LDS than the host has; see `vlds`).
    pub sidecar: Option<usize>,
    /// Why a kernel that may take dynamic LDS got no sidecar (its dispatches over the
    /// host's LDS are then refused by the runtime).
    pub no_sidecar: Option<String>,
}

/// The result of [`translate`].
#[derive(Debug, Clone)]
pub struct Translation {
    /// The host object, or the original bytes when translation failed.
    pub object: Vec<u8>,
    /// Whether `object` is a translation.
    pub translated: bool,
    /// Per kernel.
    pub kernels: Vec<KernelReport>,
    /// Everything that went wrong.
    pub diagnostics: Vec<TranslateError>,
    /// `.text` bytes before and after.
    pub text_bytes: (usize, usize),
}

/// Translates `guest` (code object bytes) for `host`. Never panics on input.
pub fn translate(guest: &[u8], host: Target) -> Translation {
    let mut kernels = Vec::new();
    match translate_inner(guest, host, &mut kernels) {
        Ok((object, text_bytes)) => Translation {
            object,
            translated: true,
            kernels,
            diagnostics: Vec::new(),
            text_bytes,
        },
        Err(e) => {
            for k in &mut kernels {
                if !matches!(k.status, KernelStatus::Failed(_)) {
                    k.status = KernelStatus::Failed("another kernel of the object failed".into());
                }
            }
            Translation {
                object: guest.to_vec(),
                translated: false,
                kernels,
                diagnostics: vec![e],
                text_bytes: (0, 0),
            }
        }
    }
}

/// One kernel's plan: descriptor, roots, report.
#[derive(Clone)]
struct Plan {
    name: String,
    kd_addr: u64,
    kd: gpu_model::loader::KernelDescriptor,
    roots: Vec<u64>,
    agprs: u32,
    meta_counts: Option<KernelCounts>,
    /// Kernarg bytes the runtime lays out (metadata and descriptor sizes, at least 16).
    kernarg_bytes: u32,
    /// The kernel needs more LDS than the host has: it gets a virtual-LDS sidecar.
    over_lds: bool,
    /// The kernel takes LDS sized at dispatch, which may exceed the host's: it gets a
    /// sidecar when one can be built (otherwise only its normal body).
    dynamic_lds: bool,
    /// For a sidecar variant: its slice-base SGPR pair and the dispatch state's offset.
    sidecar: Option<(u16, u32)>,
}

fn check_pair(guest: Target, host: Target) -> Result<(), TranslateError> {
    // Only CDNA4 -> CDNA3: the same GFX9 encodings, wave64 on both sides.
    if guest == Target::Gfx950 && host == Target::Gfx942 {
        Ok(())
    } else {
        Err(TranslateError::UnsupportedPair { guest, host })
    }
}

fn plans(co: &CodeObject, host: Target) -> Result<Vec<Plan>, TranslateError> {
    let guest = co.target();
    let (start, end) = (
        co.text_address(),
        co.text_address() + co.text().len() as u64,
    );
    let mut out: Vec<Plan> = Vec::new();
    for k in co.kernels() {
        let mut roots = vec![k.entry_address];
        let pre = k.preload_entry_address(guest);
        if pre != k.entry_address {
            roots.push(pre);
        }
        for &r in &roots {
            if r < start || r >= end {
                return Err(TranslateError::EntryOutsideText {
                    kernel: k.name.clone(),
                    entry: r,
                    start,
                    end,
                });
            }
        }
        let d = &k.descriptor;
        let over_lds = d.group_segment_fixed_size > host.lds_bytes_per_workgroup();
        // LDS sized at dispatch: an OpenCL `__local` pointer argument
        // (`dynamic_shared_pointer`) or HIP `extern __shared__`, for which LLVM emits the
        // `hidden_dynamic_lds_size` argument (AMDGPUUsage, code object V5 implicit
        // arguments). A kernel with neither can still be given dynamic LDS by a packet's
        // group_segment_size; the runtime then refuses a dispatch over the host's LDS.
        let dynamic_lds = k.metadata.as_ref().is_some_and(|m| {
            m.args.iter().any(|a| {
                matches!(
                    a.value_kind,
                    ValueKind::DynamicSharedPointer | ValueKind::HiddenDynamicLdsSize
                )
            })
        });
        if d.wave_size(guest) != 64 {
            return Err(TranslateError::Unsupported {
                kernel: k.name.clone(),
                reason: "wave32 cannot be kept on the host".into(),
            });
        }
        for p in &out {
            let kd_overlap = k.descriptor_address < p.kd_addr + KERNEL_DESCRIPTOR_SIZE as u64
                && p.kd_addr < k.descriptor_address + KERNEL_DESCRIPTOR_SIZE as u64;
            let what = if kd_overlap {
                Some("their descriptors overlap")
            } else if p.roots[0] == k.entry_address {
                Some("they share an entry")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(TranslateError::OverlappingKernels {
                    first: p.name.clone(),
                    second: k.name.clone(),
                    what,
                });
            }
        }
        let m = k.metadata.as_ref();
        out.push(Plan {
            name: k.name.clone(),
            kd_addr: k.descriptor_address,
            kd: *d,
            roots,
            agprs: m.map_or(0, |m| m.agpr_count),
            meta_counts: m.map(|m| KernelCounts {
                vgpr: m.vgpr_count,
                sgpr: m.sgpr_count,
                agpr: m.agpr_count,
            }),
            kernarg_bytes: m
                .map_or(0, |m| m.kernarg_segment_size)
                .max(d.kernarg_size)
                .max(16),
            over_lds,
            dynamic_lds,
            sidecar: None,
        });
    }
    Ok(out)
}

fn translate_inner(
    guest_bytes: &[u8],
    host: Target,
    reports: &mut Vec<KernelReport>,
) -> Result<(Vec<u8>, (usize, usize)), TranslateError> {
    let co = CodeObject::parse(guest_bytes)?;
    let guest = co.target();
    if guest == Target::Gfx950 && host == Target::Gfx1201 {
        return rdna::translate(guest_bytes, reports);
    }
    check_pair(guest, host)?;
    let plans = plans(&co, host)?;
    let (text, base) = (co.text(), co.text_address());
    let end = base + text.len() as u64;
    let cfg = guest_cfg(&co, &plans, reports)?;

    // Scopes and bodies; whether everything keeps its size decides the placement.
    let mut bodies = Vec::new();
    // The SGPR pair for long branches: above every SGPR the scope touches.
    let mut pairs: Vec<Option<u16>> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let sc = match scope::scope(&cfg, &p.roots, &p.name) {
            Ok(s) => s,
            Err(e) => {
                // Unrecovered transfers matter only when code moves: try in place.
                bodies.push(Err(e));
                pairs.push(None);
                continue;
            }
        };
        pairs.push(
            scope::sgpr_extent(&cfg, &sc)
                .map(|e| e.next_multiple_of(2))
                .filter(|&e| e + 2 <= 102),
        );
        let alloc = p.kd.allocated_vgprs(guest);
        let first = scope::vgpr_extent(&cfg, &sc).map_or(alloc, u32::from);
        let preload = p.roots.get(1).map(|&pre| (p.roots[0], pre));
        // MODE bits 7:0 start as the descriptor's FLOAT_MODE (COMPUTE_PGM_RSRC1 bits
        // 19:12: round 32, round 16/64, denorm 32, denorm 16/64; LLVM
        // AMDHSAKernelDescriptor.h).
        let float_mode = (p.kd.compute_pgm_rsrc1 >> 12 & 0xff) as u8;
        let body = scope::emit(
            &cfg,
            &sc,
            text,
            base,
            host,
            first as u16,
            &p.name,
            preload,
            float_mode,
            None,
        )?;
        reports[i].code_before = body.source_bytes;
        reports[i].code_after = body.code.len();
        reports[i].expanded = body.expanded;
        reports[i].scratch_reused = body.reused;
        bodies.push(Ok(body));
    }
    // Virtual-LDS sidecars, placed after every normal body.
    let normal = plans.len();
    let mut plans = plans;
    for i in 0..normal {
        if !plans[i].over_lds && !plans[i].dynamic_lds {
            continue;
        }
        let (p, sc) = match sidecar_body(&cfg, &plans[i], text, base, guest, host) {
            Ok(x) => x,
            Err(e) if !plans[i].over_lds => {
                reports[i].no_sidecar = Some(e.to_string());
                continue;
            }
            Err(e) => return Err(e),
        };
        reports[i].sidecar = Some(sc.code.len());
        pairs.push(Some(p.sidecar.map_or(0, |s| s.0) + 2));
        plans.push(p);
        bodies.push(Ok(sc));
    }
    let sidecars = plans.len() - normal;
    // The report of each plan (a sidecar's is its kernel's).
    let report_of: Vec<usize> = (0..plans.len())
        .map(|i| {
            if i < normal {
                i
            } else {
                plans
                    .iter()
                    .position(|q| q.name == plans[i].name)
                    .unwrap_or(0)
            }
        })
        .collect();
    // In place when every decoded instruction (kernel scopes and unreferenced functions)
    // keeps its size; a kernel whose scope could not be formed (an unrecovered indirect
    // transfer) can only be translated in place. Sidecars are new code: never in place.
    let scope_error = bodies.iter().find_map(|b| b.as_ref().err().cloned());
    // Sidecars that only dynamic LDS asks for give way to a translation in place that
    // another kernel needs.
    let optional = plans[..normal].iter().all(|p| !p.over_lds);
    let in_place = match translate_in_place(&cfg, text, base, host) {
        Ok(t) if sidecars == 0 => Some(t),
        Ok(t) if optional && scope_error.is_some() => {
            for r in reports.iter_mut().filter(|r| r.sidecar.is_some()) {
                r.sidecar = None;
                r.no_sidecar = Some("another kernel's code cannot move".into());
            }
            plans.truncate(normal);
            bodies.truncate(normal);
            pairs.truncate(normal);
            Some(t)
        }
        // The relocating path reports anything that really is reachable.
        _ => match scope_error {
            Some(se) => return Err(se),
            None => None,
        },
    };
    let mut tail = Vec::new();
    let mut records = Vec::new();
    // Relocated bodies' PC-relative data references: (entries, entry offsets, refs).
    let mut data_refs = None;
    let rw_text;
    let mut descriptors = Vec::new();
    let mut counts: Vec<(String, KernelCounts)> = Vec::new();
    let text_map: BTreeMap<u64, u64>;
    if let Some(t) = in_place {
        rw_text = t;
        text_map = BTreeMap::new();
        for r in reports.iter_mut() {
            r.status = KernelStatus::InPlace;
            r.code_after = r.code_before;
        }
    } else {
        let mut bodies: Vec<Body> = bodies.into_iter().collect::<Result<_, _>>()?;
        let mut relaxed = vec![false; plans.len()];
        let mut rounds = 0;
        let Placed {
            text: t,
            entries,
            starts,
            data,
            map,
        } = loop {
            let long = match place(&plans, &bodies, base, text.len())? {
                Ok(p) => break p,
                Err(long) => long,
            };
            // Some branches no longer reach: give them long forms and place again
            // (growth only moves code further apart, so this converges; bounded anyway).
            rounds += 1;
            for (i, b) in bodies.iter_mut().enumerate() {
                let mine: Vec<&Long> = long.iter().filter(|l| l.body == i).collect();
                let Some(first) = mine.first() else {
                    continue;
                };
                let out_of_range = TranslateError::BranchOutOfRange {
                    kernel: plans[i].name.clone(),
                    pc: first.pc,
                    distance: first.distance,
                };
                if rounds > 8 {
                    return Err(out_of_range);
                }
                let set = mine.iter().map(|l| l.at).collect();
                let Some(pair) = pairs[i] else {
                    // No SGPR pair is free: hop through branch islands.
                    let keep_out = match plans[i].roots[..] {
                        [e, pre] => b.map.get(&e).copied().zip(b.map.get(&pre).copied()),
                        _ => None,
                    };
                    *b = island::route(b, &set, keep_out, &plans[i].name, host)?;
                    match plans[i].sidecar {
                        Some(_) => reports[report_of[i]].sidecar = Some(b.code.len()),
                        None => reports[i].code_after = b.code.len(),
                    }
                    continue;
                };
                for l in &mine {
                    if scope::scc_live_at(&cfg, l.target) {
                        return Err(TranslateError::Unsupported {
                            kernel: plans[i].name.clone(),
                            reason: format!(
                                "the branch at {:#x} needs a long form, which writes SCC, and SCC may be live at its target {:#x}",
                                l.pc, l.target
                            ),
                        });
                    }
                }
                *b = scope::relax(b, &set, pair, &plans[i].name)?;
                match plans[i].sidecar {
                    Some(_) => reports[report_of[i]].sidecar = Some(b.code.len()),
                    None => reports[i].code_after = b.code.len(),
                }
                relaxed[i] = true;
            }
        };
        data_refs = Some((entries.clone(), starts, data));
        // Sidecar descriptors follow the text (writer::Rewrite::text_tail).
        let tail_addr = base + (t.len() as u64).next_multiple_of(64);
        rw_text = t;
        text_map = map;
        for (i, p) in plans.iter().enumerate() {
            let r = report_of[i];
            let kd_addr = match p.sidecar {
                Some(_) => tail_addr + 64 * (i - normal) as u64,
                None => p.kd_addr,
            };
            let mut kd = p.kd;
            kd.kernel_code_entry_byte_offset = entries[i] as i64 - kd_addr as i64;
            let (first, used) = bodies[i].scratch;
            let before = kd.allocated_vgprs(guest);
            let mut vgpr_count = p.meta_counts.map_or(before, |c| c.vgpr);
            if used > 0 {
                // The unified CDNA register file: arch VGPRs below ACCUM_OFFSET, AGPRs
                // from there (instructions name AGPRs from a0 whatever the offset, so the
                // offset can move up to make room).
                let need = u32::from(first) + u32::from(used);
                let first_agpr = kd.first_agpr();
                let agprs = if p.agprs > 0 {
                    p.agprs.max(before.saturating_sub(first_agpr))
                } else {
                    0
                };
                let (new_first_agpr, total) = if agprs > 0 {
                    let f = first_agpr.max(need.next_multiple_of(4));
                    (f, f + agprs)
                } else {
                    let t = before.max(need);
                    (t.next_multiple_of(4), t)
                };
                if need > 256 || total > 512 {
                    return Err(TranslateError::NoScratch {
                        kernel: p.name.clone(),
                        need,
                        limit: 256.min(512 - agprs),
                    });
                }
                vgpr_count = vgpr_count.max(need);
                if total > before || new_first_agpr != first_agpr {
                    let g = total.div_ceil(8).max(1) - 1;
                    kd.compute_pgm_rsrc1 = (kd.compute_pgm_rsrc1 & !0x3f) | g;
                    let acc = new_first_agpr / 4 - 1;
                    kd.compute_pgm_rsrc3 = (kd.compute_pgm_rsrc3 & !0x3f) | acc;
                }
            }
            // SGPRs above everything the kernel uses: the long-branch pair, a sidecar's
            // four prologue SGPRs (the slice base stays in the first two); above them the
            // extra SGPRs GFX9 allocates at the top (VCC, FLAT_SCRATCH, XNACK_MASK: LLVM
            // `getNumExtraSGPRs`), in the 16-SGPR allocation granule of GFX8+ (encoded in
            // units of 8).
            let mut top = 0;
            if relaxed[i] {
                top = u32::from(pairs[i].unwrap_or(0)) + 2;
            }
            if let Some((b, _)) = p.sidecar {
                top = top.max(u32::from(b) + 4);
            }
            let sgpr_need = if top > 0 { top + 6 } else { 0 };
            if kd.allocated_sgprs(host).unwrap_or(0) < sgpr_need {
                let g = sgpr_need.next_multiple_of(16) / 8 - 1;
                kd.compute_pgm_rsrc1 = (kd.compute_pgm_rsrc1 & !(0xf << 6)) | g << 6;
            }
            if let Some((_, state)) = p.sidecar {
                // No hardware LDS; the kernarg wrapper holds the dispatch state.
                kd.group_segment_fixed_size = 0;
                kd.kernarg_preload = 0;
                kd.kernarg_size = state + gpu_model::loader::VIRTUAL_LDS_STATE_BYTES as u32;
                tail.extend_from_slice(&kd.to_bytes());
                records.push((p.name.clone(), kd_addr, state));
            } else {
                if relaxed[i] {
                    reports[r].sgprs.1 = kd.allocated_sgprs(host).unwrap_or(0);
                }
                reports[r].vgprs.1 = kd.allocated_vgprs(host);
                reports[r].status = KernelStatus::Relocated;
                descriptors.push((p.kd_addr, kd.to_bytes()));
            }
            if let Some(mut c) = p.meta_counts {
                // One set of counts per kernel name: the larger of both variants'.
                c.vgpr = vgpr_count;
                c.sgpr = c.sgpr.max(sgpr_need);
                let key = format!("{}.kd", p.name);
                match counts.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, o)) => {
                        o.vgpr = o.vgpr.max(c.vgpr);
                        o.sgpr = o.sgpr.max(c.sgpr);
                    }
                    None => counts.push((key, c)),
                }
            }
        }
        // Data that points into .text cannot follow relocated code.
        for r in co.relocations() {
            let t = r.symbol_value.unwrap_or(0).wrapping_add_signed(r.addend);
            if t >= base && t < end {
                return Err(TranslateError::TextPointer {
                    offset: r.offset,
                    target: t,
                });
            }
        }
    }
    // Metadata: the host processor in the target string, grown counts.
    let metadata = match writer::metadata_payload(guest_bytes)? {
        Some(p) => {
            let old = co.metadata_target().unwrap_or_default();
            let t = old.replacen(guest.name(), host.name(), 1);
            Some(writer::retarget_metadata(&p, &t, &counts)?)
        }
        None => None,
    };
    let map_fn = |a: u64| text_map.get(&a).copied();
    let new_len = rw_text.len();
    let mut out = writer::rewrite(
        guest_bytes,
        &Rewrite {
            text: Some(rw_text),
            text_map: Some(&map_fn),
            descriptors,
            e_flags: Some((co.e_flags() & !0xff) | host.elf_mach()),
            metadata,
            text_tail: tail,
            ..Rewrite::default()
        },
    )?;
    if let Some((entries, starts, refs)) = &data_refs {
        rdna::patch_data_refs(&co, &mut out, entries, starts, refs)?;
    }
    // The sidecar records name the normal descriptors where the rewrite put them.
    let out = with_sidecar_records(out, &records, guest)?;
    verify(&out, host)?;
    Ok((out, (text.len(), new_len)))
}

/// Re-encodes every reachable instruction at its own address.
fn translate_in_place(
    cfg: &Cfg,
    text: &[u8],
    base: u64,
    host: Target,
) -> Result<Vec<u8>, TranslateError> {
    let mut out = text.to_vec();
    let mut scratch = rules::Scratch { first: 0, used: 0 };
    let mut buf = [0u8; 20];
    for s in cfg.insts.values() {
        let off = (s.pc - base) as usize;
        let n = usize::from(s.inst.len);
        let at = rules::At {
            kernel: "(in place)",
            pc: s.pc,
        };
        match rules::lower(&s.inst, &text[off..off + n], host, &mut scratch, &at)? {
            rules::Lowered::Identity => {}
            rules::Lowered::Substitute(i) => {
                let m = gpu_model::isa::encode(&i, &mut buf).map_err(|source| {
                    TranslateError::Encode {
                        kernel: at.kernel.into(),
                        pc: s.pc,
                        source,
                    }
                })?;
                out[off..off + m].copy_from_slice(&buf[..m]);
            }
            rules::Lowered::Expand(_) => {
                return Err(TranslateError::Unsupported {
                    kernel: at.kernel.into(),
                    reason: format!(
                        "pc {:#x} needs an expansion but its kernel's code cannot move",
                        s.pc
                    ),
                })
            }
        }
    }
    Ok(out)
}

/// Starts a translation: a report per kernel (not translated yet) and the guest CFG from
/// its roots: every kernel entry, then every function symbol in `.text`.
fn guest_cfg(
    co: &CodeObject,
    plans: &[Plan],
    reports: &mut Vec<KernelReport>,
) -> Result<Cfg, TranslateError> {
    let guest = co.target();
    let (text, base) = (co.text(), co.text_address());
    let end = base + text.len() as u64;
    for p in plans {
        let a = p.kd.allocated_vgprs(guest);
        let s = p.kd.allocated_sgprs(guest).unwrap_or(0);
        reports.push(KernelReport {
            name: p.name.clone(),
            status: KernelStatus::Failed("not translated".into()),
            code_before: 0,
            code_after: 0,
            expanded: 0,
            scratch_reused: 0,
            vgprs: (a, a),
            sgprs: (s, s),
            sidecar: None,
            no_sidecar: None,
        });
    }
    let mut roots: Vec<Root> = plans
        .iter()
        .flat_map(|p| {
            p.roots.iter().map(|&r| Root {
                address: r,
                name: p.name.clone(),
            })
        })
        .collect();
    let mut functions = std::collections::BTreeSet::new();
    for s in co.symbols() {
        if s.kind == SymbolKind::Func && s.defined && s.address >= base && s.address < end {
            functions.insert(s.address);
            roots.push(Root {
                address: s.address,
                name: s.name.clone(),
            });
        }
    }
    // Code pointers in data: callable through an unrecovered s_swappc_b64 only when each
    // names a function entry.
    let pointers: std::collections::BTreeSet<u64> = co
        .relocations()
        .iter()
        .map(|r| r.symbol_value.unwrap_or(0).wrapping_add_signed(r.addend))
        .filter(|&t| t >= base && t < end)
        .collect();
    let mut cfg = Cfg::build(guest, text, base, &roots)?;
    if pointers.is_subset(&functions) {
        cfg.address_taken = pointers;
    }
    Ok(cfg)
}

/// A SOPP branch that does not reach its target after placement.
struct Long {
    /// Index of the body.
    body: usize,
    /// Local offset of the branch.
    at: u32,
    /// Source addresses of the branch and its target.
    pc: u64,
    target: u64,
    /// Distance in bytes.
    distance: i64,
}

/// Places the bodies one after the other (each entry at its source residue modulo 256),
/// repairs branches and builders. Returns the new `.text`, each kernel's new entry, and
/// the source-to-final map for symbols (first body that holds an address wins); or the
/// branches that no longer reach.
fn place(
    plans: &[Plan],
    bodies: &[Body],
    base: u64,
    old_len: usize,
) -> Result<Result<Placed, Vec<Long>>, TranslateError> {
    let mut long = Vec::new();
    let mut out: Vec<u8> = Vec::new();
    let mut entries = Vec::new();
    let (mut starts, mut data) = (Vec::new(), Vec::new());
    let mut map = BTreeMap::new();
    for (bi, (p, b)) in plans.iter().zip(bodies).enumerate() {
        let entry = p.roots[0];
        let e_local = u64::from(b.entry_local.unwrap_or(b.map[&entry]));
        // start + e_local ≡ entry (mod 256), start >= out.len().
        let want = (entry - base) % 256;
        let cur = out.len() as u64;
        let mut start = cur + ((want + 256 - (cur + e_local) % 256) % 256);
        while start < cur {
            start += 256;
        }
        while (out.len() as u64) < start {
            out.extend_from_slice(&GFX9_NOP);
        }
        if let Some(&pre) = p.roots.get(1) {
            if u64::from(b.map[&pre]) != e_local + 256 {
                return Err(TranslateError::Unsupported {
                    kernel: p.name.clone(),
                    reason:
                        "the kernarg-preload stub grew past 256 bytes (entry stubs are not implemented)"
                            .into(),
                });
            }
        }
        let fin = |src: u64| b.map.get(&src).map(|&l| base + start + u64::from(l));
        let mut code = b.code.clone();
        let mut refs = Vec::new();
        for f in &b.fixups {
            match *f {
                Fixup::Relative { at, target, pc } => {
                    let t = fin(target).ok_or(TranslateError::BadTarget {
                        kernel: p.name.clone(),
                        pc,
                        what: "branch",
                        target,
                        reason: "is not in the kernel scope",
                    })?;
                    let here = base + start + u64::from(at);
                    let dist = t as i64 - (here as i64 + 4);
                    let simm = dist / 4;
                    if !(-32768..=32767).contains(&simm) {
                        long.push(Long {
                            body: bi,
                            at,
                            pc,
                            target,
                            distance: dist,
                        });
                        continue;
                    }
                    let a = at as usize;
                    code[a..a + 2].copy_from_slice(&(simm as i16).to_le_bytes());
                }
                Fixup::Local { at, to, pc } => {
                    let dist = i64::from(to) - (i64::from(at) + 4);
                    let simm = dist / 4;
                    if !(-32768..=32767).contains(&simm) {
                        return Err(TranslateError::BranchOutOfRange {
                            kernel: p.name.clone(),
                            pc,
                            distance: dist,
                        });
                    }
                    let a = at as usize;
                    code[a..a + 2].copy_from_slice(&(simm as i16).to_le_bytes());
                }
                Fixup::Data {
                    getpc,
                    lo,
                    hi,
                    target,
                } => {
                    // Patched for the final data addresses after the rewrite.
                    refs.push(rdna::DataRef {
                        getpc,
                        lo,
                        hi,
                        target,
                    });
                }
                Fixup::Builder {
                    getpc,
                    lo,
                    hi,
                    target,
                } => {
                    let t = fin(target).ok_or(TranslateError::BadTarget {
                        kernel: p.name.clone(),
                        pc: target,
                        what: "recovered jump",
                        target,
                        reason: "is not in the kernel scope",
                    })?;
                    let delta = t.wrapping_sub(base + start + u64::from(getpc) + 4);
                    let l = lo as usize + 4;
                    code[l..l + 4].copy_from_slice(&(delta as u32).to_le_bytes());
                    match hi {
                        scope::HighSite::At(h) => {
                            let h = h as usize + 4;
                            code[h..h + 4].copy_from_slice(&((delta >> 32) as u32).to_le_bytes());
                        }
                        scope::HighSite::Fixed(v) if (delta >> 32) as u32 == v => {}
                        scope::HighSite::Fixed(v) => {
                            return Err(TranslateError::Unsupported {
                                kernel: p.name.clone(),
                                reason: format!(
                                    "the recovered jump to {target:#x} moves by {delta:#x} from its s_getpc_b64, but its s_addc_u32 adds the constant {v:#x}"
                                ),
                            })
                        }
                    }
                }
            }
        }
        for (&src, &l) in &b.map {
            map.entry(src).or_insert(base + start + u64::from(l));
        }
        entries.push(base + start + e_local);
        starts.push(e_local);
        data.push(refs);
        out.extend_from_slice(&code);
    }
    while out.len() < old_len {
        out.extend_from_slice(&GFX9_NOP);
    }
    if !long.is_empty() {
        return Ok(Err(long));
    }
    Ok(Ok(Placed {
        text: out,
        entries,
        starts,
        data,
        map,
    }))
}

/// The result of placement.
struct Placed {
    /// The new `.text`.
    text: Vec<u8>,
    /// Each kernel's final entry address.
    entries: Vec<u64>,
    /// Each body's entry as a local offset (its start is the entry less this).
    starts: Vec<u64>,
    /// Each body's PC-relative data references ([`scope::Fixup::Data`]).
    data: Vec<Vec<rdna::DataRef>>,
    /// Source address -> final address (the first body holding it).
    map: BTreeMap<u64, u64>,
}

/// Checks the host object: it loads, and every kernel's code decodes on the host from
/// its entries with every transfer landing on an instruction boundary.
fn verify(bytes: &[u8], host: Target) -> Result<(), TranslateError> {
    let co = CodeObject::parse(bytes)?;
    if co.target().family() != Family::Gfx9 {
        return Ok(());
    }
    let roots: Vec<Root> = co
        .kernels()
        .iter()
        .flat_map(|k| {
            let mut v = vec![Root {
                address: k.entry_address,
                name: k.name.clone(),
            }];
            let pre = k.preload_entry_address(host);
            if pre != k.entry_address {
                v.push(Root {
                    address: pre,
                    name: k.name.clone(),
                });
            }
            v
        })
        .chain(co.sidecars().iter().map(|s| {
            Root {
                address: s
                    .descriptor_address
                    .wrapping_add_signed(s.descriptor.kernel_code_entry_byte_offset),
                name: "virtual-LDS sidecar".into(),
            }
        }))
        .collect();
    Cfg::build(host, co.text(), co.text_address(), &roots)?;
    Ok(())
}

/// The virtual-LDS sidecar of kernel `p` (which needs more LDS than `host` has): its plan
/// and body.
fn sidecar_body(
    cfg: &Cfg,
    p: &Plan,
    text: &[u8],
    base: u64,
    guest: Target,
    host: Target,
) -> Result<(Plan, Body), TranslateError> {
    let (plan, sidecar, sc) = sidecar_plan(cfg, p, host)?;
    let alloc = p.kd.allocated_vgprs(guest);
    let first = scope::vgpr_extent(cfg, &sc).map_or(alloc, u32::from);
    let float_mode = (p.kd.compute_pgm_rsrc1 >> 12 & 0xff) as u8;
    let body = scope::emit(
        cfg,
        &sc,
        text,
        base,
        host,
        first as u16,
        &p.name,
        None,
        float_mode,
        Some(&sidecar),
    )?;
    Ok((plan, body))
}

/// The plan of kernel `p`'s virtual-LDS sidecar on `host`: its plan (with the slice base
/// and the dispatch state's offset), the sidecar's prologue (GFX9) and the kernel scope.
/// The slice base takes the four SGPRs above every SGPR the scope touches and
/// every SGPR the hardware initializes (4-aligned for the `s_load_dwordx4`); the dispatch
/// state follows the guest's kernarg bytes, 8-aligned, and the wrapper's original-pointer
/// slot (the design's kernarg wrapper).
fn sidecar_plan(
    cfg: &Cfg,
    p: &Plan,
    host: Target,
) -> Result<(Plan, scope::Sidecar, std::collections::BTreeSet<u64>), TranslateError> {
    let fail = |why: &str| {
        TranslateError::Unsupported {
        kernel: p.name.clone(),
        reason: format!(
            "needs {} bytes of LDS{}, {host} has {}, and its virtual-LDS sidecar cannot be built: {why}",
            p.kd.group_segment_fixed_size,
            if p.dynamic_lds { " and more at dispatch" } else { "" },
            host.lds_bytes_per_workgroup()
        ),
    }
    };
    // A kernarg-preload kernel's sidecar does not preload (its descriptor clears the
    // preload length): it enters at the guest's first entry, whose compatibility code
    // loads the preload SGPRs from the kernarg segment (the wrapper starts with the
    // guest's bytes) and branches to the preload entry (AMDGPUUsage, "Preloaded Kernel
    // Arguments"); USER_SGPR_COUNT keeps counting those SGPRs, so the system SGPRs stay
    // where the code reads them.
    let roots = &p.roots[..1];
    let Some(kernarg) = p.kd.user_sgpr_layout().kernarg_segment_ptr else {
        return Err(fail("the kernel has no kernarg segment pointer SGPR"));
    };
    let sc = scope::scope(cfg, roots, &p.name)?;
    let Some(ext) = scope::sgpr_extent(cfg, &sc) else {
        return Err(fail("the kernel indexes SGPRs through M0"));
    };
    // System SGPRs follow the user SGPRs: workgroup ids x, y, z as enabled.
    let user = p.kd.user_sgpr_count() as u16;
    let mut next = user;
    let mut wg = [None; 3];
    for (d, on) in [
        p.kd.enable_workgroup_id_x(),
        p.kd.enable_workgroup_id_y(),
        p.kd.enable_workgroup_id_z(),
    ]
    .into_iter()
    .enumerate()
    {
        if on {
            wg[d] = Some(next);
            next += 1;
        }
    }
    let initialized = user + p.kd.system_sgpr_count() as u16;
    let b = ext.max(initialized).next_multiple_of(4);
    // Four SGPRs, then the long-branch pair at b + 2 (dead after the prologue); VCC is 106.
    if b + 4 > 102 {
        return Err(fail("no four SGPRs are free below VCC"));
    }
    let state = p.kernarg_bytes.next_multiple_of(8) + 8;
    let at = rules::At {
        kernel: &p.name,
        pc: p.roots[0],
    };
    let prologue = vlds::prologue(u16::from(kernarg), wg, state, b, &at)?;
    let mut plan = p.clone();
    plan.sidecar = Some((b, state));
    plan.roots = roots.to_vec();
    Ok((
        plan,
        scope::Sidecar {
            base: b,
            prologue,
            entry: p.roots[0],
        },
        sc,
    ))
}

/// Appends the `.rocjitsu.lds` section naming each sidecar `(kernel, sidecar descriptor
/// address, dispatch-state offset)` of `records` to `out`, whose normal descriptors the
/// rewrite placed; the most LDS a sidecar serves is what `guest` has.
fn with_sidecar_records(
    out: Vec<u8>,
    records: &[(String, u64, u32)],
    guest: Target,
) -> Result<Vec<u8>, TranslateError> {
    if records.is_empty() {
        return Ok(out);
    }
    let placed = CodeObject::parse(&out)?;
    let mut section = Vec::new();
    for (name, kd, state) in records {
        let normal = placed
            .kernel(name)
            .ok_or_else(|| TranslateError::Unsupported {
                kernel: name.clone(),
                reason: "the kernel is missing from the rewritten object".into(),
            })?;
        section.extend_from_slice(&normal.descriptor_address.to_le_bytes());
        section.extend_from_slice(&kd.to_le_bytes());
        section.extend_from_slice(&state.to_le_bytes());
        section.extend_from_slice(&guest.lds_bytes_per_workgroup().to_le_bytes());
    }
    Ok(writer::rewrite(
        &out,
        &Rewrite {
            sections: vec![(gpu_model::loader::VIRTUAL_LDS_SECTION.to_string(), section)],
            ..Rewrite::default()
        },
    )?)
}
