//! The compressions a trace may come in, made here for the trace tests
//! (`trace_readers.rs`, `fuzz_trace.rs`) with the decoders' own crates'
//! encoders (lzma-rust2's only as a dev-dependency).

#![allow(dead_code)] // each test file uses part of this module

use prefetchlab::trace::lines::Compression;
use std::io::Write;

/// Every compression the readers take.
pub const ALL: [Compression; 4] = [Compression::Gzip, Compression::Zstd, Compression::Xz, Compression::Bzip2];

/// `bytes` compressed as `c` (fast settings: tests, not archives).
pub fn compress(c: Compression, bytes: &[u8]) -> Vec<u8> {
    match c {
        Compression::None => bytes.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        Compression::Zstd => {
            ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
        }
        Compression::Xz => {
            let mut e = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
    }
}
