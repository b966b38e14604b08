//! The memory hierarchy's components: a CU's L1s (as a wave-memory observer), the per-XCD
//! L2 and the IODs (memory-side cache + HBM), connected by [`SocMsg::Mem`] messages.

use crate::cache::{maintenance, mtype_for, AccessKind, Cache, MType, MemOp};
use crate::exec::{self, MemObserver, MemRecord};
use crate::Target;
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;

use super::msg::{L2Maint, MemReq, SocMsg};
use super::timing::{Level, Server, TimedReq};
use simkit::time::Tick;

/// What the L2 and the IODs need of the clocked mode's timing, in ticks and bytes per
/// thousand cycles.
#[derive(Debug, Clone)]
pub(crate) struct LevelTiming {
    pub(crate) period: Tick,
    /// Load-to-use latencies of an L2, MALL and DRAM hit (from the CU's issue).
    pub(crate) l2: Tick,
    pub(crate) mall: Tick,
    pub(crate) dram: Tick,
    /// Bandwidths, bytes per 1000 cycles: one L2, one IOD's MALL, one DRAM channel.
    pub(crate) l2_bw: u64,
    pub(crate) mall_bw: u64,
    pub(crate) channel_bw: u64,
    /// DRAM channels per IOD.
    pub(crate) channels: u32,
    /// Link latencies on the way back: L2 -> CU, IOD -> L2.
    pub(crate) l2_to_cu: Tick,
    pub(crate) iod_to_l2: Tick,
    /// How long an atomic holds its line at the L2's atomic unit.
    pub(crate) atomic_hold: Tick,
}

/// The extra delay that makes a response sent at `now` over links of `links` ticks reach
/// the CU at the later of `target` and `ready + links`.
fn extra(now: Tick, target: Tick, ready: Tick, links: Tick) -> Tick {
    let arrive = target.max(Tick(ready.0.saturating_add(links.0)));
    Tick(arrive.0.saturating_sub(now.0.saturating_add(links.0)))
}

/// A CU's K$ and V$, fed by the executor's memory observer. Requests for the L2 collect in
/// `out` and the CU sends them at the end of its quantum.
#[derive(Debug)]
pub(crate) struct L1s {
    pub(crate) target: Target,
    pub(crate) scalar: Cache,
    pub(crate) vector: Cache,
    pub(crate) out: Vec<MemReq>,
    /// Executed memory instructions by kind: scalar loads, vector loads, stores, atomics.
    pub(crate) counts: [u64; 4],
}

/// The LLVM `CPol` bits from the executor's policy byte. GFX9: glc/sc0 bit 0, slc/nt bit
/// 1, scc/sc1 bit 2 (LLVM's bit 4). GFX12: already LLVM's layout (th bits 2:0, scope 4:3).
pub(crate) fn cpol(target: Target, policy: u8) -> u32 {
    match target.family() {
        crate::Family::Gfx9 => u32::from(policy & 3) | u32::from(policy >> 2 & 1) << 4,
        crate::Family::Gfx12 => u32::from(policy),
    }
}

/// A dirty line written back to the next level.
fn write_back(addr: u64, line: u64) -> MemReq {
    MemReq {
        addr,
        bytes: line as u32,
        kind: AccessKind::Write,
        mtype: MType::Rw,
        maint: L2Maint::None,
    }
}

fn push(
    out: &mut Vec<MemReq>,
    o: crate::cache::Outcome,
    addr: u64,
    bytes: u32,
    kind: AccessKind,
    mtype: MType,
    line: u64,
) {
    if let Some(f) = o.fill {
        out.push(MemReq {
            addr: f,
            bytes: line as u32,
            kind: AccessKind::Read,
            mtype,
            maint: L2Maint::None,
        });
    }
    if o.forward {
        out.push(MemReq {
            addr,
            bytes,
            kind,
            mtype,
            maint: L2Maint::None,
        });
    }
    if let Some(w) = o.writeback {
        out.push(write_back(w, line));
    }
}

