//! The clocked mode of a compute unit: per-SIMD issue on clock edges, the clocked timing
//! policy of the shared scheduler (`dispatch::schedule`, which also runs functional mode).
//!
//! Every cycle at most one SIMD of a CDNA CU may issue (the sequencer visits the SIMDs
//! round-robin: `issue_period` = 4), every SIMD every cycle on RDNA (`issue_period` = 1).
//! A SIMD issues at most one instruction per issue class per cycle, each from a different
//! wave, oldest wave first. An instruction issues when its wave is ready (the previous
//! instruction's latency has passed), its pipeline is free (a wave64 VALU op occupies its
//! SIMD16 `64 / simd_lanes` cycles, an MFMA its matrix core `passes x matrix_pass_cycles`,
//! the LDS its bank-conflict cycles), an L1 MSHR is free for memory instructions, and, for
//! `s_waitcnt`-like instructions, its counters are at or below their thresholds.
//!
//! The executor runs the instruction when it issues (so results are those of functional
//! mode); its memory accesses, reported through the [`MemObserver`], become timed
//! requests: L1 hits complete after the L1's load-to-use latency, misses travel to the L2
//! (and on to the IOD) as [`SocMsg::TimedReq`] messages and come back as
//! [`SocMsg::TimedResp`]; when every line of an instruction is back, the counters it
//! incremented (from the ISA tables) are decremented.
//!
//! Atomics: the executor defers a wave's atomics to the memory sync point that performs
//! them (`memory::coherence`); the clocked CU issues the atomic's requests when the wave
//! first executes it, so they travel to the L2, which performs them (`soc::memsys`), and
//! the re-execution after the sync point is not a second issue.
//!
//! Register dependencies: an ALU instruction holds its wave for its issue passes only; a
//! later instruction waits for its result where the program says so. GFX12 programs say
//! it with `s_delay_alu` (the wave waits until the named VALU, transcendental or SALU
//! producer's result is ready: its class's latency after issue, `timing::DelayAlu`); GFX9 MAI
//! hazards are the compiler's `s_nop N` (N + 1 wait states). A register scoreboard for
//! dependencies the program does not announce is not modelled (on the CDNA presets the
//! VALU latency equals the 4-cycle issue cadence, so it would never wait there).
//!
//! The end of a workgroup: `s_endpgm` frees a wave's slot at once, and a workgroup whose
//! waves all ended gives its resources back to the command processor at once; but its
//! stores, no-return atomics and other memory instructions may still be in flight (the
//! compiler does not wait for them before `s_endpgm`). The dispatch must not complete
//! before the memory system has acknowledged them (the end-of-kernel release waits for
//! outstanding memory), so such a workgroup is reported `draining`, and the CU sends
//! [`SocMsg::Drained`] once no memory instruction of its dispatch is in flight on the CU.
//!
//! Checkpoints keep the pipelines, MSHRs, the instructions in flight, the workgroups
//! draining and the pending clock edge ([`ClockedImage`]); the line requests themselves
//! are simkit messages.

use super::*;
use crate::cache::{mtype_for, MemOp};
use crate::config::TimingSpec;
use crate::exec::{AccessKind as XKind, MemObserver, MemRecord, Program, LANES};
use crate::isa::{Counters, IssueClass};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::super::memsys::cpol;
use super::super::timing::{lds_cycles, Server, Slot, SlotTable, TimedReq, COUNTERS, NO_WAIT};

/// Timing state of one resident wave.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(super) struct WaveTiming {
    /// Earliest tick of its next issue.
    pub ready: Tick,
    /// Outstanding operations per counter (index `Counter as usize`).
    pub out: [u16; COUNTERS],
    /// Its atomic instruction was issued (its requests sent, its counters raised) and
    /// waits for the sync point that performs it; the re-execution then is not a second
    /// issue to the memory system (see `memory::coherence`).
    #[serde(default)]
    pub replay: bool,
    /// When the results of its last VALU instructions are ready, most recent first
    /// (what `s_delay_alu` `VALU_DEP_n` waits for).
    #[serde(default)]
    pub valu: [Tick; 4],
    /// The same for its last transcendentals (`TRANS32_DEP_n`).
    #[serde(default)]
    pub trans: [Tick; 3],
    /// When its last SALU instruction issued (`SALU_CYCLE_n`).
    #[serde(default)]
    pub salu: Tick,
    /// Pending `s_delay_alu` waits: (instructions to issue before the one it holds,
    /// producer id as in `timing::DelayAlu`; 0: none).
    #[serde(default)]
    pub delay: [(u8, u8); 2],
}

