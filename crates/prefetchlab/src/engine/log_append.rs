//! The engine's side of the webserver's log append (`workload.log_append`;
//! the appends themselves come from [`crate::workload`]).
//!
//! An append is a buffered write: the thread copies its bytes into the log
//! file's pages and goes on at once. The pages reach the disks at the next
//! journal commit. \[TC09\] ran ext3, whose journal thread (kjournald)
//! commits every [`COMMIT_INTERVAL_NS`] (JBD's default commit interval) and,
//! in ordered mode (ext3's default), writes a transaction's data blocks
//! before its commit, so an appended page is on the disks within 5 s.
//!
//! Modelled: at each multiple of 5 s of simulated time at which pages are
//! dirty (JBD commits a transaction 5 s after it began; here the commits
//! fall on the run's 5 s marks, the first after the first append), one write
//! of the log's pages dirtied since the last commit (a partial last page
//! again once appended to; the log holds at most 64 MiB, appends past it
//! wrapping to its start), in physically contiguous runs
//! (the file layer's map), through the array as md writes them — on RAID-5/6
//! the reads of read-modify-write or reconstruct-write first
//! ([`crate::array::write`]) — and through the array cache, write-through,
//! when there is one. The writes carry the journal thread's context, a
//! process of its own to the schedulers (one past the readers' streams), and
//! are asynchronous to them as writeback is (AS's write batches, CFQ's async
//! queue). No reader waits for them.
//!
//! Not modelled: the journal's own writes (its descriptor and commit blocks,
//! the inode and bitmap blocks an append changes), the log pages' share of
//! the page cache (at most a few hundred KiB), and the commit after the last
//! reader is done (the run ends with its last read, as a trace's dirty
//! blocks are left at its end).

use super::{Engine, Ev, IoKind};
use crate::metrics::{IoEvent, IoRow};
use crate::sim::TimeNs;
use crate::units::{NS_PER_S, PAGE_BYTES};

/// ext3's journal commit interval (JBD's `JBD_DEFAULT_MAX_COMMIT_AGE`, 5 s).
pub const COMMIT_INTERVAL_NS: TimeNs = 5 * NS_PER_S;

/// The log file and what has been appended to it.
#[derive(Debug, Clone)]
pub(super) struct LogAppend {
    /// The log file's id in the file layer (after the file set).
    file: u32,
    /// Its pages: appends beyond them wrap to its start.
    capacity_pages: u64,
    /// The journal thread's context for the schedulers.
    context: u32,
    /// Bytes appended so far (the file's size).
    pub(super) size_bytes: u64,
    /// Pages written by earlier commits, from the file's start (a partial
    /// last page is written again once appended to).
    written_pages: u64,
    /// A commit is scheduled.
    commit_pending: bool,
    /// Appends so far.
    pub(super) appends: u64,
}

impl LogAppend {
    pub(super) fn new(file: u32, capacity_pages: u64, context: u32) -> Self {
        LogAppend {
            file,
            capacity_pages: capacity_pages.max(1),
            context,
            size_bytes: 0,
            written_pages: 0,
            commit_pending: false,
            appends: 0,
        }
    }
}

impl Engine {
    /// A webserver thread appends `bytes` to the log: the pages are dirty
    /// until the next commit, which is scheduled if none is.
    pub(super) fn log_append(&mut self, bytes: u64) {
        let now = self.events.now_ns();
        let log = self.weblog.as_mut().expect("a webserver's log");
        log.size_bytes += bytes;
        log.appends += 1;
        if !log.commit_pending {
            log.commit_pending = true;
            self.events.schedule((now / COMMIT_INTERVAL_NS + 1) * COMMIT_INTERVAL_NS, Ev::LogCommit);
        }
    }

    /// The journal commit: the log's dirty pages go to the disks (the run
    /// loop drops a commit due after the last read: the run ends there).
    pub(super) fn log_commit(&mut self) {
        let log = self.weblog.as_mut().expect("a webserver's log");
        log.commit_pending = false;
        let (file, cap) = (log.file, log.capacity_pages);
        let end = log.size_bytes.div_ceil(PAGE_BYTES);
        // the pages dirtied since the last commit (at most the whole file)
        let first = log.written_pages.max(end.saturating_sub(cap));
        log.written_pages = log.size_bytes / PAGE_BYTES;
        let mut page = first;
        while page < end {
            // the file's page, appends past its end wrapping to its start
            let at = page % cap;
            let run = self.fs.contiguous_run(file, at, (end - page).min(cap - at)).max(1);
            let block = self.fs.bmap(file, at);
            self.log_write(block, run);
            page += run;
        }
    }

    /// One write of `blocks` array blocks from `block`: through the array
    /// cache (write-through), then as md plans it — its reads first, if any.
    fn log_write(&mut self, block: u64, blocks: u64) {
        if self.array_cache.is_some() {
            self.write_to_array_cache(block, blocks, false);
        }
        self.block_requests += 1;
        let context = self.weblog.as_ref().expect("a webserver's log").context;
        let mut row = IoRow::new(self.events.now_ns(), IoEvent::BlockRequest);
        row.stream = context as i32;
        row.array_block = block as i64;
        row.pages = blocks as i64;
        self.log(row);
        if !self.md_write_reads(IoKind::LogWritePre, context, block, blocks) {
            self.log_write_out(block, blocks);
        }
    }

    /// The disk writes of a log write (its reads, if any, are done).
    pub(super) fn log_write_out(&mut self, block: u64, blocks: u64) {
        let context = self.weblog.as_ref().expect("a webserver's log").context;
        self.md_write_out(IoKind::LogWriteOut, context, block, blocks);
    }
}
