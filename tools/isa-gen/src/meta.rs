//! Learns what each opcode does besides its syntax: which register operands it reads and
//! writes, its implicit registers, its issue class, the wait counters it increments and
//! whether it is graphics-only. LLVM is asked where it can be (`llvm-mca-22`, crate
//! `llvm-oracle`, module `mca`); the rest follows the rules in [`rules`], each with its
//! source.
//!
//! Every entry's base probe (the valid word the opcode was learned from, distinct
//! registers in every field) is disassembled to text, which llvm-mca reassembles:
//!
//! 1. its instruction-table row gives the scheduling resources, may-load/may-store and
//!    latency (the issue class, module [`rules`]);
//! 2. a one-iteration simulation of the probe alone gives the number of registers it
//!    defines (explicit and implicit, a tuple counted once);
//! 3. reads: for every register operand, `writer; probe` against `other-writer; probe`,
//!    where the writer is a long-latency load of the operand's first register (VGPR and
//!    AGPR: a global load; SGPR: a scalar load): the probe waits exactly when it reads
//!    the register. An operand it does not wait on is a definition (LLVM's explicit
//!    operands are uses or definitions). Implicit registers the same way where a
//!    writer with a latency above one cycle exists: VCC (a scalar load) on every
//!    target; SCC (`s_cmp_*`), EXEC (`v_cmpx_*`) and MODE (`s_setreg_b32`) on GFX12,
//!    whose scheduling model gives SALU and VALU results latencies above one;
//! 4. implicit writes, when the probe's latency is above one cycle: `probe; reader`
//!    against `probe; other-reader` (the reader of SCC is `s_cselect_b32`, of MODE
//!    `s_getreg_b32`, of VCC and EXEC an `s_mov`);
//! 5. what is left to the count of step 2: implicit registers the rules say are
//!    written (LLVM gives an instruction's later definitions the default latency, so a
//!    reader that does not wait proves nothing), then destinations the probe waits on
//!    (tied, read-write: `v_fmac_f32`'s accumulator, `v_writelane`, D16 loads that keep
//!    the other half). Where definitions are still missing, step 4's readers are asked
//!    about every operand the probe reads (`ds_bvh_stack_*` also writes its address).
//!
//! Probes llvm-mca cannot parse (the assembler checks what the disassembler does not)
//! are retried with spread-out registers ([`respread`]); what no probe answers (M0,
//! GFX9 implicit registers of one-cycle operations, the buffer D16 loads that crash
//! llvm-mca, wait counters, the graphics flag) follows the rules of [`rules`]. Memory
//! instructions are asked about EXEC only among the implicit registers.
//!
//! Entries whose result disagrees with step 2's count are reported on stderr
//! (`ISA_GEN_META_DUMP=1` prints every probe, what was measured and the result).

pub mod rules;

use crate::layout::{self, Format, Layout, F};
use crate::learn::{encode, parse_reg, split_inst, strip_mods, Entry, Tables, Tok};
use crate::llvm::{Answer, InstInfo, Oracle, RegionStats};
use std::collections::BTreeMap;

/// An implicit register (bit `1 << r as u8` in [`Meta::imp_rd`]/[`Meta::imp_wr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Imp {
    Scc,
    Vcc,
    Exec,
    M0,
    Mode,
}

impl Imp {
    pub const ALL: [Imp; 5] = [Imp::Scc, Imp::Vcc, Imp::Exec, Imp::M0, Imp::Mode];

    pub fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// What is learned per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Issue class (variant name of `isa::IssueClass`).
    pub class: &'static str,
    /// Wait counters (bit per `isa::Counter`), with the default modifiers.
    pub waits: u16,
    /// `isa::meta` flag bits (graphics, ...).
    pub flags: u8,
    /// Implicit registers read / written ([`Imp`] bits).
    pub imp_rd: u8,
    pub imp_wr: u8,
    /// Register fields read / written (bit `F as u8`).
    pub rd: u128,
    pub wr: u128,
}

impl Default for Meta {
    fn default() -> Meta {
        Meta {
            class: "Control",
            waits: 0,
            flags: 0,
            imp_rd: 0,
            imp_wr: 0,
            rd: 0,
            wr: 0,
        }
    }
}

