//! The drive's read-ahead (models.md §1.7; DiskSim's `Buffer continuous
//! read`, `disk_buffer_get_max_readahead`, `disk_buffer_stopable_access`).
//!
//! After a read the drive goes on reading the following blocks into the
//! request's segment while it has nothing else to do, up to a limit:
//!
//! * mode 0: none; mode 1: to the end of the track, mode 2: to the end of
//!   the cylinder (the read-ahead stops at the first head or cylinder
//!   change), mode 3: `Maximum read-ahead` blocks past the request (or a
//!   segment's worth);
//! * mode 4 (DiskSim's "DEC" scheme): to the end of the track that holds
//!   the block after the request, plus one track more when the segment
//!   began on an earlier track — one track ahead of a sequential stream.
//!
//! The read-ahead is computed lazily, when the next request arrives: it is
//! a pure function of the time it started, the arm and the platter.
//!
//! When a request needs the arm, DiskSim stops the read-ahead at the end of
//! what it is doing: a seek is completed, a wait for the first sector of a
//! track ends when that sector comes, and a sector being read is finished —
//! but not kept (DiskSim removes its pending "sector done" event), so a
//! request for that very block finds it gone and waits a revolution. With
//! `Stop prefetch in sector` the wait and the sector are cut at once.
//! A request whose first block the read-ahead has already read (or, with
//! `Allow almost read hits`, is reading) takes the read-ahead over instead:
//! it goes on without a pause.

use super::cache::SegCache;
use super::geometry::{Layout, Loc};
use super::media::Mech;

/// What the read-ahead is doing at a given time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Doing {
    /// It is over: the arm has been free since then.
    Finished(f64),
    /// Seeking to the next track until then.
    Seek { end_ns: f64 },
    /// Waiting for the first sector of a track, which comes then.
    Latency { start_ns: f64 },
    /// Reading a track: `done` blocks from `next` are in, the sector of
    /// block `next + done` is under the head from `start_ns` to `end_ns`.
    Sector { done: u64, start_ns: f64, end_ns: f64 },
}

/// The read-ahead's state.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadAhead {
    pub active: bool,
    /// The segment it fills.
    pub seg: usize,
    /// The next block to read (the segment's end).
    pub next: u64,
    /// DiskSim's `maxreadaheadblkno`: the first block not to read.
    pub limit: u64,
    /// DiskSim's `minreadaheadblkno`: the read-ahead cannot be stopped
    /// before it has read up to here.
    pub min_limit: u64,
    /// From then the arm is free to read `next` (the mech's position and
    /// platter reference are those of that moment).
    pub from_ns: f64,
    /// While the request that started it is still crossing the bus, the
    /// read-ahead may not get a segment's worth ahead of the host.
    pub cap: Cap,
}

/// DiskSim's buffer-full rule (`disk_buffer_block_available`): while a
/// read's data is still being sent, a block more than a segment ahead of
/// the host transfer cannot be read; its sector passes unread and the drive
/// tries again when it comes round. The host transfer is taken to send the
/// request's last blocks back to back until `until_ns` (with an instant bus,
/// all of them at `until_ns`: before then none has left, so the read-ahead
/// may get at most a segment past the request's first block).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cap {
    /// End of the request being sent (0: no cap).
    pub endreq: u64,
    pub blocks: u64,
    pub size: u64,
    pub until_ns: f64,
    pub xfer_ns: f64,
}

impl Cap {
    /// May block `b` be read at `t`?
    #[inline]
    fn allows(&self, b: u64, t: f64) -> bool {
        if self.endreq == 0 || t >= self.until_ns {
            return true;
        }
        // an instant bus sends every block at `until_ns` (after the hit
        // overhead): until then none has left
        let unsent = if self.xfer_ns <= 0.0 {
            self.blocks
        } else {
            (((self.until_ns - t) / self.xfer_ns).ceil() as u64).min(self.blocks)
        };
        b + unsent < self.endreq + self.size
    }

