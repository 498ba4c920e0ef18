//! Block-trace readers (models.md §6): one file per format behind one
//! streaming interface, [`RecordSource`], that hands records out in
//! batches — constant memory whatever the trace's length, no per-record
//! call across a language boundary.
//!
//! Every reader turns its format's units into one [`Record`]: time in
//! nanoseconds from the trace's first record (formats with absolute clocks
//! are rebased on it), offset and size in bytes, the stream (ASU, device
//! or volume) the record belongs to. A malformed record is an error naming
//! the file, the line and the field, and what was expected there.
//!
//! Formats here: [`spc`] (`ASU,LBA,size,op,timestamp`), [`msr`] (MSR
//! Cambridge csv), [`disksim`] (DiskSim ascii), [`disksim_validate`]
//! (DiskSim's validation traces of real drives), [`mqsim`] (MQSim ascii,
//! the form of the shared WebSearch and TPC-C excerpts), [`fiu`] (FIU's
//! blkparse-derived lines), [`arc`] (the ARC paper's `.lis`), [`blkparse`]
//! (blkparse's default text, D or Q events), [`fio`] (fio iolog v2, v3),
//! [`lcs_csv`] (libCacheSim csv with a header), [`tencent`] (Tencent CBS
//! csv), [`vscsi_csv`] (libCacheSim's csv of a vSCSI trace, header
//! `version,time,op,size,lbn`), and two binary ones of fixed-size
//! records (`binary`): [`vscsi`] (VMware vSCSI v1) and [`oracle`]
//! (libCacheSim's oracleGeneral). A
//! compressed file — gzip, zstd, xz or bzip2, told by its magic bytes
//! whatever its name — is read through a streaming decoder ([`lines`]).

pub mod arc;
pub(crate) mod binary;
pub mod blkparse;
pub mod convert;
pub mod disksim;
pub mod disksim_validate;
pub mod fio;
pub mod fiu;
pub mod lcs_csv;
pub mod lines;
pub mod mqsim;
pub mod msr;
pub mod oracle;
pub mod spc;
pub mod stats;
pub mod tencent;
pub mod vscsi;
pub mod vscsi_csv;

use crate::error::{Error, Result};
use lines::Lines;
use std::io::{BufRead, Read};
use std::ops::Deref;
use std::path::Path;

/// A request's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
}

/// One request of a trace, in the engine's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Arrival, ns from the trace's first record (0 for formats without a
    /// clock).
    pub time_ns: u64,
    /// ASU, device or volume: the stream the request belongs to.
    pub stream: u32,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub op: Op,
}

impl Record {
    /// Its last byte (its first, for a record of no bytes); a record that
    /// ends past 2^64 bytes is refused with this message by every format's
    /// reader (a text format's takes it for a bad record, skipped within
    /// `workload.skip_bad`), so a record read from a file has one; the
    /// users that need the value (cache-only mode, `trace convert`) keep the
    /// `Result` for records built in code.
    #[inline]
    pub fn last_byte(&self) -> std::result::Result<u64, String> {
        self.offset_bytes.checked_add(self.size_bytes.saturating_sub(1)).ok_or_else(|| {
            format!("offset {} + size {} bytes is beyond 2^64 bytes", self.offset_bytes, self.size_bytes)
        })
    }
}

/// The trace formats a reader exists for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Spc,
    Msr,
    Disksim,
    Mqsim,
    Fiu,
    Arc,
    Blkparse,
    Fio,
    Vscsi,
    DisksimValidate,
    LcsCsv,
    Oracle,
    Tencent,
    VscsiCsv,
}

impl Format {
    pub const ALL: [Format; 14] = [
        Format::Spc,
        Format::Msr,
        Format::Disksim,
        Format::Mqsim,
        Format::Fiu,
        Format::Arc,
        Format::Blkparse,
        Format::Fio,
        Format::Vscsi,
        Format::DisksimValidate,
        Format::LcsCsv,
        Format::Oracle,
        Format::Tencent,
        Format::VscsiCsv,
    ];