impl WaveTiming {
    /// The earliest tick its next instruction may issue: its own readiness and what a
    /// pending `s_delay_alu` holds it for.
    #[inline(always)]
    fn gate(&self, period: u64) -> Tick {
        let mut g = self.ready;
        for &(left, id) in &self.delay {
            if left != 0 || id == 0 {
                continue;
            }
            let id = usize::from(id);
            let t = match id {
                1..=4 => self.valu[id - 1],
                5..=7 => self.trans[id - 5],
                9..=11 => Tick(self.salu.0 + (id as u64 - 8) * period),
                // FMA_ACCUM_CYCLE_1 (8): the FMA accumulation forwarding path is not
                // modelled; reserved values wait for nothing.
                _ => Tick::ZERO,
            };
            g = g.max(t);
        }
        g
    }

    /// One instruction issued: the delays that held it are done, the others come closer.
    #[inline(always)]
    fn count_delay(&mut self) {
        for d in &mut self.delay {
            if d.1 != 0 {
                if d.0 == 0 {
                    d.1 = 0;
                } else {
                    d.0 -= 1;
                }
            }
        }
    }
}

/// Pushes `t` as the most recent of `ring`.
#[inline(always)]
fn push<const N: usize>(ring: &mut [Tick; N], t: Tick) {
    ring.rotate_right(1);
    ring[0] = t;
}

/// One memory instruction in flight.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Pend {
    serial: u64,
    /// The dispatch of its wave (what a draining workgroup waits for).
    seq: u64,
    /// The counters it incremented ([`Counters::bits`]).
    counters: u16,
    left: u32,
}

/// The one memory record an instruction reports (copied: the executor's borrow ends with
/// the instruction).
struct Capture {
    has: bool,
    kind: XKind,
    bytes: u32,
    policy: u8,
    exec: u64,
    addrs: [u64; LANES],
    maint: Option<(&'static str, u8)>,
}

impl MemObserver for Capture {
    fn access(&mut self, rec: &MemRecord<'_>) {
        self.has = true;
        self.kind = rec.kind;
        self.bytes = rec.bytes;
        self.policy = rec.policy;
        self.exec = rec.exec;
        self.addrs = *rec.addrs;
    }

    fn maintenance(&mut self, mnemonic: &'static str, policy: u8) {
        self.maint = Some((mnemonic, policy));
    }
}

/// Counters of the clocked mode (per CU, since the last reset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockedStats {
    /// Cycles the CU was evaluated (ticks that issued or polled).
    pub cycles_evaluated: u64,
    /// Instructions issued.
    pub issued: u64,
    /// Issue attempts refused because a wait counter was above its threshold.
    pub wait_stalls: u64,
    /// Issue attempts refused because no L1 MSHR was free.
    pub mshr_stalls: u64,
    /// Line requests that hit the L1s.
    pub l1_hits: u64,
    /// Line requests sent to the L2.
    pub l2_requests: u64,
    /// Extra LDS cycles spent on bank conflicts.
    pub lds_conflict_cycles: u64,
    /// When the last memory response (L2 answer or local completion) arrived.
    pub last_response: Tick,
}

/// The clocked state of a CU.
pub(super) struct Clocked {
    spec: TimingSpec,
    period: Tick,
    simds: usize,
    tables: Vec<(Arc<Program>, Arc<SlotTable>)>,
    /// Per SIMD: when its VALU and its matrix core are free.
    valu_free: [Tick; 8],
    mfma_free: [Tick; 8],
    lds_free: Tick,
    l1_port: Server,
    mshrs: u32,
    pending: Vec<Pend>,
    free: Vec<u32>,
    local: BinaryHeap<Reverse<(Tick, u32)>>,
    tick_at: Option<Tick>,
    /// Workgroups that ended with memory instructions in flight, per dispatch: (dispatch,
    /// workgroups), in the order they ended.
    draining: Vec<(u64, u32)>,
    cap: Box<Capture>,
    pub(super) stats: ClockedStats,
}