impl MemObserver for L1s {
    fn access(&mut self, rec: &MemRecord<'_>) {
        let (op, kind) = match rec.kind {
            exec::AccessKind::Load | exec::AccessKind::ScalarLoad => {
                (MemOp::Load, AccessKind::Read)
            }
            exec::AccessKind::Store => (MemOp::Store, AccessKind::Write),
            exec::AccessKind::Atomic => (MemOp::Atomic, AccessKind::Atomic),
        };
        self.counts[match rec.kind {
            exec::AccessKind::ScalarLoad => 0,
            exec::AccessKind::Load => 1,
            exec::AccessKind::Store => 2,
            exec::AccessKind::Atomic => 3,
        }] += 1;
        let mtype = mtype_for(self.target, cpol(self.target, rec.policy), op);
        let cache = if rec.kind == exec::AccessKind::ScalarLoad {
            &mut self.scalar
        } else {
            &mut self.vector
        };
        let line = cache.line_bytes();
        // Coalesce: one access per distinct line among consecutive active lanes.
        let mut last = u64::MAX;
        let mut exec_mask = rec.exec;
        while exec_mask != 0 {
            let lane = exec_mask.trailing_zeros() as usize;
            exec_mask &= exec_mask - 1;
            let addr = rec.addrs[lane];
            let l = addr / line;
            if l == last && kind != AccessKind::Atomic {
                continue;
            }
            last = l;
            let o = cache.access(addr, rec.bytes, kind, mtype);
            push(&mut self.out, o, addr, rec.bytes, kind, mtype, line);
            if rec.kind == exec::AccessKind::ScalarLoad {
                // A scalar load reads one address (lane 0); its width is `bytes`.
                break;
            }
        }
    }

    fn maintenance(&mut self, mnemonic: &'static str, policy: u8) {
        let Some(m) = maintenance(self.target, mnemonic, cpol(self.target, policy)) else {
            return;
        };
        // The K$ is read-only and the V$ write-through: neither holds dirty data.
        if m.invalidate_vector_l1 {
            self.vector.invalidate_all(|_| {});
        }
        if m.invalidate_scalar_l1 {
            self.scalar.invalidate_all(|_| {});
        }
        let l2 = if m.invalidate_l2 {
            L2Maint::Invalidate
        } else if m.write_back_l2 {
            L2Maint::WriteBack
        } else {
            return;
        };
        // In order with this CU's other requests to the L2.
        self.out.push(MemReq {
            addr: 0,
            bytes: 0,
            kind: AccessKind::Write,
            mtype: MType::Rw,
            maint: l2,
        });
    }
}

/// The L2 of one XCD.
#[derive(Debug)]
pub struct L2 {
    pub(crate) cache: Cache,
    pub(crate) iods: u32,
    pub(crate) interleave: u64,
    ports: Vec<PortId>,
    batches: Vec<Vec<MemReq>>,
    /// Clocked mode: timing, the bandwidth of the slice, the links back to the CUs.
    timed: Option<Box<LevelTiming>>,
    server: Server,
    cu_ports: Vec<PortId>,
    /// Lines whose atomic unit is busy, and until when (only lines with an atomic in
    /// progress: as many as atomics in flight, kept in arrival order).
    atomics: Vec<(u64, Tick)>,
}

impl L2 {
    pub(crate) fn new(cache: Cache, iods: u32, interleave: u64) -> L2 {
        L2 {
            cache,
            iods,
            interleave,
            ports: Vec::new(),
            batches: vec![Vec::new(); iods as usize],
            timed: None,
            server: Server::default(),
            cu_ports: Vec::new(),
            atomics: Vec::new(),
        }
    }

    /// Switches the L2 to clocked mode.
    pub(crate) fn set_timed(&mut self, t: LevelTiming) {
        self.timed = Some(Box::new(t));
    }