    /// The name a configuration or `--format` gives.
    pub fn name(self) -> &'static str {
        match self {
            Format::Spc => "spc",
            Format::Msr => "msr",
            Format::Disksim => "disksim",
            Format::Mqsim => "mqsim",
            Format::Fiu => "fiu",
            Format::Arc => "arc",
            Format::Blkparse => "blkparse",
            Format::Fio => "fio",
            Format::Vscsi => "vscsi",
            Format::DisksimValidate => "disksim-validate",
            Format::LcsCsv => "lcs-csv",
            Format::Oracle => "oracle",
            Format::Tencent => "tencent",
            Format::VscsiCsv => "vscsi-csv",
        }
    }

    /// The format called `name` (`auto` is not one: see [`open`]).
    pub fn from_name(name: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Error::config(
                "workload.format",
                format!("unknown trace format `{name}`: expected auto, {}", names.join(", ")),
            )
        })
    }
}

/// A source of records, read in batches.
pub trait RecordSource {
    /// Appends up to `max` records to `out`; returns how many (0 at the end
    /// of the trace).
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize>;
    fn format(&self) -> Format;
    /// Bad records skipped so far (see [`ReadOptions::skip_bad`]).
    fn skipped(&self) -> u64 {
        0
    }
    /// The file line of the first bad record skipped (0: none skipped).
    fn first_skipped_line(&self) -> usize {
        0
    }
    /// The file line of the last record handed out (1-based); 0 for a
    /// binary format, or before the first record.
    fn line(&self) -> usize {
        0
    }
}

/// The file line of record `n` (1-based, counting every record `source`
/// gives from its start), for an error about a record found after it was
/// read; 0 for a binary format or when the source ends or fails first.
pub fn line_of_record(source: &mut dyn RecordSource, n: u64) -> usize {
    let mut one = Vec::with_capacity(1);
    for _ in 0..n {
        one.clear();
        if !matches!(source.next_batch(&mut one, 1), Ok(1)) {
            return 0;
        }
    }
    source.line()
}

/// A source opened by [`open_with`], with how far into its file it has got.
pub struct TraceFile {
    source: Box<dyn RecordSource>,
    progress: lines::FileProgress,
    path: String,
    /// Records handed out so far.
    records: u64,
}

impl TraceFile {
    /// Bytes of the file read so far (compressed bytes for a compressed
    /// trace; read ahead of the records handed out by up to 64 KiB).
    pub fn bytes_read(&self) -> u64 {
        self.progress.bytes_read()
    }

    /// The count behind [`Self::bytes_read`], to read while the source is
    /// borrowed elsewhere.
    pub fn progress(&self) -> lines::FileProgress {
        self.progress.clone()
    }
}

impl RecordSource for TraceFile {
    /// The source's records; at its end, an error if it gave none: an empty
    /// file, or one of another format (whose lines a reader such as
    /// blkparse's passes over as not its requests).
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize> {
        let n = self.source.next_batch(out, max)?;
        self.records += n as u64;
        if n == 0 && self.records == 0 && max > 0 {
            let format = self.source.format().name();
            let skipped = self.source.skipped();
            let why = if skipped > 0 {
                format!("all {skipped} of its records were bad and skipped")
            } else {
                format!("an empty file, or not a {format} trace (format \"auto\" tells the format from the content)")
            };
            return Err(Error::input(self.path.clone(), 0, format!("no records read as {format}: {why}")));
        }
        Ok(n)
    }
    fn format(&self) -> Format {
        self.source.format()
    }
    fn skipped(&self) -> u64 {
        self.source.skipped()
    }
    fn first_skipped_line(&self) -> usize {
        self.source.first_skipped_line()
    }
    fn line(&self) -> usize {
        self.source.line()
    }
}

/// What a text format's reader does with one line: a record, nothing (a
/// comment, a header), or an error message naming the field.
pub(crate) trait LineFormat {
    fn parse(&mut self, line: &str) -> std::result::Result<Option<Record>, String>;
}

/// A binary format's reader: its records over the (decompressed) bytes of
/// a file and the file's name.
type OpenBinary = Box<dyn FnOnce(Box<dyn BufRead>, String) -> Box<dyn RecordSource>>;

/// A format's reader: a parser of lines, or a source of binary records.
enum Reader {
    Text(Box<dyn LineFormat>),
    Binary(OpenBinary),
}