/// What a checkpoint keeps of a CU's clocked state: pipelines, the L1 port, MSHRs, the
/// memory instructions in flight (their line requests travel as simkit messages, which the
/// engine's checkpoint holds), the local completions due and the pending clock edge. The
/// slot tables are rebuilt from the programs; the spec comes from the config.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ClockedImage {
    valu_free: [Tick; 8],
    mfma_free: [Tick; 8],
    lds_free: Tick,
    l1_port: Server,
    mshrs: u32,
    pending: Vec<Pend>,
    free: Vec<u32>,
    /// `local` in pop order.
    local: Vec<(Tick, u32)>,
    tick_at: Option<Tick>,
    draining: Vec<(u64, u32)>,
    stats: ClockedStats,
}

impl std::fmt::Debug for Clocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clocked")
            .field("pending", &(self.pending.len() - self.free.len()))
            .field("mshrs", &self.mshrs)
            .finish()
    }
}

impl Clocked {
    pub(super) fn new(spec: TimingSpec, period: Tick, simds: u32) -> Clocked {
        Clocked {
            spec,
            period,
            simds: simds.clamp(1, 8) as usize,
            tables: Vec::new(),
            valu_free: [Tick::ZERO; 8],
            mfma_free: [Tick::ZERO; 8],
            lds_free: Tick::ZERO,
            l1_port: Server::default(),
            mshrs: 0,
            pending: Vec::new(),
            free: Vec::new(),
            local: BinaryHeap::new(),
            tick_at: None,
            draining: Vec::new(),
            cap: Box::new(Capture {
                has: false,
                kind: XKind::Load,
                bytes: 0,
                policy: 0,
                exec: 0,
                addrs: [0; LANES],
                maint: None,
            }),
            stats: ClockedStats::default(),
        }
    }

    /// The slot table of `prog` (built on first use, kept while the CU lives; a few
    /// programs per run).
    pub(super) fn table(&mut self, prog: &Arc<Program>) -> Arc<SlotTable> {
        if let Some((_, t)) = self.tables.iter().find(|(p, _)| Arc::ptr_eq(p, prog)) {
            return t.clone();
        }
        let t = Arc::new(SlotTable::new(prog));
        if self.tables.len() >= 16 {
            self.tables.remove(0);
        }
        self.tables.push((prog.clone(), t.clone()));
        t
    }

    /// The state a checkpoint keeps.
    pub(super) fn image(&self) -> ClockedImage {
        let mut local: Vec<(Tick, u32)> = self.local.iter().map(|r| r.0).collect();
        local.sort_unstable();
        ClockedImage {
            valu_free: self.valu_free,
            mfma_free: self.mfma_free,
            lds_free: self.lds_free,
            l1_port: self.l1_port,
            mshrs: self.mshrs,
            pending: self.pending.clone(),
            free: self.free.clone(),
            local,
            tick_at: self.tick_at,
            draining: self.draining.clone(),
            stats: self.stats,
        }
    }

    /// Puts back what [`Clocked::image`] kept; an image whose free list names a slot that
    /// does not exist is refused.
    pub(super) fn restore(&mut self, i: ClockedImage) -> Result<(), String> {
        let slots = i.pending.len();
        if let Some(bad) = i
            .free
            .iter()
            .chain(i.local.iter().map(|(_, t)| t))
            .find(|&&t| t as usize >= slots)
        {
            return Err(format!(
                "request slot {bad} of {slots} in the clocked state"
            ));
        }
        self.valu_free = i.valu_free;
        self.mfma_free = i.mfma_free;
        self.lds_free = i.lds_free;
        self.l1_port = i.l1_port;
        self.mshrs = i.mshrs;
        self.pending = i.pending;
        self.free = i.free;
        self.local = i.local.into_iter().map(Reverse).collect();
        self.tick_at = i.tick_at;
        self.draining = i.draining;
        self.stats = i.stats;
        Ok(())
    }

    /// Memory instructions in flight.
    pub(super) fn in_flight(&self) -> usize {
        self.pending.len() - self.free.len()
    }

    /// Whether a memory instruction of dispatch `seq` is in flight on this CU.
    fn busy(&self, seq: u64) -> bool {
        self.pending.iter().any(|p| p.left > 0 && p.seq == seq)
    }

    /// A workgroup of dispatch `seq` ended: whether its memory instructions are still in
    /// flight (then it is counted as draining until [`Clocked::take_drained`] reports it).
    pub(super) fn drain(&mut self, seq: u64) -> bool {
        if !self.busy(seq) {
            return false;
        }
        match self.draining.iter_mut().find(|d| d.0 == seq) {
            Some(d) => d.1 += 1,
            None => self.draining.push((seq, 1)),
        }
        true
    }

