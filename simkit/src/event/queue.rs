//! The pending-event queue: a monotone radix queue keyed by event time.
//!
//! A discrete-event engine never schedules before the time it last dequeued, which makes a
//! radix heap possible. Relative to the last refill time `last`, an event at time `t` lives in
//! the bucket named by the highest hex digit where `t` and `last` differ (its level) and `t`'s
//! value of that digit; bucket 0 holds the sorted run that is dequeued next. Every event in a
//! lower bucket is earlier than every event in a higher one, so dequeuing only ever looks at
//! the lowest non-empty bucket: a small one is sorted whole into bucket 0, a large one is
//! redistributed around its minimum, which moves each of its events to a strictly lower level.
//! Sixteen levels of sixteen digits bound the moves per event by 16 and make them about
//! three for typical spreads, all of them sequential pushes, far cheaper than a binary heap's
//! random sifts; continuous-time workloads (every event at its own time) mostly take the
//! sort path.

use super::EventKey;

/// Largest bucket sorted whole into bucket 0 instead of redistributed.
const SMALL: usize = 48;
const LEVELS: usize = 16;
const BUCKETS: usize = 1 + LEVELS * 16;

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
    /// Latest time bucket 0 may hold; later events go to the radix buckets.
    zero_max: u64,
    /// Bit `l` set when some bucket of level `l` is not empty.
    levels: u16,
    /// Per level, bit `d` set when the bucket of digit `d` is not empty.
    digits: [u16; LEVELS],
    /// Earliest time in each bucket (`u64::MAX` when empty), so refills need no scan.
    mins: Vec<u64>,
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
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            zero_max: 0,
            levels: 0,
            digits: [0; LEVELS],
            mins: vec![u64::MAX; BUCKETS],
            len: 0,
        }
    }

    /// The radix bucket of a time after `last` (never 0).
    #[inline]
    fn bucket_of(&self, t: u64) -> usize {
        let x = t ^ self.last;
        let level = (63 - (x | 1).leading_zeros()) as usize / 4;
        let digit = ((t >> (4 * level)) & 15) as usize;
        1 + level * 16 + digit
    }

    #[inline]
    fn mark(&mut self, b: usize) {
        let (l, d) = ((b - 1) / 16, (b - 1) % 16);
        self.levels |= 1 << l;
        self.digits[l] |= 1 << d;
    }

    #[inline]
    fn unmark(&mut self, b: usize) {
        let (l, d) = ((b - 1) / 16, (b - 1) % 16);
        self.digits[l] &= !(1 << d);
        if self.digits[l] == 0 {
            self.levels &= !(1 << l);
        }
    }

    /// The lowest non-empty radix bucket.
    #[inline]
    fn lowest(&self) -> Option<usize> {
        if self.levels == 0 {
            return None;
        }
        let l = self.levels.trailing_zeros() as usize;
        Some(1 + l * 16 + self.digits[l].trailing_zeros() as usize)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds an event. Events before the last refill time break the radix invariant; the
    /// engine never makes them, but if one comes the queue rebuilds itself around it instead
    /// of misordering.
    #[inline]
    pub(crate) fn push(&mut self, e: T) {
        let t = e.key().time().0;
        if t < self.last {
            self.rebase(t);
        }
        if t <= self.zero_max {
            let k = e.key();
            let v = &mut self.buckets[0];
            let pos = v.partition_point(|x| x.key() > k);
            v.insert(pos, e);
        } else {
            let b = self.bucket_of(t);
            self.buckets[b].push(e);
            if t < self.mins[b] {
                self.mins[b] = t;
            }
            self.mark(b);
        }
        self.len += 1;
    }

    fn rebase(&mut self, t: u64) {
        let all: Vec<T> = self.buckets.iter_mut().flat_map(|b| b.drain(..)).collect();
        self.clear();
        self.last = t;
        self.zero_max = t;
        for e in all {
            self.push(e);
        }
    }

    /// Time of the earliest event (`u64::MAX` if empty), without changing the queue.
    pub(crate) fn peek_time(&self) -> u64 {
        if let Some(e) = self.buckets[0].last() {
            return e.key().time().0;
        }
        self.lowest().map_or(u64::MAX, |b| self.mins[b])
    }

    /// Makes the earliest event the end of bucket 0 if its time is below `limit`, and
    /// returns it. `last` only moves forward to a time below `limit`; callers pass a limit no
    /// later than one past the current simulated time, so later pushes never go before it.
    #[inline]
    pub(crate) fn front(&mut self, limit: u64) -> Option<&T> {
        if self.buckets[0].is_empty() {
            let b = self.lowest()?;
            let m = self.mins[b];
            if m >= limit {
                return None;
            }
            self.refill(b, m);
        }
        let e = self.buckets[0].last()?;
        if e.key().time().0 >= limit {
            return None;
        }
        Some(e)
    }

    /// Empties radix bucket `b` (minimum `m`) into bucket 0, or around `m` into lower buckets.
    fn refill(&mut self, b: usize, m: u64) {
        self.last = m;
        self.unmark(b);
        self.mins[b] = u64::MAX;
        if self.buckets[b].len() <= SMALL {
            // Bucket 0 is empty here: swap the small bucket in and sort it.
            self.buckets.swap(0, b);
            let z = &mut self.buckets[0];
            z.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
            self.zero_max = z.first().map_or(m, |e| e.key().time().0);
            return;
        }
        self.zero_max = m;
        let mut v = std::mem::take(&mut self.buckets[b]);
        for e in v.drain(..) {
            let t = e.key().time().0;
            if t == m {
                self.buckets[0].push(e);
            } else {
                let nb = self.bucket_of(t);
                self.buckets[nb].push(e);
                if t < self.mins[nb] {
                    self.mins[nb] = t;
                }
                self.mark(nb);
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
        self.mins.fill(u64::MAX);
        self.levels = 0;
        self.digits = [0; LEVELS];
        self.len = 0;
        self.last = 0;
        self.zero_max = 0;
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
                let t = if step % 5000 == 0 {
                    now / 2
                } else {
                    now + delay
                };
                let k = EventKey::raw(Tick(t), EventClass::Message, rng.below(50) as u32, seq);
                seq += 1;
                q.push(k);
                h.push(std::cmp::Reverse(k));
            } else {
                let limit = if r == 9 {
                    now + rng.below(1000)
                } else {
                    u64::MAX
                };
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
