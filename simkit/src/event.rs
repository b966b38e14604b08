//! Events and the total order on them: the same-time ordering key.

use crate::component::ComponentId;
use crate::time::Tick;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

pub(crate) mod queue;

/// What kind of event this is; the second field of the ordering key.
///
/// At equal timestamps classes run in this order: external injections first (the outside
/// world's input for a tick is visible to everything that happens at that tick), then
/// messages arriving over ports and nets, then a component's own timers, and clock ticks last,
/// so a clocked component sees every message and timer of an edge before it ticks on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum EventClass {
    /// Injected from another thread through a [`SimHandle`](crate::handle::SimHandle).
    External = 0,
    /// A message delivered over a link or a net.
    Message = 1,
    /// A component's self-scheduled timer.
    Timer = 2,
    /// A clock edge of a clocked component.
    Tick = 3,
}

impl EventClass {
    fn from_bits(b: u64) -> EventClass {
        match b {
            0 => EventClass::External,
            1 => EventClass::Message,
            2 => EventClass::Timer,
            _ => EventClass::Tick,
        }
    }
}

/// Who created an event: a component, or the outside world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Source {
    /// A component (its sends, timers and clock ticks).
    Component(ComponentId),
    /// A [`SimHandle`](crate::handle::SimHandle) on another thread.
    External,
}

/// The ordering key of an event: `(time, class, source, sequence)`, compared lexicographically.
///
/// * `time`: when the event happens.
/// * `class`: [`EventClass`] order at equal times.
/// * `source`: the id of the component that created the event (external injections sort
///   after every component, but they are in their own class anyway).
/// * `sequence`: the source's own count of events it has created so far (sends, timers and
///   clock ticks share one counter); external injections count in the order the handle
///   accepted them.
///
/// Every event has a distinct key, and nothing in it depends on which queue, partition or
/// thread the event went through or on wall-clock time: a component's sequence numbers follow
/// only from the order in which it handled its own events, which is itself fixed by this key.
/// That is what makes runs identical across thread counts and partitionings.
///
/// Packed into two words for speed: `time`, then `class:2 | source:22 | sequence:40`. So a
/// topology holds at most [`MAX_COMPONENTS`] components, and a source's sequence numbers
/// wrap after 2^40 events (hours of simulation from one component; wrapping is still
/// deterministic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventKey {
    time: Tick,
    tie: u64,
}

/// Most components a topology can hold (the source field of [`EventKey`] is 22 bits, and its
/// all-ones value stands for external injections).
pub const MAX_COMPONENTS: usize = (1 << 22) - 1;

const SRC_BITS: u32 = 22;
const SEQ_BITS: u32 = 40;
const EXTERNAL_SRC: u64 = (1 << SRC_BITS) - 1;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

impl EventKey {
    /// A key from its parts (`seq` is taken modulo 2^40).
    pub fn new(time: Tick, class: EventClass, source: Source, seq: u64) -> EventKey {
        let src = match source {
            Source::Component(c) => c.0,
            Source::External => EXTERNAL_SRC as u32,
        };
        EventKey::raw(time, class, src, seq)
    }

    #[inline]
    pub(crate) fn raw(time: Tick, class: EventClass, src: u32, seq: u64) -> EventKey {
        EventKey {
            time,
            tie: (class as u64) << 62 | (src as u64 & EXTERNAL_SRC) << SEQ_BITS | (seq & SEQ_MASK),
        }
    }

    /// The key standing for component `comp`'s `init` call at the start time: before every
    /// event at that time, in component-id order (the order `init` runs in). Only exit
    /// requests and primary releases made in `init` carry it; no event has it.
    pub(crate) fn init(time: Tick, comp: u32) -> EventKey {
        EventKey::raw(time, EventClass::External, comp, 0)
    }

    #[inline]
    pub(crate) fn external(time: Tick, seq: u64) -> EventKey {
        EventKey::raw(time, EventClass::External, EXTERNAL_SRC as u32, seq)
    }

    /// When the event happens.
    #[inline]
    pub fn time(&self) -> Tick {
        self.time
    }

    /// The event's class.
    pub fn class(&self) -> EventClass {
        EventClass::from_bits(self.tie >> 62)
    }

    /// Who created the event.
    pub fn source(&self) -> Source {
        let s = self.src_raw() as u64;
        if s == EXTERNAL_SRC {
            Source::External
        } else {
            Source::Component(ComponentId(s as u32))
        }
    }

    #[inline]
    pub(crate) fn src_raw(&self) -> u32 {
        ((self.tie >> SEQ_BITS) & EXTERNAL_SRC) as u32
    }