    /// Takes one dispatch whose draining workgroups have nothing left in flight: (dispatch,
    /// workgroups).
    pub(super) fn take_drained(&mut self) -> Option<(u64, u32)> {
        let i = self.draining.iter().position(|d| !self.busy(d.0))?;
        Some(self.draining.remove(i))
    }

    fn alloc(&mut self, p: Pend) -> u32 {
        match self.free.pop() {
            Some(t) => {
                self.pending[t as usize] = p;
                t
            }
            None => {
                self.pending.push(p);
                (self.pending.len() - 1) as u32
            }
        }
    }
}

/// Index of a counter's outstanding count.
#[inline(always)]
fn bump(out: &mut [u16; COUNTERS], c: Counters, up: bool) {
    for k in c.iter() {
        let v = &mut out[k as usize];
        *v = if up {
            v.saturating_add(1)
        } else {
            v.saturating_sub(1)
        };
    }
}

impl ComputeUnit {
    /// Asks for a clock tick at `at` unless one is due earlier.
    pub(super) fn clock_at(&mut self, at: Tick, ctx: &mut Ctx<'_, SocMsg>) {
        let Some(c) = self.clocked.as_mut() else {
            return;
        };
        let now = ctx.now();
        let at = at.max(now);
        if c.tick_at.is_some_and(|t| t <= at) {
            return;
        }
        c.tick_at = Some(at);
        ctx.schedule(Tick(at.0 - now.0), SocMsg::Tick);
    }

    /// A response from the L2: one line of a pending instruction is back.
    pub(super) fn clock_response(&mut self, q: TimedReq, ctx: &mut Ctx<'_, SocMsg>) {
        if let Some(c) = self.clocked.as_mut() {
            if q.kind == crate::cache::AccessKind::Read {
                c.mshrs = c.mshrs.saturating_sub(1);
            }
        }
        let now = ctx.now();
        self.complete(q.tag, now);
        self.clock_at(now, ctx);
    }

    /// One line of the memory instruction `tag` is back at `now`.
    fn complete(&mut self, tag: u32, now: Tick) {
        let Some(c) = self.clocked.as_mut() else {
            return;
        };
        let Some(p) = c.pending.get_mut(tag as usize) else {
            return;
        };
        p.left = p.left.saturating_sub(1);
        if p.left > 0 {
            return;
        }
        let p = *p;
        c.free.push(tag);
        c.stats.last_response = c.stats.last_response.max(now);
        if let Some(r) = self.waves.iter_mut().find(|r| r.serial == p.serial) {
            bump(&mut r.t.out, Counters::from_bits(p.counters), false);
        }
    }

    /// One clock edge: completes what is due, issues, settles, and asks for the next edge.
    pub(super) fn clock_tick(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        let now = ctx.now();
        {
            let Some(c) = self.clocked.as_mut() else {
                return;
            };
            if c.tick_at != Some(now) {
                // Superseded by an earlier tick.
                return;
            }
            c.tick_at = None;
            c.stats.cycles_evaluated += 1;
        }
        // Local completions due now.
        loop {
            let Some(c) = self.clocked.as_mut() else {
                return;
            };
            match c.local.peek() {
                Some(Reverse((t, tag))) if *t <= now => {
                    let tag = *tag;
                    c.local.pop();
                    self.complete(tag, now);
                }
                _ => break,
            }
        }
        self.wake_synced();
        self.issue(ctx);
        if !self.l1.out.is_empty() {
            if let Some(p) = self.l2 {
                let batch = std::mem::take(&mut self.l1.out);
                ctx.send(p, SocMsg::Mem(Box::new(batch)));
            }
        }
        self.settle(ctx);
        self.next_edge(ctx);
    }

    /// Waves whose atomics were performed at a sync point may run again.
    fn wake_synced(&mut self) {
        if !self
            .waves
            .iter()
            .any(|r| r.wave.state == WaveState::SyncWait)
        {
            return;
        }
        let coherence = self.coherence.clone();
        let Some(domain) = coherence.domain(self.domain) else {
            return;
        };
        let mut d = domain.borrow_mut();
        for r in &mut self.waves {
            if r.wave.state == WaveState::SyncWait && d.has_results(r.serial) {
                r.wave.state = WaveState::Ready;
            }
        }
        let waves = &self.waves;
        d.retain_results(|w| waves.iter().any(|r| r.serial == w));
    }

