//! A fixed-capacity store of cache slots with an intrusive LRU list: the
//! common part of the page cache and the array cache. Each slot carries the
//! bookkeeping every prefetching study needs — prefetched? used? marker? —
//! so accuracy, wastage and thrashing are measured the same way in both.
//!
//! Slots are `u32` indices into flat arrays; nothing is allocated after
//! construction. The list is circular through a sentinel slot ([`SENTINEL`],
//! index 0, never handed out): its `next` is the head (most recent) and its
//! `prev` the tail, so linking and unlinking need no end-of-list branches.
//!
//! The page cache's use-once reclaim ([`LruSlots::two_lists`]) keeps a
//! second list, Linux 2.6's active list, through a second sentinel
//! ([`ACTIVE_SENTINEL`]): the one list above is then the inactive list,
//! where slots come in and victims are found.

/// Slot flags.
pub mod flag {
    /// The data is present (the read completed).
    pub const UPTODATE: u16 = 1;
    /// Brought in by prefetching rather than by a demand request.
    pub const PREFETCHED: u16 = 2;
    /// Read by the application (or the layer above) at least once.
    pub const USED: u16 = 4;
    /// Carries the readahead marker (PG_readahead).
    pub const MARKER: u16 = 8;
    /// Readers wait for this slot: not evictable until they have read it (the
    /// reference a waiting reader holds in the kernel; the page cache counts
    /// them in the slot's word and clears the flag when the last lets go).
    pub const PINNED: u16 = 16;
    /// Written in the cache and not yet on the disks (write-back).
    pub const DIRTY: u16 = 32;
    /// A block policy asked that this slot, if it reaches the LRU end
    /// unread, move to the MRU end once instead of leaving (AMP's second
    /// chance; the array cache honours it).
    pub const SECOND_CHANCE: u16 = 64;
    /// Read since it came in or was last activated (PG_referenced: the page
    /// cache's `host.reclaim = "use-once"`); a slot moved back from the
    /// active list keeps it, so one more read activates it again.
    pub const REFERENCED: u16 = 128;
    /// On the active list ([`super::LruSlots::two_lists`]; PG_active): not a
    /// victim until reclaim moves it back to the inactive list.
    pub const ACTIVE: u16 = 256;
}

pub const NONE: u32 = u32::MAX;

/// The list's sentinel slot: `next` is the head, `prev` the tail.
pub const SENTINEL: u32 = 0;

/// The active list's sentinel slot, with [`LruSlots::two_lists`].
pub const ACTIVE_SENTINEL: u32 = 1;

#[derive(Debug, Clone, Copy)]
struct Slot<W> {
    key: u64,
    /// The I/O that is filling this slot while it is not uptodate.
    io: u32,
    prev: u32,
    next: u32,
    flags: u16,
    /// The owner's word for the slot's key ([`LruSlots::word`]).
    word: W,
}

impl<W: Default> Slot<W> {
    #[inline(always)]
    fn new(key: u64, io: u32, flags: u16) -> Slot<W> {
        Slot { key, io, prev: SENTINEL, next: SENTINEL, flags, word: W::default() }
    }
}

/// What leaving the cache cost: the evicted key and whether it was a wasted prefetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub key: u64,
    pub unused_prefetch: bool,
    /// It held data not yet written to the disks (write-back).
    pub dirty: bool,
}

/// Slots with an LRU order (head = most recent), each with a word of type
/// `W` for its owner (the array cache's block policy keeps one per block,
/// [`LruSlots::word`]; the page cache its count of pins, `u16`): in the slot, so that
/// reading it costs nothing more once the slot is touched, and a slot taken
/// for a new key starts with `W::default()`.
pub struct LruSlots<W = ()> {
    /// `slots[SENTINEL]` is the sentinel; the others are cache slots.
    slots: Vec<Slot<W>>,
    free: Vec<u32>,
    capacity: u32,
    in_use: u32,
    peak_in_use: u32,
    /// Slots that are uptodate, not pinned and not active (what a victim may be).
    evictable: u32,
    /// Whether the active list is kept ([`LruSlots::two_lists`]).
    two_lists: bool,
    /// Slots on the active list.
    active: u32,
    /// Reclaim balances the lists as 2.6.18 does, scanning both in
    /// proportion to their lengths ([`LruSlots::proportional_balance`]),
    /// rather than as 2.6.35 does (the active list shrunk while the longer).
    proportional: bool,
    /// 2.6.18's `nr_scan_active` against `nr_scan_inactive`: active slots
    /// owed a scan, in units of `(inactive >> 12) + 1` ([`LruSlots::balance_lists`]).
    scan_credit: u64,
    /// Slots moved to the active list, and back to the inactive one, so far.
    activations: u64,
    deactivations: u64,
}

