//! Binary traces of fixed-size little-endian records ([`vscsi`],
//! [`oracle`]): the records read one at a time from a (possibly
//! decompressed) byte stream, errors naming the record's byte offset. A
//! record cut short at the end of the file is an error, not the end.
//!
//! [`vscsi`]: super::vscsi
//! [`oracle`]: super::oracle

use crate::error::{Error, Result};
use std::io::{BufRead, ErrorKind};

pub(crate) struct Records<const N: usize> {
    reader: Box<dyn BufRead>,
    path: String,
    /// Byte offset of the record last handed out (or being read).
    record_at: u64,
    /// Byte offset of the next record.
    next_at: u64,
}

impl<const N: usize> Records<N> {
    pub(crate) fn new(reader: Box<dyn BufRead>, path: String) -> Self {
        Records { reader, path, record_at: 0, next_at: 0 }
    }

    /// An error at the record last read: `file: byte N: msg`.
    pub(crate) fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::input(self.path.clone(), 0, format!("byte {}: {msg}", self.record_at))
    }

    /// The next whole record, `None` at the end.
    pub(crate) fn next(&mut self) -> Result<Option<[u8; N]>> {
        self.record_at = self.next_at;
        let mut rec = [0u8; N];
        let mut got = 0;
        while got < N {
            match self.reader.read(&mut rec[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(self.err(format!("cannot read the trace: {}", crate::error::io_words(&e))))
                }
            }
        }
        match got {
            0 => Ok(None),
            _ if got == N => {
                self.next_at += N as u64;
                Ok(Some(rec))
            }
            n => Err(self.err(format!("a truncated record: {n} of its {N} bytes"))),
        }
    }
}

/// The little-endian `u16` at byte `i` of `rec`.
pub(crate) fn u16_at(rec: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([rec[i], rec[i + 1]])
}

/// The little-endian `u32` at byte `i` of `rec`.
pub(crate) fn u32_at(rec: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]])
}

/// The little-endian `u64` at byte `i` of `rec`.
pub(crate) fn u64_at(rec: &[u8], i: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&rec[i..i + 8]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_offsets_and_a_cut_record() {
        let bytes: Vec<u8> = (0u8..10).collect();
        let mut r = Records::<4>::new(Box::new(std::io::Cursor::new(bytes)), "t.bin".into());
        assert_eq!(r.next().unwrap(), Some([0, 1, 2, 3]));
        assert_eq!(u32_at(&r.next().unwrap().unwrap(), 0), 0x0706_0504);
        assert_eq!(r.err("x").to_string(), "t.bin: byte 4: x");
        let e = r.next().unwrap_err().to_string();
        assert_eq!(e, "t.bin: byte 8: a truncated record: 2 of its 4 bytes");
        assert_eq!(u16_at(&[1, 2], 0), 0x0201);
        assert_eq!(u64_at(&[1, 0, 0, 0, 0, 0, 0, 2], 0), 0x0200_0000_0000_0001);
    }
}