    /// Whether wave `r` may issue at `now` as far as it alone is concerned: ready, not
    /// blocked by a wait counter. Returns its slot when so.
    fn candidate<'t>(
        r: &Resident,
        groups: &'t [Option<Group>],
        now: Tick,
        period: u64,
    ) -> Option<(&'t super::super::timing::Slot, bool)> {
        let g = groups.get(r.group)?.as_ref()?;
        if r.wave.state != WaveState::Ready || g.fault.is_some() || r.t.gate(period) > now {
            return None;
        }
        let slot = g.table.as_ref()?.at(g.dispatch.program.base(), r.wave.pc);
        let blocked = slot.class == IssueClass::Wait
            && (0..COUNTERS)
                .any(|k| slot.wait[k] != NO_WAIT && r.t.out[k] > u16::from(slot.wait[k]));
        Some((slot, blocked))
    }

    /// Issues this clock edge's instructions through the scheduler ([`ClockedTurn`]).
    fn issue(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        let now = ctx.now();
        let Some(mut c) = self.clocked.take() else {
            return;
        };
        let shared = self.mem.clone();
        let mem = match shared.read() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let coherence = self.coherence.clone();
        let Some(domain) = coherence.domain(self.domain) else {
            self.clocked = Some(c);
            return;
        };
        let period = c.period.0.max(1);
        let mut turn = ClockedTurn {
            now,
            period,
            cycle: now.0 / period,
            tp: u64::from(c.spec.issue_period.max(1)),
            cu: self,
            c: &mut c,
            mem: &mem,
            domain: &domain,
            ctx,
            used: [0; 8],
            pick: Pick {
                slot: Slot::NONE,
                simd: 0,
                lds_busy: 0,
                seq: 0,
            },
        };
        if let Err(never) = issue_round(&mut turn) {
            match never {}
        }
        drop(mem);
        self.clocked = Some(c);
    }

    /// Turns the captured access into line requests: L1 hits complete locally after the
    /// L1 latency, the rest go to the L2. Returns the number of lines.
    fn requests(
        c: &mut Clocked,
        l1: &mut L1s,
        tag: u32,
        now: Tick,
        (xcd, cu): (u32, u32),
        l2: Option<PortId>,
        ctx: &mut Ctx<'_, SocMsg>,
    ) -> u32 {
        use crate::cache::AccessKind as CKind;
        let cap = &*c.cap;
        let (op, kind) = match cap.kind {
            XKind::Load | XKind::ScalarLoad => (MemOp::Load, CKind::Read),
            XKind::Store => (MemOp::Store, CKind::Write),
            XKind::Atomic => (MemOp::Atomic, CKind::Atomic),
        };
        l1.counts[match cap.kind {
            XKind::ScalarLoad => 0,
            XKind::Load => 1,
            XKind::Store => 2,
            XKind::Atomic => 3,
        }] += 1;
        let scalar = cap.kind == XKind::ScalarLoad;
        let mtype = mtype_for(l1.target, cpol(l1.target, cap.policy), op);
        let cache = if scalar {
            &mut l1.scalar
        } else {
            &mut l1.vector
        };
        let line = cache.line_bytes();
        let period = c.period;
        let mut lines = 0;
        let mut last = u64::MAX;
        let mut m = cap.exec;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let addr = cap.addrs[lane];
            let l = addr / line;
            if l == last && kind != CKind::Atomic {
                continue;
            }
            last = l;
            lines += 1;
            let o = cache.access(addr, cap.bytes, kind, mtype);
            let hit = kind == CKind::Read && o.fill.is_none() && !o.forward;
            if hit {
                c.stats.l1_hits += 1;
                let lat = if scalar {
                    c.spec.scalar_l1_latency
                } else {
                    c.spec.vector_l1_latency
                };
                let ready = Tick(now.0 + u64::from(lat) * period.0);
                let port = if scalar {
                    ready
                } else {
                    c.l1_port.serve(
                        now,
                        line,
                        u64::from(c.spec.l1_bytes_per_cycle) * 1000,
                        period,
                    )
                };
                c.local.push(Reverse((ready.max(port), tag)));
            } else {
                c.stats.l2_requests += 1;
                if kind == CKind::Read {
                    c.mshrs += 1;
                }
                let req = TimedReq {
                    addr: if kind == CKind::Read {
                        o.fill.unwrap_or(l * line)
                    } else {
                        addr
                    },
                    bytes: if kind == CKind::Read {
                        line as u32
                    } else {
                        cap.bytes
                    },
                    tag,
                    cu,
                    xcd,
                    issued: now,
                    kind,
                    mtype,
                    posted: false,
                    atomic_fill: false,
                    served: None,
                };
                match l2 {
                    Some(p) => ctx.send(p, SocMsg::TimedReq(req)),
                    // No L2 connected: answer after the L2 latency (never in a built SoC).
                    None => c.local.push(Reverse((
                        Tick(now.0 + u64::from(c.spec.l2_latency) * period.0),
                        tag,
                    ))),
                }
            }
            if scalar {
                break;
            }
        }
        lines
    }

    /// Asks for the next clock edge at which something can happen; with nothing to do
    /// but wait for responses, the CU sleeps until one arrives.
    fn next_edge(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        let now = ctx.now();
        let Some(c) = self.clocked.as_ref() else {
            return;
        };
        let next_cycle = Tick(now.0 + c.period.0);
        let mut next = Tick::MAX;
        let mut syncing = false;
        for r in &self.waves {
            if r.wave.state == WaveState::SyncWait {
                syncing = true;
            }
            if let Some((_, blocked)) = Self::candidate(r, &self.groups, Tick::MAX, c.period.0) {
                if !blocked {
                    next = next.min(r.t.gate(c.period.0).max(next_cycle));
                }
            }
        }
        if let Some(Reverse((t, _))) = c.local.peek() {
            next = next.min((*t).max(next_cycle));
        }
        if syncing {
            let at = (now.0 / self.sync.0 + 1).saturating_mul(self.sync.0);
            next = next.min(Tick(at));
        }
        let in_flight = c.pending.len() > c.free.len();
        if next != Tick::MAX {
            self.clock_at(next, ctx);
        } else if !in_flight && !self.waves.is_empty() {
            self.fail_deadlocked(ctx);
        }
    }
}