/// One register operand of a probe's text.
#[derive(Debug, Clone)]
struct Reg {
    field: F,
    /// `v`, `s`, `a` (true16 halves `v20.l` are `v`).
    cls: char,
    first: u32,
    regs: u8,
}

/// The probe of one entry: its text and operands.
#[derive(Debug, Clone)]
struct Probe {
    text: String,
    regs: Vec<Reg>,
    /// Implicit registers printed as text (`vcc`, `exec`, `m0`, `scc`), and whether
    /// each is printed before the last operand.
    shown: Vec<(Imp, bool)>,
    /// A spread-out retry (see [`respread`]).
    spread: bool,
}

/// A measurement: `None` = no answer.
type Seen = Option<bool>;

/// What llvm-mca said about one probe.
#[derive(Debug, Clone, Default)]
struct Measured {
    row: Option<InstInfo>,
    defs: Option<u32>,
    /// Per register operand: read? written (asked only where the count needs it)?
    rd: Vec<Seen>,
    wr: Vec<Seen>,
    imp_rd: BTreeMap<Imp, bool>,
    imp_wr: BTreeMap<Imp, bool>,
}

/// Learns [`Meta`] for every entry of `t` (in `t.meta`, parallel to `t.entries`).
pub fn learn(o: &mut Oracle, gfx12: bool, wave32: bool, t: &mut Tables) {
    let mut probes: Vec<Option<Probe>> = t
        .entries
        .iter()
        .map(|e| {
            let text = probe_text(o, gfx12, e, &e.vals)?;
            Some(parse_probe(gfx12, e, &e.vals, text))
        })
        .collect();
    respread(o, gfx12, &t.entries, &mut probes);
    let formats: Vec<Format> = t.entries.iter().map(|e| e.format).collect();
    let mut m = measure(o, gfx12, wave32, &probes, &formats);
    // Where definitions remain unaccounted for, ask readers about every operand.
    let short: Vec<bool> = t
        .entries
        .iter()
        .zip(&probes)
        .zip(&m)
        .map(|((e, p), m)| decide(gfx12, e, p.as_ref(), m).2)
        .collect();
    measure_writes(o, gfx12, &probes, &short, &mut m);
    let mut report = Vec::new();
    t.meta = t
        .entries
        .iter()
        .zip(&probes)
        .zip(&m)
        .map(|((e, p), m)| {
            let (meta, bad, _) = decide(gfx12, e, p.as_ref(), m);
            if let Some(b) = bad {
                report.push(b);
            }
            meta
        })
        .collect();
    if std::env::var_os("ISA_GEN_META_DUMP").is_some() {
        for ((e, p), (m, meta)) in t.entries.iter().zip(&probes).zip(m.iter().zip(&t.meta)) {
            eprintln!(
                "META {} | {:?} | {:?} | {:?}",
                e.mnemonic,
                p.as_ref().map(|p| &p.text),
                m,
                meta
            );
        }
    }
    if !report.is_empty() {
        eprintln!(
            "isa-gen: {}{}: {} entries whose definitions disagree with llvm-mca's count:",
            o.cpu,
            o.mattr,
            report.len()
        );
        for r in report.iter().take(40) {
            eprintln!("  {r}");
        }
    }
}

/// The text of an entry's probe with field values `vals` (as llvm-mc prints it).
fn probe_text(o: &mut Oracle, gfx12: bool, e: &Entry, vals: &BTreeMap<F, u32>) -> Option<String> {
    let l = layout::layout(gfx12, e.format)?;
    let bytes = encode(l, vals, None);
    match o.ask(&[bytes]).pop()? {
        Answer::Inst(text, _) if !text.contains("/*") => Some(text),
        _ => None,
    }
}

/// Register numbers of the spread-out probes (tuples of up to 32 registers never
/// overlap), per field.
fn spread_reg(f: F) -> Option<u32> {
    Some(match f {
        F::Vdst => 8,
        F::Src0 | F::Addr | F::Vaddr => 64,
        F::Src1 | F::Vsrc1 | F::Data0 | F::Data | F::Vdata => 128,
        F::Src2 | F::Data1 => 192,
        _ => return None,
    })
}