/// A slot with these flags may be evicted: uptodate, not pinned, not on the
/// active list.
#[inline(always)]
const fn is_evictable(flags: u16) -> bool {
    flags & (flag::UPTODATE | flag::PINNED | flag::ACTIVE) == flag::UPTODATE
}

impl<W: Copy + Default> LruSlots<W> {
    pub fn new(capacity: u32) -> Self {
        Self::with_reserve(capacity, 0)
    }

    /// A store of `capacity` slots with room for `reserve` of them allocated
    /// up front (the most a run can use), so the slab does not grow by copying.
    pub fn with_reserve(capacity: u32, reserve: u32) -> Self {
        let capacity = capacity.max(1);
        let mut slots = Vec::with_capacity(reserve as usize + 1);
        slots.push(Slot::new(0, NONE, 0));
        LruSlots {
            slots,
            free: Vec::new(),
            capacity,
            in_use: 0,
            peak_in_use: 0,
            evictable: 0,
            two_lists: false,
            active: 0,
            proportional: false,
            scan_credit: 0,
            activations: 0,
            deactivations: 0,
        }
    }

    /// The store with Linux 2.6's second list, the active list (the page
    /// cache's `host.reclaim = "use-once"`): a slot read twice moves there
    /// ([`LruSlots::access_use_once`]) and is no victim until reclaim moves
    /// the active list's oldest back to the inactive list's head, whenever
    /// the active list is the longer ([`LruSlots::balance_lists`]). Called
    /// on a new store.
    pub fn two_lists(mut self) -> Self {
        assert!(self.slots.len() == 1, "two_lists on a store in use");
        // one more slot than reserved, so that the reserve still holds
        self.slots.reserve_exact(self.slots.capacity());
        let sentinel = Slot { prev: ACTIVE_SENTINEL, next: ACTIVE_SENTINEL, ..Slot::new(0, NONE, 0) };
        self.slots.push(sentinel);
        self.two_lists = true;
        self
    }

    /// The store's reclaim balancing the two lists as Linux 2.6.18 (to
    /// 2.6.27) does ([`LruSlots::balance_lists`]). Called on a new store.
    pub fn proportional_balance(mut self) -> Self {
        self.proportional = true;
        self
    }

    /// Slots on the active list.
    pub fn active(&self) -> u32 {
        self.active
    }

    /// Slots moved to the active list so far, and back to the inactive one.
    pub fn activations(&self) -> (u64, u64) {
        (self.activations, self.deactivations)
    }

    /// Whether reclaim would move slots from the active list to the inactive
    /// one ([`LruSlots::balance_lists`]): under 2.6.35's rule while the active
    /// list is the longer, under 2.6.18's while it holds any (scanned further
    /// when no victim is found, [`LruSlots::drain_for_victim`]; an active list
    /// whose every slot is pinned moves in vain).
    #[inline]
    pub fn active_is_long(&self) -> bool {
        if self.proportional {
            self.active > 0
        } else {
            self.active > self.in_use - self.active
        }
    }

