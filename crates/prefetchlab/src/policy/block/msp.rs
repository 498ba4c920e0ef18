//! MSP, massive stripe prefetching (Baek & Park, IEEE TC 58(8), 2009, §4;
//! algorithms.md §3.2, decisions.md 1–1c): in the array cache, a detector
//! of *semi-sequential* reads — a file read sequentially reaches the disks
//! as its data strips interleaved with the strips of its indirect blocks —
//! and, while it fires, whole stripes read ahead so that every disk works.
//!
//! * **Detector** (per array, or per requester with `msp.scope =
//!   "stream"`): `SNp`, `SNpp` (the previous two strip numbers) and the
//!   counter `SC`, from `SC = 0`, `SNp = SNpp = −1`. For each strip a read
//!   touches, in order (`SNc`): the same strip as `SNp` changes nothing;
//!   `SNc = SNp + 1` or `SNc = SNpp` raises `SC` by 1, up to `msp.sc_max`;
//!   anything else lowers it by 1, down to 0; then `SNpp = SNp`, `SNp =
//!   SNc`. Every read counts, hit or miss.
//! * **Prefetch** (decisions.md 1b): after each read, while `SC ≥
//!   msp.sc_thresh`, the `msp.stripes_ahead` whole stripes after the
//!   stripe of the read's last block are made cached or in flight: each of
//!   their strips not wholly cached is read as one request of one strip
//!   (one disk each, so no independency is lost).
//!
//! Its state reports `SC`, the strips seen and the last
//! [`SC_HISTORY`] values of `SC` (per array; the first requester's with
//! `scope = "stream"`).

use super::{BlockAccess, BlockContext, BlockPrefetch, Geometry};
use crate::config::{MspConfig, MspScope};
use std::collections::VecDeque;

/// Values of `SC` kept for the state report.
pub const SC_HISTORY: usize = 64;

/// One semi-sequential detector.
#[derive(Debug, Clone, Copy, Default)]
struct Detector {
    sc: u32,
    /// Strip numbers + 1 (0: none yet, the spec's −1).
    snp: u64,
    snpp: u64,
}

impl Detector {
    /// Strip `strip` was read; returns whether `SC` changed or was set
    /// (false for a repeat of the previous strip).
    fn see(&mut self, strip: u64, sc_max: u32) -> bool {
        let snc = strip + 1;
        if snc == self.snp {
            return false;
        }
        // (SNpp of −1, encoded 0, never equals a strip + 1)
        if snc == self.snp + 1 || snc == self.snpp {
            self.sc = (self.sc + 1).min(sc_max);
        } else {
            self.sc = self.sc.saturating_sub(1);
        }
        self.snpp = self.snp;
        self.snp = snc;
        true
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    strips_seen: u64,
    firing_reads: u64,
    strip_reads: u64,
}

/// MSP.
pub struct Msp {
    geometry: Geometry,
    sc_thresh: u32,
    sc_max: u32,
    stripes_ahead: u64,
    per_stream: bool,
    detectors: Vec<Detector>,
    history: VecDeque<u32>,
    n: Counters,
}

impl Msp {
    pub fn new(cfg: &MspConfig, geometry: Geometry) -> Msp {
        Msp {
            geometry,
            sc_thresh: cfg.sc_thresh,
            sc_max: cfg.sc_max,
            stripes_ahead: cfg.stripes_ahead as u64,
            per_stream: cfg.scope == MspScope::Stream,
            detectors: vec![Detector::default()],
            history: VecDeque::with_capacity(SC_HISTORY),
            n: Counters::default(),
        }
    }

    /// `SC` of the array's detector (or the first requester's).
    pub fn sc(&self) -> u32 {
        self.detectors[0].sc
    }
}

impl BlockPrefetch for Msp {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        let d = if self.per_stream { a.stream as usize } else { 0 };
        if d >= self.detectors.len() {
            self.detectors.resize(d + 1, Detector::default());
        }
        let (first, last) = (self.geometry.strip_of(a.block), self.geometry.strip_of(a.end() - 1));
        for strip in first..=last {
            if self.detectors[d].see(strip, self.sc_max) {
                self.n.strips_seen += 1;
                if d == 0 {
                    if self.history.len() == SC_HISTORY {
                        self.history.pop_front();
                    }
                    self.history.push_back(self.detectors[d].sc);
                }
            }
        }
        if self.detectors[d].sc < self.sc_thresh {
            return;
        }
        self.n.firing_reads += 1;
        let data_disks = self.geometry.data_disks() as u64;
        let sb = self.geometry.strip_blocks();
        let stripe = last / data_disks;
        for k in stripe + 1..=stripe + self.stripes_ahead {
            for s in k * data_disks..(k + 1) * data_disks {
                let b = s * sb;
                if b >= self.geometry.capacity_blocks {
                    return;
                }
                if ctx.prefetch(b, sb) > 0 {
                    self.n.strip_reads += 1;
                }
            }
        }
    }

    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({
            "sc": self.sc(),
            "sc_history": self.history.iter().copied().collect::<Vec<_>>(),
            "sc_thresh": self.sc_thresh,
            "sc_max": self.sc_max,
            "stripes_ahead": self.stripes_ahead,
            "scope": if self.per_stream { "stream" } else { "array" },
            "strips_seen": self.n.strips_seen,
            "firing_reads": self.n.firing_reads,
            "strip_prefetches": self.n.strip_reads,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::layout::ArrayLayout;
    use crate::config::Layout;
    use crate::policy::block::sets::double::Cache;

    fn msp(sc_thresh: u32) -> Msp {
        // RAID-0 of 5 disks, strips of 4 blocks
        let g = Geometry::new(ArrayLayout::new(Layout::Raid0, 5, 4, 1 << 20).unwrap(), 4096, 5 << 20);
        Msp::new(&MspConfig { sc_thresh, ..MspConfig::default() }, g)
    }

    #[test]
    fn the_detector_counts_tc09_fig6_as_the_paper_does() {
        // [TC09] Fig. 6: blocks of a file and its indirect blocks, 4-block strips
        let blocks = [0, 16, 17, 18, 1, 19, 20, 21, 2, 22, 23, 24, 3, 25, 26, 27];
        let mut m = msp(u32::MAX);
        let mut c = Cache::new();
        for b in blocks {
            let a = c.demand(0, b, 1);
            m.on_access(&mut c, a);
        }
        assert_eq!(m.history.iter().copied().collect::<Vec<_>>(), vec![1, 0, 1, 2, 3, 2, 3, 4, 3, 4]);
        assert!(c.reads.is_empty(), "below the threshold nothing is read");
    }

    #[test]
    fn while_it_fires_the_next_stripes_are_read_one_strip_per_request() {
        let mut m = msp(2);
        let mut c = Cache::new();
        // strips 0, 1, 2 (sequential): SC 1, 2, 3 → fires from the read of block 4 (strip 1, stripe 0)
        for b in [0, 4, 8] {
            let a = c.demand(0, b, 1);
            m.on_access(&mut c, a);
        }
        // stripes 1 and 2 (strips 5..15), one strip per read
        let want: Vec<(u64, u64)> = (5..15).map(|s| (s * 4, 4)).collect();
        assert_eq!(c.reads, want);
        // read again: all cached or in flight, nothing more
        let a = c.demand(0, 12, 1);
        m.on_access(&mut c, a);
        assert_eq!(c.reads.len(), 10);
    }
}
