//! The mechanical drive model (models.md §1), after DiskSim's disk module.
//!
//! A request that misses the on-drive cache costs (§1.1):
//! command overhead (DiskSim's read/write hit/miss overheads, chosen by
//! whether the previous request was a read or a write) → seek (the curve of
//! [`seek`], or the head-switch time if larger, plus the write settle for
//! writes) → rotational wait (the platter angle is a pure function of the
//! clock: `frac(phase + t/period)`) → media transfer track by track (each
//! further track costs a head switch or a one-cylinder seek and the wait for
//! its skewed first sector) → host transfer (`Bulk sector transfer time`, or
//! the bus's per-block time if larger, pipelined behind the media) →
//! completion overhead.
//!
//! The cache ([`cache`]) serves whole hits at `read hit overhead + n × bulk`
//! without touching the arm. After a read miss the drive keeps reading ahead
//! (DiskSim's `Buffer continuous read` 0–4, `Maximum read-ahead`) while it
//! is idle; that progress is computed lazily when the next request arrives,
//! from the clock, so nothing runs between requests. A request that finds
//! the read-ahead still streaming through its blocks is served by the
//! stream (no repositioning). Writes with `Fast write level` ≥ 1 complete
//! once their data is in the buffer; the media write then keeps the arm busy
//! in the background, and a later request waits for it. With level 0 (or
//! the cache off) a write completes when the media write is done.
//!
//! Choices where DiskSim's event-level controller is not reproduced exactly
//! (documented here, see also `validate.rs` for the measured effect):
//! * a partial hit outside an active read-ahead stream is a miss of its
//!   first uncached block onwards;
//! * `Fast write level` 1 and 2 are both treated as write-back;
//! * `Read any free blocks` is not modelled; the zero-latency mode
//!   (`Immediate buffer read/write`) starts with whichever requested sector
//!   passes first on a track;
//! * a write's data arrives at the bus rate while the arm moves; a block
//!   whose data is not yet there when its sector passes is written one
//!   revolution later;
//! * `Extra write disconnect` applies to a write that follows a write and is
//!   not sequential to it (this is exactly the "W Trip" set of the HP C2247A
//!   trace): the drive disconnects after the command and fetches the data
//!   after the extra-disconnect delays;
//! * with `Extra write disconnect` the controller also holds a write's
//!   first media block until min(n, 10) blocks (n < 45) or 15 blocks of
//!   its data are in the buffer, as DiskSim's `disk_buffer_block_available`
//!   does for a segment being written. On the HP C2247A (bus 0.187 ms per
//!   block) this is what costs a revolution on the writes whose first
//!   sector comes round early — mostly sequential writes, whose head is
//!   already on the track (rms 0.155 → 0.096 ms; DiskSim 0.090).
//!
//! `service` allocates nothing: the layout lookup is two binary searches and
//! the cache is a fixed array.

pub mod cache;
pub mod geometry;
pub mod params;
pub mod seek;

use super::{DiskRequest, Service};
use crate::error::{Error, Result};
use crate::sim::{Rng, TimeNs};
use cache::SegCache;
pub use params::{AccessTime, CacheParams, DriveParams, Overheads, QueueParams};
use std::collections::BTreeMap;
use std::path::Path;

const MS: f64 = 1_000_000.0;

/// Where the idle read-ahead stands.
#[derive(Debug, Clone, Copy, Default)]
struct ReadAhead {
    active: bool,
    seg: usize,
    /// Next block to read.
    next: u64,
    /// First block not to read.
    limit: u64,
    /// Time (ns) from which the drive is free to read `next` (it is on the
    /// track of the previous block, which it finished reading then).
    from_ns: f64,
}

/// A mechanical hard drive.
pub struct Hdd {
    p: DriveParams,
    period_ns: f64,
    phase: f64,
    head_switch_ns: f64,
    write_settle_ns: f64,
    xfer_read_ns: f64,
    xfer_write_ns: f64,
    cache_on: bool,
    cache: SegCache,
    ra: ReadAhead,
    cyl: u32,
    head: u32,
    /// The arm is busy (background write) until then.
    arm_free_ns: f64,
    last_was_write: bool,
    /// End of the last write (for DiskSim's sequential-write test).
    last_write_end: u64,
}