    /// Reclaim's balance of the lists, before each victim is looked for. The
    /// active list's oldest slots move to the inactive list's head,
    /// referenced or not (`shrink_active_list`, 2.6.18's
    /// `refill_inactive_zone`, deactivate an unmapped page whatever its
    /// PG_referenced):
    ///
    /// * 2.6.35 (`inactive_file_is_low`): while the active list is longer
    ///   than the inactive one;
    /// * 2.6.18 ([`LruSlots::proportional_balance`]): `shrink_zone` scans
    ///   `(nr_active >> priority) + 1` active pages for every `(nr_inactive >>
    ///   priority) + 1` inactive ones, so a victim taken owes the active list
    ///   `((active >> 12) + 1) / ((inactive >> 12) + 1)` scans at
    ///   `DEF_PRIORITY` (12): that share is added to a credit and a slot
    ///   moves for each whole unit (the kernel's `nr_scan_active`). The
    ///   active list, never left alone as under 2.6.35, settles where pages
    ///   are activated as fast as this drains them. The credit is earned per
    ///   inactive page scanned, as the kernel counts them: each victim (here)
    ///   and each page a victim search passes over, in flight or held
    ///   ([`LruSlots::victim_rotating`]); the lower priorities of harder
    ///   reclaim (larger shares) are modelled only where no victim is found
    ///   at all ([`LruSlots::drain_for_victim`]).
    ///
    /// The kernel moves slots in batches of 32 (`SWAP_CLUSTER_MAX`) as it
    /// reclaims; here one by one. Returns the slots moved.
    #[inline]
    pub fn balance_lists(&mut self) -> u32 {
        let mut moved = 0;
        if self.proportional {
            let inactive_share = ((self.in_use - self.active) >> 12) as u64 + 1;
            self.scan_credit += self.active_share();
            while self.scan_credit >= inactive_share && self.active > 0 {
                self.scan_credit -= inactive_share;
                self.deactivate_oldest();
                moved += 1;
            }
            if self.active == 0 {
                self.scan_credit = 0; // an empty list's scans move nothing
            }
        } else {
            while self.active_is_long() {
                self.deactivate_oldest();
                moved += 1;
            }
        }
        moved
    }

    /// 2.6.18's `(nr_active >> DEF_PRIORITY) + 1`: the active slots owed a
    /// scan for each `(nr_inactive >> DEF_PRIORITY) + 1` inactive ones scanned.
    #[inline]
    fn active_share(&self) -> u64 {
        (self.active >> 12) as u64 + 1
    }

    /// 2.6.18's reclaim when no inactive slot can be a victim: at lower
    /// priorities `shrink_zone` scans more of both lists, down to all of
    /// them, so the active list's oldest slots go back to the inactive
    /// list's head until one could be a victim (uptodate, not pinned).
    /// Returns whether one was moved. Under 2.6.35's balance, nothing: the
    /// active list is not scanned while it is the shorter, whatever the
    /// priority.
    pub fn drain_for_victim(&mut self) -> bool {
        if !self.proportional {
            return false;
        }
        while self.active > 0 {
            let s = self.deactivate_oldest();
            if is_evictable(self.slots[s as usize].flags) {
                return true;
            }
        }
        false
    }

    /// The active list's oldest slot moves to the inactive list's head
    /// (counted); returns it.
    #[inline]
    fn deactivate_oldest(&mut self) -> u32 {
        let s = self.slots[ACTIVE_SENTINEL as usize].prev;
        debug_assert!(s != ACTIVE_SENTINEL, "an active count with an empty active list");
        self.unlink(s);
        self.link_head(s);
        self.active -= 1;
        self.clear(s, flag::ACTIVE);
        self.deactivations += 1;
        s
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn in_use(&self) -> u32 {
        self.in_use
    }

    /// Slots that are uptodate, not pinned and not on the active list.
    pub fn evictable(&self) -> u32 {
        self.evictable
    }

    /// Sets slot `s`'s flags, keeping the count of evictable slots.
    #[inline(always)]
    fn set_flags(&mut self, s: u32, flags: u16) {
        let old = std::mem::replace(&mut self.slots[s as usize].flags, flags);
        self.evictable = self.evictable + is_evictable(flags) as u32 - is_evictable(old) as u32;
    }

    pub fn peak_in_use(&self) -> u32 {
        self.peak_in_use
    }

    #[inline]
    pub fn is_full(&self) -> bool {
        self.in_use >= self.capacity
    }

    #[inline]
    pub fn key(&self, s: u32) -> u64 {
        self.slots[s as usize].key
    }

    #[inline]
    pub fn flags(&self, s: u32) -> u16 {
        self.slots[s as usize].flags
    }

    #[inline]
    pub fn has(&self, s: u32, f: u16) -> bool {
        self.slots[s as usize].flags & f != 0
    }

    #[inline]
    pub fn set(&mut self, s: u32, f: u16) {
        self.set_flags(s, self.slots[s as usize].flags | f);
    }

    #[inline]
    pub fn clear(&mut self, s: u32, f: u16) {
        self.set_flags(s, self.slots[s as usize].flags & !f);
    }

    /// The word of slot `s` (`W::default()` until set since the slot was taken).
    #[inline]
    pub fn word(&self, s: u32) -> W {
        self.slots[s as usize].word
    }

    /// The word of slot `s`, to change.
    #[inline]
    pub fn word_mut(&mut self, s: u32) -> &mut W {
        &mut self.slots[s as usize].word
    }

    #[inline]
    pub fn io(&self, s: u32) -> u32 {
        self.slots[s as usize].io
    }

    #[inline]
    pub fn set_io(&mut self, s: u32, io: u32) {
        self.slots[s as usize].io = io;
    }

    /// The least recently used slot ([`SENTINEL`] when empty).
    #[inline]
    pub fn tail(&self) -> u32 {
        self.slots[SENTINEL as usize].prev
    }

    /// The slot used just more recently than `s` ([`SENTINEL`] after the head).
    #[inline]
    pub fn newer(&self, s: u32) -> u32 {
        self.slots[s as usize].prev
    }

    /// Takes a slot for `key` and puts it at the head of the LRU list. The
    /// caller makes room first (`victim` + `remove`); when every slot is in
    /// flight it may go over capacity for a demand page, which `peak_in_use`
    /// then shows.
    #[inline(always)]
    pub fn insert(&mut self, key: u64, flags: u16, io: u32) -> u32 {
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot::new(0, NONE, 0));
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[s as usize] = Slot::new(key, io, flags);
        self.link_head(s);
        self.in_use += 1;
        self.evictable += is_evictable(flags) as u32;
        self.peak_in_use = self.peak_in_use.max(self.in_use);
        s
    }