    /// The source's sequence number for this event (modulo 2^40).
    pub fn seq(&self) -> u64 {
        self.tie & SEQ_MASK
    }

    /// The key as two words (time, packed class/source/sequence), for wire formats.
    #[cfg(feature = "mpi")]
    pub(crate) fn to_words(self) -> (u64, u64) {
        (self.time.0, self.tie)
    }

    /// The key [`EventKey::to_words`] gave.
    #[cfg(feature = "mpi")]
    pub(crate) fn from_words(time: u64, tie: u64) -> EventKey {
        EventKey {
            time: Tick(time),
            tie,
        }
    }

    /// Folds this key into an order-dependent running hash.
    #[inline]
    pub(crate) fn mix_into(&self, h: u64) -> u64 {
        mix(mix(h, self.time.0), self.tie)
    }
}

impl Ord for EventKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time.0, self.tie).cmp(&(other.time.0, other.tie))
    }
}

impl PartialOrd for EventKey {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One step of an order-dependent 64-bit hash (multiply-xorshift, as in SplitMix64's finalizer).
#[inline]
pub(crate) fn mix(h: u64, v: u64) -> u64 {
    let mut z = (h ^ v)
        .wrapping_add(0x9e37_79b9_7f4a_7c15)
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How a queued event reaches its destination (stored in the top bits of [`Entry::aux`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u32)]
pub(crate) enum Via {
    Port = 0,
    Net = 1,
    Timer = 2,
    External = 3,
}

/// A queued event with its payload. Small and allocation-free when `M` is.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry<M> {
    pub(crate) key: EventKey,
    /// Destination component: its local index inside the destination partition while queued,
    /// its global id inside checkpoints.
    pub(crate) dst: u32,
    /// `via << 30 | id`, where id is the destination port or the net.
    pub(crate) aux: u32,
    pub(crate) payload: M,
}

impl<M> Entry<M> {
    #[inline]
    pub(crate) fn via(&self) -> Via {
        match self.aux >> 30 {
            0 => Via::Port,
            1 => Via::Net,
            2 => Via::Timer,
            _ => Via::External,
        }
    }

    #[inline]
    pub(crate) fn aux(via: Via, id: u32) -> u32 {
        (via as u32) << 30 | (id & 0x3fff_ffff)
    }
}

impl<M> queue::Keyed for Entry<M> {
    #[inline]
    fn key(&self) -> EventKey {
        self.key
    }
}

/// A pending clock tick (no payload): the key's source is the ticking component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TickEntry {
    pub(crate) key: EventKey,
    pub(crate) local: u32,
}

impl queue::Keyed for TickEntry {
    #[inline]
    fn key(&self) -> EventKey {
        self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_orders_time_then_class_then_source_then_seq() {
        let c = |i| Source::Component(ComponentId(i));
        let mut keys = [
            EventKey::new(Tick(5), EventClass::Tick, c(0), 0),
            EventKey::new(Tick(5), EventClass::Message, c(2), 0),
            EventKey::new(Tick(5), EventClass::Message, c(1), 9),
            EventKey::new(Tick(5), EventClass::Message, c(1), 3),
            EventKey::new(Tick(4), EventClass::Tick, c(7), 100),
            EventKey::new(Tick(5), EventClass::External, Source::External, 0),
            EventKey::new(Tick(5), EventClass::Timer, c(0), 1),
        ];
        keys.sort();
        let got: Vec<_> = keys
            .iter()
            .map(|k| (k.time().0, k.class(), k.source(), k.seq()))
            .collect();
        assert_eq!(
            got,
            vec![
                (4, EventClass::Tick, c(7), 100),
                (5, EventClass::External, Source::External, 0),
                (5, EventClass::Message, c(1), 3),
                (5, EventClass::Message, c(1), 9),
                (5, EventClass::Message, c(2), 0),
                (5, EventClass::Timer, c(0), 1),
                (5, EventClass::Tick, c(0), 0),
            ]
        );
    }

    #[test]
    fn key_fields_round_trip() {
        let k = EventKey::new(
            Tick(9),
            EventClass::Timer,
            Source::Component(ComponentId(4_000_000)),
            (1 << 40) + 5,
        );
        assert_eq!(k.class(), EventClass::Timer);
        assert_eq!(k.source(), Source::Component(ComponentId(4_000_000)));
        assert_eq!(k.seq(), 5);
        let x = EventKey::external(Tick(1), 3);
        assert_eq!(
            (x.class(), x.source(), x.seq()),
            (EventClass::External, Source::External, 3)
        );
    }

    #[test]
    fn mix_is_order_dependent() {
        assert_ne!(mix(mix(0, 1), 2), mix(mix(0, 2), 1));
    }
}