/// Probes llvm-mca cannot parse (the assembler checks what the disassembler does not:
/// overlapping tuples, the constant bus, SGPR-only lane masks) are retried with the
/// VGPR fields spread out, then also with one SGPR for every scalar source, then with
/// src2 an SGPR; the first text llvm-mca parses is the probe.
fn respread(o: &mut Oracle, gfx12: bool, entries: &[Entry], probes: &mut [Option<Probe>]) {
    let texts: Vec<String> = probes
        .iter()
        .map(|p| p.as_ref().map_or(String::new(), |p| p.text.clone()))
        .collect();
    let rows = o.rows(&texts);
    let mut cands: Vec<(usize, BTreeMap<F, u32>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if rows[i].is_some() || e.format == Format::Vopd {
            continue;
        }
        let Some(l) = layout::layout(gfx12, e.format) else {
            continue;
        };
        let mut spread = e.vals.clone();
        for f in l.fields {
            let (Some(v), Some(n)) = (e.vals.get(&f.name), spread_reg(f.name)) else {
                continue;
            };
            match f.role {
                layout::Role::Vgpr8 if *v != 0 => {
                    spread.insert(f.name, n);
                }
                layout::Role::Src9 if *v >= 256 => {
                    spread.insert(f.name, 256 + n);
                }
                _ => {}
            }
        }
        let mut one_sgpr = spread.clone();
        for f in l.fields {
            if f.role == layout::Role::Src9 && one_sgpr.get(&f.name).is_some_and(|v| *v < 102) {
                one_sgpr.insert(f.name, 20);
            }
        }
        let mut sgpr_src2 = one_sgpr.clone();
        if l.field(F::Src2)
            .is_some_and(|f| f.role == layout::Role::Src9)
        {
            sgpr_src2.insert(F::Src2, 20);
        }
        // Images: the assembler wants one data channel for gathers and atomics, two
        // for compare-and-swap.
        let mut img = Vec::new();
        if l.field(F::Dmask).is_some() {
            for d in [1, 3] {
                let mut v = spread.clone();
                v.insert(F::Dmask, d);
                img.push(v);
            }
        }
        for v in [spread, one_sgpr, sgpr_src2].into_iter().chain(img) {
            cands.push((i, v));
        }
    }
    let texts: Vec<Option<String>> = cands
        .iter()
        .map(|(i, v)| probe_text(o, gfx12, &entries[*i], v))
        .collect();
    let lines: Vec<String> = texts
        .iter()
        .map(|t| t.clone().unwrap_or_default())
        .collect();
    let rows = o.rows(&lines);
    for (((i, v), text), row) in cands.into_iter().zip(texts).zip(rows) {
        let (Some(text), Some(_)) = (text, row) else {
            continue;
        };
        if probes[i].as_ref().is_some_and(|p| p.spread) {
            continue;
        }
        let mut p = parse_probe(gfx12, &entries[i], &v, text);
        p.spread = true;
        probes[i] = Some(p);
    }
}

fn imp_of(t: &str) -> Option<Imp> {
    match t {
        "vcc" | "vcc_lo" => Some(Imp::Vcc),
        "exec" | "exec_lo" => Some(Imp::Exec),
        "m0" => Some(Imp::M0),
        "scc" => Some(Imp::Scc),
        _ => None,
    }
}

/// The register operands of a probe's text, mapped back to fields by their numbers.
fn parse_probe(gfx12: bool, e: &Entry, vals: &BTreeMap<F, u32>, text: String) -> Probe {
    let (_, ops) = if e.format == Format::Vopd {
        let h = crate::vopd::half(&text, e.key == Format::VopdY);
        split_inst(h)
    } else {
        split_inst(&text)
    };
    let ops = strip_mods(&ops);
    let l = layout::layout(gfx12, e.format);
    let mut regs = Vec::new();
    let mut shown = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        if let Some(r) = imp_of(op) {
            shown.push((r, i + 1 < ops.len()));
            continue;
        }
        // Image address lists print as `[v20, v21, v[22:24]]`.
        let parts: Vec<&str> = match op.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            Some(inner) if inner.contains(", ") => inner.split(", ").collect(),
            _ => vec![op.as_str()],
        };
        for part in parts {
            let Some((c, n, k)) = parse_reg(part) else {
                continue;
            };
            let Some(field) = field_of(e, vals, l, c, n) else {
                continue;
            };
            regs.push(Reg {
                field,
                cls: if c == 'l' { 'v' } else { c },
                first: n,
                regs: k,
            });
        }
    }
    Probe {
        text,
        regs,
        shown,
        spread: false,
    }
}

