//! A compute unit: runs its resident waves through the shared scheduler
//! (`dispatch::schedule`): in quanta in functional mode, rescheduling itself by the work
//! done, or per SIMD on clock edges in clocked mode.

use crate::cache::Cache;
use crate::dispatch::schedule::{issue_round, settle_group, GroupState, IssuePolicy};
use crate::dispatch::{init_wave, Fault};
use crate::exec::{
    describe, ExecCtx, FaultReason, InstClass, Stop, Wave, WaveState, WorkgroupSync,
};
use crate::memory::coherence::Coherence;
use crate::memory::coherence::Domain;
use crate::memory::{DeviceMemory, MemView};
use crate::occupancy::{WaveAlloc, WorkgroupAlloc};
use serde::{Deserialize, Serialize};
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use simkit::time::Tick;
use std::cell::RefCell;
use std::convert::Infallible;
use std::sync::{Arc, RwLock};

use super::launch::Dispatch;
use super::memsys::L1s;
use super::msg::{MemReq, SocMsg, WorkgroupAssign, WorkgroupDone};
use super::queue::Shared;

#[path = "cu_clocked.rs"]
mod clocked;
pub use clocked::ClockedStats;

/// Most ended waves a CU keeps for reuse.
const POOL: usize = 64;

/// A resident workgroup.
#[derive(Debug)]
struct Group {
    dispatch: Arc<Dispatch>,
    id: [u32; 3],
    alloc: WorkgroupAlloc,
    waves: Vec<WaveAlloc>,
    lds: Vec<u8>,
    /// The workgroup barrier's state (GFX12 `s_barrier_signal_isfirst`, ...).
    sync: WorkgroupSync,
    live: u32,
    scratch_slot: u32,
    fault: Option<Box<Fault>>,
    /// Clocked mode: the program's per-slot timing facts (rebuilt after a restore).
    table: Option<Arc<super::timing::SlotTable>>,
    /// Wave-instructions its waves retired (reported with the workgroup's end, so each
    /// dispatch's count is its own even when dispatches run at the same time).
    retired: u64,
}

/// [`Group`] with its dispatch named by key, for checkpoints.
#[derive(Debug, Serialize, Deserialize)]
struct GroupImage {
    seq: u64,
    id: [u32; 3],
    alloc: WorkgroupAlloc,
    waves: Vec<WaveAlloc>,
    #[serde(with = "super::checkpoint::blob")]
    lds: Vec<u8>,
    sync: WorkgroupSync,
    live: u32,
    scratch_slot: u32,
    fault: Option<Box<Fault>>,
    /// Absent from images written before the count existed.
    #[serde(default)]
    retired: u64,
}

impl Group {
    /// Records that wave `wave` of this group faulted at `pc`.
    pub(super) fn fault_wave(&mut self, wave: u32, pc: u64, reason: FaultReason) {
        self.fault = Some(Box::new(Fault {
            kernel: self.dispatch.kernel.clone(),
            workgroup: self.id,
            wave,
            pc,
            instruction: describe(&self.dispatch.program, pc),
            reason,
        }));
    }

    fn image(&self) -> GroupImage {
        GroupImage {
            seq: self.dispatch.seq,
            id: self.id,
            alloc: self.alloc,
            waves: self.waves.clone(),
            lds: self.lds.clone(),
            sync: self.sync,
            live: self.live,
            scratch_slot: self.scratch_slot,
            fault: self.fault.clone(),
            retired: self.retired,
        }
    }

    fn from_image(g: GroupImage, shared: &Shared) -> Result<Group, CheckpointError> {
        let dispatch = shared.dispatch(g.seq).ok_or_else(|| {
            CheckpointError::Decode(format!(
                "a resident workgroup of dispatch {}, which is not in the checkpoint",
                g.seq
            ))
        })?;
        Ok(Group {
            dispatch,
            id: g.id,
            alloc: g.alloc,
            waves: g.waves,
            lds: g.lds,
            sync: g.sync,
            live: g.live,
            scratch_slot: g.scratch_slot,
            fault: g.fault,
            table: None,
            retired: g.retired,
        })
    }
}