/// The instruction the clocked policy admitted: its slot's facts, SIMD, the LDS cycles its
/// lanes' addresses cost, and its wave's dispatch.
struct Pick {
    slot: Slot,
    simd: usize,
    lds_busy: u32,
    seq: u64,
}

/// The clocked side of the scheduler on a CU, for one clock edge: a wave issues one
/// instruction when its SIMD's turn has come, it is ready, no wait counter holds it, its
/// class has not issued on its SIMD this cycle and its pipeline (or an L1 MSHR) is free;
/// the issue then sets when the wave, its pipeline and its result are ready again, and
/// turns its memory access into requests (see the module docs).
struct ClockedTurn<'a, 'c> {
    cu: &'a mut ComputeUnit,
    c: &'a mut Clocked,
    mem: &'a DeviceMemory,
    domain: &'a RefCell<Domain>,
    ctx: &'a mut Ctx<'c, SocMsg>,
    now: Tick,
    period: u64,
    cycle: u64,
    /// Cycles between two issues of one SIMD.
    tp: u64,
    /// Classes issued this cycle, per SIMD.
    used: [u32; 8],
    pick: Pick,
}

impl IssuePolicy for ClockedTurn<'_, '_> {
    type Error = Infallible;

    fn waves(&self) -> usize {
        self.cu.waves.len()
    }

    fn wave(&self, i: usize) -> &Wave {
        &self.cu.waves[i].wave
    }