/// The field holding register `n` of class `c` in an entry's probe.
fn field_of(e: &Entry, vals: &BTreeMap<F, u32>, l: Option<&Layout>, c: char, n: u32) -> Option<F> {
    if e.format == Format::Vopd {
        return crate::vopd::field_of_reg(n);
    }
    let l = l?;
    let t = crate::learn::token(l, vals, &format!("{}{n}", if c == 'l' { 'v' } else { c }));
    match t {
        Tok::Reg { field, .. } => Some(field),
        _ => None,
    }
}

/// Instructions that write or read a register with a latency above one cycle, and the
/// same without the register (baselines). Register numbers 94..99 (SGPR) and 248..255
/// (VGPR, AGPR) are kept out of every probe.
struct Kit {
    gfx12: bool,
    wave32: bool,
}

impl Kit {
    /// A long-latency write of register `n` of class `c` (None: no such writer).
    fn writer(&self, c: char, n: u32) -> Option<String> {
        Some(match (c, self.gfx12) {
            ('v', false) => format!("global_load_dword v{n}, v[254:255], off"),
            ('a', false) => format!("global_load_dword a{n}, v[254:255], off"),
            ('v', true) => format!("global_load_b32 v{n}, v[254:255], off"),
            ('s', false) => format!("s_load_dword s{n}, s[98:99], 0x0"),
            ('s', true) => format!("s_load_b32 s{n}, s[98:99], 0x0"),
            _ => return None,
        })
    }

    fn lane_mask(&self, lo: &str, full: &str) -> String {
        if self.wave32 {
            lo.to_string()
        } else {
            full.to_string()
        }
    }

    /// A long-latency write of an implicit register and its baseline.
    fn imp_writer(&self, r: Imp) -> Option<(String, String)> {
        let s_load = |d: &str| {
            if self.gfx12 {
                if self.wave32 {
                    format!("s_load_b32 {d}, s[98:99], 0x0")
                } else {
                    format!("s_load_b64 {d}, s[98:99], 0x0")
                }
            } else {
                format!("s_load_dwordx2 {d}, s[98:99], 0x0")
            }
        };
        Some(match (r, self.gfx12) {
            (Imp::Vcc, _) => (
                s_load(&self.lane_mask("vcc_lo", "vcc")),
                s_load(&self.lane_mask("s96", "s[96:97]")),
            ),
            (Imp::Scc, true) => ("s_cmp_eq_u32 s96, s97".into(), "s_mov_b32 s95, s97".into()),
            (Imp::Exec, true) => (
                "v_cmpx_eq_u32_e32 v250, v251".into(),
                format!(
                    "v_cmp_eq_u32_e64 {}, v250, v251",
                    self.lane_mask("s94", "s[94:95]")
                ),
            ),
            (Imp::Mode, true) => (
                "s_setreg_b32 hwreg(HW_REG_MODE), s97".into(),
                "s_mov_b32 s95, s97".into(),
            ),
            _ => return None,
        })
    }

    /// A read of an implicit register and its baseline.
    fn imp_reader(&self, r: Imp) -> Option<(String, String)> {
        let mov = |x: &str| {
            if self.wave32 {
                format!("s_mov_b32 s95, {x}_lo")
            } else {
                format!("s_mov_b64 s[94:95], {x}")
            }
        };
        let base = if self.wave32 {
            "s_mov_b32 s95, s97"
        } else {
            "s_mov_b64 s[94:95], s[96:97]"
        };
        Some(match r {
            Imp::Vcc => (mov("vcc"), base.into()),
            Imp::Exec => (mov("exec"), base.into()),
            Imp::Scc => (
                "s_cselect_b32 s95, s96, s97".into(),
                "s_mov_b32 s95, s96".into(),
            ),
            Imp::Mode => (
                "s_getreg_b32 s95, hwreg(HW_REG_MODE)".into(),
                "s_mov_b32 s95, s96".into(),
            ),
            Imp::M0 => return None,
        })
    }
}