    /// The first of `t0`, `t0 + period`, `t0 + 2·period`, … at which block
    /// `b` may be read (its sector comes round once a turn). In closed form,
    /// not turn by turn: `b` may be read once at most `room` blocks are
    /// still unsent, i.e. from `until_ns - room · xfer_ns` on.
    fn first_turn(&self, b: u64, t0: f64, period: f64) -> f64 {
        if self.allows(b, t0) || period.is_nan() || period <= 0.0 {
            return t0;
        }
        let room = (self.endreq + self.size).saturating_sub(b + 1);
        let from = self.until_ns - room as f64 * self.xfer_ns;
        let turns = ((from - t0) / period).ceil().max(1.0);
        let mut t = t0 + turns * period;
        // rounding may leave it a turn off either way
        if t - period > t0 && self.allows(b, t - period) {
            t -= period;
        } else if !self.allows(b, t) {
            t += period;
        }
        t
    }
}

/// The read-ahead's limit parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub contread: u32,
    pub max_readahead: u64,
    pub min_readahead: u64,
    /// DiskSim's `keeprequestdata` (1 − `Read-ahead over requested`).
    pub keep_request_data: bool,
    pub segment_blocks: u64,
}

impl Limits {
    /// DiskSim's `disk_buffer_get_max_readahead` for a read of
    /// `[lba, lba + n)` in a segment that starts at `seg_start`.
    pub fn max_readahead(&self, lay: &Layout, seg_start: u64, lba: u64, n: u64) -> u64 {
        let cap = lay.capacity_sectors;
        let endreq = lba + n;
        let lim = match self.contread {
            0 => endreq,
            4 => {
                if endreq >= cap {
                    return cap;
                }
                let Some(loc) = lay.locate(endreq) else { return endreq };
                let track_end = endreq + loc.left_on_track as u64;
                let track_start = endreq - lay.track_offset(endreq);
                if seg_start < track_start {
                    // one more track: as many blocks as the request's first track has
                    let first = lay.locate(lba).map_or(0, |l| l.spt as u64);
                    track_end + first
                } else {
                    track_end
                }
            }
            _ if self.max_readahead > 0 => endreq + self.max_readahead,
            _ if self.keep_request_data => {
                let s = self.segment_blocks;
                if n >= s || s - n < self.min_readahead {
                    endreq + self.min_readahead
                } else {
                    lba + s
                }
            }
            _ => endreq + self.segment_blocks,
        };
        lim.min(cap)
    }

    /// DiskSim's `minreadaheadblkno` for a read ending at `endreq`.
    pub fn min_readahead(&self, lay: &Layout, endreq: u64) -> u64 {
        if self.contread == 0 {
            endreq
        } else {
            (endreq + self.min_readahead).min(lay.capacity_sectors)
        }
    }
}

/// One track's worth of read-ahead from `next` at `tt`: where it reads,
/// how many blocks, when the seek ends and when the first sector starts.
/// `None` when the mode forbids the move (DiskSim's `disk_initiate_seek`
/// refusing a background read that would leave the track / cylinder).
#[inline]
fn track_step(
    mech: &Mech,
    lay: &Layout,
    contread: u32,
    next: u64,
    limit: u64,
    tt: f64,
) -> Option<(Loc, u64, f64)> {
    let loc = lay.locate(next)?;
    let k = (lay.run_on_track(next, &loc) as u64).min(limit - next);
    if (contread == 1 && (loc.cyl != mech.cyl || loc.head != mech.head))
        || (contread == 2 && loc.cyl != mech.cyl)
    {
        return None;
    }
    let seek_end = tt + mech.seek_ns(loc.cyl, loc.head, false);
    Some((loc, k, seek_end))
}