/// Result of a media access.
#[derive(Debug, Clone, Copy)]
struct Media {
    end_ns: f64,
    /// When the `mark`-th block was done (the read water mark).
    mark_ns: f64,
    /// When the first sector was under the head (start of its transfer).
    first_ns: f64,
    seek_cyl: u32,
}

impl Hdd {
    /// Builds a drive from a preset name or a path to a DiskSim `.diskspecs`/`.parv`,
    /// with the on-drive cache on or off and DiskSim parameters overridden by name.
    pub fn from_model(model: &str, cache: bool, overrides: &BTreeMap<String, f64>, rng: Rng) -> Result<Hdd> {
        let lower = model.to_ascii_lowercase();
        let ov: Vec<(String, f64)> = overrides.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let params = if lower.ends_with(".diskspecs") || lower.ends_with(".parv") {
            super::disksim::load_drive(Path::new(model), &ov)?
        } else if let Some(p) = super::presets::preset_with(model, &ov)? {
            p
        } else {
            return Err(Error::config(
                "disk.model",
                format!(
                    "unknown drive model `{model}`: expected one of {} or a path to a .diskspecs/.parv",
                    super::presets::NAMES.join(", ")
                ),
            ));
        };
        Ok(Hdd::new(params, cache, rng))
    }

    /// A drive from explicit parameters. The rng draws the initial
    /// rotational phase and the rpm within ± `Percent error in rpms`.
    pub fn new(p: DriveParams, cache: bool, mut rng: Rng) -> Hdd {
        let phase = rng.next_f64();
        let err = p.rpm_error_pct / 100.0 * (2.0 * rng.next_f64() - 1.0);
        let rpm = p.rpm * (1.0 + err);
        let period_ns = 60_000.0 / rpm * MS;
        let cache_on = cache && p.cache.enabled;
        let cachep = SegCache::new(p.cache.segments as usize, p.cache.segment_blocks as u64);
        Hdd {
            period_ns,
            phase,
            head_switch_ns: p.head_switch_ms * MS,
            write_settle_ns: p.write_settle_ms * MS,
            xfer_read_ns: p.xfer_read_ms.max(0.0) * MS,
            xfer_write_ns: p.xfer_write_ms.max(0.0) * MS,
            cache_on,
            cache: cachep,
            ra: ReadAhead::default(),
            cyl: 0,
            head: 0,
            arm_free_ns: 0.0,
            last_was_write: false,
            last_write_end: u64::MAX,
            p,
        }
    }

    pub fn params(&self) -> &DriveParams {
        &self.p
    }

    #[inline]
    fn oh(&self, ms: f64) -> f64 {
        ms * self.p.overheads.time_scale * MS
    }

    #[inline]
    fn angle_at(&self, t_ns: f64) -> f64 {
        let a = self.phase + t_ns / self.period_ns;
        a - a.floor()
    }

    /// Seek time (ns) from the current arm position to (cyl, head).
    #[inline]
    fn seek_ns(&self, cyl: u32, head: u32, write: bool) -> f64 {
        let d = self.cyl.abs_diff(cyl);
        let mut t = self.p.seek.ms(d) * MS;
        if head != self.head && self.head_switch_ns > t {
            t = self.head_switch_ns;
        }
        if write && t > 0.0 {
            t += self.write_settle_ns;
        }
        t
    }