    /// A timed request from a CU, or a response from an IOD on its way to the CU.
    fn timed(&mut self, msg: SocMsg, ctx: &mut Ctx<'_, SocMsg>) {
        // A copy (a few words, no heap): `hold_line` needs `self` while `t` is in use.
        let Some(t) = self.timed.as_deref().cloned() else {
            return;
        };
        let now = ctx.now();
        let mut q = match msg {
            SocMsg::TimedResp(q) => {
                if let Some(&p) = self.cu_ports.get(q.cu as usize) {
                    ctx.send(p, SocMsg::TimedResp(q));
                }
                return;
            }
            SocMsg::TimedReq(q) => q,
            _ => return,
        };
        let mut done = self
            .server
            .serve(now, u64::from(q.bytes), t.l2_bw, t.period);
        let o = self.cache.access(q.addr, q.bytes, q.kind, q.mtype);
        let i = iod_of(q.addr, self.iods, self.interleave);
        if let Some(w) = o.writeback {
            // A dirty victim: written to its IOD, nothing waits for it.
            let j = iod_of(w, self.iods, self.interleave);
            if let Some(&p) = self.ports.get(j) {
                let line = self.cache.line_bytes() as u32;
                ctx.send(
                    p,
                    SocMsg::TimedReq(TimedReq {
                        addr: w,
                        bytes: line,
                        kind: AccessKind::Write,
                        mtype: MType::Rw,
                        posted: true,
                        ..q
                    }),
                );
            }
        }
        let further = o.fill.is_some() || o.forward;
        if further {
            if let Some(&p) = self.ports.get(i) {
                if q.kind == AccessKind::Write {
                    // A write that goes on (a partial-line fill or an uncached write):
                    // posted; the L2 acknowledges it below.
                    ctx.send(p, SocMsg::TimedReq(TimedReq { posted: true, ..q }));
                } else if let (AccessKind::Atomic, Some(line)) = (q.kind, o.fill) {
                    // An atomic that missed a write-back L2: the L2 fetches the line and
                    // performs the atomic when it arrives (CDNA3 whitepaper: device-scope
                    // atomics execute in the L2); the answer comes back with DRAM's (or
                    // the MALL's) latency.
                    let fill = TimedReq {
                        addr: line,
                        bytes: self.cache.line_bytes() as u32,
                        atomic_fill: true,
                        ..q
                    };
                    ctx.send(p, SocMsg::TimedReq(fill));
                    return;
                } else {
                    ctx.send(p, SocMsg::TimedReq(q));
                    return;
                }
            }
        }
        if q.kind == AccessKind::Atomic {
            let line = q.addr / self.cache.line_bytes().max(1);
            done = done.max(self.hold_line(line, now, t.atomic_hold));
        }
        q.served = Some(Level::L2);
        if let Some(&p) = self.cu_ports.get(q.cu as usize) {
            let target = Tick(q.issued.0.saturating_add(t.l2.0));
            ctx.send_after(
                p,
                extra(now, target, done, t.l2_to_cu),
                SocMsg::TimedResp(q),
            );
        }
    }

    /// Same-line atomics serialize at the L2's atomic unit: the atomic to `line` that
    /// arrives at `now` starts when the one before it on that line is done and holds the
    /// line for `hold`; returns when it is done. (An atomic whose line missed is performed
    /// when the fill arrives and is not held here: its DRAM latency dominates.)
    fn hold_line(&mut self, line: u64, now: Tick, hold: Tick) -> Tick {
        self.atomics.retain(|&(_, free)| free > now);
        let end = |start: Tick| Tick(start.0.saturating_add(hold.0));
        match self.atomics.iter_mut().find(|(l, _)| *l == line) {
            Some((_, free)) => {
                *free = end(*free);
                *free
            }
            None => {
                let e = end(now);
                self.atomics.push((line, e));
                e
            }
        }
    }

    /// The cache (for statistics).
    pub fn cache(&self) -> &Cache {
        &self.cache
    }
}

/// Which IOD serves `addr`.
pub(crate) fn iod_of(addr: u64, iods: u32, interleave: u64) -> usize {
    ((addr / interleave) % u64::from(iods.max(1))) as usize
}

impl Component<SocMsg> for L2 {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        self.ports = (0..self.iods)
            .filter_map(|i| ctx.port(&format!("iod{i}")))
            .collect();
        if self.timed.is_some() {
            self.cu_ports = (0..)
                .map_while(|k| ctx.port(&format!("cu_out{k}")))
                .collect();
        }
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        let input = match input {
            Input::Message {
                msg: m @ (SocMsg::TimedReq(_) | SocMsg::TimedResp(_)),
                ..
            }
            | Input::Net {
                msg: m @ (SocMsg::TimedReq(_) | SocMsg::TimedResp(_)),
                ..
            } => return self.timed(m, ctx),
            other => other,
        };
        let (Input::Message {
            msg: SocMsg::Mem(reqs),
            ..
        }
        | Input::Net {
            msg: SocMsg::Mem(reqs),
            ..
        }) = input
        else {
            return;
        };
        self.process(&reqs);
        for (i, b) in self.batches.iter_mut().enumerate() {
            if !b.is_empty() {
                if let Some(&p) = self.ports.get(i) {
                    ctx.send(p, SocMsg::Mem(Box::new(std::mem::take(b))));
                }
            }
        }
    }

    // `batches` are empty between events; ports and timing come from `init` and the
    // config. Clocked mode: the slice's bandwidth server and the lines held by atomics
    // (requests and responses in flight are simkit messages, in the engine's checkpoint).
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        encode(&(&self.cache, self.server, &self.atomics))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let (cache, server, atomics): (Cache, Server, Vec<(u64, Tick)>) = decode(state)?;
        if cache.line_bytes() != self.cache.line_bytes() {
            return Err(CheckpointError::Decode("l2 of another geometry".into()));
        }
        (self.cache, self.server, self.atomics) = (cache, server, atomics);
        Ok(())
    }
}