fn text(parser: impl LineFormat + 'static) -> Reader {
    Reader::Text(Box::new(parser))
}

/// The reader of `format`: the one place a format is tied to its reader,
/// for reading and for detection.
fn reader(format: Format, opts: &ReadOptions) -> Reader {
    match format {
        Format::Spc => text(spc::Spc),
        Format::Msr => text(msr::Msr::default()),
        Format::Disksim => text(disksim::Disksim),
        Format::DisksimValidate => text(disksim_validate::DisksimValidate::default()),
        Format::Mqsim => text(mqsim::Mqsim::default()),
        Format::Fiu => text(fiu::Fiu::default()),
        Format::Arc => text(arc::Arc),
        Format::Blkparse => {
            let mut b = blkparse::Blkparse::with_event(opts.blk_event);
            b.stream_by_process = opts.stream_by_process;
            text(b)
        }
        Format::Fio => text(fio::Fio::default()),
        Format::LcsCsv => text(lcs_csv::LcsCsv::new(opts.block_bytes)),
        Format::Tencent => text(tencent::Tencent::default()),
        Format::VscsiCsv => text(vscsi_csv::VscsiCsv::default()),
        Format::Vscsi => Reader::Binary(Box::new(|bytes, path| Box::new(vscsi::Vscsi::new(bytes, path)))),
        Format::Oracle => {
            let block_bytes = opts.block_bytes;
            Reader::Binary(Box::new(move |bytes, path| {
                Box::new(oracle::Oracle::new(bytes, path, block_bytes))
            }))
        }
    }
}

/// A text format over a file.
struct LineSource {
    lines: Lines,
    parser: Box<dyn LineFormat>,
    format: Format,
    /// Bad records that may still be skipped (`ReadOptions::skip_bad`).
    skip_left: u64,
    skipped: u64,
    /// The line of the first one skipped (0: none yet).
    first_skipped_line: usize,
}

impl RecordSource for LineSource {
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize> {
        let mut n = 0;
        while n < max {
            let Some(line) = self.lines.next_line()? else { break };
            if line.trim_ascii().is_empty() {
                continue;
            }
            // a record ending past 2^64 bytes is a bad record here, where
            // `workload.skip_bad` may pass over it, not only where it is used
            let parsed = self.parser.parse(line).and_then(|r| match r {
                Some(r) => r.last_byte().map(|_| Some(r)),
                None => Ok(None),
            });
            match parsed {
                Ok(Some(r)) => {
                    out.push(r);
                    n += 1;
                }
                Ok(None) => {}
                Err(_) if self.skip_left > 0 => {
                    self.skip_left -= 1;
                    self.skipped += 1;
                    if self.first_skipped_line == 0 {
                        self.first_skipped_line = self.lines.line_no();
                    }
                }
                Err(msg) if self.skipped > 0 => {
                    return Err(self.lines.error(format!(
                        "{msg} (after {} bad records skipped, as many as allowed)",
                        self.skipped
                    )))
                }
                Err(msg) => return Err(self.lines.error(msg)),
            }
        }
        Ok(n)
    }
    fn format(&self) -> Format {
        self.format
    }
    fn skipped(&self) -> u64 {
        self.skipped
    }
    fn first_skipped_line(&self) -> usize {
        self.first_skipped_line
    }
    fn line(&self) -> usize {
        self.lines.line_no()
    }
}

/// How a reader takes what its format leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// blkparse: the event taken as the requests, `"D"` (issued to the
    /// device, the default) or `"Q"` (queued by the application).
    pub blk_event: &'static str,
    /// Malformed records of a text format skipped (and counted) rather
    /// than stopping the read, at most this many (0: none). Binary records
    /// are never skipped: one bad record there means the stream is
    /// misaligned or corrupt.
    pub skip_bad: u64,
    /// lcs-csv and oracle: the bytes of the block an `obj_id` counts (the
    /// formats come from object caches and name no unit; 4096, a page, by
    /// default; 512 for libCacheSim's sector-numbered block traces). Whole
    /// sectors, 512 B to 1 GiB, as a cache block ([`crate::units::check_block`]).
    pub block_bytes: u64,
    /// blkparse: a stream per process (its pid) rather than per device.
    pub stream_by_process: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { blk_event: "D", skip_bad: 0, block_bytes: 4096, stream_by_process: false }
    }
}