    #[inline]
    fn admit(&mut self, i: usize) -> Option<u64> {
        let (c, now) = (&mut *self.c, self.now);
        let r = &self.cu.waves[i];
        let simd = (r.slot / self.cu.slots_per_simd.max(1)) as usize % c.simds;
        if self.tp > 1 && (simd as u64) % self.tp != self.cycle % self.tp {
            return None;
        }
        let (slot, blocked) = ComputeUnit::candidate(r, &self.cu.groups, now, self.period)?;
        let slot = *slot;
        if blocked {
            c.stats.wait_stalls += 1;
            return None;
        }
        let bit = 1u32 << (slot.class as u32);
        if self.used[simd] & bit != 0 {
            return None;
        }
        let free = match slot.class {
            IssueClass::VectorAlu | IssueClass::Transcendental => c.valu_free[simd] <= now,
            IssueClass::Matrix => c.mfma_free[simd] <= now,
            IssueClass::Lds => c.lds_free <= now,
            IssueClass::VectorLoad
            | IssueClass::VectorStore
            | IssueClass::VectorAtomic
            | IssueClass::ScalarMemory => {
                let ok = c.mshrs < c.spec.l1_mshrs;
                if !ok {
                    c.stats.mshr_stalls += 1;
                }
                ok
            }
            _ => true,
        };
        if !free {
            return None;
        }
        self.used[simd] |= bit;
        // `candidate` found the group.
        let g = self.cu.groups[r.group].as_ref()?;
        // LDS: the lanes' addresses before the instruction runs (it may overwrite its
        // address register).
        let mut lds_busy = 0u32;
        if slot.class == IssueClass::Lds {
            if let Ok(x) = g.dispatch.program.fetch(r.wave.pc) {
                let exec = r.wave.exec();
                let off = x.mem.offset as u64 & 0xffff;
                let mut addrs = [0u64; LANES];
                for (l, a) in addrs.iter_mut().enumerate() {
                    if exec >> l & 1 != 0 {
                        *a = u64::from(r.wave.vgpr(x.mem.vaddr as usize, l)) + off;
                    }
                }
                lds_busy = lds_cycles(&addrs, exec, c.spec.lds_banks, c.spec.lds_lanes_per_cycle);
            }
        }
        self.pick = Pick {
            slot,
            simd,
            lds_busy,
            seq: g.dispatch.seq,
        };
        Some(1)
    }

    fn spent(&self, i: usize) -> (u64, u64) {
        (self.cu.waves[i].wave.retired, self.cu.budget)
    }

    #[inline]
    fn execute(&mut self, i: usize, n: u64) -> Stop {
        let cu = &mut *self.cu;
        let r = &mut cu.waves[i];
        let Some(g) = cu.groups[r.group].as_mut() else {
            return Stop::Quantum;
        };
        let c = &mut *self.c;
        c.cap.has = false;
        c.cap.maint = None;
        let mut ectx = ExecCtx {
            prog: &g.dispatch.program,
            mem: MemView::buffered(self.mem, self.domain, r.serial, self.now.0),
            lds: &mut g.lds,
            observer: Some(&mut *c.cap),
            group: Some(&mut g.sync),
        };
        r.wave.run(&mut ectx, n)
    }

    fn account(&mut self, i: usize, ran: u64, classes: &[u64; InstClass::COUNT]) {
        self.cu.activity.instructions += ran;
        self.cu.account(i, ran, classes);
    }