    /// Reads or writes `[lba, lba+n)` starting no earlier than `t_ns`,
    /// moving the arm. `stop_ns`: give up (read-ahead preempted) at that
    /// time, returning how far it got in `Media::end_ns` and the count of
    /// blocks done via the return tuple.
    #[allow(clippy::too_many_arguments)]
    fn media(
        &mut self,
        lba: u64,
        n: u64,
        t_ns: f64,
        write: bool,
        immed: bool,
        mark: u64,
        min_pos_ns: f64,
        data: Option<(f64, f64, u64)>,
    ) -> Media {
        let mut t = t_ns;
        let mut mark_ns = f64::NAN;
        let mut done = 0u64;
        let mut first_ns = f64::NAN;
        let mut seek_cyl = 0u32;
        while done < n {
            let l = lba + done;
            let Some(loc) = self.p.layout.locate(l) else {
                break;
            };
            let k = (self.p.layout.run_on_track(l, &loc) as u64).min(n - done);
            let st = self.seek_ns(loc.cyl, loc.head, write);
            if done == 0 {
                seek_cyl = self.cyl.abs_diff(loc.cyl);
                // DiskSim's `Minimum seek delay`
                if st < min_pos_ns {
                    t += min_pos_ns - st;
                }
            }
            t += st;
            self.cyl = loc.cyl;
            self.head = loc.head;
            let sector_ns = self.period_ns / loc.spt as f64;
            let now = self.angle_at(t);
            let mut wait = loc.angle - now;
            if wait < 0.0 {
                wait += 1.0;
            }
            // ignore sub-ns rounding that would cost a whole revolution
            if wait > 1.0 - 1e-9 {
                wait = 0.0;
            }
            let span = k as f64 / loc.spt as f64;
            if immed && k > 1 && wait > 1.0 - span {
                // zero-latency: the head is inside the requested span; it
                // reads to the end, then from the start up to where it began
                // (one revolution in all, from the next sector boundary).
                let into = 1.0 - wait; // revolutions past the span start
                let next_boundary = (into * loc.spt as f64).ceil() / loc.spt as f64;
                if done == 0 {
                    first_ns = t + (next_boundary - into) * self.period_ns;
                }
                t += (next_boundary - into + 1.0) * self.period_ns;
                if mark_ns.is_nan() && done + k >= mark {
                    mark_ns = t;
                }
            } else {
                t += wait * self.period_ns;
                if done == 0 {
                    first_ns = t;
                }
                if mark_ns.is_nan() && done + k >= mark {
                    mark_ns = t + (mark.saturating_sub(done)) as f64 * sector_ns;
                }
                match data {
                    Some((bus_start, xfer, min_buffered)) if xfer > 0.0 => {
                        // a write: a block whose data has not arrived when
                        // its sector comes (or before `min_buffered` blocks
                        // are in the buffer) is written a revolution later;
                        for i in done..done + k {
                            let arrive = bus_start + (i + 1).max(min_buffered) as f64 * xfer;
                            if t < arrive {
                                t += ((arrive - t) / self.period_ns).ceil() * self.period_ns;
                            }
                            t += sector_ns;
                        }
                    }
                    _ => t += k as f64 * sector_ns,
                }
            }
            done += k;
        }
        if first_ns.is_nan() {
            first_ns = t;
        }
        if mark_ns.is_nan() {
            mark_ns = t;
        }
        Media { end_ns: t, mark_ns, first_ns, seek_cyl }
    }