impl ReadOptions {
    /// The options with blkparse's event named `event` (`D` or `Q`).
    pub fn with_blk_event(event: &str) -> Result<ReadOptions> {
        match event {
            "D" | "d" => Ok(ReadOptions { blk_event: "D", ..ReadOptions::default() }),
            "Q" | "q" => Ok(ReadOptions { blk_event: "Q", ..ReadOptions::default() }),
            other => Err(Error::config("workload.blk_event", format!("expected D or Q, found `{other}`"))),
        }
    }
}

/// Opens `path` as a trace of `format`, or of the format its first lines
/// show when `format` is `None` (an error when they could be two formats).
pub fn open(path: &Path, format: Option<Format>) -> Result<Box<dyn RecordSource>> {
    open_with(path, format, &ReadOptions::default())
}

/// [`open`] with `opts`.
pub fn open_with(path: &Path, format: Option<Format>, opts: &ReadOptions) -> Result<Box<dyn RecordSource>> {
    Ok(Box::new(open_file(path, format, opts)?))
}

/// [`open_with`], keeping the count of the file's bytes read ([`TraceFile::bytes_read`]).
pub fn open_file(path: &Path, format: Option<Format>, opts: &ReadOptions) -> Result<TraceFile> {
    crate::units::check_block(opts.block_bytes).map_err(|m| Error::config("array_cache.block", m))?;
    let format = match format {
        Some(f) => f,
        // the bad lines detection passed over are the reader's first ones to skip
        None => detect_with(path, opts.skip_bad)?,
    };
    if opts.stream_by_process && format != Format::Blkparse {
        return Err(Error::config(
            "workload.stream_by",
            format!(
                "\"process\": only blkparse records the process of a request; {} is {}, whose streams are \
                 its own (stream_by = \"unit\")",
                path.display(),
                format.name()
            ),
        ));
    }
    let (bytes, progress) = lines::open_bytes_counted(path)?;
    let source: Box<dyn RecordSource> = match reader(format, opts) {
        Reader::Text(parser) => Box::new(LineSource {
            lines: Lines::new(bytes, path),
            parser,
            format,
            skip_left: opts.skip_bad,
            skipped: 0,
            first_skipped_line: 0,
        }),
        Reader::Binary(source) => source(bytes, path.display().to_string()),
    };
    Ok(TraceFile { source, progress, path: path.display().to_string(), records: 0 })
}

/// The lines detection samples: the first non-empty ones, this many, and
/// one more for each bad line it may pass over (at most as many again).
const DETECT_LINES: usize = 16;

/// The format of `path`. A binary one first: oracle when the file's name
/// contains `oracleGeneral` (the format has no magic bytes), vscsi by its
/// first record. Else from its first non-empty lines (up to 16): the
/// formats whose reader takes them all and finds a record among them (a
/// header, or blkparse's events other than the requests, are not records).
/// One must, and only one.
pub fn detect(path: &Path) -> Result<Format> {
    detect_with(path, 0)
}