/// Memory formats (vector, scalar, LDS, export).
fn memory_format(f: Format) -> bool {
    matches!(
        f,
        Format::Smem
            | Format::Ds
            | Format::Flat
            | Format::Global
            | Format::Scratch
            | Format::Mubuf
            | Format::Mtbuf
            | Format::Mimg
            | Format::Vimage
            | Format::Vsample
            | Format::Vdsdir
            | Format::Exp
    )
}

/// Whether register `n` of class `c` lies in operand `r`.
fn overlaps(r: &Reg, c: char, n: u32) -> bool {
    r.cls == c && (r.first..r.first + u32::from(r.regs)).contains(&n)
}

/// Asks llvm-mca everything about every probe, in a few batches.
fn measure(
    o: &mut Oracle,
    gfx12: bool,
    wave32: bool,
    probes: &[Option<Probe>],
    formats: &[Format],
) -> Vec<Measured> {
    let kit = Kit { gfx12, wave32 };
    let texts: Vec<String> = probes
        .iter()
        .map(|p| p.as_ref().map_or(String::new(), |p| p.text.clone()))
        .collect();
    let rows = o.rows(&texts);
    // Sequences and what each answers: (probe, question, test?).
    #[derive(Clone, Copy)]
    enum Q {
        Defs,
        Rd(usize),
        ImpRd(Imp),
        ImpWr(Imp),
    }
    let mut seqs: Vec<Vec<String>> = Vec::new();
    let mut jobs: Vec<(usize, Q, usize, usize)> = Vec::new(); // (probe, q, test seq, base seq)
    let mut seq = |v: Vec<String>| {
        seqs.push(v);
        seqs.len() - 1
    };
    for (i, p) in probes.iter().enumerate() {
        let (Some(p), Some(row)) = (p, &rows[i]) else {
            continue;
        };
        let s = seq(vec![p.text.clone()]);
        jobs.push((i, Q::Defs, s, s));
        let slow = row.latency >= 2;
        for (k, r) in p.regs.iter().enumerate() {
            let alone = |c: char, n: u32| {
                p.regs
                    .iter()
                    .enumerate()
                    .all(|(j, q)| j == k || !overlaps(q, c, n))
            };
            let base_n = if r.cls == 's' { 96 } else { 250 };
            if let (Some(w), Some(b), true) = (
                kit.writer(r.cls, r.first),
                kit.writer(r.cls, base_n),
                alone(r.cls, r.first),
            ) {
                let t = seq(vec![w, p.text.clone()]);
                let bs = seq(vec![b, p.text.clone()]);
                jobs.push((i, Q::Rd(k), t, bs));
            }
        }
        // Memory instructions are asked about EXEC only: none of them uses SCC, VCC or
        // MODE, and their implicit registers are never results.
        let mem = memory_format(formats[i]);
        for r in Imp::ALL {
            if mem && r != Imp::Exec {
                continue;
            }
            if let Some((w, b)) = kit.imp_writer(r) {
                let t = seq(vec![w, p.text.clone()]);
                let bs = seq(vec![b, p.text.clone()]);
                jobs.push((i, Q::ImpRd(r), t, bs));
            }
            if slow && !mem {
                if let Some((rd, b)) = kit.imp_reader(r) {
                    let t = seq(vec![p.text.clone(), rd]);
                    let bs = seq(vec![p.text.clone(), b]);
                    jobs.push((i, Q::ImpWr(r), t, bs));
                }
            }
        }
    }
    let sims = o.simulate(&seqs);
    let mut out: Vec<Measured> = probes
        .iter()
        .zip(rows)
        .map(|(p, row)| {
            let n = p.as_ref().map_or(0, |p| p.regs.len());
            Measured {
                row,
                rd: vec![None; n],
                wr: vec![None; n],
                ..Measured::default()
            }
        })
        .collect();
    let full = |s: &Option<RegionStats>, n: u32| s.filter(|s| s.instructions == n);
    for (i, q, t, b) in jobs {
        let m = &mut out[i];
        if let Q::Defs = q {
            m.defs = full(&sims[t], 1).map(|s| s.mappings);
            continue;
        }
        let (Some(ts), Some(bs)) = (full(&sims[t], 2), full(&sims[b], 2)) else {
            continue;
        };
        let hit = ts.cycles > bs.cycles;
        match q {
            Q::Defs => {}
            Q::Rd(k) => m.rd[k] = Some(hit),
            Q::ImpRd(r) => {
                m.imp_rd.insert(r, hit);
            }
            Q::ImpWr(r) => {
                m.imp_wr.insert(r, hit);
            }
        }
    }
    out
}