/// A resident wave.
#[derive(Debug, Serialize, Deserialize)]
struct Resident {
    wave: Wave,
    group: usize,
    index: u32,
    slot: u32,
    start: Tick,
    /// The CU's number for the wave (names its atomics in the memory domain).
    serial: u64,
    /// Clocked mode: when it may issue, its outstanding counters.
    #[serde(default)]
    t: clocked::WaveTiming,
}

/// One wave's lifetime (for traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaveRecord {
    /// Dispatch sequence number.
    pub dispatch: u64,
    /// Workgroup id.
    pub workgroup: [u32; 3],
    /// Wave index in its workgroup.
    pub wave: u32,
    /// Slot on the CU (SIMD x slots per SIMD + slot).
    pub slot: u32,
    /// Start tick.
    pub start: Tick,
    /// End tick.
    pub end: Tick,
    /// Instructions executed.
    pub instructions: u64,
}

/// Per-kernel activity of a CU (reset by the SoC between kernels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CuActivity {
    /// Workgroups started.
    pub workgroups: u64,
    /// Waves started.
    pub waves: u64,
    /// Wave-instructions executed.
    pub instructions: u64,
    /// Wave-instructions by [`crate::exec::InstClass`] (index = class as usize).
    pub classes: [u64; crate::exec::InstClass::COUNT],
    /// Most waves resident at once.
    pub peak_waves: u32,
    /// Sum of the lifetimes of the waves that ended (wave-ticks): the integral of
    /// resident waves over time.
    pub wave_ticks: u128,
}

/// A compute unit.
#[derive(Debug)]
pub struct ComputeUnit {
    pub(crate) xcd: u32,
    /// Index in the XCD (the CP's numbering).
    pub(crate) index: u32,
    pub(crate) quantum: u64,
    /// Instruction budget of one wave.
    pub(crate) budget: u64,
    pub(crate) period: Tick,
    pub(crate) slots_per_simd: u32,
    pub(crate) mem: Arc<RwLock<DeviceMemory>>,
    pub(crate) l1: L1s,
    pub(crate) trace: bool,
    /// The registry dispatches are looked up in by key.
    shared: Arc<Shared>,
    /// Every CU's memory domain, this CU's index there, and the sync period.
    coherence: Arc<Coherence>,
    domain: usize,
    sync: Tick,
    next_serial: u64,
    /// Waves that ended, kept for reuse: a wave's registers are ~130 KiB, and allocating
    /// and zeroing them per wave cost more than running a short kernel's instructions.
    pool: Vec<Wave>,
    groups: Vec<Option<Group>>,
    waves: Vec<Resident>,
    scratch_slots: u64,
    ticking: bool,
    cp: Option<PortId>,
    l2: Option<PortId>,
    /// Activity since the last reset.
    pub activity: CuActivity,
    /// Wave lifetimes (when tracing).
    pub records: Vec<WaveRecord>,
    /// Clocked mode's state (`None`: functional mode).
    clocked: Option<Box<clocked::Clocked>>,
}