impl L2 {
    /// Applies requests from the CUs, collecting what each IOD must see in `batches`.
    pub(crate) fn process(&mut self, reqs: &[MemReq]) {
        let line = self.cache.line_bytes();
        for r in reqs.iter() {
            if r.maint != L2Maint::None {
                let (iods, il) = (self.iods, self.interleave);
                let batches = &mut self.batches;
                let mut wb = |a: u64| batches[iod_of(a, iods, il)].push(write_back(a, line));
                match r.maint {
                    L2Maint::Invalidate => self.cache.invalidate_all(&mut wb),
                    _ => self.cache.write_back_all(&mut wb),
                }
                continue;
            }
            let o = self.cache.access(r.addr, r.bytes, r.kind, r.mtype);
            let i = iod_of(r.addr, self.iods, self.interleave);
            push(
                &mut self.batches[i],
                o,
                r.addr,
                r.bytes,
                r.kind,
                r.mtype,
                line,
            );
        }
    }
}

/// The pieces of the `bytes` bytes at `addr` that fall in each `line`-byte line, in
/// address order.
fn line_chunks(addr: u64, bytes: u32, line: u64) -> impl Iterator<Item = (u64, u32)> {
    let line = line.max(1);
    let end = addr + u64::from(bytes);
    let mut at = addr;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let next = ((at / line) + 1).saturating_mul(line).min(end);
        let piece = (at, (next - at) as u32);
        at = next;
        Some(piece)
    })
}

/// One I/O die: its slice of the memory-side cache and its HBM controllers.
#[derive(Debug)]
pub struct Iod {
    pub(crate) mall: Option<Cache>,
    /// Bytes read from HBM.
    pub hbm_read: u64,
    /// Bytes written to HBM.
    pub hbm_write: u64,
    /// Clocked mode: timing, the MALL's and each DRAM channel's bandwidth, the links back
    /// to the XCDs' L2s.
    timed: Option<Box<LevelTiming>>,
    mall_port: Server,
    channels: Vec<Server>,
    xcd_ports: Vec<PortId>,
}

impl Iod {
    pub(crate) fn new(mall: Option<Cache>) -> Iod {
        Iod {
            mall,
            hbm_read: 0,
            hbm_write: 0,
            timed: None,
            mall_port: Server::default(),
            channels: Vec::new(),
            xcd_ports: Vec::new(),
        }
    }

    /// Switches the IOD to clocked mode.
    pub(crate) fn set_timed(&mut self, t: LevelTiming) {
        self.channels = vec![Server::default(); t.channels.max(1) as usize];
        self.timed = Some(Box::new(t));
    }

    /// A timed request from an L2: served by the MALL or a DRAM channel.
    fn timed(&mut self, mut q: TimedReq, ctx: &mut Ctx<'_, SocMsg>) {
        let Some(t) = self.timed.as_deref() else {
            return;
        };
        let now = ctx.now();
        let bytes = u64::from(q.bytes);
        let mut dram = true;
        let mut done = now;
        // An atomic's line fill reads the line; the atomic is the L2's.
        let kind = if q.atomic_fill {
            AccessKind::Read
        } else {
            q.kind
        };
        // The bytes that go on to DRAM (all of them without a MALL).
        let mut dram_bytes = bytes;
        if let Some(m) = &mut self.mall {
            // A request wider than the MALL's line (the L2's 128 B line on a 64 B MALL)
            // looks up every line it covers.
            dram_bytes = 0;
            let line = m.line_bytes();
            for (a, b) in line_chunks(q.addr, q.bytes, line) {
                let o = m.access(a, b, kind, q.mtype);
                if o.fill.is_some() || o.forward {
                    dram_bytes += u64::from(b);
                }
                if o.writeback.is_some() {
                    self.hbm_write += line;
                }
            }
            done = self.mall_port.serve(now, bytes, t.mall_bw, t.period);
            dram = dram_bytes > 0;
        }
        if dram {
            let bytes = dram_bytes;
            // Channels interleave at 256 bytes (ASSUMPTION: the HBM channel interleave
            // granularity is not published; 256 B spreads a stream over every channel).
            let ch = ((q.addr / 256) % self.channels.len().max(1) as u64) as usize;
            if let Some(c) = self.channels.get_mut(ch) {
                done = c.serve(done, bytes, t.channel_bw, t.period);
            }
            match kind {
                AccessKind::Read => self.hbm_read += bytes,
                AccessKind::Write => self.hbm_write += bytes,
                AccessKind::Atomic => {
                    self.hbm_read += bytes;
                    self.hbm_write += bytes;
                }
            }
        }
        if q.posted {
            return;
        }
        let (level, lat) = if dram {
            (Level::Dram, t.dram)
        } else {
            (Level::Mall, t.mall)
        };
        q.served = Some(level);
        if let Some(&p) = self.xcd_ports.get(q.xcd as usize) {
            let target = Tick(q.issued.0.saturating_add(lat.0));
            let links = Tick(t.iod_to_l2.0 + t.l2_to_cu.0);
            // The L2 forwards at once, so the extra delay is taken here.
            ctx.send_after(p, extra(now, target, done, links), SocMsg::TimedResp(q));
        }
    }