/// For the probes flagged in `short` (llvm-mca counts more definitions than found),
/// `probe; reader` against `probe; other-reader` for every register operand the probe
/// reads: a reader that waits proves the operand is written too (a tied definition
/// other than the destination, e.g. `ds_bvh_stack_*`'s stack address). Needs a probe
/// latency above one cycle.
fn measure_writes(
    o: &mut Oracle,
    gfx12: bool,
    probes: &[Option<Probe>],
    short: &[bool],
    m: &mut [Measured],
) {
    // A store reads VGPRs and AGPRs without the VALU, whose multi-cycle work (MFMA,
    // f64) would hold up a VALU reader alike in test and baseline.
    let reader = |c: char, n: u32| -> Option<String> {
        Some(match (c, gfx12) {
            ('v', false) => format!("global_store_dword v[254:255], v{n}, off"),
            ('a', false) => format!("global_store_dword v[254:255], a{n}, off"),
            ('v', true) => format!("global_store_b32 v[254:255], v{n}, off"),
            ('s', _) => format!("s_mov_b32 s95, s{n}"),
            _ => return None,
        })
    };
    let mut seqs = Vec::new();
    let mut jobs = Vec::new();
    for (i, p) in probes.iter().enumerate() {
        let Some(p) = p else { continue };
        if !short[i] || m[i].row.as_ref().is_none_or(|r| r.latency < 2) {
            continue;
        }
        for (k, r) in p.regs.iter().enumerate() {
            let alone = p
                .regs
                .iter()
                .enumerate()
                .all(|(j, q)| j == k || !overlaps(q, r.cls, r.first));
            let base = if r.cls == 's' { 97 } else { 251 };
            if let (Some(rd), Some(b), true) = (reader(r.cls, r.first), reader(r.cls, base), alone)
            {
                seqs.push(vec![p.text.clone(), rd]);
                seqs.push(vec![p.text.clone(), b]);
                jobs.push((i, k));
            }
        }
    }
    let sims = o.simulate(&seqs);
    for (n, (i, k)) in jobs.into_iter().enumerate() {
        let full = |s: Option<RegionStats>| s.filter(|s| s.instructions == 2);
        if let (Some(t), Some(b)) = (full(sims[2 * n]), full(sims[2 * n + 1])) {
            m[i].wr[k] = Some(t.cycles > b.cycles);
        }
    }
}

