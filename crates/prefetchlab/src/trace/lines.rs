//! A trace file read line by line, in constant memory, with the file name
//! and line number every error needs — through a streaming decoder when the
//! file is compressed.
//!
//! A compressed trace is told by its magic bytes, whatever its name
//! ([`Compression::of`]): gzip (`1f 8b`), zstd (`28 b5 2f fd`, or a
//! skippable frame first, as pzstd writes), xz (`fd 37 7a 58 5a 00`) and
//! bzip2 (`BZh` and the block-size digit). All four decoders are pure Rust
//! (flate2's miniz_oxide backend, ruzstd, lzma-rust2, bzip2's libbz2-rs-sys)
//! and stream: memory is the format's window (at most 100 MiB for zstd,
//! [`XZ_MEMORY_LIMIT_KIB`] for xz, 900 kB blocks for bzip2), never the
//! file. Concatenated members, frames or streams (`cat a.gz b.gz`, pzstd,
//! pbzip2, `xz -T`) are read one after the other. A stream cut short or
//! corrupt is an error saying so (never a silent early end): its checksum is
//! checked where the format has one.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct Lines {
    reader: Box<dyn BufRead>,
    path: String,
    line_no: usize,
    buf: Vec<u8>,
}

/// Bytes read from the file, and handed out decoded, at a time.
const BUF_BYTES: usize = 1 << 16;

/// The largest dictionary an xz block may ask for (KiB): `xz -9` needs 64
/// MiB; a header asking more is refused rather than allocated.
pub const XZ_MEMORY_LIMIT_KIB: u32 = 1 << 20;

/// How a trace file is compressed, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Compression {
    /// The compression whose magic bytes `head` (the file's first bytes,
    /// at least 6 when the file has them) starts with.
    pub fn of(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            // a skippable frame (0x184D2A50–5F, little-endian) before the first
            [x, 0x2a, 0x4d, 0x18, ..] if x & 0xf0 == 0x50 => Compression::Zstd,
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// The bytes of `path`, through a streaming decoder when they start with
/// the magic bytes of a [`Compression`]. A read error of a decoder says
/// "truncated or corrupt" and which compression.
pub fn open_bytes(path: &Path) -> Result<Box<dyn BufRead>> {
    open_bytes_counted(path).map(|(r, _)| r)
}

/// How far into its file a reader has got: bytes of the file (compressed
/// bytes for a compressed trace) read so far, for progress bars.
#[derive(Debug, Clone, Default)]
pub struct FileProgress(Arc<AtomicU64>);

impl FileProgress {
    pub fn bytes_read(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A file that counts the bytes read from it.
struct Counted {
    file: File,
    read: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// [`open_bytes`], with the count of the file's bytes read so far.
pub fn open_bytes_counted(path: &Path) -> Result<(Box<dyn BufRead>, FileProgress)> {
    let name = path.display().to_string();
    let io = |e: io::Error| Error::io(name.clone(), 0, "cannot read the trace", &e);
    let progress = FileProgress::default();
    let counted = Counted { file: File::open(path).map_err(io)?, read: progress.0.clone() };
    let mut file = BufReader::with_capacity(BUF_BYTES, counted);
    let compression = Compression::of(file.fill_buf().map_err(io)?);
    let decoded: Box<dyn Read> = match compression {
        Compression::None => return Ok((Box::new(file), progress)),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(file)),
        Compression::Zstd => Box::new(ZstdFrames::new(file)),
        Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(file, true, XZ_MEMORY_LIMIT_KIB)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(file)),
    };
    Ok((Box::new(BufReader::with_capacity(BUF_BYTES, Decoded { inner: decoded, compression })), progress))
}

/// A decoder whose errors say that the stream is truncated or corrupt, and
/// which compression it is, on one line.
struct Decoded {
    inner: Box<dyn Read>,
    compression: Compression,
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let what = e.to_string().replace(['\n', '\r'], " ");
            io::Error::new(
                e.kind(),
                format!("a truncated or corrupt {} stream ({what})", self.compression.name()),
            )
        })
    }
}