impl ReadAhead {
    /// Brings the read-ahead up to time `t`: every block it has read by then
    /// is in its segment; the tracks it has finished are committed (`next`,
    /// `from_ns`, the arm and the platter follow), the one in progress is
    /// not (see [`ReadAhead::stop`]). Returns what it is doing at `t`.
    pub fn advance(
        &mut self,
        mech: &mut Mech,
        lay: &Layout,
        contread: u32,
        cache: &mut SegCache,
        t: f64,
    ) -> Doing {
        if !self.active {
            return Doing::Finished(self.from_ns);
        }
        loop {
            if self.next >= self.limit {
                return self.finish(cache);
            }
            let Some((loc, k, seek_end)) =
                track_step(mech, lay, contread, self.next, self.limit, self.from_ns)
            else {
                self.limit = self.next;
                return self.finish(cache);
            };
            if seek_end > t {
                return Doing::Seek { end_ns: seek_end };
            }
            // the arm is on the track from seek_end
            let (c0, h0) = (mech.cyl, mech.head);
            mech.set_arm(loc.cyl, loc.head);
            // a first block the buffer has no room for waits for a later turn
            let s0 = self.cap.first_turn(self.next, seek_end + mech.wait_ns(&loc, seek_end), mech.period_ns);
            if s0 > t {
                mech.set_arm(c0, h0);
                return Doing::Latency { start_ns: s0 };
            }
            let q = mech.period_ns / loc.spt as f64;
            // the stretch ends where the buffer is full
            let mut k = k;
            if self.cap.endreq != 0 && s0 < self.cap.until_ns {
                let mut j = 1;
                while j < k && self.cap.allows(self.next + j, s0 + j as f64 * q) {
                    j += 1;
                }
                k = j;
            }
            let c = ((t - s0) / q) as u64;
            if c < k {
                mech.set_arm(c0, h0);
                // the blocks read so far on this track are in the segment
                cache.extend(self.seg, self.next + c);
                return Doing::Sector {
                    done: c,
                    start_ns: s0 + c as f64 * q,
                    end_ns: s0 + (c + 1) as f64 * q,
                };
            }
            let end = s0 + k as f64 * q;
            mech.mark(&loc, loc.sector + k as u32, end);
            self.next += k;
            self.from_ns = end;
            cache.extend(self.seg, self.next);
        }
    }

    /// The read-ahead reached its limit: its segment is clean.
    fn finish(&mut self, cache: &mut SegCache) -> Doing {
        self.active = false;
        cache.set_state(self.seg, super::cache::SegState::Clean);
        Doing::Finished(self.from_ns)
    }

    /// Stops the read-ahead for a request arriving at `t`, given what it is
    /// doing then (from [`ReadAhead::advance`]); returns when the arm is
    /// free. The sectors finished on the current track are kept, the one in
    /// progress is not.
    pub fn stop(
        &mut self,
        mech: &mut Mech,
        lay: &Layout,
        cache: &mut SegCache,
        doing: Doing,
        t: f64,
        stop_in_sector: bool,
    ) -> f64 {
        let free = match doing {
            Doing::Finished(at) => at,
            Doing::Seek { end_ns } => {
                if let Some(loc) = lay.locate(self.next) {
                    mech.set_arm(loc.cyl, loc.head);
                }
                end_ns
            }
            Doing::Latency { start_ns } => {
                if let Some(loc) = lay.locate(self.next) {
                    mech.set_arm(loc.cyl, loc.head);
                }
                if stop_in_sector {
                    t
                } else {
                    start_ns
                }
            }
            Doing::Sector { done, start_ns, end_ns } => {
                // the blocks before the one in progress are in; the head is
                // at the start of that one's sector at start_ns
                if let Some(loc) = lay.locate(self.next + done) {
                    mech.set_arm(loc.cyl, loc.head);
                    mech.mark(&loc, loc.sector, start_ns);
                }
                self.next += done;
                cache.extend(self.seg, self.next);
                if stop_in_sector {
                    t
                } else {
                    end_ns
                }
            }
        };
        self.active = false;
        self.from_ns = free;
        free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_without_room_waits_for_the_first_turn_with_room() {
        // 50 blocks ending at 100 sent until 1000 ns, 10 ns each, segment
        // 20: block 110 may be read once at most 9 are unsent, from 910 ns
        let cap = Cap { endreq: 100, blocks: 50, size: 20, until_ns: 1000.0, xfer_ns: 10.0 };
        assert_eq!(cap.first_turn(110, 0.0, 300.0), 1200.0);
        assert_eq!(cap.first_turn(110, 10.0, 300.0), 910.0);
        assert_eq!(cap.first_turn(105, 0.0, 300.0), 900.0); // from 860 ns
        assert_eq!(cap.first_turn(60, 0.0, 300.0), 0.0); // room from the start
                                                         // a bus that never finishes never lets it in, and does not hang
        let never = Cap { until_ns: f64::INFINITY, ..cap };
        assert_eq!(never.first_turn(110, 0.0, 300.0), f64::INFINITY);
    }
}
