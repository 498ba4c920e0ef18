//! The per-event log (`[output] io_log = true`): readahead windows, block
//! requests and disk requests, kept as flat columns so the bindings can hand
//! them to Python as buffers (an Arrow table is built on the Python side).
//! Absent values are −1.

/// What an io_log row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum IoEvent {
    /// A readahead window submitted because the reader missed.
    WindowSync = 0,
    /// A readahead window submitted ahead of the reader.
    WindowAsync = 1,
    /// A single page read after the policy left it missing.
    PageRead = 2,
    /// A logical block request sent to the array.
    BlockRequest = 3,
    /// A disk request dispatched to a member device.
    DiskDispatch = 4,
    /// A disk request completed.
    DiskComplete = 5,
    /// A block prefetched by the array-cache policy.
    ArrayPrefetch = 6,
    /// A disk write dispatched to a member device (a trace's write: data,
    /// parity or mirror).
    DiskWriteDispatch = 7,
    /// A disk write completed.
    DiskWriteComplete = 8,
    /// A readahead window whose reader slept for memory (`host.readahead_alloc
    /// = "wait"`), sent now that all its pages are allocated (its page pool:
    /// `page` the first page sent, `pages` the pages sent).
    WindowSent = 9,
}

impl IoEvent {
    /// Names, indexed by the event code.
    pub const NAMES: [&'static str; 10] = [
        "window_sync",
        "window_async",
        "page_read",
        "block_request",
        "disk_dispatch",
        "disk_complete",
        "array_prefetch",
        "disk_write_dispatch",
        "disk_write_complete",
        "window_sent",
    ];
}

/// Columns of the io_log. Row `i` is `(time_ns[i], event[i], …)`.
#[derive(Debug, Default, Clone)]
pub struct IoLog {
    pub time_ns: Vec<u64>,
    pub event: Vec<u8>,
    pub stream: Vec<i32>,
    pub file: Vec<i32>,
    /// Windows: first file page; `window_sent`: the first page sent; a block
    /// request reading file pages: its first page (with `file`; −1 for an
    /// indirect block's read); others −1.
    pub page: Vec<i64>,
    /// Windows: window size in pages; `window_sent`: the pages sent; block
    /// requests: blocks.
    pub pages: Vec<i64>,
    /// Windows: the marker page (−1 none); others −1.
    pub marker: Vec<i64>,
    /// Windows: pages read (`readahead_alloc = "wait"`: every page found
    /// uncached, those allocated after the reader slept for room included,
    /// their block requests logged when sent, one another reader brings in
    /// meanwhile counted but not read again; `"fail"`: those allocated before
    /// the first without room); block requests: the I/O's slot (reused);
    /// disk requests: request id.
    pub issued: Vec<i64>,
    /// Block requests: first array block; disk requests: first array block of the piece (−1 after a merge).
    pub array_block: Vec<i64>,
    /// Disk requests: member disk.
    pub disk: Vec<i32>,
    /// Disk requests: first sector on the member disk.
    pub lba_sector: Vec<i64>,
    /// Disk requests: sectors.
    pub sectors: Vec<i64>,
}

/// One row to append; fields default to absent (−1).
#[derive(Debug, Clone, Copy)]
pub struct IoRow {
    pub time_ns: u64,
    pub event: IoEvent,
    pub stream: i32,
    pub file: i32,
    pub page: i64,
    pub pages: i64,
    pub marker: i64,
    pub issued: i64,
    pub array_block: i64,
    pub disk: i32,
    pub lba_sector: i64,
    pub sectors: i64,
}

impl IoRow {
    pub fn new(time_ns: u64, event: IoEvent) -> Self {
        IoRow {
            time_ns,
            event,
            stream: -1,
            file: -1,
            page: -1,
            pages: -1,
            marker: -1,
            issued: -1,
            array_block: -1,
            disk: -1,
            lba_sector: -1,
            sectors: -1,
        }
    }
}

impl IoLog {
    pub fn push(&mut self, r: IoRow) {
        self.time_ns.push(r.time_ns);
        self.event.push(r.event as u8);
        self.stream.push(r.stream);
        self.file.push(r.file);
        self.page.push(r.page);
        self.pages.push(r.pages);
        self.marker.push(r.marker);
        self.issued.push(r.issued);
        self.array_block.push(r.array_block);
        self.disk.push(r.disk);
        self.lba_sector.push(r.lba_sector);
        self.sectors.push(r.sectors);
    }

    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }

    /// Rows of one kind of event, as indices.
    pub fn rows_of(&self, ev: IoEvent) -> impl Iterator<Item = usize> + '_ {
        self.event.iter().enumerate().filter(move |(_, &e)| e == ev as u8).map(|(i, _)| i)
    }
}
