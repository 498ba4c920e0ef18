//! Readers asleep for room in the page cache (`host.readahead_alloc =
//! "wait"`, Linux before 3.0; see [`crate::config::ReadaheadAlloc`]).
//!
//! `__do_page_cache_readahead` allocates with `page_cache_alloc_cold`, which
//! does not fail: it waits in reclaim until pages finish their I/O and can be
//! evicted. Here a window whose page finds no room queues the rest of its
//! range ([`RoomWaits`]), with the reads of the pages it has (its page pool,
//! not sent yet), and its reader sleeps; the rest is allocated, first asleep
//! first, after any event that may have made room (a read completed, a held
//! page read); a window allocated whole is sent (an io_log `window_sent`
//! row), and a reader whose windows are all sent wakes. When nothing is left
//! to happen and readers still sleep (every cached page in flight in a pool
//! or held by a sleeping reader or, with use-once reclaim and 2.6.35's list
//! balance, on the active list: a page cache smaller than the readers'
//! windows), the first reads
//! the rest of its window over the budget, as a demanded page is, rather
//! than sleep for good (the on-demand readahead of 2.6.31 on bounds one
//! window by `max_sane_readahead`, half the inactive and free pages, and
//! so does the model's, [`RaContext::sane_max_pages`]; but many readers'
//! windows together may still pass the budget, and 2.6.18 and 2.6.24 have
//! no such bound).
//!
//! [`RaContext::sane_max_pages`]: crate::policy::readahead::RaContext::sane_max_pages

use super::{Engine, PageRange, StreamState};
use crate::metrics::{IoEvent, IoRow};
use std::collections::VecDeque;

/// The readers asleep for room and what they did, for the run's metrics.
#[derive(Default)]
pub(super) struct RoomWaits {
    /// The rest of each window, in the order its reader fell asleep.
    queue: VecDeque<PageRange>,
    /// Windows whose reader slept (`room_waits`), and those read over the
    /// budget at the end (`windows_over_budget`).
    pub waits: u64,
    pub over_budget: u64,
}

impl Engine {
    /// The window `rest` found no room at its first page: its reader sleeps
    /// until it is allocated. Returns the pages still to allocate.
    pub(super) fn sleep_for_room(&mut self, rest: PageRange) -> u64 {
        let to_come =
            (rest.next_page..rest.end_page).filter(|&q| !self.cache.is_cached(rest.file, q)).count() as u64;
        self.room.queue.push_back(rest);
        self.room.waits += 1;
        self.streams[rest.stream as usize].sleeping_parts += 1;
        to_come
    }

    /// After an event: if room may have been made, the sleepers go on (their
    /// readers woken into `woken`). Returns whether any tried.
    pub(super) fn retry_room_waiters(&mut self) -> bool {
        if self.room.queue.is_empty() || !self.cache.may_make_room() {
            return false;
        }
        self.resume_room_waiters(false);
        true
    }

    /// Nothing is left to happen: the first sleeper reads the rest of its
    /// window over the budget. Returns false when nobody sleeps.
    pub(super) fn force_first_room_waiter(&mut self) -> bool {
        if self.room.queue.is_empty() {
            return false;
        }
        self.room.over_budget += 1;
        self.resume_room_waiters(true);
        true
    }

    /// The sleepers allocate their windows, first asleep first, until one
    /// finds no room again (with `over_budget`, the first reads the rest of
    /// its window over the budget); a reader whose windows are all
    /// allocated wakes.
    fn resume_room_waiters(&mut self, mut over_budget: bool) {
        while let Some(mut w) = self.room.queue.front().copied() {
            let (_, stopped) = self.read_range(&mut w, std::mem::take(&mut over_budget));
            if stopped {
                self.room.queue[0] = w;
                return;
            }
            self.room.queue.pop_front();
            let (first, pages) = self.send_pool(&mut w);
            if pages > 0 {
                let mut row = IoRow::new(self.events.now_ns(), IoEvent::WindowSent);
                row.stream = w.stream as i32;
                row.file = w.file as i32;
                row.page = first as i64;
                row.pages = pages as i64;
                self.log(row);
            }
            let st = &mut self.streams[w.stream as usize];
            st.sleeping_parts -= 1;
            if st.sleeping_parts == 0 && st.state == StreamState::Sleeping {
                st.state = StreamState::Reading;
                self.woken.push(w.stream);
            }
        }
    }
}