    /// Lazily advances the idle read-ahead up to `t_ns`; if `stop`, the
    /// read-ahead ends there (the next request needs the arm).
    fn advance_readahead(&mut self, t_ns: f64, stop: bool) {
        if !self.ra.active {
            return;
        }
        let mut t = self.ra.from_ns;
        while self.ra.next < self.ra.limit && t < t_ns {
            let l = self.ra.next;
            let Some(loc) = self.p.layout.locate(l) else {
                self.ra.limit = l;
                break;
            };
            let k = (self.p.layout.run_on_track(l, &loc) as u64).min(self.ra.limit - l);
            let st = self.seek_ns(loc.cyl, loc.head, false);
            // modes 1 and 2 never leave the track / cylinder
            if (self.p.cache.contread == 1 && (loc.cyl != self.cyl || loc.head != self.head))
                || (self.p.cache.contread == 2 && loc.cyl != self.cyl)
            {
                self.ra.limit = l;
                break;
            }
            let sector_ns = self.period_ns / loc.spt as f64;
            let mut ts = t + st;
            let now = self.angle_at(ts);
            let mut wait = loc.angle - now;
            if wait < 0.0 {
                wait += 1.0;
            }
            if wait > 1.0 - 1e-9 {
                wait = 0.0;
            }
            ts += wait * self.period_ns;
            if ts >= t_ns {
                // still positioning when the request came
                if stop || ts > t_ns {
                    self.cyl = loc.cyl;
                    self.head = loc.head;
                    t = t_ns;
                    break;
                }
            }
            self.cyl = loc.cyl;
            self.head = loc.head;
            let end = ts + k as f64 * sector_ns;
            if end <= t_ns {
                self.ra.next += k;
                t = end;
            } else {
                let got = ((t_ns - ts) / sector_ns).floor().max(0.0) as u64;
                self.ra.next += got.min(k);
                t = ts + got as f64 * sector_ns;
                self.cache.extend(self.ra.seg, self.ra.next);
                self.ra.from_ns = t;
                if stop {
                    self.ra.active = false;
                }
                return;
            }
            self.cache.extend(self.ra.seg, self.ra.next);
        }
        self.ra.from_ns = t.max(self.ra.from_ns);
        if self.ra.next >= self.ra.limit || stop {
            self.ra.active = false;
            self.arm_free_ns = self.arm_free_ns.max(t.min(t_ns));
        }
    }

    /// The first block the read-ahead after a request ending at `endreq`
    /// must not read (DiskSim `disk_buffer_get_max_readahead`).
    fn readahead_limit(&self, seg_start: u64, endreq: u64) -> u64 {
        let cap = self.p.layout.capacity_sectors;
        let c = &self.p.cache;
        let lim = match c.contread {
            0 => endreq,
            4 => {
                // to the end of the track holding `endreq`, one track more
                // when the segment already began on an earlier track
                if endreq >= cap {
                    return cap;
                }
                let loc = match self.p.layout.locate(endreq) {
                    Some(l) => l,
                    None => return endreq,
                };
                let track_end = endreq + loc.left_on_track as u64;
                let track_start = endreq.saturating_sub((loc.sector) as u64);
                if seg_start < track_start {
                    track_end + loc.spt as u64
                } else {
                    track_end
                }
            }
            _ => {
                if c.max_readahead > 0 {
                    endreq + c.max_readahead as u64
                } else {
                    seg_start + c.segment_blocks as u64
                }
            }
        };
        let mut lim = lim.min(cap);
        if !c.readahead_over_requested {
            lim = lim.min(seg_start + c.segment_blocks as u64).max(endreq);
        }
        lim
    }

    /// Blocks that must be in the buffer before a disconnected read
    /// reconnects (DiskSim's read water mark).
    fn read_water(&self, n: u64) -> u64 {
        self.water(n, self.p.cache.read_water)
    }

    fn water(&self, n: u64, frac: f64) -> u64 {
        let c = &self.p.cache;
        let w = if c.water_by_request {
            ((n.min(c.segment_blocks as u64) as f64 * frac) as u64).max(1)
        } else {
            (c.segment_blocks as f64 * frac).ceil() as u64
        };
        w.clamp(1, n.max(1))
    }

    /// Blocks of an `n`-block write that must be in the buffer before its
    /// first block may go to the media. DiskSim ties this to `Extra write
    /// disconnect` (the HP C2247A's controller, `disk_buffer_block_available`
    /// for a segment being written): a write of fewer than 45 blocks waits
    /// for min(n, 10) blocks, a larger one for 15; otherwise each block only
    /// needs its own data.
    fn write_min_buffered(&self, n: u64) -> u64 {
        if !self.p.overheads.extra_write_disconnect {
            1
        } else if n < 45 {
            n.min(10)
        } else {
            15
        }
    }

