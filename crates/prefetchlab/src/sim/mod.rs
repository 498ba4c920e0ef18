//! The simulation kernel: one clock in integer nanoseconds, one event queue,
//! one seeded random-number generator.
//!
//! Events with the same time fire in the order they were scheduled (a
//! sequence number breaks ties), so a run is a pure function of its
//! configuration and seed.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Simulated time in nanoseconds.
pub type TimeNs = u64;

/// A pending event; `key` packs `(time_ns, seq)` as `time_ns << 64 | seq`,
/// so one integer comparison orders the heap.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap, we pop the earliest event.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

#[inline]
fn time_of(key: u128) -> TimeNs {
    (key >> 64) as TimeNs
}

/// The event queue and the clock.
///
/// Events scheduled for the current time go to a FIFO lane instead of the
/// heap. Any event in the heap for that same time was scheduled earlier
/// (before the clock reached it), so it goes first; then the lane, in
/// order; the clock moves on only when the lane is empty. The order is
/// exactly (time, schedule order), as with the heap alone.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    now_lane: VecDeque<E>,
    seq: u64,
    now_ns: TimeNs,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            now_lane: VecDeque::with_capacity(256),
            seq: 0,
            now_ns: 0,
        }
    }

    /// The current simulated time.
    #[inline]
    pub fn now_ns(&self) -> TimeNs {
        self.now_ns
    }

    /// Schedules `event` at absolute time `time_ns` (never before now).
    #[inline]
    pub fn schedule(&mut self, time_ns: TimeNs, event: E) {
        self.seq += 1;
        if time_ns <= self.now_ns {
            self.now_lane.push_back(event);
        } else {
            self.heap.push(Entry { key: (time_ns as u128) << 64 | self.seq as u128, event });
        }
    }

    /// Schedules `event` `delay_ns` after now.
    #[inline]
    pub fn schedule_in(&mut self, delay_ns: TimeNs, event: E) {
        self.schedule(self.now_ns + delay_ns, event);
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        if !self.now_lane.is_empty() && self.heap.peek().is_none_or(|e| time_of(e.key) > self.now_ns) {
            return self.now_lane.pop_front().map(|e| (self.now_ns, e));
        }
        let e = self.heap.pop()?;
        self.now_ns = time_of(e.key);
        Some((self.now_ns, e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time_ns(&self) -> Option<TimeNs> {
        if self.now_lane.is_empty() {
            self.heap.peek().map(|e| time_of(e.key))
        } else {
            Some(self.now_ns)
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.now_lane.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.now_lane.is_empty()
    }
}

/// The seeded random-number generator of a run (xoshiro256++). Every
/// component that needs randomness gets its own stream derived from the run
/// seed and a fixed label, so adding randomness in one place does not change
/// the numbers drawn in another.
#[derive(Clone)]
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// An independent stream for the component named `label`.
    pub fn derive(seed: u64, label: &str) -> Self {
        // FNV-1a of the label, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in label.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Rng::new(seed ^ h.rotate_left(17))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) (n > 0), without modulo bias worth caring about for n < 2^32.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(10, "b");
        q.schedule(5, "a");
        q.schedule(10, "c");
        assert_eq!(q.pop(), Some((5, "a")));
        assert_eq!(q.now_ns(), 5);
        assert_eq!(q.pop(), Some((10, "b")));
        assert_eq!(q.pop(), Some((10, "c")));
        assert_eq!(q.pop(), None);
    }

    /// Events for the current time (the FIFO lane) come after those the
    /// heap holds for the same time, in schedule order.
    #[test]
    fn events_at_the_current_time_keep_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(10, "a");
        q.schedule(10, "b");
        assert_eq!(q.pop(), Some((10, "a")));
        q.schedule(10, "c");
        q.schedule(3, "d");
        q.schedule(11, "e");
        assert_eq!(q.len(), 4);
        assert_eq!(q.peek_time_ns(), Some(10));
        assert_eq!(q.pop(), Some((10, "b")));
        assert_eq!(q.pop(), Some((10, "c")));
        assert_eq!(q.pop(), Some((10, "d")));
        assert_eq!(q.pop(), Some((11, "e")));
        assert!(q.is_empty());
    }

    #[test]
    fn never_schedules_in_the_past() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        q.pop();
        q.schedule(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }

    #[test]
    fn rng_is_reproducible_and_streams_differ() {
        let mut a = Rng::derive(7, "disk0");
        let mut b = Rng::derive(7, "disk0");
        let mut c = Rng::derive(7, "disk1");
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert!(a.below(10) < 10);
    }
}
