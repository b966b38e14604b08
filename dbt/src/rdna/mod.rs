//! The gfx1201 (RDNA4, wave64) host: gfx950 code objects translated for GFX12.
//!
//! The pipeline is the crate's (descriptor plans, source CFG, kernel scopes, placement
//! and branch/PC-builder repair, commit through `gpu_model::loader::writer`); what
//! differs for a GFX12 host lives here:
//!
//! * [`reencode`]: every GFX9 instruction is re-encoded for GFX12 by mnemonic
//!   equivalence (the encodings differ, so code always moves: every kernel scope is
//!   relocated), wait counts are translated to the split GFX12 counters, barriers to
//!   `s_barrier_signal`/`s_barrier_wait`;
//! * buffer instructions: MUBUF becomes VBUFFER through a GFX12 copy of the guest's
//!   buffer descriptor in a free SGPR quad (`reencode::buffer`), `buffer_wbl2` /
//!   `buffer_inv` become `global_wb` / `global_inv`;
//! * branches that no longer reach after the code grows take the long form through
//!   s[104:105] (`scope::relax_for`), as on the gfx942 host;
//! * [`desc`]: the gfx1201 kernel descriptor and the entry prologue that rebuilds the
//!   workgroup-id SGPRs the gfx950 code expects from the GFX12 TTMP registers;
//! * [`matrix`]: the f16/bf16, fp8/bf8 and i8 MFMAs as GFX12 WMMAs with lane fix-ups;
//!   [`matrix_valu`]: the f32 and f64 MFMAs (no GFX12 WMMA takes either) as `v_fma_f32`
//!   and `v_fma_f64` chains;
//! * virtual-LDS sidecars (`crate::vlds`) for kernels over gfx1201's 64 KiB of LDS or
//!   with LDS sized at dispatch: the GFX9 sidecar prologue and global accesses are
//!   re-encoded like guest code, behind the TTMP workgroup-id prologue, with the slice
//!   base below the buffer-descriptor quads; descriptors and records as on gfx942.
//!
//! AGPRs are folded into VGPRs above the kernel's arch VGPRs (`a[n]` -> `v[arch + n]`;
//! `v_accvgpr_*` become `v_mov_b32`), scratch VGPRs for the rules come after them.
//!
//! LDS DMA loads (`buffer_load_* ... lds`, `global_load_lds_*`; GFX12 has none) become
//! the load into scratch VGPRs and a DS store (`reencode::lds_dma`); GFX9's 16-bit VALU
//! operations that zero the destination's high half get it cleared after their GFX12
//! forms, which keep it (`reencode::zeroes_high16`); packed f32 VALU becomes two f32
//! operations (`reencode::packed_f32`); `v_permlane16_swap_b32` goes through
//! `v_permlanex16_b32` and `v_permlane32_swap_b32` through `v_permlane64_b32`
//! (`reencode::permlane16_swap` / `permlane32_swap`); `v_cvt_pk_bf16_f32` takes the
//! gfx942 rule's integer rounding, re-encoded.
//!
//! Not implemented yet (each a typed rejection naming the kernel, and for
//! instructions the PC): multi-block i8/fp6/fp4/scaled MFMAs, formatted buffer accesses,
//! 16-bit DPP operations that may leave lanes unwritten,
//! DPP wave shifts/rotates, SDWA neg/abs and UNUSED_SEXT, SMEM with an SGPR offset and no
//! immediate (SGPR plus immediate is translated),
//! `v_cmpx` (GFX9 also writes VCC), kernarg preload, workgroup-info SGPRs, private
//! segment buffers, code pointers in data that are not function entries, AGPRs in
//! functions called through code pointers when the calling kernels fold them differently,
//! matrix instructions in such functions, virtual-LDS sidecars of kernels that call
//! through code pointers, branches into or fallthrough into a kernel entry that gains a
//! prologue.
//!
//! Calls through function pointers (an unrecovered `s_swappc_b64`) may reach every
//! function whose address data holds (`Cfg::address_taken`); the data's relocations
//! name one shared copy of those functions that every kernel calls into
//! (`crate::shared_functions`). GFX12's
//! `s_getpc_b64` zero-extends the 48-bit PC where GFX9 sign-extends: every translated
//! `s_getpc_b64` is followed by the `s_sext_i32_i16` of its high half that LLVM emits
//! for gfx12 (`getpc_sign_extension`, with the `s_wait_alu` of GFX12's SGPR read hazard
//! where a VALU reads the pair), so PC builders hold the GFX9 value wherever the code
//! sits.

pub(crate) mod desc;
pub(crate) mod known;
pub(crate) mod logic;
pub(crate) mod matrix;
pub(crate) mod matrix_valu;
pub(crate) mod reencode;

use crate::cfg::{Cfg, Flow};
use crate::error::TranslateError;
use crate::scope::{self, Body, Fixup};
use crate::{place, plans, KernelReport, KernelStatus, Placed};
use gpu_model::isa;
use gpu_model::isa::layout::F;
use gpu_model::loader::writer::{self, Rewrite};
use gpu_model::loader::CodeObject;
use gpu_model::Target;
use reencode::{Ctx, HOST};
use std::collections::BTreeMap;