    fn read(&mut self, lba: u64, n: u64, t0: f64) -> (f64, u64, bool) {
        let ov = &self.p.overheads;
        let (hit_oh, miss_oh) = if self.last_was_write {
            (ov.read_hit_after_write, ov.read_miss_after_write)
        } else {
            (ov.read_hit_after_read, ov.read_miss_after_read)
        };
        let prep = self.oh(ov.data_prep);
        let hit_oh = self.oh(hit_oh + ov.per_request) + prep;
        let miss_oh = self.oh(miss_oh + ov.per_request);
        let completion = self.oh(ov.read_completion);
        let reconnect = self.oh(ov.first_reselect) + prep;
        let min_pos = self.oh(ov.min_seek_delay);
        let xfer = self.xfer_read_ns;
        let immed = self.p.cache.immed_read;
        if !self.cache_on {
            let start = (t0 + miss_oh).max(self.arm_free_ns);
            let m = self.media(lba, n, start, false, immed, self.read_water(n), min_pos, None);
            let bus = (m.mark_ns + reconnect + n as f64 * xfer).max(m.end_ns + xfer);
            self.arm_free_ns = m.end_ns;
            return (bus + completion, m.seek_cyl as u64, false);
        }
        // Where is the read-ahead now?
        self.advance_readahead(t0, false);
        if let Some(i) = self.cache.find_whole(lba, n) {
            self.cache.touch(i);
            let done = t0 + hit_oh + n as f64 * xfer + completion;
            return (done, 0, true);
        }
        // Served by the read-ahead stream still running through it?
        let ra = self.ra;
        let seg = self.cache.get(ra.seg);
        if ra.active && seg.start <= lba && lba <= ra.next {
            // The stream goes on reading to lba+n (and beyond after it).
            let need = lba + n - ra.next;
            let from = ra.from_ns.max(t0);
            let m = self.media(ra.next, need, from, false, false, 1, 0.0, None);
            let sector_ns = if need > 0 { (m.end_ns - m.first_ns) / need as f64 } else { 0.0 };
            // host transfer: the cached blocks at once, the rest as they come
            let bus = (t0 + hit_oh + n as f64 * xfer)
                .max(m.first_ns + sector_ns + need as f64 * xfer)
                .max(m.end_ns + xfer);
            let end = lba + n;
            self.cache.extend(ra.seg, end);
            self.cache.touch(ra.seg);
            let seg_start = self.cache.get(ra.seg).start;
            let limit = self.readahead_limit(seg_start, end).max(ra.limit);
            self.ra = ReadAhead { active: limit > end, seg: ra.seg, next: end, limit, from_ns: m.end_ns };
            self.arm_free_ns = m.end_ns;
            return (bus + completion, 0, false);
        }
        // A miss: the read-ahead stops, the arm goes.
        self.advance_readahead(t0, true);
        self.ra.active = false;
        let first_missing = match self.cache.find_start(lba) {
            Some(i) => self.cache.get(i).end,
            None => lba,
        };
        let need = lba + n - first_missing;
        let start = (t0 + miss_oh).max(self.arm_free_ns);
        let water = self.read_water(n).saturating_sub(n - need).max(1);
        let m = self.media(first_missing, need, start, false, immed, water, min_pos, None);
        let bus = (m.mark_ns + reconnect + n as f64 * xfer).max(m.end_ns + xfer);
        let end = lba + n;
        let i = self.cache.choose(lba, None);
        let s = self.cache.get(i);
        let seg_start = if !s.is_empty() && s.end == lba { s.start } else { lba };
        self.cache.set(i, seg_start, end);
        let limit = self.readahead_limit(self.cache.get(i).start, end);
        self.ra = ReadAhead { active: limit > end, seg: i, next: end, limit, from_ns: m.end_ns };
        self.arm_free_ns = m.end_ns;
        (bus + completion, m.seek_cyl as u64, false)
    }