    /// Evicts slot `victim` and takes it at once for `key` at the head of
    /// the LRU list: [`LruSlots::remove`] then [`LruSlots::insert`] (which
    /// would take the slot just freed), without the trip through the free
    /// list. Reports what the eviction cost.
    #[inline(always)]
    pub fn replace(&mut self, victim: u32, key: u64, flags: u16, io: u32) -> Evicted {
        debug_assert!(!self.has(victim, flag::ACTIVE), "an active slot is no victim");
        self.unlink(victim);
        let old = std::mem::replace(&mut self.slots[victim as usize], Slot::new(key, io, flags));
        self.link_head(victim);
        self.evictable = self.evictable + is_evictable(flags) as u32 - is_evictable(old.flags) as u32;
        Evicted {
            key: old.key,
            unused_prefetch: old.flags & (flag::PREFETCHED | flag::USED) == flag::PREFETCHED,
            dirty: old.flags & flag::DIRTY != 0,
        }
    }

    /// [`LruSlots::victim`], then [`LruSlots::replace`] of the victim
    /// found, in one step on the slot slice (its bounds and address held in
    /// registers through the stores, which a `Vec` indexed through `self`
    /// reloads). Returns the victim's slot and what the eviction cost;
    /// `None` when no slot is evictable.
    #[inline(always)]
    pub fn replace_victim(&mut self, key: u64, flags: u16, io: u32) -> Option<(u32, Evicted)> {
        if self.evictable == 0 {
            return None;
        }
        let slots = &mut self.slots[..];
        let mut v = slots[SENTINEL as usize].prev;
        loop {
            if v == SENTINEL {
                return None;
            }
            let slot = &slots[v as usize];
            if is_evictable(slot.flags) {
                break;
            }
            v = slot.prev;
        }
        let old = slots[v as usize];
        // unlink the victim, then link it at the head
        slots[old.prev as usize].next = old.next;
        slots[old.next as usize].prev = old.prev;
        let head = slots[SENTINEL as usize].next;
        slots[v as usize] = Slot { next: head, ..Slot::new(key, io, flags) };
        slots[head as usize].prev = v;
        slots[SENTINEL as usize].next = v;
        // the victim was evictable
        self.evictable = self.evictable + is_evictable(flags) as u32 - 1;
        let ev = Evicted {
            key: old.key,
            unused_prefetch: old.flags & (flag::PREFETCHED | flag::USED) == flag::PREFETCHED,
            dirty: old.flags & flag::DIRTY != 0,
        };
        Some((v, ev))
    }