    /// The memory-side cache, if the GPU has one.
    pub fn mall(&self) -> Option<&Cache> {
        self.mall.as_ref()
    }
}

impl Component<SocMsg> for Iod {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        if self.timed.is_some() {
            self.xcd_ports = (0..)
                .map_while(|x| ctx.port(&format!("xcd_out{x}")))
                .collect();
        }
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        if let Input::Message {
            msg: SocMsg::TimedReq(q),
            ..
        } = input
        {
            return self.timed(q, ctx);
        }
        let Input::Message {
            msg: SocMsg::Mem(reqs),
            ..
        } = input
        else {
            return;
        };
        for r in reqs.iter() {
            let Some(m) = &mut self.mall else {
                match r.kind {
                    AccessKind::Read => self.hbm_read += u64::from(r.bytes),
                    AccessKind::Write => self.hbm_write += u64::from(r.bytes),
                    AccessKind::Atomic => {
                        self.hbm_read += u64::from(r.bytes);
                        self.hbm_write += u64::from(r.bytes);
                    }
                }
                continue;
            };
            let line = m.line_bytes();
            for (a, b) in line_chunks(r.addr, r.bytes, line) {
                let o = m.access(a, b, r.kind, r.mtype);
                if o.fill.is_some() {
                    self.hbm_read += line;
                }
                if o.forward {
                    self.hbm_write += u64::from(b);
                }
                if o.writeback.is_some() {
                    self.hbm_write += line;
                }
            }
        }
    }

    // Clocked mode: the MALL's and the channels' bandwidth servers too.
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        encode(&(
            &self.mall,
            self.hbm_read,
            self.hbm_write,
            self.mall_port,
            &self.channels,
        ))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        type Image = (Option<Cache>, u64, u64, Server, Vec<Server>);
        let (mall, r, w, port, channels): Image = decode(state)?;
        if mall.is_some() != self.mall.is_some() {
            return Err(CheckpointError::Decode(
                "iod with another memory-side cache".into(),
            ));
        }
        if channels.len() != self.channels.len() {
            return Err(CheckpointError::Decode(format!(
                "iod with {} timed dram channels, this one has {}",
                channels.len(),
                self.channels.len()
            )));
        }
        (self.mall, self.hbm_read, self.hbm_write) = (mall, r, w);
        (self.mall_port, self.channels) = (port, channels);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Level;
    use crate::config::{CacheSpec, WritePolicy};

    fn cache(level: Level, policy: WritePolicy) -> Cache {
        let spec = CacheSpec {
            size_bytes: 16 * 1024,
            line_bytes: 128,
            ways: 4,
            latency_cycles: 1,
            write_policy: policy,
            shared_by: 1,
        };
        Cache::new(&spec, level).expect("valid cache")
    }

    fn l1s(target: Target) -> L1s {
        L1s {
            target,
            scalar: cache(Level::L1, WritePolicy::WriteThrough),
            vector: cache(Level::L1, WritePolicy::WriteThrough),
            out: Vec::new(),
            counts: [0; 4],
        }
    }

    fn load(l: &mut L1s, kind: exec::AccessKind, addr: u64) {
        let mut addrs = [0u64; exec::LANES];
        addrs[0] = addr;
        l.access(&MemRecord {
            kind,
            bytes: 4,
            policy: 0,
            exec: 1,
            addrs: &addrs,
        });
    }

    #[test]
    fn gfx942_buffer_inv_drops_l1_and_with_sc1_the_l2() {
        let mut l = l1s(Target::Gfx942);
        load(&mut l, exec::AccessKind::Load, 0x1000);
        load(&mut l, exec::AccessKind::ScalarLoad, 0x2000);
        assert!(l.vector.contains(0x1000) && l.scalar.contains(0x2000));
        l.out.clear();
        // buffer_inv sc0 (agent scope is sc1 on gfx94x): V$ only.
        l.maintenance("buffer_inv", 0b001);
        assert!(!l.vector.contains(0x1000));
        assert!(l.scalar.contains(0x2000), "buffer_inv leaves the K$ alone");
        assert!(l.out.is_empty());
        // buffer_inv sc1: the L2 too, in order with the CU's other requests.
        l.maintenance("buffer_inv", 0b100);
        assert_eq!(l.out.last().map(|r| r.maint), Some(L2Maint::Invalidate));
        l.maintenance("s_dcache_inv", 0);
        assert!(!l.scalar.contains(0x2000));
        l.out.clear();
        l.maintenance("buffer_wbl2", 0);
        assert_eq!(l.out.last().map(|r| r.maint), Some(L2Maint::WriteBack));
    }

    #[test]
    fn gfx12_global_inv_scope_decides_the_levels() {
        let mut l = l1s(Target::Gfx1201);
        load(&mut l, exec::AccessKind::Load, 0x1000);
        load(&mut l, exec::AccessKind::ScalarLoad, 0x2000);
        l.out.clear();
        // scope:SCOPE_DEV (2 << 3): the CU's caches, not the L2.
        l.maintenance("global_inv", 2 << 3);
        assert!(!l.vector.contains(0x1000) && !l.scalar.contains(0x2000));
        assert!(l.out.is_empty());
        // scope:SCOPE_SYS (3 << 3): the L2 as well.
        l.maintenance("global_inv", 3 << 3);
        assert_eq!(l.out.last().map(|r| r.maint), Some(L2Maint::Invalidate));
    }

    #[test]
    fn gfx12_policy_bits_are_read_as_th_and_scope() {
        let mut l = l1s(Target::Gfx1201);
        let mut addrs = [0u64; exec::LANES];
        addrs[0] = 0x4000;
        // global_load_b32 ... scope:SCOPE_SYS (scope 3 in bits 4:3): uncached, so the
        // access bypasses the V$. Read with the GFX9 bit layout it would be a plain load.
        l.access(&MemRecord {
            kind: exec::AccessKind::Load,
            bytes: 4,
            policy: 3 << 3,
            exec: 1,
            addrs: &addrs,
        });
        assert_eq!(l.vector.stats().bypasses, 1);
        assert!(!l.vector.contains(0x4000));
    }

    #[test]
    fn l2_write_back_and_invalidate_send_dirty_lines_to_their_iod() {
        let mut l2 = L2::new(cache(Level::L2, WritePolicy::WriteBack), 2, 4096);
        let store = |addr| MemReq {
            addr,
            bytes: 4,
            kind: AccessKind::Write,
            mtype: MType::Rw,
            maint: L2Maint::None,
        };
        l2.process(&[store(0x1000), store(0x2000)]);
        assert_eq!(l2.cache.dirty_lines(), 2);
        let maint = |m| MemReq {
            maint: m,
            ..store(0)
        };
        l2.process(&[maint(L2Maint::WriteBack)]);
        assert_eq!(l2.cache.dirty_lines(), 0);
        assert!(l2.cache.contains(0x1000), "write-back keeps the lines");
        // 0x1000 interleaves to IOD 1, 0x2000 to IOD 0 (4 KiB interleave, 2 IODs).
        let wbs = |b: &Vec<MemReq>| {
            b.iter()
                .filter(|r| r.kind == AccessKind::Write && r.bytes == 128)
                .count()
        };
        assert_eq!((wbs(&l2.batches[0]), wbs(&l2.batches[1])), (1, 1));
        l2.process(&[store(0x1000), maint(L2Maint::Invalidate)]);
        assert!(!l2.cache.contains(0x1000) && !l2.cache.contains(0x2000));
        assert_eq!(
            wbs(&l2.batches[1]),
            2,
            "the re-dirtied line is written back again"
        );
    }
}