    fn write(&mut self, lba: u64, n: u64, t0: f64) -> (f64, u64) {
        let ov = &self.p.overheads;
        let fast = self.cache_on && self.p.cache.fast_write_level > 0;
        let oh = if fast {
            if self.last_was_write {
                ov.write_hit_after_write
            } else {
                ov.write_hit_after_read
            }
        } else if self.last_was_write {
            ov.write_miss_after_write
        } else {
            ov.write_miss_after_read
        };
        let oh = self.oh(oh + ov.per_request);
        let prep = self.oh(ov.data_prep);
        let completion = self.oh(ov.write_completion);
        let reconnect = self.oh(ov.first_reselect);
        let min_pos = self.oh(ov.min_seek_delay);
        let xfer = self.xfer_write_ns;
        if self.cache_on {
            self.advance_readahead(t0, true);
            self.ra.active = false;
            self.cache.invalidate(lba, n, None);
            if self.p.cache.read_hits_on_write_data {
                let i = self.cache.choose(lba, None);
                let s = self.cache.get(i);
                let seg_start = if !s.is_empty() && s.end == lba { s.start } else { lba };
                self.cache.set(i, seg_start, lba + n);
            }
        }
        // the data comes over the bus while the arm moves
        let ov = &self.p.overheads;
        let extra = ov.extra_write_disconnect && !fast && self.last_was_write && self.last_write_end != lba;
        let (bus_start, mech_at) = if extra {
            (
                t0 + self.oh(ov.extradisc_command
                    + ov.extradisc_disconnect1
                    + ov.extradisc_inter_disconnect
                    + ov.first_reselect)
                    + prep,
                t0 + self.oh(ov.extradisc_command + ov.extradisc_seek_delta),
            )
        } else {
            (t0 + oh + prep, t0 + oh)
        };
        self.last_write_end = lba + n;
        let bus_end = bus_start + n as f64 * xfer;
        let min_buffered = self.write_min_buffered(n);
        let mech_start = mech_at.max(self.arm_free_ns);
        let m = self.media(
            lba,
            n,
            mech_start,
            true,
            self.p.cache.immed_write,
            1,
            min_pos,
            Some((bus_start, xfer, min_buffered)),
        );
        let media_end = m.end_ns;
        self.arm_free_ns = media_end;
        if fast {
            (bus_end + completion, m.seek_cyl as u64)
        } else {
            // the drive disconnected after the data; it reconnects to report
            (media_end + reconnect + completion, m.seek_cyl as u64)
        }
    }
}