impl ComputeUnit {
    // One call site (the SoC builder) passes the CU's place, timing and shared parts.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        xcd: u32,
        index: u32,
        quantum: u64,
        budget: u64,
        period: Tick,
        slots_per_simd: u32,
        mem: Arc<RwLock<DeviceMemory>>,
        l1: L1s,
        trace: bool,
        (coherence, domain, sync): (Arc<Coherence>, usize, Tick),
        shared: Arc<Shared>,
    ) -> ComputeUnit {
        ComputeUnit {
            shared,
            xcd,
            index,
            quantum,
            budget,
            period,
            slots_per_simd,
            mem,
            l1,
            trace,
            coherence,
            domain,
            sync: sync.max(Tick(1)),
            next_serial: 0,
            pool: Vec::new(),
            groups: Vec::new(),
            waves: Vec::new(),
            scratch_slots: 0,
            ticking: false,
            cp: None,
            l2: None,
            activity: CuActivity::default(),
            records: Vec::new(),
            clocked: None,
        }
    }

    /// Switches the CU to clocked mode with `spec` on `simds` SIMDs.
    pub(crate) fn set_clocked(&mut self, spec: crate::config::TimingSpec, simds: u32) {
        self.clocked = Some(Box::new(clocked::Clocked::new(spec, self.period, simds)));
    }

    /// Clocked mode's counters (`None` in functional mode).
    pub fn clocked_stats(&self) -> Option<ClockedStats> {
        self.clocked.as_ref().map(|c| c.stats)
    }

    /// Clocked mode: memory instructions issued and not yet complete (0 in functional
    /// mode).
    pub fn requests_in_flight(&self) -> usize {
        self.clocked.as_ref().map_or(0, |c| c.in_flight())
    }

    /// Resets the clocked counters.
    pub(crate) fn reset_clocked_stats(&mut self) {
        if let Some(c) = self.clocked.as_mut() {
            c.stats = ClockedStats::default();
        }
    }

    /// The L1 caches (scalar, vector), for statistics.
    pub fn l1(&self) -> (&crate::cache::Cache, &crate::cache::Cache) {
        (&self.l1.scalar, &self.l1.vector)
    }

    /// Memory instructions executed since the last reset, by kind: scalar loads, vector
    /// loads, vector stores, vector atomics (LDS instructions are not observed).
    pub fn memory_instructions(&self) -> [u64; 4] {
        self.l1.counts
    }

    /// Waves resident now.
    pub fn resident_waves(&self) -> usize {
        self.waves.len()
    }

    fn start(&mut self, wg: WorkgroupAssign, ctx: &mut Ctx<'_, SocMsg>) {
        let now = ctx.now();
        let WorkgroupAssign {
            dispatch,
            id,
            alloc,
            waves,
            ..
        } = wg;
        // The packet processor registered it before it was sent.
        let Some(dispatch) = self.shared.dispatch(dispatch) else {
            return;
        };
        let slot = (!self.scratch_slots).trailing_zeros();
        self.scratch_slots |= 1u64.checked_shl(slot).unwrap_or(0);
        let gi = match self.groups.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                self.groups.push(None);
                self.groups.len() - 1
            }
        };
        let dims = dispatch.workgroup_dims(id);
        let launch = dispatch.launch(dispatch.scratch_for(self.xcd, self.index, slot));
        // The CP reserved resources for a full workgroup; a partial one at the grid edge
        // has fewer waves (the rest of its reservation is released when it ends).
        let ws = dispatch.descriptor.wave_size(dispatch.target);
        let n = (dims[0] * dims[1] * dims[2]).div_ceil(ws) as usize;
        for (k, a) in waves.iter().enumerate().take(n) {
            // `init_wave` resets every register the kernel can name.
            let mut w = self.pool.pop().unwrap_or_else(|| Wave::new(ws, 0));
            init_wave(&launch, &mut w, id, k as u32, dims);
            self.waves.push(Resident {
                wave: w,
                group: gi,
                index: k as u32,
                slot: a.simd * self.slots_per_simd + a.slot,
                start: now,
                serial: self.next_serial,
                t: Default::default(),
            });
            self.next_serial += 1;
        }
        let table = self.clocked.as_mut().map(|c| c.table(&dispatch.program));
        self.activity.workgroups += 1;
        self.activity.waves += n as u64;
        self.activity.peak_waves = self.activity.peak_waves.max(self.waves.len() as u32);
        self.groups[gi] = Some(Group {
            lds: vec![0; dispatch.packet.group_segment_size as usize],
            sync: WorkgroupSync::new(n as u32),
            live: n as u32,
            dispatch,
            id,
            alloc,
            waves,
            scratch_slot: slot,
            fault: None,
            table,
            retired: 0,
        });
        if self.clocked.is_some() {
            self.clock_at(now, ctx);
            return;
        }
        if !self.ticking {
            self.ticking = true;
            ctx.schedule(Tick::ZERO, SocMsg::Tick);
        }
    }

    /// Runs every ready wave for up to a quantum; returns instructions executed.
    fn quantum(&mut self, now: Tick) -> u64 {
        // A clone of the Arc, so the lock guard does not borrow `self`.
        let shared = self.mem.clone();
        let mem = match shared.read() {
            Ok(g) => g,
            // A panic elsewhere poisoned the lock; the memory itself is still consistent
            // (every access is atomic), so keep going.
            Err(p) => p.into_inner(),
        };
        let coherence = self.coherence.clone();
        let Some(domain) = coherence.domain(self.domain) else {
            return 0;
        };
        let domain = &*domain;
        // Waves whose atomics were performed at a sync point run again; what is kept for
        // waves that ended meanwhile is dropped.
        {
            let mut d = domain.borrow_mut();
            for r in &mut self.waves {
                if r.wave.state == WaveState::SyncWait && d.has_results(r.serial) {
                    r.wave.state = WaveState::Ready;
                }
            }
            if !d.is_empty() {
                let waves = &self.waves;
                d.retain_results(|w| waves.iter().any(|r| r.serial == w));
            }
        }
        let mut turn = Functional {
            cu: self,
            mem: &mem,
            domain,
            now,
            executed: 0,
        };
        if let Err(never) = issue_round(&mut turn) {
            match never {}
        }
        let executed = turn.executed;
        drop(mem);
        self.activity.instructions += executed;
        executed
    }

    /// Wave `i` retired `ran` instructions; `classes` were its class counts before.
    #[inline]
    fn account(&mut self, i: usize, ran: u64, classes: &[u64; InstClass::COUNT]) {
        let r = &self.waves[i];
        if let Some(g) = self.groups[r.group].as_mut() {
            g.retired += ran;
        }
        for (a, (now, then)) in self
            .activity
            .classes
            .iter_mut()
            .zip(r.wave.classes.iter().zip(classes))
        {
            *a += now - then;
        }
    }

    /// Wave `i` faulted: its workgroup stops.
    fn fault_wave(&mut self, i: usize, reason: FaultReason) {
        let r = &self.waves[i];
        if let Some(g) = self.groups[r.group].as_mut() {
            g.fault_wave(r.index, r.wave.pc, reason);
        }
    }

    fn end_wave(&mut self, r: Resident, now: Tick) {
        self.activity.wave_ticks += u128::from(now.0.saturating_sub(r.start.0));
        if self.trace {
            if let Some(g) = self.groups[r.group].as_ref() {
                self.records.push(WaveRecord {
                    dispatch: g.dispatch.seq,
                    workgroup: g.id,
                    wave: r.index,
                    slot: r.slot,
                    start: r.start,
                    end: now,
                    instructions: r.wave.retired,
                });
            }
        }
        if let Some(g) = self.groups[r.group].as_mut() {
            g.live -= 1;
        }
        if self.pool.len() < POOL {
            self.pool.push(r.wave);
        }
    }

    /// Releases barriers whose workgroup has every live wave waiting, retires finished or
    /// faulted workgroups. Returns whether any wave can still run.
    fn settle(&mut self, ctx: &mut Ctx<'_, SocMsg>) -> bool {
        // Faulted groups: drop their waves.
        for gi in 0..self.groups.len() {
            let Some(g) = self.groups[gi].as_ref() else {
                continue;
            };
            if g.fault.is_some() && g.live > 0 {
                let before = self.waves.len();
                self.waves.retain(|r| r.group != gi);
                let dropped = (before - self.waves.len()) as u32;
                if let Some(g) = self.groups[gi].as_mut() {
                    g.live -= dropped.min(g.live);
                }
            }
        }
        // The workgroup rule of every runner (`dispatch::schedule`): a group without live
        // waves is done; one whose live waves all wait at the barrier is released.
        for gi in 0..self.groups.len() {
            if self.groups[gi].is_none() {
                continue;
            }
            let state = settle_group(&mut self.waves, |r| {
                (r.group == gi).then_some(&mut r.wave.state)
            });
            if state == GroupState::Ended {
                let Some(g) = self.groups[gi].take() else {
                    continue;
                };
                self.scratch_slots &= !(1u64.checked_shl(g.scratch_slot).unwrap_or(0));
                // Clocked mode: its memory instructions may still be in flight.
                let draining = self
                    .clocked
                    .as_mut()
                    .is_some_and(|c| c.drain(g.dispatch.seq));
                if let Some(p) = self.cp {
                    ctx.send(
                        p,
                        SocMsg::WorkgroupDone(Box::new(WorkgroupDone {
                            cu: self.index,
                            alloc: g.alloc,
                            waves: g.waves,
                            seq: g.dispatch.seq,
                            fault: g.fault,
                            instructions: g.retired,
                            draining,
                        })),
                    );
                }
            }
        }
        // Clocked mode: workgroups whose memory instructions are all acknowledged now.
        if let Some(c) = self.clocked.as_mut() {
            while let Some((seq, workgroups)) = c.take_drained() {
                if let Some(p) = self.cp {
                    ctx.send(
                        p,
                        SocMsg::Drained {
                            cu: self.index,
                            seq,
                            workgroups,
                        },
                    );
                }
            }
        }
        let mut runnable = false;
        for r in &self.waves {
            runnable |= r.wave.state == WaveState::Ready;
        }
        runnable
    }
}