/// The zstd frames of a file, one after the other (ruzstd's
/// `StreamingDecoder` reads one frame): skippable frames are passed over,
/// and each frame's checksum, when it has one, is checked.
struct ZstdFrames<R: BufRead> {
    source: R,
    frame: ruzstd::decoding::FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames { source, frame: ruzstd::decoding::FrameDecoder::new(), in_frame: false }
    }

    /// Starts the next frame; `false` at the end of the file.
    fn next_frame(&mut self) -> io::Result<bool> {
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.frame.reset(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = io::copy(&mut (&mut self.source).take(length as u64), &mut io::sink())?;
                    if skipped < length as u64 {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            format!("a skippable frame of {length} bytes ends after {skipped}"),
                        ));
                    }
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
            }
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                self.in_frame = true;
            }
            while self.frame.can_collect() == 0 && !self.frame.is_finished() {
                self.frame
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            }
            let n = self.frame.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            // the frame is finished and drained: its checksum, then the next
            if let (Some(stored), Some(computed)) =
                (self.frame.get_checksum_from_data(), self.frame.get_calculated_checksum())
            {
                if stored != computed {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("frame checksum {stored:#010x}, content's {computed:#010x}"),
                    ));
                }
            }
            self.in_frame = false;
        }
    }
}

impl Lines {
    pub fn open(path: &Path) -> Result<Lines> {
        Ok(Lines::new(open_bytes(path)?, path))
    }

    /// The lines of `reader`, the bytes of `path`.
    pub fn new(reader: Box<dyn BufRead>, path: &Path) -> Lines {
        Lines { reader, path: path.display().to_string(), line_no: 0, buf: Vec::with_capacity(256) }
    }