/// [`detect`] for a read that may skip `skip_bad` malformed records
/// ([`ReadOptions::skip_bad`]): a format's reader may refuse up to that
/// many of the sampled lines (the sample grows by as many lines, up to 16
/// more, so that a bad line does not push a good one out), and the format
/// that refuses the fewest is taken — a clean file is told as with none
/// skipped, and still only one may fit. The lines passed over are the
/// first the read then skips, counted with the others
/// ([`RecordSource::skipped`], [`RecordSource::first_skipped_line`]). With
/// `skip_bad = 0`, [`detect`]: the first bad line stops a format.
pub fn detect_with(path: &Path, skip_bad: u64) -> Result<Format> {
    if path.file_name().is_some_and(|n| n.to_string_lossy().contains(oracle::NAME_MARK)) {
        return Ok(Format::Oracle);
    }
    let mut head = Vec::with_capacity(vscsi::RECORD_BYTES);
    std::io::Read::take(lines::open_bytes(path)?, vscsi::RECORD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path.display().to_string(), 0, "cannot read the trace", &e))?;
    if vscsi::looks_like(&head) {
        return Ok(Format::Vscsi);
    }
    let mut lines = Lines::open(path)?;
    // the first non-empty lines, with their line numbers
    let sample = DETECT_LINES + skip_bad.min(DETECT_LINES as u64) as usize;
    let mut first: Vec<(usize, String)> = Vec::new();
    let mut line_no = 0;
    while first.len() < sample {
        line_no += 1;
        match lines.next_line()? {
            Some(l) if l.trim().is_empty() => continue,
            Some(l) => first.push((line_no, l.to_string())),
            None => break,
        }
    }
    let file = path.display().to_string();
    if first.is_empty() {
        return Err(Error::input(file, 0, "empty trace: no record to tell its format by"));
    }
    // a format fits when its reader takes every line but at most `skip_bad` and finds a
    // record (it gives the count of lines it refused); one that does not stops at a line,
    // with what it expected there
    let reads = |mut f: Box<dyn LineFormat>| -> std::result::Result<u64, (usize, usize, String)> {
        let (mut records, mut bad) = (0, 0u64);
        for (i, (n, l)) in first.iter().enumerate() {
            match f.parse(l) {
                Ok(Some(_)) => records += 1,
                Ok(None) => {}
                Err(_) if bad < skip_bad => bad += 1,
                Err(msg) if bad > 0 => {
                    return Err((
                        i,
                        *n,
                        format!("{msg} (after {bad} bad lines passed over, as many as allowed)"),
                    ))
                }
                Err(msg) => return Err((i, *n, msg)),
            }
        }
        if records > 0 {
            Ok(bad)
        } else {
            Err((0, first[0].0, "no record among the first lines".into()))
        }
    };
    let opts = ReadOptions::default();
    // the formats that fit, with the lines each refused
    let mut fits: Vec<(Format, u64)> = Vec::new();
    // the format whose reader got furthest before it stopped
    let mut nearest: Option<(usize, Format, usize, String)> = None;
    for f in Format::ALL {
        if let Reader::Text(parser) = reader(f, &opts) {
            match reads(parser) {
                Ok(bad) => fits.push((f, bad)),
                Err((i, n, msg)) if nearest.as_ref().is_none_or(|b| i > b.0) => {
                    nearest = Some((i, f, n, msg))
                }
                Err(_) => {}
            }
        }
    }
    // those that refuse the fewest lines: every fit when none may be refused
    let fewest = fits.iter().map(|&(_, bad)| bad).min();
    fits.retain(|&(_, bad)| Some(bad) == fewest);
    let names = Format::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
    match fits.as_slice() {
        [(one, _)] => Ok(*one),
        [] => Err(match nearest {
            Some((i, f, n, msg)) if i > 0 => Error::input(
                file,
                n,
                format!(
                    "no trace format reads the first lines; the nearest, {}, reads {i} and stops here: {msg} \
                     (give the format: one of {names})",
                    f.name()
                ),
            ),
            _ => Error::input(
                file,
                1,
                format!("no trace format reads the first lines: give the format, one of {names}"),
            ),
        }),
        many => {
            let names: Vec<&str> = many.iter().map(|(f, _)| f.name()).collect();
            Err(Error::input(
                file,
                1,
                format!("the first lines could be any of {}: give the format", names.join(", ")),
            ))
        }
    }
}

/// The most fields of a line [`Fields`] keeps.
pub(crate) const MAX_FIELDS: usize = 16;

/// The fields of one line, borrowed from it — no allocation per line: the
/// first [`MAX_FIELDS`] are kept (what the readers index), all are
/// counted. Derefs to the kept ones.
pub(crate) struct Fields<'l> {
    kept: [&'l str; MAX_FIELDS],
    /// How many fields the line has, kept or not.
    pub(crate) total: usize,
}