    /// The least recently used slot that is uptodate and not pinned, moving
    /// every slot passed over (in flight, or pinned by a waiting reader) to
    /// the head, as 2.6.35's `shrink_page_list` puts back the pages it
    /// cannot take; `None` after one round of the list. A pinned slot passed
    /// over is referenced no more (`page_check_references` clears
    /// PG_referenced on a page it examines; a page in flight is locked and
    /// kept unexamined).
    pub fn victim_rotating(&mut self) -> Option<u32> {
        if self.evictable == 0 {
            return None; // nothing to find: no round of the list
        }
        let mut first_moved = NONE;
        let mut s = self.tail();
        while s != SENTINEL && s != first_moved {
            let slot = &self.slots[s as usize];
            if is_evictable(slot.flags) {
                return Some(s);
            }
            let (newer, flags) = (slot.prev, slot.flags);
            if flags & flag::UPTODATE != 0 {
                self.slots[s as usize].flags = flags & !flag::REFERENCED; // not an evictable change
            }
            if self.proportional {
                // 2.6.18 counts a page passed over as scanned: the active list is owed its share
                self.scan_credit += self.active_share();
            }
            self.touch(s);
            if first_moved == NONE {
                first_moved = s;
            }
            s = newer;
        }
        None
    }

    /// Moves a slot to the head (most recently used).
    #[inline]
    pub fn touch(&mut self, s: u32) {
        debug_assert!(!self.has(s, flag::ACTIVE), "touch moves a slot in the inactive list");
        self.unlink(s);
        self.link_head(s);
    }

    /// The reader read slot `s`: marks it used and most recent (a pin is its
    /// owner's to take off). Returns true when this was the first use of a
    /// prefetched slot.
    #[inline]
    pub fn access(&mut self, s: u32) -> bool {
        self.touch(s);
        let f = self.slots[s as usize].flags;
        self.set_flags(s, f | flag::USED);
        f & (flag::USED | flag::PREFETCHED) == flag::PREFETCHED
    }

    /// The reader read slot `s`, under Linux 2.6's `mark_page_accessed`
    /// (`host.reclaim = "use-once"`, on a store with [`LruSlots::two_lists`]):
    /// marked used; when `mark`, a slot not referenced becomes referenced and
    /// stays in place, a referenced one on the inactive list moves to the
    /// active list's head (`activate_page`) and is referenced no more; a slot
    /// already active only becomes referenced (the active list keeps the
    /// order slots came to it). Returns true when this was the first use of
    /// a prefetched slot.
    #[inline]
    pub fn access_use_once(&mut self, s: u32, mark: bool) -> bool {
        debug_assert!(self.two_lists, "use-once needs the active list");
        let f = self.slots[s as usize].flags;
        let mut g = f | flag::USED;
        if mark {
            if f & (flag::REFERENCED | flag::ACTIVE) == flag::REFERENCED {
                self.unlink(s);
                self.link_after(ACTIVE_SENTINEL, s);
                self.active += 1;
                self.activations += 1;
                g = (g & !flag::REFERENCED) | flag::ACTIVE;
            } else {
                g |= flag::REFERENCED;
            }
        }
        self.set_flags(s, g);
        f & (flag::USED | flag::PREFETCHED) == flag::PREFETCHED
    }

    /// When full, evicts the least recently used uptodate slot. Returns the
    /// eviction, if one happened, and whether there is room now (false when
    /// every slot is in flight).
    pub fn make_room(&mut self) -> (Option<Evicted>, bool) {
        if !self.is_full() {
            return (None, true);
        }
        match self.victim() {
            Some(s) => (Some(self.remove(s)), true),
            None => (None, false),
        }
    }

    /// The least recently used slot that is uptodate and not pinned
    /// (in-flight and pinned slots are never evicted), if any.
    #[inline]
    pub fn victim(&self) -> Option<u32> {
        if self.evictable == 0 {
            return None; // no walk of the list for nothing
        }
        let mut s = self.tail();
        while s != SENTINEL {
            let slot = &self.slots[s as usize];
            if is_evictable(slot.flags) {
                return Some(s);
            }
            s = slot.prev;
        }
        None
    }

