//! A trace file read line by line, in constant memory, through a gzip
//! decoder when the file starts with gzip's magic bytes (whatever its
//! name), with the file name and line number every error needs.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub struct Lines {
    reader: Box<dyn BufRead>,
    path: String,
    line_no: usize,
    buf: Vec<u8>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The bytes of `path`, through a gzip decoder when it starts with gzip's
/// magic bytes.
pub fn open_bytes(path: &Path) -> Result<Box<dyn BufRead>> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| Error::input(name.clone(), 0, format!("cannot read the trace: {e}"));
    let mut file = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    let gz = file.fill_buf().map_err(io)?.starts_with(&GZIP_MAGIC);
    Ok(if gz {
        Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(file)))
    } else {
        Box::new(file)
    })
}

impl Lines {
    pub fn open(path: &Path) -> Result<Lines> {
        let reader = open_bytes(path)?;
        Ok(Lines { reader, path: path.display().to_string(), line_no: 0, buf: Vec::with_capacity(256) })
    }

    /// The next line without its end (`None` at the end of the file).
    pub fn next_line(&mut self) -> Result<Option<&str>> {
        self.buf.clear();
        let n = (&mut self.reader).take(1 << 20).read_until(b'\n', &mut self.buf).map_err(|e| {
            Error::input(
                self.path.clone(),
                self.line_no + 1,
                format!("cannot read the trace (a truncated or corrupt compressed stream?): {e}"),
            )
        })?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        if self.buf.len() >= 1 << 20 && self.buf.last() != Some(&b'\n') {
            return Err(self.error("a line longer than 1 MiB: not a text trace"));
        }
        std::str::from_utf8(&self.buf).map(|s| Some(s.trim_end_matches(['\n', '\r']))).map_err(|_| {
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

    #[test]
    fn gzip_is_read_by_its_magic_and_a_truncated_stream_is_an_error() {
        let p = write_tmp("g.anything", &gz(b"a\nb\r\nc"));
        let mut l = Lines::open(&p).unwrap();
        let mut got = Vec::new();
        while let Some(s) = l.next_line().unwrap() {
            got.push(s.to_string());
        }
        assert_eq!(got, ["a", "b", "c"]);
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
        assert!(e.contains("cut.gz:") && e.contains("truncated or corrupt"), "{e}");
    }

    #[test]
    fn binary_data_is_not_a_line() {
        let p = write_tmp("bin.trace", &[0xff, 0xfe, 0x00, 0x80, b'\n']);
        let e = Lines::open(&p).unwrap().next_line().unwrap_err().to_string();
        assert!(e.contains("bin.trace:1:") && e.contains("not text"), "{e}");
    }
}