impl<'l> Fields<'l> {
    /// `line` split by `sep` (each field trimmed of ASCII blanks), or at
    /// runs of ASCII whitespace when `sep` is `None`. Traces are ASCII:
    /// std's Unicode-aware `split_whitespace` and `trim` took a third of a
    /// line's parsing.
    pub(crate) fn split(line: &'l str, sep: Option<char>) -> Fields<'l> {
        let mut f = Fields { kept: [""; MAX_FIELDS], total: 0 };
        let mut keep = |field: &'l str| {
            if let Some(slot) = f.kept.get_mut(f.total) {
                *slot = field;
            }
            f.total += 1;
        };
        match sep {
            Some(c) => line.split(c).for_each(|s| keep(s.trim_ascii())),
            None => line.split_ascii_whitespace().for_each(keep),
        }
        f
    }
}

impl<'l> Deref for Fields<'l> {
    type Target = [&'l str];
    fn deref(&self) -> &[&'l str] {
        &self.kept[..self.total.min(MAX_FIELDS)]
    }
}

/// The fields of `line` split by `sep` (a comma, or any whitespace when
/// `None`), exactly `n` of them at least.
pub(crate) fn fields<'l>(
    line: &'l str,
    sep: Option<char>,
    n: usize,
    what: &str,
) -> std::result::Result<Fields<'l>, String> {
    let f = Fields::split(line, sep);
    if f.total < n {
        return Err(format!("expected {n} fields ({what}), found {}", f.total));
    }
    Ok(f)
}

/// Field `i` (named `name`) as an unsigned integer.
pub(crate) fn uint(f: &[&str], i: usize, name: &str) -> std::result::Result<u64, String> {
    parse_u64(f[i])
        .ok_or_else(|| format!("field {} ({name}): expected a non-negative integer, found `{}`", i + 1, f[i]))
}

/// `s` as a `u64`, exactly as `str::parse` takes it, with a fast path for
/// what traces hold — up to 19 decimal digits, which cannot overflow (std's
/// parse took a quarter of a line's parsing).
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    let digits = s.as_bytes();
    if digits.is_empty() || digits.len() > 19 {
        return s.parse().ok();
    }
    let mut v = 0u64;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return s.parse().ok(); // a sign, or not a number
        }
        v = v * 10 + d as u64;
    }
    Some(v)
}

/// Field `i` (named `name`) as a finite non-negative number.
pub(crate) fn real(f: &[&str], i: usize, name: &str) -> std::result::Result<f64, String> {
    match f[i].parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("field {} ({name}): expected a non-negative number, found `{}`", i + 1, f[i])),
    }
}

/// Seconds (or any unit, `per_ns` ns each) as ns, refusing what the clock
/// cannot hold.
pub(crate) fn to_ns(x: f64, per_ns: f64, name: &str) -> std::result::Result<u64, String> {
    let ns = (x * per_ns).round();
    if ns >= u64::MAX as f64 {
        return Err(format!("{name} {x} is beyond the simulated clock (at most 2^64 ns)"));
    }
    Ok(ns as u64)
}

/// A stream number that fits the engine's.
pub(crate) fn stream(f: &[&str], i: usize, name: &str) -> std::result::Result<u32, String> {
    let v = uint(f, i, name)?;
    u32::try_from(v).map_err(|_| format!("field {} ({name}): {v} is too large (at most {})", i + 1, u32::MAX))
}

/// Times rebased on a trace's first record (formats whose clock starts
/// elsewhere): a record before the first is out of order, an error.
#[derive(Default)]
pub(crate) struct Rebase {
    t0: Option<u64>,
}

impl Rebase {
    /// `t`, in ticks of `tick_ns` ns, as ns from the first record; `field`
    /// names the field in errors.
    pub(crate) fn ns(&mut self, t: u64, tick_ns: u64, field: &str) -> std::result::Result<u64, String> {
        let t0 = *self.t0.get_or_insert(t);
        let ticks = t
            .checked_sub(t0)
            .ok_or_else(|| format!("{field}: {t} is before the first record's {t0} (expected time order)"))?;
        ticks.checked_mul(tick_ns).ok_or_else(|| format!("{field}: {t} overflows the clock"))
    }
}

/// A Linux device number (major, minor) as a stream, `major << 16 | minor`.
pub(crate) fn device_stream(major: u64, minor: u64, field: &str) -> std::result::Result<u32, String> {
    if major > 0xffff || minor > 0xffff {
        return Err(format!("{field}: ({major}, {minor}) is not a device number (each at most 65535)"));
    }
    Ok((major << 16 | minor) as u32)
}