    /// Frees a slot; reports whether it held an unused prefetch. A free slot
    /// has no flags, so it is neither evictable nor cullable until taken.
    #[inline]
    pub fn remove(&mut self, s: u32) -> Evicted {
        self.unlink(s);
        let slot = self.slots[s as usize];
        self.set_flags(s, 0);
        self.free.push(s);
        self.in_use -= 1;
        self.active -= (slot.flags & flag::ACTIVE != 0) as u32;
        Evicted {
            key: slot.key,
            unused_prefetch: slot.flags & (flag::PREFETCHED | flag::USED) == flag::PREFETCHED,
            dirty: slot.flags & flag::DIRTY != 0,
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let Slot { prev, next, .. } = self.slots[s as usize];
        self.slots[prev as usize].next = next;
        self.slots[next as usize].prev = prev;
    }

    /// Links `s` at the head of the (inactive) list.
    #[inline]
    fn link_head(&mut self, s: u32) {
        self.link_after(SENTINEL, s);
    }

    /// Links `s` at the head of the list of `sentinel`.
    #[inline]
    fn link_after(&mut self, sentinel: u32, s: u32) {
        let head = self.slots[sentinel as usize].next;
        let slot = &mut self.slots[s as usize];
        slot.prev = sentinel;
        slot.next = head;
        self.slots[head as usize].prev = s;
        self.slots[sentinel as usize].next = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_order_and_uptodate_victims() {
        let mut c: LruSlots = LruSlots::new(3);
        let a = c.insert(1, flag::UPTODATE, NONE);
        let b = c.insert(2, 0, 7); // in flight
        let d = c.insert(3, flag::UPTODATE | flag::PREFETCHED, NONE);
        assert!(c.is_full());
        assert_eq!(c.victim(), Some(a));
        c.touch(a);
        assert_eq!(c.victim(), Some(d), "b is in flight, d is the oldest uptodate");
        assert_eq!(c.remove(d), Evicted { key: 3, unused_prefetch: true, dirty: false });
        assert_eq!(c.flags(d), 0, "a free slot has no flags");
        assert_eq!(c.io(b), 7);
        let e = c.insert(4, flag::UPTODATE, NONE);
        assert_eq!(e, d, "slot reused");
        assert_eq!(c.peak_in_use(), 3);
        c.set(b, flag::UPTODATE);
        assert_eq!(c.victim(), Some(b));
    }

    /// With the active list: a slot read twice leaves the inactive list and
    /// is no victim (nor counted evictable) until balancing moves it back to
    /// the inactive list's head, which happens only while the active list is
    /// the longer.
    #[test]
    fn the_active_list_holds_slots_read_twice_until_it_is_the_longer() {
        let mut c: LruSlots = LruSlots::new(4).two_lists();
        let a = c.insert(1, flag::UPTODATE, NONE);
        let b = c.insert(2, flag::UPTODATE, NONE);
        c.access_use_once(a, true);
        assert_eq!((c.active(), c.victim()), (0, Some(a)), "read once: in place");
        c.access_use_once(a, true);
        assert_eq!((c.active(), c.evictable(), c.victim()), (1, 1, Some(b)));
        assert_eq!(c.balance_lists(), 0, "1 active, 1 inactive");
        c.access_use_once(b, true);
        c.access_use_once(b, true);
        assert_eq!((c.active(), c.evictable(), c.victim()), (2, 0, None));
        assert!(c.active_is_long());
        assert_eq!(c.balance_lists(), 1);
        assert_eq!((c.active(), c.evictable(), c.victim()), (1, 1, Some(a)), "the oldest active went back");
        assert_eq!(c.activations(), (2, 1));
        assert!(!c.has(a, flag::ACTIVE) && c.has(b, flag::ACTIVE));
        assert_eq!(c.remove(b).key, 2);
        assert_eq!((c.active(), c.in_use()), (0, 1), "removing an active slot counts it off");
    }

    /// Random operations on a two-list store: after each, a walk of both
    /// lists agrees with the ACTIVE flags and the counts (in use, active,
    /// evictable).
    #[test]
    fn two_lists_stay_consistent_under_random_operations() {
        let check = |c: &LruSlots| {
            let (mut inactive, mut evictable, mut active) = (0, 0, 0);
            let mut s = c.slots[SENTINEL as usize].next;
            while s != SENTINEL {
                assert!(!c.has(s, flag::ACTIVE), "slot {s} flagged active on the inactive list");
                inactive += 1;
                evictable += is_evictable(c.flags(s)) as u32;
                s = c.slots[s as usize].next;
            }
            let mut s = c.slots[ACTIVE_SENTINEL as usize].next;
            while s != ACTIVE_SENTINEL {
                assert!(c.has(s, flag::ACTIVE), "slot {s} on the active list not flagged");
                active += 1;
                s = c.slots[s as usize].next;
            }
            assert_eq!((inactive + active, active, evictable), (c.in_use(), c.active(), c.evictable()));
        };
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for proportional in [false, true] {
            let mut c: LruSlots = LruSlots::new(16).two_lists();
            if proportional {
                c = c.proportional_balance();
            }
            let mut live: Vec<u32> = Vec::new();
            for _ in 0..20_000 {
                let pick = |live: &Vec<u32>, r: u64| live[r as usize % live.len().max(1)];
                match next(8) {
                    0 | 1 if !c.is_full() => {
                        let f = if next(2) == 0 { flag::UPTODATE } else { 0 };
                        live.push(c.insert(next(1000), f, NONE));
                    }
                    2 if !live.is_empty() => c.set(pick(&live, next(64)), flag::UPTODATE),
                    3 if !live.is_empty() => {
                        let s = pick(&live, next(64));
                        if c.has(s, flag::PINNED) {
                            c.clear(s, flag::PINNED)
                        } else {
                            c.set(s, flag::PINNED)
                        }
                    }
                    4 | 5 if !live.is_empty() => {
                        let s = pick(&live, next(64));
                        if c.has(s, flag::UPTODATE) {
                            c.access_use_once(s, next(4) != 0);
                        }
                    }
                    6 => {
                        c.balance_lists();
                        // as the page cache's reclaim: 2.6.18 scans the active list further
                        // when no victim is found
                        let v = c
                            .victim_rotating()
                            .or_else(|| c.drain_for_victim().then(|| c.victim_rotating()).flatten());
                        if let Some(v) = v {
                            c.remove(v);
                            live.retain(|&x| x != v);
                        }
                    }
                    7 if c.is_full() => {
                        c.balance_lists();
                        if let Some((v, _)) = c.replace_victim(next(1000), 0, 5) {
                            assert!(live.contains(&v));
                        }
                    }
                    _ => {}
                }
                check(&c);
            }
            assert!(c.activations().1 > 0, "the walk moved slots back from the active list");
        }
    }

    /// 2.6.18's balance: each victim looked for owes the active list
    /// `((active >> 12) + 1) / ((inactive >> 12) + 1)` scans, so on small
    /// lists one slot moves per call whatever their lengths (where 2.6.35's
    /// rule moves none while the active list is the shorter), and on large
    /// ones in proportion to their lengths: with 10,000 active slots and
    /// 20,480 inactive, 3 scans owed per call against 6 per slot, one slot
    /// every second call.
    #[test]
    fn proportional_balance_scans_the_active_list_in_proportion_to_its_length() {
        let store = |active: u64, inactive: u64, proportional: bool| {
            let mut c: LruSlots = LruSlots::new((active + inactive) as u32).two_lists();
            if proportional {
                c = c.proportional_balance();
            }
            let mut slots = vec![];
            for k in 0..active + inactive {
                let s = c.insert(k, flag::UPTODATE, NONE);
                if k < active {
                    c.access_use_once(s, true);
                    c.access_use_once(s, true);
                }
                slots.push(s);
            }
            assert_eq!(c.active() as u64, active);
            (c, slots)
        };
        let (mut small, _) = store(3, 10, true);
        assert!(small.active_is_long(), "any active slot may be moved");
        assert_eq!([small.balance_lists(), small.balance_lists()], [1, 1]);
        assert_eq!((small.active(), small.activations().1), (1, 2));
        let (mut inactive_low, _) = store(3, 10, false);
        assert!(!inactive_low.active_is_long());
        assert_eq!(inactive_low.balance_lists(), 0);
        let (mut large, _) = store(10_000, 20_480, true);
        let moved: Vec<u32> = (0..6).map(|_| large.balance_lists()).collect();
        assert_eq!(moved, [0, 1, 0, 1, 0, 1]);
        // the oldest active slot goes first, to the inactive list's head
        let (mut c, s) = store(2, 2, true);
        assert_eq!(c.balance_lists(), 1);
        assert!(!c.has(s[0], flag::ACTIVE) && c.has(s[1], flag::ACTIVE));
        assert_eq!(c.slots[SENTINEL as usize].next, s[0], "at the inactive head");
        // an empty active list owes nothing: its credit does not carry over, and
        // the next page activated is not moved back in a burst
        for _ in 0..1000 {
            c.balance_lists();
        }
        assert_eq!((c.active(), c.scan_credit), (0, 0));
        let (mut c, _) = store(0, 10_000, true);
        for _ in 0..1000 {
            c.balance_lists();
        }
        assert_eq!(c.scan_credit, 0, "credit kept by an empty active list");
        for _ in 0..2 {
            let s = c.tail(); // the oldest inactive slot, read twice
            c.access_use_once(s, true);
            c.access_use_once(s, true);
        }
        // without the reset 1,000 scans would be owed and both would go back at once
        assert_eq!((c.balance_lists(), c.active()), (0, 2), "one scan owed of the 3 a slot costs");
    }

    /// 2.6.18 counts every inactive page scanned, a page passed over in
    /// flight too: a victim search that passes over two pages owes the
    /// active list three scans, where one that takes the tail owes one.
    #[test]
    fn proportional_balance_counts_the_pages_passed_over() {
        let moved_after_search = |passed: u64| {
            let mut c: LruSlots = LruSlots::new(16).two_lists().proportional_balance();
            for k in 0..passed {
                c.insert(k, 0, NONE); // in flight, at the tail
            }
            for k in 10..13 {
                c.insert(k, flag::UPTODATE, NONE);
            }
            for k in 20..24 {
                let s = c.insert(k, flag::UPTODATE, NONE);
                c.access_use_once(s, true);
                c.access_use_once(s, true);
            }
            let v = c.victim_rotating().unwrap();
            c.remove(v);
            c.balance_lists()
        };
        // small lists: a share of one; the victim's own scan is counted by the balance
        assert_eq!([moved_after_search(0), moved_after_search(2)], [1, 3]);
    }

    /// 2.6.18's reclaim with no inactive victim scans the active list
    /// further: its oldest slots go back until one can be evicted (a pinned
    /// one moved on past); 2.6.35's leaves it alone.
    #[test]
    fn proportional_balance_drains_the_active_list_when_no_victim_is_found() {
        for proportional in [true, false] {
            let mut c: LruSlots = LruSlots::new(6).two_lists();
            if proportional {
                c = c.proportional_balance();
            }
            let active: Vec<u32> = (0..3)
                .map(|k| {
                    let s = c.insert(k, flag::UPTODATE, NONE);
                    c.access_use_once(s, true);
                    c.access_use_once(s, true);
                    s
                })
                .collect();
            c.set(active[0], flag::PINNED);
            for k in 3..6 {
                c.insert(k, 0, NONE); // in flight
            }
            assert_eq!((c.active(), c.evictable(), c.victim()), (3, 0, None));
            assert_eq!(c.drain_for_victim(), proportional);
            if proportional {
                // the oldest (pinned) and the next went back; the newest stays active
                assert_eq!((c.active(), c.victim_rotating()), (1, Some(active[1])));
                assert!(c.has(active[2], flag::ACTIVE));
            } else {
                assert_eq!(c.active(), 3);
            }
        }
    }

    /// The count of evictable slots follows every change of flags; a
    /// rotating search moves what it passes over to the head, and with
    /// nothing evictable finds nothing without a round of the list.
    #[test]
    fn evictable_slots_are_counted_and_a_rotating_search_moves_the_rest() {
        let count = |c: &LruSlots| {
            let mut n = 0;
            let mut s = c.tail();
            while s != SENTINEL {
                n += is_evictable(c.flags(s)) as u32;
                s = c.newer(s);
            }
            n
        };
        let mut c: LruSlots = LruSlots::new(8);
        let a = c.insert(1, 0, 5); // in flight
        let b = c.insert(2, flag::UPTODATE, NONE);
        let d = c.insert(3, 0, 6); // in flight
        assert_eq!((c.evictable(), count(&c)), (1, 1));
        c.set(b, flag::PINNED); // a reader waits on it
        assert_eq!((c.evictable(), c.victim_rotating()), (0, None));
        assert_eq!(c.tail(), a, "no round of the list when nothing can go");
        c.set(d, flag::UPTODATE);
        assert_eq!(c.evictable(), 1);
        // a (in flight) and b (pinned) are passed over, to the head
        assert_eq!(c.victim_rotating(), Some(d));
        assert_eq!((c.tail(), c.newer(d)), (d, a));
        c.access(b); // read, still pinned: the reader that pinned it takes the pin off
        assert_eq!((c.evictable(), count(&c)), (1, 1));
        c.clear(b, flag::PINNED);
        assert_eq!((c.evictable(), count(&c)), (2, 2));
        c.replace(d, 4, 0, 7);
        c.remove(b);
        assert_eq!((c.evictable(), count(&c)), (0, 0));
    }
}