/// gfx950 -> gfx1201. Same contract as [`crate::translate`]'s inner function.
pub(crate) fn translate(
    guest_bytes: &[u8],
    reports: &mut Vec<KernelReport>,
) -> Result<(Vec<u8>, (usize, usize)), TranslateError> {
    let co = CodeObject::parse(guest_bytes)?;
    let guest = co.target();
    // Kernarg preload: gfx1201 does not preload, so the descriptor's preload field is
    // cleared and the kernel starts at its first entry, where the compiler put the code
    // for firmware that does not preload either (AMDGPUUsage, "Preloaded Kernel
    // Arguments": it loads the same SGPRs from the kernarg segment and branches to
    // entry + 256). The second entry is then an ordinary branch target.
    let plans: Vec<crate::Plan> = plans(&co, HOST)?
        .into_iter()
        .map(|p| crate::Plan {
            roots: vec![p.roots[0]],
            ..p
        })
        .collect();
    let (text, base) = (co.text(), co.text_address());
    let end = base + text.len() as u64;
    let cfg = crate::guest_cfg(&co, &plans, reports)?;

    let mut bodies = Vec::new();
    let mut scopes = Vec::new();
    let mut kds = Vec::new();
    let mut data_refs = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let d = desc::check(p, guest)?;
        let sc = scope::scope(&cfg, &p.roots, &p.name)?;
        // Arch VGPRs, then the guest's AGPRs folded into the VGPRs above them (GFX12
        // has no AGPRs), then scratch VGPRs for the rules.
        let alloc = p.kd.allocated_vgprs(guest);
        let arch = match scope::vgpr_extent(&cfg, &sc) {
            Some(v) => u32::from(v),
            None => alloc.min(p.kd.first_agpr()),
        };
        let agprs = p.agprs.max(agpr_extent(&cfg, &sc));
        let first = arch + agprs;
        if first > 256 {
            return Err(TranslateError::NoScratch {
                kernel: p.name.clone(),
                need: first,
                limit: 256,
            });
        }
        let agpr_base = (agprs > 0).then_some(arch as u16);
        let prologue = desc::prologue(p, &cfg)?;
        let (body, refs) = emit(
            &cfg,
            &sc,
            text,
            base,
            &prologue,
            (first as u16, agpr_base),
            p,
            None,
        )?;
        data_refs.push(refs);
        reports[i].code_before = body.source_bytes;
        reports[i].code_after = body.code.len();
        reports[i].expanded = body.expanded;
        kds.push((d, first));
        bodies.push(body);
        scopes.push(sc);
    }
    // Virtual-LDS sidecars (a kernel over gfx1201's 64 KiB of LDS, or one that takes LDS
    // sized at dispatch), after every normal body; the runtime selects one at dispatch
    // time (see the crate doc).
    let normal = plans.len();
    let mut plans = plans;
    let mut kernel_of: Vec<usize> = (0..normal).collect();
    for i in 0..normal {
        if !plans[i].over_lds && !plans[i].dynamic_lds {
            continue;
        }
        let through_pointers = scope::calls_through_pointers(&cfg, &scopes[i]);
        let built = crate::sidecar_plan(&cfg, &plans[i], HOST).and_then(|(sp, v, sc)| {
            if through_pointers {
                return Err(TranslateError::Unsupported {
                    kernel: sp.name.clone(),
                    reason: "its virtual-LDS sidecar would call through code pointers into the shared copies of the functions, which access hardware LDS".into(),
                });
            }
            let prologue = desc::prologue(&sp, &cfg)?;
            let (first, agpr_base) = (kds[i].1 as u16, agpr_base_of(&cfg, &sc, &sp, guest));
            let (body, refs) = emit(
                &cfg,
                &sc,
                text,
                base,
                &prologue,
                (first, agpr_base),
                &sp,
                Some(&v),
            )?;
            Ok((sp, body, refs, sc))
        });
        match built {
            Ok((sp, body, refs, sc)) => {
                reports[i].sidecar = Some(body.code.len());
                kds.push(kds[i]);
                data_refs.push(refs);
                bodies.push(body);
                scopes.push(sc);
                plans.push(sp);
                kernel_of.push(i);
            }
            Err(e) if !plans[i].over_lds => reports[i].no_sidecar = Some(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    // Functions called through code pointers: one shared copy, placed last
    // (`crate::shared_functions`).
    let callers: Vec<(bool, u32)> = (0..normal)
        .map(|i| (scope::calls_through_pointers(&cfg, &scopes[i]), kds[i].1))
        .collect();
    let shared = match crate::shared_functions(&cfg, &plans[..normal], &callers)? {
        Some(sf) => {
            let (sp, sc, first) = (sf.plan, sf.scope, sf.first);
            // Folded AGPRs sit above each kernel's arch VGPRs: a shared copy that names
            // AGPRs needs the same fold base in every caller.
            let agprs = agpr_extent(&cfg, &sc);
            let bases: std::collections::BTreeSet<Option<u16>> = (0..normal)
                .filter(|&i| callers[i].0)
                .map(|i| agpr_base_of(&cfg, &scopes[i], &plans[i], guest))
                .collect();
            let (first, agpr_base) = match bases.first() {
                _ if agprs == 0 => (first, None),
                Some(&b) if bases.len() == 1 => (first, b),
                None => {
                    let arch = scope::vgpr_extent(&cfg, &sc).unwrap_or(0);
                    (first.max(arch + agprs as u16), Some(arch))
                }
                _ => {
                    return Err(TranslateError::Unsupported {
                        kernel: crate::SHARED_NAME.into(),
                        reason: "the functions called through code pointers name AGPRs, which the calling kernels fold into different VGPRs".into(),
                    })
                }
            };
            if let Some(pc) = sc.iter().find(|pc| {
                cfg.insts
                    .get(pc)
                    .is_some_and(|s| s.inst.format == isa::layout::Format::Mai)
            }) {
                return Err(TranslateError::Unsupported {
                    kernel: crate::SHARED_NAME.into(),
                    reason: format!(
                        "pc {pc:#x}: a matrix instruction in a function called through code pointers (its WMMA state is set up per kernel entry)"
                    ),
                });
            }
            let (body, refs) = emit(&cfg, &sc, text, base, &[], (first, agpr_base), &sp, None)?;
            data_refs.push(refs);
            bodies.push(body);
            scopes.push(sc);
            plans.push(sp);
            kernel_of.push(0);
            Some(plans.len() - 1)
        }
        None => None,
    };
    // The layouts the data references were taken in (long forms move code).
    let emitted: Vec<BTreeMap<u64, u32>> = bodies.iter().map(|b| b.map.clone()).collect();
    // Placement; branches that no longer reach take the long form through s[104:105]
    // (the expansions' carry pair: free between guest instructions, above every quad),
    // with the condition inverted around it (`scope::relax_for`). The long form writes
    // SCC, so SCC must be dead at the target. Growth only moves code further apart, so
    // this converges; bounded anyway.
    let mut rounds = 0;
    let Placed {
        text: new_text,
        entries,
        map,
        ..
    } = loop {
        let long = match place(&plans, &bodies, base, text.len())? {
            Ok(p) => break p,
            Err(long) => long,
        };
        rounds += 1;
        let Some(l) = long.first() else {
            return Err(TranslateError::Unsupported {
                kernel: String::new(),
                reason: "placement failed without naming a branch".into(),
            });
        };
        if rounds > 8 {
            return Err(TranslateError::BranchOutOfRange {
                kernel: plans[l.body].name.clone(),
                pc: l.pc,
                distance: l.distance,
            });
        }
        for (i, b) in bodies.iter_mut().enumerate() {
            let mine: Vec<&crate::Long> = long.iter().filter(|l| l.body == i).collect();
            if mine.is_empty() {
                continue;
            }
            if let Some(l) = mine.iter().find(|l| scope::scc_live_at(&cfg, l.target)) {
                return Err(TranslateError::Unsupported {
                    kernel: plans[i].name.clone(),
                    reason: format!(
                        "the branch at {:#x} needs a long form, which writes SCC, and SCC may be live at its target {:#x}",
                        l.pc, l.target
                    ),
                });
            }
            let set = mine.iter().map(|l| l.at).collect();
            *b = scope::relax_for(b, &set, reencode::CARRY, &plans[i].name, HOST)?;
            match plans[i].sidecar {
                _ if Some(i) == shared => {}
                Some(_) => reports[kernel_of[i]].sidecar = Some(b.code.len()),
                None => reports[i].code_after = b.code.len(),
            }
        }
    };
    let mut descriptors = Vec::new();
    let mut counts: Vec<(String, writer::KernelCounts)> = Vec::new();
    // Sidecar descriptors follow the text (writer::Rewrite::text_tail).
    let tail_addr = base + (new_text.len() as u64).next_multiple_of(64);
    let (mut tail, mut records) = (Vec::new(), Vec::new());
    // VGPRs the shared copy needs in every kernel that calls into it.
    let shared_need = shared.map_or(0, |s| {
        let (first, used) = bodies[s].scratch;
        u32::from(first) + u32::from(used)
    });
    for (i, p) in plans.iter().enumerate() {
        if Some(i) == shared {
            continue;
        }
        let (first, used) = bodies[i].scratch;
        let mut vgprs = kds[i].1.max(u32::from(first) + u32::from(used)).max(1);
        if callers.get(kernel_of[i]).is_some_and(|c| c.0) {
            vgprs = vgprs.max(shared_need);
        }
        if vgprs > 256 {
            return Err(TranslateError::NoScratch {
                kernel: p.name.clone(),
                need: vgprs,
                limit: 256,
            });
        }
        let kd_addr = match p.sidecar {
            Some(_) => tail_addr + 64 * (i - normal) as u64,
            None => p.kd_addr,
        };
        let mut kd = desc::host_descriptor(
            &p.kd,
            entries[i] as i64 - kd_addr as i64,
            vgprs,
            bodies[i].code.len(),
        );
        if let Some((_, state)) = p.sidecar {
            // No hardware LDS; the kernarg wrapper holds the dispatch state.
            kd.group_segment_fixed_size = 0;
            kd.kernarg_size = state + gpu_model::loader::VIRTUAL_LDS_STATE_BYTES as u32;
            tail.extend_from_slice(&kd.to_bytes());
            records.push((p.name.clone(), kd_addr, state));
        } else {
            reports[i].vgprs.1 = kd.allocated_vgprs(HOST);
            // Every GFX12 wave has all 106 SGPRs (AMDGPUUsage: no SGPR granule on GFX10+).
            reports[i].sgprs.1 = 106;
            reports[i].status = KernelStatus::Relocated;
            descriptors.push((p.kd_addr, kd.to_bytes()));
        }
        if let Some(mut c) = p.meta_counts {
            // One set of counts per kernel name: the larger of both variants'.
            c.vgpr = vgprs;
            c.agpr = 0;
            let key = format!("{}.kd", p.name);
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, o)) => o.vgpr = o.vgpr.max(c.vgpr),
                None => counts.push((key, c)),
            }
        }
    }
    let starts: Vec<u64> = plans
        .iter()
        .zip(&bodies)
        .map(|(p, b)| u64::from(b.map[&p.roots[0]]))
        .collect();
    // Code pointers in data name the shared copies of the functions.
    let mut map = map;
    for r in co.relocations() {
        let t = r.symbol_value.unwrap_or(0).wrapping_add_signed(r.addend);
        if t < base || t >= end {
            continue;
        }
        let copy = shared
            .filter(|_| cfg.address_taken.contains(&t))
            .and_then(|s| crate::shared_address(&plans[s], &bodies[s], entries[s], t));
        match copy {
            Some(a) => {
                map.insert(t, a);
            }
            None => {
                return Err(TranslateError::TextPointer {
                    offset: r.offset,
                    target: t,
                })
            }
        }
    }
    // The target string names the processor only: gfx1201 has neither xnack nor
    // sramecc (LLVM AMDGPUUsage processor table), so the guest's feature suffixes go.
    let metadata = match writer::metadata_payload(guest_bytes)? {
        Some(p) => Some(writer::retarget_metadata(
            &p,
            &format!("amdgcn-amd-amdhsa--{}", HOST.name()),
            &counts,
        )?),
        None => None,
    };
    let map_fn = |a: u64| map.get(&a).copied();
    let new_len = new_text.len();
    // e_flags: the machine bits and the v4+ XNACK (9:8) and SRAMECC (11:10) settings,
    // "unsupported" (0) for gfx1201 (a native clang-22 gfx1201 object has 0x4e).
    let e_flags = (co.e_flags() & !0xfff) | HOST.elf_mach();
    let mut out = writer::rewrite(
        guest_bytes,
        &Rewrite {
            text: Some(new_text),
            text_map: Some(&map_fn),
            descriptors,
            e_flags: Some(e_flags),
            metadata,
            text_tail: tail,
            ..Rewrite::default()
        },
    )?;
    let data_refs = data_refs
        .iter()
        .zip(&emitted)
        .zip(&bodies)
        .map(|((refs, before), b)| {
            refs.iter()
                .map(|r| r.moved(before, &b.map))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    patch_data_refs(&co, &mut out, &entries, &starts, &data_refs)?;
    let out = crate::with_sidecar_records(out, &records, guest)?;
    verify(&out)?;
    Ok((out, (text.len(), new_len)))
}

/// Translates one scope into a local buffer: the prologue, then every instruction in
/// source order. The descriptor entry is the prologue's first instruction.
///
/// GFX12's SGPR read hazard (LLVM 22 `AMDGPUWaitSGPRHazards`): once a VALU has read an
/// SGPR pair, an SALU write of that pair must be waited for (`s_wait_alu
/// depctr_sa_sdst(0)`) before the pair is read again; a pair no VALU ever read needs no
/// wait (clang-22 gfx1201 `device_global_read`: `s_getpc_b64 s[2:3]; s_sext_i32_i16 s3,
/// s3` with nothing between, where kernels whose VALUs read the pair get the wait). The
/// `s_getpc_b64` of a kernel scope goes without its wait first; when the emitted code
/// has a VALU that reads such a pair anywhere (whatever the order, so any path is
/// covered), the scope is emitted again with the wait on those pairs. A shared copy of
/// functions (callers' VALU reads unknown) and a scope that calls into one always wait.
#[allow(clippy::too_many_arguments)]
fn emit(
    cfg: &Cfg,
    sc: &std::collections::BTreeSet<u64>,
    text: &[u8],
    base: u64,
    prologue: &[isa::Inst],
    resources: (u16, Option<u16>),
    p: &crate::Plan,
    sidecar: Option<&scope::Sidecar>,
) -> Result<(Body, Vec<DataRef>), TranslateError> {
    let always = p.called || scope::calls_through_pointers(cfg, sc);
    let mut wait = if always { u64::MAX } else { 0 };
    loop {
        let (body, refs, bare) =
            emit_with(cfg, sc, text, base, prologue, resources, p, sidecar, wait)?;
        let read = valu_sgpr_pairs(&body.code);
        if bare & read == 0 {
            return Ok((body, refs));
        }
        // Adding waits reads no SGPR: the second emission passes.
        wait |= read;
    }
}

/// The SGPR pairs (bit `n` for s[2n:2n+1], SGPRs 0..=127 as LLVM tracks them) that
/// some VALU of gfx1201 `code` reads; all of them when `code` does not decode.
fn valu_sgpr_pairs(code: &[u8]) -> u64 {
    use isa::IssueClass as C;
    let mut pairs = 0u64;
    let mut at = 0;
    while at < code.len() {
        let Ok(i) = isa::decode(HOST, &code[at..], false) else {
            return u64::MAX;
        };
        at += usize::from(i.len.max(4));
        if !matches!(
            i.issue_class(),
            C::VectorAlu | C::Transcendental | C::Matrix
        ) {
            continue;
        }
        for a in i.accesses() {
            if a.file != isa::RegFile::Sgpr || a.kind == isa::AccessKind::Write {
                continue;
            }
            for r in a.first..(a.first + u16::from(a.count)).min(128) {
                pairs |= 1 << (r / 2);
            }
        }
    }
    pairs
}

/// [`emit`] with the `s_getpc_b64` waits of the pairs in `wait` (bit per SGPR pair);
/// also returns the pairs whose `s_getpc_b64` went without one.
#[allow(clippy::too_many_arguments)]
fn emit_with(
    cfg: &Cfg,
    sc: &std::collections::BTreeSet<u64>,
    text: &[u8],
    base: u64,
    prologue: &[isa::Inst],
    (scratch_first, agpr_base): (u16, Option<u16>),
    p: &crate::Plan,
    sidecar: Option<&scope::Sidecar>,
    wait: u64,
) -> Result<(Body, Vec<DataRef>, u64), TranslateError> {
    let mut bare = 0u64;
    let kernel = p.name.as_str();
    let mut body = Body::default();
    let extent = scope::sgpr_extent(cfg, sc);
    // The MFMA chains' tiles come first; the rules' scratch above them.
    // Where the dispatch state is known: the kernel entry (none in the shared copy of
    // functions called through pointers).
    let entries: &[u64] = if p.called { &[] } else { &p.roots };
    let chains = matrix::chains(cfg, sc, entries, scratch_first);
    // Then the f32 MFMAs' permute bases, set at the entry.
    let tiles_end = scratch_first + 16 * chains.slots + chains.extra;
    let bases = matrix_valu::Bases::plan(cfg, sc, tiles_end);
    let mut cx = Ctx {
        kernel,
        pc: 0,
        scratch_first: tiles_end + bases.count(),
        scratch_used: 0,
        agpr_base,
        // A sidecar's slice base and prologue SGPRs sit above the scope's.
        rsrc: reencode::Rsrcs::above(match sidecar {
            Some(v) => extent.map(|e| e.max(v.base + 4)),
            None => extent,
        }),
        scc_live: false,
        known: Default::default(),
        inplace: Vec::new(),
        inplace_ok: extent.is_some(),
        pending: u8::MAX,
        float_mode: (p.kd.compute_pgm_rsrc1 >> 12 & 0xff) as u8,
        high16_dead: false,
        extended: [None; 2],
        vcc_dead: false,
        deferred: Vec::new(),
        chains,
        bases,
    };
    let known = known::analyse(cfg, sc, entries);
    let pending = known::pending(cfg, sc, entries);
    let (mut kn, mut pend): (Option<known::State>, Option<u8>) = (None, None);
    let mut buf = [0u8; 20];
    let enc = |pc: u64, source| TranslateError::Encode {
        kernel: kernel.to_string(),
        pc,
        source,
    };
    let mut sites = scope::Sites::new(cfg, sc);
    let in_builder: std::collections::BTreeSet<u64> = cfg
        .recovered
        .values()
        .filter(|b| sc.contains(&b.getpc))
        .map(|b| b.getpc)
        .collect();
    // PC-relative data references: (getpc, add, addc, target) by source address.
    let mut data: Vec<(u64, u64, u64, u64)> = Vec::new();
    let mut here_of: BTreeMap<u64, u32> = BTreeMap::new();
    for &pc in sc {
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        body.source_bytes += usize::from(s.inst.len);
        // The descriptor entry is the prologue, emitted just before the entry
        // instruction (helpers at lower source addresses come first in the buffer);
        // nothing may fall through or branch into it from elsewhere.
        body.map.insert(pc, body.code.len() as u32);
        if pc == p.roots[0] && !prologue.is_empty() {
            if let Some((&prev, ps)) = cfg.insts.range(..pc).next_back() {
                let falls = matches!(ps.flow, Flow::Next | Flow::CondBranch(_) | Flow::Call(_));
                if sc.contains(&prev) && falls && cfg.next_pc(prev) == pc {
                    return Err(TranslateError::Unsupported {
                        kernel: kernel.to_string(),
                        reason: format!(
                            "pc {prev:#x} falls through into the kernel entry, which gains a prologue on gfx1201"
                        ),
                    });
                }
            }
            for i in prologue {
                let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
            // A sidecar's virtual-LDS prologue (GFX9) follows, re-encoded: it reads the
            // workgroup ids the first prologue rebuilt.
            if let Some(v) = sidecar {
                cx.pc = pc;
                for i in &v.prologue {
                    for h in gfx9_to_host(i, &mut cx)? {
                        let n = isa::encode(&h, &mut buf).map_err(|e| enc(pc, e))?;
                        body.code.extend_from_slice(&buf[..n]);
                    }
                }
            }
        }
        if pc == p.roots[0] && !p.called {
            let bases = std::mem::take(&mut cx.bases);
            let setup = bases.setup(&mut cx);
            cx.bases = bases;
            for i in &setup? {
                let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
        }
        cx.pc = pc;
        // A deferred dword3 constant goes out before anything but the buffer access
        // it waits for, or an instruction that leaves its register alone, comes.
        let mut flush = Vec::new();
        cx.deferred.retain(|&(reg, d)| {
            let touches = s.inst.accesses().any(|a| {
                a.file == isa::RegFile::Sgpr && a.first <= reg && reg < a.first + u16::from(a.count)
            });
            let waits_for = s.inst.format == isa::layout::Format::Mubuf
                && (s.inst.field(F::Srsrc) * 4 + 3) as u16 == reg;
            let keep = matches!(s.flow, Flow::Next) && (!touches || waits_for);
            if !keep {
                flush.push(d);
            }
            keep
        });
        for d in &flush {
            let n = isa::encode(d, &mut buf).map_err(|e| enc(pc, e))?;
            body.code.extend_from_slice(&buf[..n]);
        }
        if cfg.leaders.contains(&pc) {
            cx.rsrc.observe(s, true);
        }
        let mubuf = s.inst.format == isa::layout::Format::Mubuf;
        cx.scc_live =
            (mubuf || s.inst.ext() == Some(isa::Ext::Dpp16)) && scope::scc_live_at(cfg, pc);
        // In-place descriptor words go back before anything else touches them and
        // before control leaves the block (not at the end of the wave). Two uses need
        // no guest word: an `s_mov_b32` copy of a converted register copies the GFX12
        // word and converts its destination too (guest value and word both carried
        // over), and a register an `s_mov` overwrites is forgotten.
        let mut copy = None;
        if !cx.inplace.is_empty() {
            let pre = match s.flow {
                Flow::End => {
                    cx.inplace.clear();
                    Vec::new()
                }
                Flow::Next => {
                    let own = mubuf.then(|| (s.inst.field(F::Srsrc) * 4) as u16);
                    if let (
                        isa::Op::SMovB32,
                        Some(isa::Operand::Sgpr { first: d, count: 1 }),
                        Some(isa::Operand::Sgpr { first: r, count: 1 }),
                    ) = (s.inst.op, s.inst.operand(0), s.inst.operand(1))
                    {
                        if d != r {
                            copy = cx
                                .inplace
                                .iter()
                                .find(|e| e.reg == r)
                                .map(|&e| reencode::InPlace { reg: d, ..e });
                        }
                    }
                    let movs = matches!(
                        s.inst.op,
                        isa::Op::SMovB32 | isa::Op::SMovB64 | isa::Op::SMovkI32
                    );
                    let (mut touched, mut written) = (Vec::new(), Vec::new());
                    for a in s.inst.accesses() {
                        if a.file == isa::RegFile::Sgpr {
                            let range = (a.first, a.first + u16::from(a.count));
                            if movs && a.kind == isa::AccessKind::Write {
                                written.push(range);
                            } else {
                                touched.push(range);
                            }
                        }
                    }
                    let src = copy.map(|_| s.inst.operand(1));
                    let pre = reencode::restore(&mut cx, &|reg| {
                        own.is_none_or(|r| reg < r || reg >= r + 4)
                            && src
                                != Some(Some(isa::Operand::Sgpr {
                                    first: reg,
                                    count: 1,
                                }))
                            && touched.iter().any(|&(lo, hi)| reg >= lo && reg < hi)
                    })?;
                    cx.inplace
                        .retain(|e| !written.iter().any(|&(lo, hi)| e.reg >= lo && e.reg < hi));
                    pre
                }
                _ => reencode::restore(&mut cx, &|_| true)?,
            };
            for i in &pre {
                let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
        }
        known.enter(pc, &mut kn);
        pending.enter(pc, &mut pend);
        if mubuf {
            let r = usize::from((s.inst.field(F::Srsrc) * 4) as u16);
            for k in 0..4 {
                cx.known[k] = kn
                    .as_ref()
                    .and_then(|st| st.get(r + k).copied())
                    .unwrap_or_default();
            }
        }
        cx.pending = pend.unwrap_or(u8::MAX);
        let off = (pc - base) as usize;
        let bytes = &text[off..off + usize::from(s.inst.len)];
        cx.high16_dead = matches!(
            s.inst.operand(0),
            Some(isa::Operand::Vgpr { first, count: 1 }) if high16_dead(cfg, pc, first)
        );
        cx.extended = [None; 2];
        cx.vcc_dead = s.inst.op == isa::Op::VLshlAddU64 && !vcc_live_after(cfg, pc);
        if s.inst.op == isa::Op::VLshlAddU64 {
            for (k, i) in [1, 3].into_iter().enumerate() {
                if let Some(isa::Operand::Vgpr { first, count: 2 }) = s.inst.operand(i) {
                    cx.extended[k] = extended(cfg, pc, first);
                }
            }
        }
        // In a sidecar, LDS storage accesses become global accesses to the workgroup's
        // slice (`crate::vlds`, GFX9), re-encoded.
        let virtual_lds = match sidecar {
            Some(v) => {
                let mut scratch = crate::rules::Scratch {
                    first: cx.scratch_first,
                    used: 0,
                };
                let at = crate::rules::At { kernel, pc };
                let seq = crate::vlds::lower(&s.inst, v.base, &mut scratch, &at)?;
                cx.scratch_used = cx.scratch_used.max(scratch.used);
                seq
            }
            None => None,
        };
        let seq = match virtual_lds {
            Some(gfx9) => {
                let mut out = Vec::with_capacity(gfx9.len() + 2);
                for g in &gfx9 {
                    out.extend(gfx9_to_host(g, &mut cx)?);
                }
                out
            }
            None => reencode::lower(&s.inst, bytes, &mut cx)?,
        };
        cx.rsrc.observe(s, false);
        if let Some(k) = kn.as_mut() {
            known::step(&s.inst, k);
        }
        pend = pend.map(|p| known::pending_after(&s.inst, p));
        let here = body.code.len() as u32;
        here_of.insert(pc, here);
        if s.inst.op == isa::Op::SGetpcB64 && !in_builder.contains(&pc) {
            data.push(data_builder(cfg, pc, base, text.len() as u64, kernel)?);
        }
        // An `s_branch` to the instruction that comes next in the buffer (the kernarg
        // preload entry's jump over its padding, which is outside the scope) is dropped:
        // control reaches the same place without it.
        let to_next = matches!(s.flow, Flow::Branch(t)
            if s.inst.op == isa::Op::SBranch
                && sc.range(pc + 1..).find(|a| cfg.insts.contains_key(a)) == Some(&t)
                && (t != p.roots[0] || prologue.is_empty()));
        match s.flow {
            _ if to_next => {}
            Flow::Branch(t) | Flow::CondBranch(t) | Flow::Call(t) => {
                if t == p.roots[0] && !prologue.is_empty() {
                    return Err(TranslateError::Unsupported {
                        kernel: kernel.to_string(),
                        reason: format!(
                            "pc {pc:#x} branches to the kernel entry, which gains a prologue on gfx1201"
                        ),
                    });
                }
                body.fixups.push(Fixup::Relative {
                    at: here,
                    target: t,
                    pc,
                });
            }
            _ => {}
        }
        if let Some(e) = copy {
            cx.inplace.push(e);
        }
        if seq.len() != 1 {
            body.expanded += 1;
        }
        match (dword3_def(cfg, pc, &cx), seq.as_slice()) {
            (Some(reg), [d]) if !to_next => cx.deferred.push((reg, *d)),
            _ => {
                for i in seq.iter().filter(|_| !to_next) {
                    let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                    body.code.extend_from_slice(&buf[..n]);
                }
            }
        }
        if s.inst.op == isa::Op::SGetpcB64 {
            for i in &getpc_sign_extension(&s.inst, wait, &mut bare, &cx)? {
                let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
        }
        // Accumulators entering or leaving a loop in WMMA tiles (`matrix::Chains`).
        for i in &matrix::edge(&mut cx)? {
            let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
            body.code.extend_from_slice(&buf[..n]);
        }
        sites.note(cfg, pc, here, &body.code[here as usize..], bytes, kernel)?;
        // The block ends: a deferred constant goes out.
        if !matches!(s.flow, Flow::Next) || cfg.leaders.contains(&cfg.next_pc(pc)) {
            for (_, d) in std::mem::take(&mut cx.deferred) {
                let n = isa::encode(&d, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
        }
        // The block ends by falling into a leader: put the in-place words back, those
        // the code there may read (a register written first, or the end of the wave,
        // needs none).
        let next = cfg.next_pc(pc);
        if matches!(s.flow, Flow::Next) && !cx.inplace.is_empty() && cfg.leaders.contains(&next) {
            cx.inplace.retain(|e| scope::sgpr_live_at(cfg, next, e.reg));
            for i in &reencode::restore(&mut cx, &|_| true)? {
                let n = isa::encode(i, &mut buf).map_err(|e| enc(pc, e))?;
                body.code.extend_from_slice(&buf[..n]);
            }
        }
    }
    body.fixups.extend(sites.fixups(cfg, kernel)?);
    body.scratch = (cx.scratch_first, cx.scratch_used);
    let mut refs = Vec::new();
    for (g, lo, hi, target) in data {
        let at = |a: u64| {
            here_of
                .get(&a)
                .copied()
                .ok_or_else(|| TranslateError::Unsupported {
                    kernel: kernel.to_string(),
                    reason: format!(
                        "pc {g:#x}: a PC-relative data address is built outside the kernel scope"
                    ),
                })
        };
        refs.push(DataRef {
            getpc: at(g)?,
            lo: at(lo)?,
            hi: at(hi)?,
            target,
            src: [g, lo, hi],
        });
    }
    Ok((body, refs, bare))
}

/// Whether the high half of VGPR `v`, which the instruction at `pc` writes, is never
/// read: forward through the rest of its block, every read of `v` before an instruction
/// that overwrites all of it (a plain `Write` access without SDWA/DPP) takes the low
/// half of a 16-bit operand ([`reencode::reads_low16`]), or the wave ends. Anything else
/// (another read, a write of EXEC, which could leave lanes of the overwrite out, the end
/// of the block, a long stretch) counts as a read.
fn high16_dead(cfg: &Cfg, pc: u64, v: u16) -> bool {
    let mut at = pc;
    for _ in 0..64 {
        let Some(s) = cfg.insts.get(&at) else {
            return false;
        };
        if !matches!(s.flow, Flow::Next) {
            return false;
        }
        at = cfg.next_pc(at);
        if cfg.leaders.contains(&at) {
            return false;
        }
        let Some(n) = cfg.insts.get(&at) else {
            return false;
        };
        let (mut reads, mut overwrites) = (false, false);
        for a in n.inst.accesses() {
            let hits = |lo: u16, hi: u16| a.first < hi && lo < a.first + u16::from(a.count);
            match a.file {
                isa::RegFile::Vgpr if hits(v, v + 1) => {
                    reads |= a.kind.reads();
                    overwrites |= a.kind == isa::AccessKind::Write;
                }
                isa::RegFile::Sgpr if a.kind.writes() && hits(126, 128) => return false,
                _ => {}
            }
        }
        if reads && !reencode::reads_low16(&n.inst) && !stores_low16(&n.inst, v) {
            return false;
        }
        if (overwrites && n.inst.ext().is_none()) || matches!(n.flow, Flow::End) {
            return true;
        }
    }
    false
}

/// Whether VCC may be read after the instruction at `pc` (which must not touch VCC)
/// before all of it is written, along every path ([`scope::live_at`]): a read of either
/// half counts as a read, a write of both halves ends a path.
fn vcc_live_after(cfg: &Cfg, pc: u64) -> bool {
    let Some(s) = cfg.insts.get(&pc) else {
        return true;
    };
    let vcc = |a: &isa::Access| {
        a.file == isa::RegFile::Sgpr && a.first < 108 && 106 < a.first + u16::from(a.count)
    };
    if s.inst.accesses().any(|a| vcc(&a)) || !matches!(s.flow, Flow::Next) {
        return true;
    }
    scope::live_at(cfg, cfg.next_pc(pc), |inst| {
        let (mut reads, mut covered) = (false, [false; 2]);
        for a in inst.accesses().filter(|a| vcc(a)) {
            reads |= a.kind.reads();
            if a.kind == isa::AccessKind::Write {
                for (k, c) in covered.iter_mut().enumerate() {
                    *c |= a.first <= 106 + k as u16
                        && 106 + (k as u16) < a.first + u16::from(a.count);
                }
            }
        }
        (reads, covered == [true; 2])
    })
}

/// The SGPR that the instruction at `pc` sets to a constant (`s_mov_b32 sK, const`),
/// when its emission may wait for the buffer access that reads it as a descriptor's
/// dword3 ([`Ctx::deferred`]): in-place conversion is allowed and forward through the block (not past a leader or a transfer of control) the first
/// instruction touching `sK` is a MUBUF access whose descriptor's dword3 is `sK`. The
/// access then writes the GFX12 word over it ([`reencode::buffer`]'s in-place path), so
/// the guest's constant, which nothing reads, is never emitted.
fn dword3_def(cfg: &Cfg, pc: u64, cx: &Ctx<'_>) -> Option<u16> {
    let s = cfg.insts.get(&pc)?;
    if !cx.inplace_ok || s.inst.op != isa::Op::SMovB32 {
        return None;
    }
    let (
        Some(isa::Operand::Sgpr {
            first: reg,
            count: 1,
        }),
        Some(isa::Operand::Literal(_) | isa::Operand::Inline(_)),
    ) = (s.inst.operand(0), s.inst.operand(1))
    else {
        return None;
    };
    if !matches!(s.flow, Flow::Next) {
        return None;
    }
    let mut at = pc;
    for _ in 0..64 {
        at = cfg.next_pc(at);
        if cfg.leaders.contains(&at) {
            return None;
        }
        let n = cfg.insts.get(&at)?;
        let touches = n.inst.accesses().any(|a| {
            a.file == isa::RegFile::Sgpr && a.first <= reg && reg < a.first + u16::from(a.count)
        });
        if touches {
            // The descriptor is operand 2; no other operand may name `sK`.
            let elsewhere = (0..n.inst.num_operands()).any(|i| {
                i != 2
                    && matches!(n.inst.operand(i), Some(isa::Operand::Sgpr { first, count })
                        if first <= reg && reg < first + u16::from(count))
            });
            let mubuf = n.inst.format == isa::layout::Format::Mubuf
                && n.inst.field(F::Lds) == 0
                && (n.inst.field(F::Srsrc) * 4 + 3) as u16 == reg
                && n.inst
                    .operand(2)
                    .is_some_and(|o| matches!(o, isa::Operand::Sgpr { count: 4, .. }))
                && !elsewhere;
            return (mubuf && matches!(n.flow, Flow::Next)).then_some(reg);
        }
        if !matches!(n.flow, Flow::Next) {
            return None;
        }
    }
    None
}

/// Whether `g` is an 8- or 16-bit store (not a `_d16_hi` one) whose data is VGPR `v`
/// and which reads `v` nowhere else (its address): it stores the low bits only.
fn stores_low16(g: &isa::Inst, v: u16) -> bool {
    use isa::Op::*;
    if !matches!(
        g.op,
        GlobalStoreShort
            | GlobalStoreByte
            | FlatStoreShort
            | FlatStoreByte
            | ScratchStoreShort
            | ScratchStoreByte
            | BufferStoreShort
            | BufferStoreByte
            | DsWriteB16
            | DsWriteB8
    ) {
        return false;
    }
    // The data is MUBUF's first operand (vdata), the others' second (after vaddr).
    let data = if g.format == isa::layout::Format::Mubuf {
        0
    } else {
        1
    };
    if g.operand(data) != Some(isa::Operand::Vgpr { first: v, count: 1 }) {
        return false;
    }
    (0..g.num_operands()).filter(|&i| i != data).all(|i| {
        !matches!(g.operand(i), Some(isa::Operand::Vgpr { first, count })
            if first <= v && v < first + u16::from(count))
    })
}

/// Whether the VGPR pair `v[lo:lo+1]`, read by the instruction at `pc`, holds a 32-bit
/// value extended to 64 bits in every lane that instruction runs: `Some(false)` when
/// the high half's last write on every path to `pc` is `v_mov_b32 hi, 0` (zero-extended,
/// whatever `lo` holds; also through `v_mov_b32` copies of a register whose last write
/// is that), `Some(true)` when it is `v_ashrrev_i32 hi, 31, lo` and `lo` is not written
/// after it (sign-extended). The search walks back from `pc` through one straight line
/// of code; it crosses a block leader only when the leader's other predecessors are
/// branches back from the loop that the walk's block closes ([`loop_keeps`]), which
/// writes neither register nor EXEC. Nothing between the write and `pc` may write EXEC
/// (lanes the write left out could run at `pc`); anything else, or a long walk, gives
/// `None`.
fn extended(cfg: &Cfg, pc: u64, lo: u16) -> Option<bool> {
    let mut hi = lo + 1;
    let mut at = pc;
    let mut lo_written = false;
    // Copied from another register: only a zero can come through.
    let mut copied = false;
    for _ in 0..64 {
        if cfg.leaders.contains(&at) {
            lo_written |= loop_keeps(cfg, at, pc, hi, lo)?;
        }
        let (&prev, s) = cfg.insts.range(..at).next_back()?;
        if !matches!(s.flow, Flow::Next | Flow::CondBranch(_)) || cfg.next_pc(prev) != at {
            return None;
        }
        at = prev;
        let g = &s.inst;
        let (mut writes_hi, mut writes_lo) = (false, false);
        for a in g.accesses() {
            let hits = |r: u16| a.first <= r && r < a.first + u16::from(a.count);
            match a.file {
                isa::RegFile::Vgpr if a.kind.writes() => {
                    writes_hi |= hits(hi);
                    writes_lo |= hits(lo);
                }
                isa::RegFile::Sgpr if a.kind.writes() && (hits(126) || hits(127)) => return None,
                _ => {}
            }
        }
        if writes_hi {
            let plain = g.ext().is_none()
                && matches!(
                    g.format,
                    isa::layout::Format::Vop1 | isa::layout::Format::Vop2
                );
            let dst = g.operand(0)
                == Some(isa::Operand::Vgpr {
                    first: hi,
                    count: 1,
                });
            match (g.op, g.operand(1)) {
                (isa::Op::VMovB32, Some(isa::Operand::Inline(128))) if plain && dst => {
                    return Some(false)
                }
                (isa::Op::VMovB32, Some(isa::Operand::Vgpr { first, count: 1 }))
                    if plain && dst && first != hi =>
                {
                    hi = first;
                    copied = true;
                    continue;
                }
                (isa::Op::VAshrrevI32, Some(isa::Operand::Inline(159)))
                    if plain
                        && dst
                        && !copied
                        && !lo_written
                        && g.operand(2)
                            == Some(isa::Operand::Vgpr {
                                first: lo,
                                count: 1,
                            }) =>
                {
                    return Some(true)
                }
                _ => return None,
            }
        }
        lo_written |= writes_lo;
    }
    None
}

/// Whether control reaches the leader `at` only by falling through from the instruction
/// before it (a leader no branch names: the walk goes on into the code before) or by
/// branching back from the straight line of code from `at` through `pc`
/// to the first transfer of control at or after `pc` (a loop closed there), nothing
/// else branches into that line, and it writes neither EXEC nor VGPR `hi`: its value at `at` is then the one the
/// fall-through brings. `Some(whether the line writes VGPR lo)`, or `None`.
fn loop_keeps(cfg: &Cfg, at: u64, pc: u64, hi: u16, lo: u16) -> Option<bool> {
    // A leader only because a conditional branch precedes it: the fall-through alone.
    let entered = cfg.insts.values().any(|s| match s.flow {
        Flow::Branch(t) | Flow::CondBranch(t) | Flow::Call(t) => t == at,
        _ => false,
    });
    if !entered {
        return Some(false);
    }
    // The end of the line: the first instruction at or after `pc` that does not fall
    // through unconditionally.
    let mut end = pc;
    for _ in 0..256 {
        let s = cfg.insts.get(&end)?;
        if !matches!(s.flow, Flow::Next) {
            break;
        }
        end = cfg.next_pc(end);
    }
    let line = at..=end;
    // Indirect transfers land on recovered targets or (returns) after calls, which
    // the line (it ends at its first transfer) has none of before `end`.
    let indirect = cfg.recovered.values().any(|b| {
        b.lo[..usize::from(b.count)]
            .iter()
            .any(|&(_, t)| line.contains(&t))
    });
    if indirect || cfg.leaders.range(at + 1..=end).next().is_some() {
        return None;
    }
    for (&b, s) in cfg.insts.iter() {
        let target = match s.flow {
            Flow::Branch(t) | Flow::CondBranch(t) | Flow::Call(t) => t,
            _ => continue,
        };
        // Only the loop's own branches back may enter the line, and only at its start.
        let back = target == at && line.contains(&b) && !matches!(s.flow, Flow::Call(_));
        if line.contains(&target) && !back {
            return None;
        }
    }
    let mut writes_lo = false;
    for (_, s) in cfg.insts.range(line) {
        for a in s.inst.accesses().filter(|a| a.kind.writes()) {
            let hits = |r: u16| a.first <= r && r < a.first + u16::from(a.count);
            match a.file {
                isa::RegFile::Vgpr if hits(hi) => return None,
                isa::RegFile::Vgpr => writes_lo |= hits(lo),
                isa::RegFile::Sgpr if hits(126) || hits(127) => return None,
                _ => {}
            }
        }
    }
    Some(writes_lo)
}

/// What follows a `s_getpc_b64 s[n:n+1]` on gfx1201 so that the pair holds what GFX9
/// returns: GFX12 (before gfx1250) zero-extends the 48-bit PC where GFX9 sign-extends it
/// (LLVM 22 `GCNSubtarget::hasGetPCZeroExtension`), and LLVM follows every such
/// `s_getpc_b64` with `s_sext_i32_i16 s[n+1], s[n+1]`, after the `s_wait_alu
/// depctr_sa_sdst(0)` its SGPR-hazard pass puts between them (clang-22 `-O2
/// --offload-arch=gfx1201`: `s_getpc_b64 s[0:1]; s_wait_alu depctr_sa_sdst(0);
/// s_sext_i32_i16 s1, s1`) when a VALU reads the pair (bit set in `wait`, see [`emit`];
/// else the pair's bit goes into `bare`). Emitted for every `s_getpc_b64` of a scope: in
/// a kernel scope each one starts a recovered builder or a PC-relative data address,
/// both of which read the high half. The value it yields stays `getpc + 4`, so the
/// builders' offsets are unchanged.
fn getpc_sign_extension(
    g: &isa::Inst,
    wait: u64,
    bare: &mut u64,
    cx: &Ctx<'_>,
) -> Result<Vec<isa::Inst>, TranslateError> {
    use isa::layout::Format;
    use isa::{Op, Operand};
    let Some(Operand::Sgpr { first, count: 2 }) = g.operand(0) else {
        return Err(TranslateError::Unsupported {
            kernel: cx.kernel.to_string(),
            reason: format!("pc {:#x}: s_getpc_b64 without an SGPR pair", cx.pc),
        });
    };
    // depctr_sa_sdst(0): SIMM16 0xff9e (llvm-mc-22 -mcpu=gfx1201 encodes
    // `s_wait_alu depctr_sa_sdst(0)` as 0xbf88ff9e).
    let mut out = Vec::with_capacity(2);
    let pair = 1u64 << (first.min(127) / 2);
    if wait & pair != 0 {
        let mut w = reencode::build(Op::SWaitAlu, Format::Sopp, cx)?;
        w.set_operand(0, Operand::Imm(0xff9e))
            .map_err(|e| cx.enc(e))?;
        out.push(w);
    } else {
        *bare |= pair;
    }
    let hi = reencode::map_operand(
        g,
        Operand::Sgpr {
            first: first + 1,
            count: 1,
        },
        cx,
    )?;
    let mut sext = reencode::build(Op::SSextI32I16, Format::Sop1, cx)?;
    sext.set_operand(0, hi).map_err(|e| cx.enc(e))?;
    sext.set_operand(1, hi).map_err(|e| cx.enc(e))?;
    out.push(sext);
    Ok(out)
}

/// Re-encodes an instruction that the translation built for GFX9 (a virtual-LDS
/// prologue or access) for the host.
fn gfx9_to_host(g: &isa::Inst, cx: &mut Ctx<'_>) -> Result<Vec<isa::Inst>, TranslateError> {
    let mut buf = [0u8; 20];
    let n = isa::encode(g, &mut buf).map_err(|source| TranslateError::Encode {
        kernel: cx.kernel.to_string(),
        pc: cx.pc,
        source,
    })?;
    reencode::lower(g, &buf[..n], cx)
}

/// A PC-relative reference from code to data (`s_getpc_b64 s[n:n+1]; s_add_u32 sn, sn,
/// lo; s_addc_u32 sn+1, sn+1, hi`, the AMDGPUUsage global-address sequence): the data
/// does not move with the code, so the literals are recomputed after the commit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataRef {
    /// Local offsets of the three host instructions.
    pub(crate) getpc: u32,
    pub(crate) lo: u32,
    pub(crate) hi: u32,
    /// The guest image address referenced.
    pub(crate) target: u64,
    /// Source addresses of the three guest instructions.
    pub(crate) src: [u64; 3],
}

impl DataRef {
    /// The same reference after its body's code moved from the layout `before` to the
    /// layout `after` (source address -> local offset; long forms and islands insert code
    /// only at branches, so each instruction's host code moves as a whole).
    pub(crate) fn moved(
        self,
        before: &BTreeMap<u64, u32>,
        after: &BTreeMap<u64, u32>,
    ) -> Result<DataRef, TranslateError> {
        let by = |src: u64, at: u32| match (before.get(&src), after.get(&src)) {
            (Some(&b), Some(&a)) if at >= b => Ok(at - b + a),
            _ => Err(bad(format!(
                "pc {src:#x}: a PC-relative data address lost its place in the layout"
            ))),
        };
        Ok(DataRef {
            getpc: by(self.src[0], self.getpc)?,
            lo: by(self.src[1], self.lo)?,
            hi: by(self.src[2], self.hi)?,
            ..self
        })
    }
}

/// The add/addc pair completing a `s_getpc_b64` at `pc` that no indirect transfer
/// consumes, with the address it builds; fails closed when the sequence is not the
/// recognized one or builds an address inside `.text` (a code pointer that relocated
/// code would invalidate).
pub(crate) fn data_builder(
    cfg: &Cfg,
    pc: u64,
    base: u64,
    text_len: u64,
    kernel: &str,
) -> Result<(u64, u64, u64, u64), TranslateError> {
    use isa::{Op, Operand};
    let fail = |why: &str| TranslateError::Unsupported {
        kernel: kernel.to_string(),
        reason: format!("pc {pc:#x}: s_getpc_b64 {why}"),
    };
    let Some(Operand::Sgpr { first: r, count: 2 }) = cfg.insts[&pc].inst.operand(0) else {
        return Err(fail("has an unexpected destination"));
    };
    let (mut lo, mut hi) = (None, None);
    for (&a, s) in cfg.insts.range(pc + 1..).take(8) {
        let i = &s.inst;
        let me = |k: u16| Some(Operand::Sgpr { first: k, count: 1 });
        match (i.op, i.operand(2)) {
            (Op::SAddU32, Some(Operand::Literal(l)))
                if i.operand(0) == me(r) && i.operand(1) == me(r) =>
            {
                lo = Some((a, l));
            }
            (Op::SAddcU32, Some(Operand::Literal(h)))
                if lo.is_some() && i.operand(0) == me(r + 1) && i.operand(1) == me(r + 1) =>
            {
                hi = Some((a, h));
                break;
            }
            _ => {
                if i.accesses().into_iter().any(|x| {
                    x.kind.writes()
                        && x.file == isa::RegFile::Sgpr
                        && x.first <= r + 1
                        && r < x.first + u16::from(x.count)
                }) {
                    break;
                }
            }
        }
    }
    let (Some((la, l)), Some((ha, h))) = (lo, hi) else {
        return Err(fail(
            "is not followed by the s_add_u32/s_addc_u32 of an address",
        ));
    };
    let target = (pc + 4).wrapping_add(u64::from(l) | u64::from(h) << 32);
    if target >= base && target < base + text_len {
        return Err(fail(
            "builds a code address, which relocated code would invalidate",
        ));
    }
    Ok((pc, la, ha, target))
}

/// Where the guest's AGPRs fold in a scope: above its arch VGPRs, when it has any.
fn agpr_base_of(
    cfg: &Cfg,
    sc: &std::collections::BTreeSet<u64>,
    p: &crate::Plan,
    guest: Target,
) -> Option<u16> {
    let arch = match scope::vgpr_extent(cfg, sc) {
        Some(v) => u32::from(v),
        None => p.kd.allocated_vgprs(guest).min(p.kd.first_agpr()),
    };
    let agprs = p.agprs.max(agpr_extent(cfg, sc));
    (agprs > 0).then_some(arch as u16)
}

/// One past the highest AGPR the scope names.
fn agpr_extent(cfg: &Cfg, sc: &std::collections::BTreeSet<u64>) -> u32 {
    let mut hi = 0u32;
    for s in sc.iter().filter_map(|pc| cfg.insts.get(pc)) {
        for a in s.inst.accesses() {
            if a.file == isa::RegFile::Agpr {
                hi = hi.max(u32::from(a.first) + u32::from(a.count));
            }
        }
    }
    hi
}

/// Recomputes the literals of every PC-relative data reference for the final code and
/// data addresses (the writer moves what lies behind `.text` by one delta; the guest
/// segment holding the target and its counterpart in the output give it).
pub(crate) fn patch_data_refs(
    guest: &CodeObject,
    out: &mut [u8],
    entries: &[u64],
    starts: &[u64],
    refs: &[Vec<DataRef>],
) -> Result<(), TranslateError> {
    if refs.iter().all(Vec::is_empty) {
        return Ok(());
    }
    let host = CodeObject::parse(out)?;
    let (gi, hi) = (guest.image(), host.image());
    let text_addr = host.text_address();
    let text_seg = hi
        .segment_at(text_addr)
        .ok_or_else(|| bad("the translated .text is in no LOAD segment".into()))?;
    let text_file = text_seg.file_offset + (text_addr - text_seg.vaddr);
    let mut writes = Vec::new();
    for (k, rs) in refs.iter().enumerate() {
        // The body's start: its entry's final address less the entry's local offset.
        let start = entries[k] - starts[k];
        for r in rs {
            let idx = gi
                .segments
                .iter()
                .position(|s| {
                    r.target >= s.vaddr && r.target < s.vaddr.saturating_add(s.mem_size.max(1))
                })
                .ok_or_else(|| {
                    bad(format!(
                        "data address {:#x} is in no LOAD segment",
                        r.target
                    ))
                })?;
            let (gs, hs) = (
                &gi.segments[idx],
                &hi.segments
                    .get(idx)
                    .ok_or_else(|| bad("segments differ".into()))?,
            );
            let new_target = hs.vaddr.wrapping_add(r.target - gs.vaddr);
            let delta = new_target.wrapping_sub(start + u64::from(r.getpc) + 4);
            writes.push((r.lo, delta as u32));
            writes.push((r.hi, (delta >> 32) as u32));
        }
        for &(at, v) in &writes {
            let o = (text_file + (start - text_addr) + u64::from(at) + 4) as usize;
            out.get_mut(o..o + 4)
                .ok_or_else(|| bad("a literal lies outside the file".into()))?
                .copy_from_slice(&v.to_le_bytes());
        }
        writes.clear();
    }
    Ok(())
}

fn bad(reason: String) -> TranslateError {
    TranslateError::Unsupported {
        kernel: String::new(),
        reason,
    }
}

/// Checks the host object: it loads as gfx1201, and from every kernel entry its code
/// decodes on gfx1201 (wave64) up to the end of `.text` without an undecodable word.
fn verify(bytes: &[u8]) -> Result<(), TranslateError> {
    let co = CodeObject::parse(bytes)?;
    if co.target() != Target::Gfx1201 {
        return Err(TranslateError::Unsupported {
            kernel: String::new(),
            reason: format!("the written object reads back as {}", co.target()),
        });
    }
    let (text, base) = (co.text(), co.text_address());
    for k in co.kernels() {
        let mut off = (k.entry_address - base) as usize;
        while off < text.len() {
            match isa::decode(HOST, &text[off..], false) {
                Ok(i) => {
                    if i.op == isa::Op::SEndpgm {
                        break;
                    }
                    off += usize::from(i.len);
                }
                Err(source) => {
                    return Err(TranslateError::Undecodable {
                        kernel: k.name.clone(),
                        pc: base + off as u64,
                        source,
                    })
                }
            }
        }
    }
    Ok(())
}