    #[inline]
    fn issued(&mut self, i: usize, stop: &Stop, ran: u64) -> Result<bool, Infallible> {
        let (now, period, tp) = (self.now, self.period, self.tp);
        let Pick {
            slot,
            simd,
            lds_busy,
            seq,
        } = self.pick;
        let c = &mut *self.c;
        let r = &mut self.cu.waves[i];
        c.stats.issued += 1;
        // When the wave may issue again, what its pipeline is busy with, and when its
        // result is ready for a dependent ALU instruction. An ALU instruction holds
        // its wave only for its issue passes (a wave64 takes 2 on a SIMD32, 4 on a
        // SIMD16; ASSUMPTION on RDNA for every op, sources at the RDNA presets'
        // `simd_lanes`); its latency is what a dependent instruction waits for, as an
        // `s_delay_alu` names it (GFX12). On the CDNA presets the VALU latency equals
        // the issue cadence (4 cycles), so a dependent VALU never waits longer there;
        // MAI hazards are the compiler's `s_nop`s (N + 1 wait states each).
        let s = c.spec;
        let passes = u64::from(r.wave.wave_size.div_ceil(s.simd_lanes.max(1)));
        // The LDS cycles of a conflict-free access: one per group of lanes it serves.
        let lds_groups = r
            .wave
            .wave_size
            .div_ceil(s.lds_lanes_per_cycle.max(1))
            .max(1);
        let result = |lat: u32| Tick(now.0 + (u64::from(lat) + passes - 1) * period);
        let latency = match slot.class {
            IssueClass::ScalarAlu => {
                r.t.salu = now;
                u64::from(s.salu_latency)
            }
            IssueClass::VectorAlu => {
                c.valu_free[simd] = Tick(now.0 + passes * period);
                push(&mut r.t.valu, result(s.valu_latency));
                passes
            }
            IssueClass::Transcendental => {
                c.valu_free[simd] = Tick(now.0 + passes * period);
                push(&mut r.t.trans, result(s.trans_latency));
                passes
            }
            IssueClass::Matrix => {
                let busy = u64::from(slot.passes.max(1)) * u64::from(s.matrix_pass_cycles);
                c.mfma_free[simd] = Tick(now.0 + busy * period);
                // LLVM's AMDGPUInsertDelayAlu counts WMMA as a VALU producer.
                push(&mut r.t.valu, c.mfma_free[simd]);
                1
            }
            IssueClass::Branch => u64::from(s.branch_latency),
            IssueClass::Control => u64::from(slot.nops) + 1,
            _ => 1,
        };
        // Wait instructions are resolved by the sequencer without an issue slot (the
        // GCN/CDNA ISA guides list s_waitcnt with the internal instructions that need
        // no functional unit): the wave may issue its next instruction this cycle.
        // `s_delay_alu` is taken the same way (ASSUMPTION: no ISA guide gives it a
        // cost); it arms the waits of the instructions it names, and neither it nor a
        // wait counts as one of the instructions its SKIP passes over.
        let internal = slot.class == IssueClass::Wait || slot.delay.is_some();
        if let Some(d) = slot.delay {
            r.t.delay = [(0, d.id0), (d.skip, d.id1)];
        } else if !internal {
            r.t.count_delay();
        }
        r.t.ready = if internal {
            now
        } else {
            Tick(now.0 + latency.max(tp) * period)
        };
        if let Stop::Sleep = stop {
            // s_sleep: about 64 cycles per unit (CDNA3 ISA guide, S_SLEEP).
            r.t.ready = Tick(now.0 + 64 * period);
        }
        // Memory: counters and requests. An atomic deferred to the sync point (not
        // retired, its access shown to the observer) is issued now; its re-execution
        // after the sync point only takes the old values.
        let serial = r.serial;
        let deferred = *stop == Stop::SyncWait && ran == 0 && c.cap.has;
        let replayed = ran > 0 && std::mem::take(&mut r.t.replay);
        r.t.replay |= deferred;
        if !slot.counters.is_empty() && ((ran > 0 && !replayed) || deferred) {
            let mut left = 0u32;
            let tag = c.alloc(Pend {
                serial,
                seq,
                counters: slot.counters.bits(),
                left: u32::MAX,
            });
            let cu = &mut *self.cu;
            if c.cap.has {
                left = ComputeUnit::requests(
                    c,
                    &mut cu.l1,
                    tag,
                    now,
                    (cu.xcd, cu.index),
                    cu.l2,
                    self.ctx,
                );
            }
            if left == 0 {
                // No request left the CU (LDS, messages, an access of no lane): the
                // instruction completes after its pipeline's latency.
                let lat = match slot.class {
                    IssueClass::Lds => {
                        let start = c.lds_free.max(now);
                        c.lds_free = Tick(start.0 + u64::from(lds_busy.max(1)) * period);
                        c.stats.lds_conflict_cycles +=
                            u64::from(lds_busy.saturating_sub(lds_groups));
                        Tick(
                            start.0
                                + (u64::from(s.lds_latency) + u64::from(lds_busy.max(1)) - 1)
                                    * period,
                        )
                    }
                    IssueClass::ScalarMemory => {
                        Tick(now.0 + u64::from(s.scalar_l1_latency) * period)
                    }
                    _ => Tick(now.0 + u64::from(s.vector_l1_latency) * period),
                };
                left = 1;
                c.local.push(Reverse((lat, tag)));
            }
            c.pending[tag as usize].left = left;
            bump(&mut cu.waves[i].t.out, slot.counters, true);
        }
        if let Some((m, p)) = c.cap.maint.take() {
            self.cu.l1.maintenance(m, p);
        }
        Ok(internal)
    }

    fn ended(&mut self, i: usize) -> bool {
        let r = self.cu.waves.swap_remove(i);
        self.cu.end_wave(r, self.now);
        true
    }

    fn faulted(&mut self, i: usize, reason: FaultReason) -> Result<(), Infallible> {
        self.cu.fault_wave(i, reason);
        Ok(())
    }
}