/// Decides an entry's [`Meta`] from what was measured and the rules; the second value
/// describes a disagreement with llvm-mca's definition count, the third says whether
/// definitions are unaccounted for.
///
/// Reads are what the probe waits on (the rules where unmeasured). Writes:
/// 1. certain: an operand whose reader waits, an operand the probe does not wait on
///    (LLVM's explicit operands are uses or definitions), an implicit register whose
///    reader waits, an implicit register the rules say is written and nothing measured;
/// 2. if llvm-mca counts more definitions: implicit registers the rules say are written
///    although their reader did not wait (LLVM gives an instruction's later
///    definitions the default latency, so a reader that does not wait proves nothing),
///    then destinations the probe waits on (tied: read-write), in printed order.
fn decide(gfx12: bool, e: &Entry, p: Option<&Probe>, m: &Measured) -> (Meta, Option<String>, bool) {
    let row = m.row.as_ref();
    let class = rules::class(gfx12, e, row);
    let mut meta = Meta {
        class,
        waits: rules::waits(gfx12, e, class),
        flags: rules::flags(e),
        ..Meta::default()
    };
    let shown = p.map_or(&[][..], |p| p.shown.as_slice());
    let (imp_rule_rd, imp_rule_wr) = rules::implicit(gfx12, e, class, shown);
    let mut maybe_imp = Vec::new();
    for r in Imp::ALL {
        if m.imp_rd
            .get(&r)
            .copied()
            .unwrap_or(imp_rule_rd & r.bit() != 0)
        {
            meta.imp_rd |= r.bit();
        }
        let rule = imp_rule_wr & r.bit() != 0;
        match m.imp_wr.get(&r) {
            Some(true) => meta.imp_wr |= r.bit(),
            None if rule => meta.imp_wr |= r.bit(),
            Some(false) if rule => maybe_imp.push(r),
            _ => {}
        }
    }
    let syntax_fields = rules::syntax_regs(e);
    let (rule_rd, rule_wr) = rules::explicit(gfx12, e, class, &syntax_fields);
    let Some(p) = p else {
        meta.rd = rule_rd;
        meta.wr = rule_wr;
        return (meta, None, false);
    };
    let n = p.regs.len();
    let mut rd_ops = vec![false; n];
    let mut wr_ops = vec![false; n];
    for (k, r) in p.regs.iter().enumerate() {
        let bit = 1u128 << (r.field as u8);
        rd_ops[k] = m.rd[k].unwrap_or(rule_rd & bit != 0);
        wr_ops[k] = m.wr[k] == Some(true)
            || m.rd[k] == Some(false)
            || (m.rd[k].is_none() && rule_wr & bit != 0);
    }
    let written =
        |wr_ops: &[bool], imp: u8| wr_ops.iter().filter(|&&w| w).count() as u32 + imp.count_ones();
    // A VOPD probe's count includes the other half's destination.
    let defs = m.defs.map(|d| {
        if e.format == Format::Vopd {
            d.saturating_sub(1)
        } else {
            d
        }
    });
    if let Some(defs) = defs {
        for r in maybe_imp {
            if written(&wr_ops, meta.imp_wr) < defs {
                meta.imp_wr |= r.bit();
            }
        }
        for k in 0..n {
            let dst = matches!(
                p.regs[k].field,
                F::Vdst | F::Sdst | F::Vdata | F::Sdata | F::VdstY
            ) || (p.regs[k].field == F::Src0 && rules::swaps(&rules::base(e)));
            if dst && !wr_ops[k] && rd_ops[k] && written(&wr_ops, meta.imp_wr) < defs {
                wr_ops[k] = true;
            }
        }
    }
    for (k, r) in p.regs.iter().enumerate() {
        let bit = 1u128 << (r.field as u8);
        if rd_ops[k] {
            meta.rd |= bit;
        }
        if wr_ops[k] {
            meta.wr |= bit;
        }
    }
    // Fields of the syntax the probe did not show (other variants): the rules.
    for f in syntax_fields {
        let bit = 1u128 << (f as u8);
        if p.regs.iter().all(|r| r.field != f) {
            meta.rd |= rule_rd & bit;
            meta.wr |= rule_wr & bit;
        }
    }
    // Conditional writes keep the old value when their condition fails: read-write
    // whatever LLVM's MC layer says (it models `s_cmov*`'s destination as write-only).
    let name = rules::base(e);
    if rules::conditional_write(&name) {
        meta.rd |= meta.wr;
    }
    let short = defs.is_some_and(|d| written(&wr_ops, meta.imp_wr) < d);
    let bad = defs.and_then(|defs| {
        let have = written(&wr_ops, meta.imp_wr);
        (have != defs).then(|| {
            format!(
                "{} ({}): {have} written, llvm-mca counts {defs}",
                p.text,
                row.map_or("?", |r| r.opcode.as_str())
            )
        })
    });
    (meta, bad, short)
}