/// The functional side of the scheduler on a CU: every ready wave of a workgroup that has
/// not faulted runs a quantum, with no timing (1 CPI: the CU reschedules itself by the
/// instructions run), its memory accesses observed by the L1s and buffered in the CU's
/// memory domain, its budget its own.
struct Functional<'a> {
    cu: &'a mut ComputeUnit,
    mem: &'a DeviceMemory,
    domain: &'a RefCell<Domain>,
    now: Tick,
    /// Wave-instructions run this round.
    executed: u64,
}

impl IssuePolicy for Functional<'_> {
    type Error = Infallible;

    fn waves(&self) -> usize {
        self.cu.waves.len()
    }

    fn wave(&self, i: usize) -> &Wave {
        &self.cu.waves[i].wave
    }

    fn admit(&mut self, i: usize) -> Option<u64> {
        let r = &self.cu.waves[i];
        let g = self.cu.groups[r.group].as_ref()?;
        (r.wave.state == WaveState::Ready && g.fault.is_none()).then_some(self.cu.quantum)
    }

    fn spent(&self, i: usize) -> (u64, u64) {
        (self.cu.waves[i].wave.retired, self.cu.budget)
    }

    fn execute(&mut self, i: usize, n: u64) -> Stop {
        let cu = &mut *self.cu;
        let r = &mut cu.waves[i];
        let Some(g) = cu.groups[r.group].as_mut() else {
            return Stop::Quantum;
        };
        let mut ectx = ExecCtx {
            prog: &g.dispatch.program,
            mem: MemView::buffered(self.mem, self.domain, r.serial, self.now.0),
            lds: &mut g.lds,
            observer: Some(&mut cu.l1),
            group: Some(&mut g.sync),
        };
        r.wave.run(&mut ectx, n)
    }

    fn account(&mut self, i: usize, ran: u64, classes: &[u64; InstClass::COUNT]) {
        self.executed += ran;
        self.cu.account(i, ran, classes);
    }

    fn issued(&mut self, _: usize, _: &Stop, _: u64) -> Result<bool, Infallible> {
        Ok(false)
    }

    fn ended(&mut self, i: usize) -> bool {
        // 1 CPI: the wave ends once the instructions run so far this round have issued.
        let p = self.cu.period.0;
        let end = Tick(self.now.0.saturating_add(p.saturating_mul(self.executed)));
        let r = self.cu.waves.swap_remove(i);
        self.cu.end_wave(r, end);
        true
    }

    fn faulted(&mut self, i: usize, reason: FaultReason) -> Result<(), Infallible> {
        self.cu.fault_wave(i, reason);
        Ok(())
    }
}