    /// The next line without its end (`None` at the end of the file).
    pub fn next_line(&mut self) -> Result<Option<&str>> {
        self.buf.clear();
        let n = (&mut self.reader)
            .take(1 << 20)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Error::io(self.path.clone(), self.line_no + 1, "cannot read the trace", &e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        if self.buf.len() >= 1 << 20 && self.buf.last() != Some(&b'\n') {
            return Err(self.error("a line longer than 1 MiB: not a text trace"));
        }
        let mut end = self.buf.len();
        while end > 0 && matches!(self.buf[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        std::str::from_utf8(&self.buf[..end]).map(Some).map_err(|_| {
            Error::input(
                self.path.clone(),
                self.line_no,
                "not text (binary data where a trace line was expected)",
            )
        })
    }

    /// The number of the line last read.
    pub fn line_no(&self) -> usize {
        self.line_no
    }

    /// An error at the line last read.
    pub fn error(&self, msg: impl Into<String>) -> Error {
        Error::input(self.path.clone(), self.line_no, msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::tests::write_tmp;
    use std::io::Write;

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    /// `printf 'a\nb\r\nc' | zstd -19` (zstd 1.5: with a content checksum).
    const ZSTD_ABC: [u8; 19] = [
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0x31, 0x00, 0x00, 0x61, 0x0a, 0x62, 0x0d, 0x0a, 0x63, 0xed, 0x76,
        0xb4, 0xd6,
    ];

    fn lines_of(bytes: &[u8], name: &str) -> Result<Vec<String>> {
        let p = write_tmp(name, bytes);
        let mut l = Lines::open(&p)?;
        let mut got = Vec::new();
        while let Some(s) = l.next_line()? {
            got.push(s.to_string());
        }
        Ok(got)
    }

    /// Every cut of `whole` past its magic bytes is an error naming the
    /// file and saying "truncated or corrupt" (cuts of the last few bytes
    /// of a stream with a checksum, too).
    fn every_cut_is_an_error(whole: &[u8], kind: &str) {
        let magic = 6.min(whole.len() - 1);
        for cut in magic..whole.len() {
            let name = format!("cut-{kind}-{cut}");
            match lines_of(&whole[..cut], &name) {
                Ok(l) => panic!("{kind} cut at byte {cut} of {} read as {} lines", whole.len(), l.len()),
                Err(e) => {
                    let e = e.to_string();
                    assert!(
                        e.contains(&name) && e.contains("truncated or corrupt") && e.contains(kind),
                        "{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn gzip_is_read_by_its_magic_and_a_truncated_stream_is_an_error() {
        assert_eq!(lines_of(&gz(b"a\nb\r\nc"), "g.anything").unwrap(), ["a", "b", "c"]);
        let whole = gz(&b"0,1,512,r,0\n".repeat(2000));
        let cut = write_tmp("cut.gz", &whole[..whole.len() / 2]);
        let mut l = Lines::open(&cut).unwrap();
        let e = loop {
            match l.next_line() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("a truncated stream read to its end"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(e.contains("cut.gz:") && e.contains("truncated or corrupt gzip"), "{e}");
        every_cut_is_an_error(&gz(b"0,1,512,r,0\n0,2,512,r,1\n"), "gzip");
    }

    #[test]
    fn zstd_frames_are_read_one_after_the_other() {
        assert_eq!(Compression::of(&ZSTD_ABC), Compression::Zstd);
        assert_eq!(lines_of(&ZSTD_ABC, "z.trace").unwrap(), ["a", "b", "c"]);
        // two frames (`cat`), a skippable frame of 3 bytes between them
        let mut two = ZSTD_ABC.to_vec();
        two.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        two.extend_from_slice(&ZSTD_ABC);
        assert_eq!(lines_of(&two, "z2.trace").unwrap(), ["a", "b", "ca", "b", "c"]);
        // made by ruzstd's own encoder, 2000 lines over several blocks
        let text = b"0,1,512,r,0\n".repeat(2000);
        let z = ruzstd::encoding::compress_to_vec(&text[..], ruzstd::encoding::CompressionLevel::Fastest);
        assert_eq!(lines_of(&z, "big.zst").unwrap().len(), 2000);
        every_cut_is_an_error(&ZSTD_ABC, "zstd");
        // a flipped content byte: the checksum tells
        let mut bad = ZSTD_ABC;
        bad[11] ^= 0x01;
        let e = lines_of(&bad, "flip.zst").unwrap_err().to_string();
        assert!(e.contains("truncated or corrupt zstd") && e.contains("checksum"), "{e}");
    }

    /// `printf 'a\nb\r\nc' | xz` (CRC64 check).
    const XZ_ABC: [u8; 64] = [
        0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21, 0x01, 0x16,
        0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3, 0x01, 0x00, 0x05, 0x61, 0x0a, 0x62, 0x0d, 0x0a, 0x63, 0x00,
        0x00, 0x00, 0xe5, 0xdb, 0x30, 0x54, 0x6b, 0x19, 0x0d, 0x6f, 0x00, 0x01, 0x1e, 0x06, 0xc1, 0x2f, 0xa4,
        0x1d, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a,
    ];

    #[test]
    fn xz_streams_are_read_one_after_the_other() {
        assert_eq!(Compression::of(&XZ_ABC), Compression::Xz);
        assert_eq!(lines_of(&XZ_ABC, "x.trace").unwrap(), ["a", "b", "c"]);
        let two = [XZ_ABC, XZ_ABC].concat();
        assert_eq!(lines_of(&two, "x2.trace").unwrap(), ["a", "b", "ca", "b", "c"]);
        every_cut_is_an_error(&XZ_ABC, "xz");
    }

    /// `printf 'a\nb\r\nc' | bzip2 -9`.
    const BZIP2_ABC: [u8; 42] = [
        0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0xb1, 0x5a, 0xa5, 0x4f, 0x00, 0x00, 0x01,
        0xc1, 0x00, 0x00, 0x12, 0x38, 0x00, 0x20, 0x00, 0x21, 0x83, 0x41, 0x9a, 0x0b, 0x70, 0x2e, 0x2e, 0xe4,
        0x8a, 0x70, 0xa1, 0x21, 0x62, 0xb5, 0x4a, 0x9e,
    ];

    #[test]
    fn bzip2_streams_are_read_one_after_the_other() {
        assert_eq!(Compression::of(&BZIP2_ABC), Compression::Bzip2);
        assert_eq!(lines_of(&BZIP2_ABC, "b.trace").unwrap(), ["a", "b", "c"]);
        let two = [BZIP2_ABC, BZIP2_ABC].concat();
        assert_eq!(lines_of(&two, "b2.trace").unwrap(), ["a", "b", "ca", "b", "c"]);
        every_cut_is_an_error(&BZIP2_ABC, "bzip2");
        // "BZh" alone, or before no block-size digit, is text
        assert_eq!(Compression::of(b"BZh,1,2"), Compression::None);
    }

    #[test]
    fn binary_data_is_not_a_line() {
        let p = write_tmp("bin.trace", &[0xff, 0xfe, 0x00, 0x80, b'\n']);
        let e = Lines::open(&p).unwrap().next_line().unwrap_err().to_string();
        assert!(e.contains("bin.trace:1:") && e.contains("not text"), "{e}");
    }
}