/// Bytes from a count of `unit`-byte blocks, refusing an overflow.
pub(crate) fn bytes(count: u64, unit: u64, name: &str) -> std::result::Result<u64, String> {
    count.checked_mul(unit).ok_or_else(|| format!("{name} {count} × {unit} bytes overflows"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    pub(crate) fn write_tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("prefetchlab-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
        p
    }

    /// The records `p` reads from `text`, line by line; the first error stops it.
    pub(crate) fn parse_lines(
        mut p: impl LineFormat,
        text: &str,
    ) -> std::result::Result<Vec<Record>, String> {
        let mut out = Vec::new();
        for l in text.lines() {
            out.extend(p.parse(l)?);
        }
        Ok(out)
    }

    fn all(path: &Path, f: Option<Format>) -> Result<Vec<Record>> {
        let mut src = open(path, f)?;
        let mut out = Vec::new();
        while src.next_batch(&mut out, 3)? > 0 {}
        Ok(out)
    }

    #[test]
    fn formats_are_told_apart_by_their_first_line() {
        let spc = write_tmp("a.spc", b"0,303567,3584,w,0.000000\n1,5,512,R,0.5\n");
        assert_eq!(detect(&spc).unwrap(), Format::Spc);
        let msr = write_tmp("a.csv", b"128166385295514663,hm,0,Write,9056014336,2048,2833\n");
        assert_eq!(detect(&msr).unwrap(), Format::Msr);
        let ds = write_tmp("a.trace", b"7961.833 0 20228336 8 0\n");
        assert_eq!(detect(&ds).unwrap(), Format::Disksim);
        let blk = write_tmp("a.blk", b"  8,0 1 1 0.000000001 7 Q R 8 + 8 [dd]\n  8,0 1 2 0.000000002 7 G R 8 + 8 [dd]\n  8,0 1 3 0.000001 7 D R 8 + 8 [dd]\n");
        assert_eq!(detect(&blk).unwrap(), Format::Blkparse);
        let fio = write_tmp("a.log", b"fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n");
        assert_eq!(detect(&fio).unwrap(), Format::Fio);
        let valid = write_tmp("a.valid", b"W Hit    4583176   4    663.00000  45422.00000\n");
        assert_eq!(detect(&valid).unwrap(), Format::DisksimValidate);
        let lcs = write_tmp("a.lcs", b"time,obj_id,obj_size,op\n0,1,4096,read\n");
        assert_eq!(detect(&lcs).unwrap(), Format::LcsCsv);
        let tencent = write_tmp("a.tencent", b"1538323199,105352008,584,1,1576\n");
        assert_eq!(detect(&tencent).unwrap(), Format::Tencent);
        let vscsi_csv = write_tmp("a.csv", b"version,time,op,size,lbn\n1,5633898,2a,512,42932745\n");
        assert_eq!(detect(&vscsi_csv).unwrap(), Format::VscsiCsv);
        // oracleGeneral has no magic: its name tells, whatever the content
        let oracle = write_tmp("w.oracleGeneral.bin", &[0u8; 24]);
        assert_eq!(detect(&oracle).unwrap(), Format::Oracle);
        let nameless = write_tmp("w.bin", &[0u8; 24]);
        assert!(detect(&nameless).unwrap_err().to_string().contains("give the format"));
        // integer times: DiskSim (ms) or MQSim (ns) — the user must say
        let both = write_tmp("b.trace", b"11413000 0 657728 16 1\n");
        let e = detect(&both).unwrap_err().to_string();
        assert!(e.contains("disksim, mqsim") && e.contains("give the format"), "{e}");
        assert_eq!(all(&both, Some(Format::Mqsim)).unwrap()[0].time_ns, 0);
    }

    #[test]
    fn detection_passes_over_as_many_bad_lines_as_the_read_may_skip() {
        let spc = b"0,0,4096,r,0\n0,8,4096,w,1\n0,16,512,r,2\n";
        let garbage_first = write_tmp("g1.spc", &[b"%%% not a record %%%\n" as &[u8], spc].concat());
        // none may be skipped: the error of before, naming the file and the first line
        let e = detect(&garbage_first).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:1: no trace format reads", garbage_first.display())), "{e}");
        assert_eq!(detect_with(&garbage_first, 1).unwrap(), Format::Spc);
        assert_eq!(detect_with(&garbage_first, 5).unwrap(), Format::Spc);
        // and the read skips it, counted with its line, within the same allowance
        let opts = ReadOptions { skip_bad: 1, ..ReadOptions::default() };
        let mut src = open_with(&garbage_first, None, &opts).unwrap();
        let mut recs = Vec::new();
        while src.next_batch(&mut recs, 2).unwrap() > 0 {}
        assert_eq!((recs.len(), src.skipped(), src.first_skipped_line()), (3, 1, 1));
        // two bad lines and one allowed: the error says the allowance is used up
        let two = write_tmp("g2.spc", &[b"%%%\n%%%\n" as &[u8], spc].concat());
        let e = detect_with(&two, 1).unwrap_err().to_string();
        assert!(
            e.contains("g2.spc:2:") && e.contains("after 1 bad lines passed over, as many as allowed"),
            "{e}"
        );
        // a bad line among the sampled ones, not only the first
        let middle = write_tmp("g3.spc", b"0,0,4096,r,0\n0,8,4096,w,1\n0,x,512,r,2\n0,24,512,r,3\n");
        assert!(detect(&middle).is_err());
        assert_eq!(detect_with(&middle, 1).unwrap(), Format::Spc);
        // the sample grows past the bad lines: 16 of them before a record still leave records
        let many = write_tmp("g16.spc", &[b"%%%\n".repeat(16).as_slice(), spc].concat());
        assert_eq!(detect_with(&many, 16).unwrap(), Format::Spc);
        // a clean file is told as with no skipping: the format refusing no line wins, and
        // two that refuse none are still a question for the user
        assert_eq!(detect_with(&write_tmp("clean.spc", spc), 3).unwrap(), Format::Spc);
        let both = write_tmp("b2.trace", b"11413000 0 657728 16 1\n11414000 0 657744 16 1\n");
        let e = detect_with(&both, 3).unwrap_err().to_string();
        assert!(e.contains("disksim, mqsim") && e.contains("give the format"), "{e}");
    }

    #[test]
    fn parse_u64_is_strs_parse() {
        for s in [
            "0",
            "7",
            "+7",
            "-7",
            "",
            " 1",
            "1 ",
            "x",
            "0x10",
            "1e3",
            "007",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "+18446744073709551615",
        ] {
            assert_eq!(parse_u64(s), s.parse::<u64>().ok(), "{s:?}");
        }
    }

    #[test]
    fn records_come_in_batches_and_in_order() {
        let p = write_tmp("c.spc", b"0,1,512,r,0\n\n0,2,512,r,1\n1,3,1024,W,2.5\n0,4,512,r,3\n");
        let recs = all(&p, None).unwrap();
        assert_eq!(recs.len(), 4);
        assert_eq!(
            recs[2],
            Record {
                time_ns: 2_500_000_000,
                stream: 1,
                offset_bytes: 3 * 512,
                size_bytes: 1024,
                op: Op::Write
            }
        );
    }

    #[test]
    fn a_bad_line_names_file_line_and_field() {
        let p = write_tmp("d.spc", b"0,1,512,r,0\n0,x,512,r,1\n");
        let e = all(&p, Some(Format::Spc)).unwrap_err().to_string();
        assert!(e.contains("d.spc:2:") && e.contains("field 2 (LBA)") && e.contains("`x`"), "{e}");
        let empty = write_tmp("e.spc", b"");
        assert!(detect(&empty).unwrap_err().to_string().contains("empty trace"));
        assert!(Format::from_name("blk").unwrap_err().to_string().contains("expected auto, spc"));
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()).unwrap(), f);
        }
        let zero = ReadOptions { block_bytes: 0, ..ReadOptions::default() };
        let e = open_with(&p, Some(Format::LcsCsv), &zero).err().unwrap().to_string();
        assert!(e.contains("array_cache.block") && e.contains("multiple of 512"), "{e}");
    }
}