impl super::Device for Hdd {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        let cap = self.p.layout.capacity_sectors;
        let lba = req.lba_sector.min(cap.saturating_sub(1));
        let n = (req.sectors.max(1) as u64).min(cap - lba);
        let t0 = start_ns as f64;
        let (done, seek, hit) = if req.write {
            let (d, s) = self.write(lba, n, t0);
            (d, s, false)
        } else {
            self.read(lba, n, t0)
        };
        self.last_was_write = req.write;
        let done_ns = (done.ceil() as TimeNs).max(start_ns);
        Service { done_ns, seek_distance_cyl: seek, cache_hit: hit }
    }
    fn capacity_sectors(&self) -> u64 {
        self.p.layout.capacity_sectors
    }
    fn position_of(&self, lba_sector: u64) -> u64 {
        self.p
            .layout
            .cylinder_of(lba_sector.min(self.p.layout.capacity_sectors.saturating_sub(1)))
            .map_or(0, |c| c as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Device;
    use super::*;

    fn drive(cache: bool) -> Hdd {
        let p = super::super::presets::preset("cheetah-15k5").unwrap().unwrap();
        Hdd::new(p, cache, Rng::new(7))
    }

    fn rd(lba: u64, sectors: u32) -> DiskRequest {
        DiskRequest { lba_sector: lba, sectors, write: false }
    }

    #[test]
    fn read_ahead_turns_the_next_sequential_read_into_a_hit() {
        let mut d = drive(true);
        let a = d.service(&rd(1_000_000, 8), 0);
        assert!(!a.cache_hit);
        // 10 ms later the drive has read ahead to the end of the track
        let b = d.service(&rd(1_000_008, 8), a.done_ns + 10_000_000);
        assert!(b.cache_hit);
        assert!(b.done_ns - (a.done_ns + 10_000_000) < 300_000);
        // without the cache the same read is a mechanical access
        let mut d = drive(false);
        let a = d.service(&rd(1_000_000, 8), 0);
        let b = d.service(&rd(1_000_008, 8), a.done_ns + 10_000_000);
        assert!(!b.cache_hit);
        assert!(b.done_ns - (a.done_ns + 10_000_000) > 300_000);
    }

    #[test]
    fn random_reads_cost_seek_plus_rotation_and_are_deterministic() {
        let run = || {
            let mut d = drive(false);
            let mut t = 0u64;
            let mut sum = 0u64;
            let mut x = 12345u64;
            for _ in 0..2000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let lba = (x >> 11) % (d.capacity_sectors() - 8);
                let s = d.service(&rd(lba, 8), t);
                sum += s.done_ns - t;
                t = s.done_ns + 1_000_000;
            }
            sum / 2000
        };
        let mean = run();
        assert_eq!(mean, run());
        // 15k rpm: 2 ms mean rotation + ~3.6 ms mean seek (extracted curve)
        assert!((4_500_000..7_000_000).contains(&mean), "{mean}");
    }

    #[test]
    fn extra_write_disconnect_holds_the_media_until_enough_data_is_buffered() {
        // A slow platter (600 rpm: 100 ms a turn, sectors of ~0.17 ms), a
        // bus a little faster (0.1 ms a block), no cache (a write completes
        // when its media write is done). Without the rule each block only
        // needs its own data; with `Extra write disconnect` an 8-block
        // write may not touch the media before all 8 blocks are buffered,
        // so a first sector that comes round in between costs a turn.
        let mk = |extra: bool| {
            let mut p = super::super::presets::preset("cheetah-15k5").unwrap().unwrap();
            p.rpm = 600.0;
            p.rpm_error_pct = 0.0;
            p.xfer_write_ms = 0.1;
            p.overheads.extra_write_disconnect = extra;
            Hdd::new(p, false, Rng::new(7))
        };
        assert_eq!(mk(true).write_min_buffered(8), 8);
        assert_eq!(mk(true).write_min_buffered(30), 10);
        assert_eq!(mk(true).write_min_buffered(64), 15);
        assert_eq!(mk(false).write_min_buffered(64), 1);
        let wr = |lba: u64| DiskRequest { lba_sector: lba, sectors: 8, write: true };
        let mut turns_lost = 0;
        for gap_us in (0..100_000u64).step_by(250) {
            let (mut a, mut b) = (mk(true), mk(false));
            let ra = a.service(&rd(1_000_000, 8), 0);
            let rb = b.service(&rd(1_000_000, 8), 0);
            assert_eq!(ra.done_ns, rb.done_ns);
            let t = ra.done_ns + gap_us * 1000;
            let da = a.service(&wr(1_000_008), t).done_ns - t;
            let db = b.service(&wr(1_000_008), t).done_ns - t;
            // the 8 blocks of data alone take 0.8 ms to arrive
            assert!(da > 800_000, "{gap_us}: {da}");
            assert!(da >= db, "{gap_us}: {da} < {db}");
            if da > db {
                // the only way to be later is a whole turn
                assert!(da - db > 99_000_000, "{gap_us}: {da} vs {db}");
                turns_lost += 1;
            }
        }
        assert!(turns_lost > 0);
    }

    #[test]
    fn unknown_model_names_the_presets() {
        let e = Hdd::from_model("floppy", true, &BTreeMap::new(), Rng::new(1)).err().unwrap().to_string();
        assert!(e.contains("unknown drive model `floppy`"), "{e}");
        assert!(e.contains("cheetah-15k5") && e.contains(".diskspecs/.parv"), "{e}");
    }
}