impl Component<SocMsg> for ComputeUnit {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        self.cp = ctx.port("cp_out");
        self.l2 = ctx.port("l2_out");
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        match input {
            Input::Message {
                msg: SocMsg::Workgroup(wg),
                ..
            } => self.start(*wg, ctx),
            Input::Message {
                msg: SocMsg::TimedResp(q),
                ..
            } => self.clock_response(q, ctx),
            Input::Timer(SocMsg::Tick) if self.clocked.is_some() => self.clock_tick(ctx),
            Input::Timer(SocMsg::Tick) => {
                let executed = self.quantum(ctx.now());
                if !self.l1.out.is_empty() {
                    if let Some(p) = self.l2 {
                        let batch = std::mem::take(&mut self.l1.out);
                        ctx.send(p, SocMsg::Mem(Box::new(batch)));
                    }
                }
                let runnable = self.settle(ctx);
                let syncing = self
                    .waves
                    .iter()
                    .any(|r| r.wave.state == WaveState::SyncWait);
                if runnable {
                    let cycles = executed.max(1);
                    ctx.schedule(Tick(self.period.0.saturating_mul(cycles)), SocMsg::Tick);
                } else if syncing {
                    // Every wave waits for its atomics: run again at the next sync point.
                    let now = ctx.now().0;
                    let at = (now / self.sync.0 + 1).saturating_mul(self.sync.0);
                    ctx.schedule(Tick(at - now), SocMsg::Tick);
                } else {
                    // Nothing can run: either idle, or every wave waits on a barrier that
                    // no other wave of its group can complete (a deadlock of the kernel).
                    self.ticking = false;
                    if !self.waves.is_empty() {
                        self.fail_deadlocked(ctx);
                    }
                }
            }
            _ => {}
        }
    }

    // Place, timing, the shared memory and the trace switch come from the SoC's config and
    // options; ports from `init`.
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        let l1 = &self.l1;
        let groups: Vec<Option<GroupImage>> = self
            .groups
            .iter()
            .map(|g| g.as_ref().map(Group::image))
            .collect();
        encode(&(
            (
                &groups,
                &self.waves,
                self.scratch_slots,
                self.ticking,
                self.next_serial,
            ),
            (&self.activity, &self.records),
            (&l1.scalar, &l1.vector, &l1.out, l1.counts),
            self.clocked.as_ref().map(|c| c.image()),
        ))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        type Image = (
            (Vec<Option<GroupImage>>, Vec<Resident>, u64, bool, u64),
            (CuActivity, Vec<WaveRecord>),
            (Cache, Cache, Vec<MemReq>, [u64; 4]),
            Option<clocked::ClockedImage>,
        );
        let (
            (groups, waves, slots, ticking, serial),
            (activity, records),
            (k, v, out, counts),
            timing,
        ): Image = decode(state)?;
        match (self.clocked.as_mut(), timing) {
            (Some(c), Some(t)) => c.restore(t).map_err(|e| {
                CheckpointError::Decode(format!("cu {} of xcd {}: {e}", self.index, self.xcd))
            })?,
            (None, None) => {}
            (c, _) => {
                return Err(CheckpointError::Decode(format!(
                    "cu {} of xcd {}: a checkpoint of the {} mode restored into the {} mode",
                    self.index,
                    self.xcd,
                    if c.is_some() { "functional" } else { "clocked" },
                    if c.is_some() { "clocked" } else { "functional" },
                )))
            }
        }
        let mut groups = groups
            .into_iter()
            .map(|g| g.map(|g| Group::from_image(g, &self.shared)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(c) = self.clocked.as_mut() {
            for g in groups.iter_mut().flatten() {
                g.table = Some(c.table(&g.dispatch.program));
            }
        }
        let bad_group = waves
            .iter()
            .any(|r| !matches!(groups.get(r.group), Some(Some(_))));
        if bad_group {
            return Err(CheckpointError::Decode(format!(
                "cu {} of xcd {}: a wave of a workgroup that is not resident",
                self.index, self.xcd
            )));
        }
        (
            self.groups,
            self.waves,
            self.scratch_slots,
            self.ticking,
            self.next_serial,
        ) = (groups, waves, slots, ticking, serial);
        (self.activity, self.records) = (activity, records);
        let l1 = &mut self.l1;
        (l1.scalar, l1.vector, l1.out, l1.counts) = (k, v, out, counts);
        Ok(())
    }
}

impl ComputeUnit {
    /// Every resident wave waits and nothing can wake it: fault the groups.
    fn fail_deadlocked(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        for g in self.groups.iter_mut().flatten() {
            if g.fault.is_none() {
                g.fault = Some(Box::new(Fault {
                    kernel: g.dispatch.kernel.clone(),
                    workgroup: g.id,
                    wave: 0,
                    pc: 0,
                    instruction: String::new(),
                    reason: FaultReason::Deadlock,
                }));
            }
        }
        self.settle(ctx);
    }
}
