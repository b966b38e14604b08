//! The pending-event queue: a monotone radix queue keyed by event time.
//!
//! A discrete-event engine never schedules before the time it last dequeued, which makes a
//! radix heap possible: bucket `b` holds events whose time first differs from the last
//! dequeued time `last` at bit `b - 1` (bucket 0: time equal to `last`, kept sorted by the full
//! key). Dequeuing from an empty bucket 0 refills it from the lowest non-empty bucket, moving
//! each event to a strictly lower bucket, so each event moves at most 64 times and usually a
//! handful; the moves are sequential pushes, far cheaper than a binary heap's random sifts.

use super::EventKey;

/// Something with an ordering key.
pub(crate) trait Keyed {
    fn key(&self) -> EventKey;
}

/// A monotone priority queue of `T` ordered by [`EventKey`].
#[derive(Debug, Clone)]
pub(crate) struct EventQueue<T> {
    last: u64,
    /// Bucket 0 is sorted by descending key (the next event is at the end); others unsorted.
    buckets: Vec<Vec<T>>,
    /// Bit `b` set when bucket `b` is not empty.
    nonempty: u128,
    /// Earliest time in each bucket (`u64::MAX` when empty), so refills need no scan.
    mins: [u64; 65],
    len: usize,
}

impl<T: Keyed> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl<T: Keyed> EventQueue<T> {
    pub(crate) fn new() -> Self {
        EventQueue {
            last: 0,
            buckets: (0..65).map(|_| Vec::new()).collect(),
            nonempty: 0,
            mins: [u64::MAX; 65],
            len: 0,
        }
    }

    #[inline]
    fn bucket_of(&self, t: u64) -> usize {
        if t == self.last {
            0
        } else {
            64 - (t ^ self.last).leading_zeros() as usize
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds an event. Events before the last dequeued time break the radix invariant; the
    /// engine never makes them, but if one comes the queue rebuilds itself around it instead
    /// of misordering.
    #[inline]
    pub(crate) fn push(&mut self, e: T) {
        let t = e.key().time().0;
        if t < self.last {
            self.rebase(t);
        }
        let b = self.bucket_of(t);
        if b == 0 {
            let k = e.key();
            let v = &mut self.buckets[0];
            let pos = v.partition_point(|x| x.key() > k);
            v.insert(pos, e);
        } else {
            self.buckets[b].push(e);
            if t < self.mins[b] {
                self.mins[b] = t;
            }
        }
        self.nonempty |= 1 << b;
        self.len += 1;
    }

    fn rebase(&mut self, t: u64) {
        let all: Vec<T> = self.buckets.iter_mut().flat_map(|b| b.drain(..)).collect();
        self.nonempty = 0;
        self.mins = [u64::MAX; 65];
        self.len = 0;
        self.last = t;
        for e in all {
            self.push(e);
        }
    }

    /// Time of the earliest event (`u64::MAX` if empty), without changing the queue.
    pub(crate) fn peek_time(&self) -> u64 {
        if self.nonempty & 1 != 0 {
            return self.last;
        }
        if self.nonempty == 0 {
            return u64::MAX;
        }
        self.mins[self.nonempty.trailing_zeros() as usize]
    }

    /// Makes the earliest event the end of bucket 0 if its time is below `limit`, and
    /// returns it. `last` only moves forward to a time below `limit`; callers pass a limit no
    /// later than one past the current simulated time, so later pushes never go before it.
    #[inline]
    pub(crate) fn front(&mut self, limit: u64) -> Option<&T> {
        if self.nonempty & 1 == 0 {
            if self.nonempty == 0 {
                return None;
            }
            let b = self.nonempty.trailing_zeros() as usize;
            let m = self.mins[b];
            if m >= limit {
                return None;
            }
            self.refill(b, m);
        } else if self.last >= limit {
            return None;
        }
        self.buckets[0].last()
    }

    fn refill(&mut self, b: usize, m: u64) {
        self.last = m;
        let mut v = std::mem::take(&mut self.buckets[b]);
        self.nonempty &= !(1 << b);
        self.mins[b] = u64::MAX;
        for e in v.drain(..) {
            let t = e.key().time().0;
            let nb = self.bucket_of(t);
            self.buckets[nb].push(e);
            self.nonempty |= 1 << nb;
            if t < self.mins[nb] {
                self.mins[nb] = t;
            }
        }
        // Keep the drained vector's capacity for the next events of this bucket.
        self.buckets[b] = v;
        if self.buckets[0].len() > 1 {
            self.buckets[0].sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
        }
    }

    /// Removes and returns the earliest event if its time is below `limit`.
    #[inline]
    pub(crate) fn pop_before(&mut self, limit: u64) -> Option<T> {
        self.front(limit)?;
        self.pop_front()
    }

    /// Removes the event [`EventQueue::front`] returned.
    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let e = self.buckets[0].pop()?;
        if self.buckets[0].is_empty() {
            self.nonempty &= !1;
        }
        self.len -= 1;
        Some(e)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets.iter().flatten()
    }

    pub(crate) fn clear(&mut self) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.mins = [u64::MAX; 65];
        self.nonempty = 0;
        self.len = 0;
        self.last = 0;
    }
}

impl<T: Keyed> Extend<T> for EventQueue<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for e in iter {
            self.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventClass;
    use crate::phold::CounterRng;
    use crate::time::Tick;

    impl Keyed for EventKey {
        fn key(&self) -> EventKey {
            *self
        }
    }

    /// Against a binary heap as the oracle: random interleavings of pushes (at or after the
    /// last pop, as the engine guarantees, plus a few before it) and pops with limits.
    #[test]
    fn matches_a_binary_heap() {
        let mut rng = CounterRng::new(42, 0);
        let mut q = EventQueue::new();
        let mut h = std::collections::BinaryHeap::new();
        let mut now = 0u64;
        let mut seq = 0;
        for step in 0..200_000 {
            let r = rng.below(10);
            if r < 5 {
                let delay = match rng.below(4) {
                    0 => 0,
                    1 => rng.below(10),
                    2 => rng.below(100_000),
                    _ => rng.below(1 << 40),
                };
                // Rarely, an event before `now` to exercise the rebuild path.
                let t = if step % 5000 == 0 { now / 2 } else { now + delay };
                let k = EventKey::raw(Tick(t), EventClass::Message, rng.below(50) as u32, seq);
                seq += 1;
                q.push(k);
                h.push(std::cmp::Reverse(k));
            } else {
                let limit = if r == 9 { now + rng.below(1000) } else { u64::MAX };
                let a = q.pop_before(limit);
                let b = match h.peek() {
                    Some(std::cmp::Reverse(k)) if k.time().0 < limit => h.pop().map(|r| r.0),
                    _ => None,
                };
                assert_eq!(a, b, "step {step}");
                if let Some(k) = a {
                    now = k.time().0;
                }
            }
            assert_eq!(q.len(), h.len());
            assert_eq!(q.peek_time(), h.peek().map_or(u64::MAX, |r| r.0.time().0));
        }
    }
}
