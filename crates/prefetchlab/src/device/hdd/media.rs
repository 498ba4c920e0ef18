//! Media timing: where the arm and the platter are, and how long it takes to
//! reach and transfer sectors (models.md §1.1–§1.5; DiskSim's `dm_mech_g1`).
//!
//! Time inside the drive is an exact `f64` count of nanoseconds (the host
//! sees it rounded up to whole nanoseconds, see `Hdd`). The platter's angle
//! is carried from a *reference*: the angle and the drive time at which the
//! head last crossed a sector boundary (the end of the last transfer, or
//! the start of the drive). Two rules make the angular position exact where
//! exactness matters:
//!
//! * a wait for a sector of the track the reference lies on is computed in
//!   whole sectors from the reference boundary (integer arithmetic), so a
//!   request that starts exactly where the last transfer ended finds its
//!   first sector under the head with no wait — no rounding of any kind can
//!   cost it a revolution;
//! * every other wait is the difference of two angles in `[0, 1)` (the
//!   reference is renewed at every transfer, so no error accumulates over a
//!   long run); a wait within 1e-9 revolution (4 ps at 15,000 rpm) of a
//!   whole turn is float noise and counts as none.
//!
//! A transfer is described by its *spans*: runs of consecutive blocks read
//! back to back on one track, each with the time its first sector starts
//! and the time per sector, so that the bus (`bus.rs`) and the segment
//! cache can tell when each block is in the buffer.

use super::geometry::{floor, Layout, Loc};
use super::params::AccessTime;
use super::seek::{SeekCurve, SeekIndex};

/// Float noise on an angle difference, in revolutions.
const ANGLE_EPS: f64 = 1e-9;

/// Blocks `[lba, lba + count)` reach the buffer one per `sector_ns` from
/// `start_ns` (block `lba + i` is in at `start_ns + (i + 1)·sector_ns`);
/// `sector_ns = 0` means all are in at `start_ns`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub lba: u64,
    pub count: u64,
    pub start_ns: f64,
    pub sector_ns: f64,
}

impl Span {
    /// When block `lba` (inside the span) is in the buffer.
    #[inline]
    pub fn ready_ns(&self, lba: u64) -> f64 {
        self.start_ns + (lba - self.lba + 1) as f64 * self.sector_ns
    }
    #[inline]
    pub fn end(&self) -> u64 {
        self.lba + self.count
    }
}

/// What one media access did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Access {
    /// When the last block was done (the arm is free).
    pub end_ns: f64,
    /// Cylinders the first seek moved.
    pub seek_cyl: u32,
    /// The rotational wait on the first track (ns).
    pub first_wait_ns: f64,
}

/// The exact boundary the head crossed at `ref_ns`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TrackRef {
    cyl: u32,
    head: u32,
    spt: u32,
    /// The sector whose start the head crossed.
    sector: u32,
}

/// The arm's position and the platter's reference, to put back
/// ([`Mech::state`], [`Mech::restore`]): a media access planned again.
#[derive(Debug, Clone, Copy)]
pub struct MechState {
    cyl: u32,
    head: u32,
    ref_ns: f64,
    ref_angle: f64,
    ref_track: Option<TrackRef>,
}

/// Arm and platter.
#[derive(Debug, Clone)]
pub struct Mech {
    pub period_ns: f64,
    seek: SeekCurve,
    seek_index: SeekIndex,
    head_switch_ns: f64,
    write_settle_ns: f64,
    access: AccessTime,
    pub cyl: u32,
    pub head: u32,
    ref_ns: f64,
    /// Angle (revolutions, `[0, 1)`) of the platter at `ref_ns`.
    ref_angle: f64,
    ref_track: Option<TrackRef>,
}

impl Mech {
    /// A drive whose platter is at angle `phase` (revolutions) at time 0,
    /// arm on cylinder 0, head 0.
    pub fn new(
        period_ns: f64,
        phase: f64,
        seek: SeekCurve,
        head_switch_ns: f64,
        write_settle_ns: f64,
        access: AccessTime,
    ) -> Mech {
        Mech {
            period_ns,
            seek_index: SeekIndex::new(&seek),
            seek,
            head_switch_ns,
            write_settle_ns,
            access,
            cyl: 0,
            head: 0,
            ref_ns: 0.0,
            ref_angle: phase - floor(phase),
            ref_track: None,
        }
    }

    /// Seek time (ns) from the arm's position to (cyl, head): the seek
    /// curve or the head switch, whichever is longer, plus the write settle
    /// for a write that moves (DiskSim `dm_seek_time_g1`).
    #[inline]
    pub fn seek_ns(&self, cyl: u32, head: u32, write: bool) -> f64 {
        let d = self.cyl.abs_diff(cyl);
        let mut t = self.seek.ms_indexed(d, &self.seek_index) * 1e6;
        if head != self.head && self.head_switch_ns > t {
            t = self.head_switch_ns;
        }
        if write && t > 0.0 {
            t += self.write_settle_ns;
        }
        t
    }

    /// When the platter's position was last recorded (the end of the last
    /// media transfer: DiskSim's `currtime`, at which its `mech_state`
    /// holds the angle).
    #[inline]
    pub fn ref_ns(&self) -> f64 {
        self.ref_ns
    }

    /// The arm and the platter's reference now.
    pub fn state(&self) -> MechState {
        MechState {
            cyl: self.cyl,
            head: self.head,
            ref_ns: self.ref_ns,
            ref_angle: self.ref_angle,
            ref_track: self.ref_track,
        }
    }

    /// Puts back a state taken by [`Mech::state`].
    pub fn restore(&mut self, s: MechState) {
        (self.cyl, self.head, self.ref_ns, self.ref_angle, self.ref_track) =
            (s.cyl, s.head, s.ref_ns, s.ref_angle, s.ref_track);
    }

    /// Moves the arm (the time is the caller's).
    #[inline]
    pub fn set_arm(&mut self, cyl: u32, head: u32) {
        self.cyl = cyl;
        self.head = head;
    }

    /// The platter's angle (revolutions, `[0, 1)`) at drive time `t`.
    #[inline]
    fn angle_at(&self, t: f64) -> f64 {
        let a = self.ref_angle + (t - self.ref_ns) / self.period_ns;
        a - floor(a)
    }

    /// The head's position on `loc`'s track at time `t`, in sectors from
    /// the track's sector 0 (fractional, `[0, spt)`).
    #[inline]
    pub fn sector_pos(&self, loc: &Loc, t: f64) -> f64 {
        let spt = loc.spt as f64;
        if let Some(r) = self.ref_track {
            if r.cyl == loc.cyl && r.head == loc.head && r.spt == loc.spt {
                let p = r.sector as f64 + (t - self.ref_ns) / self.period_ns * spt;
                return p - floor(p / spt) * spt;
            }
        }
        let zero = loc.angle - loc.sector as f64 / spt;
        let a = self.angle_at(t) - zero;
        (a - floor(a)) * spt
    }

    /// Rotational wait (ns) from `t` until sector `loc` starts under the
    /// head (the head is on `loc`'s track).
    #[inline]
    pub fn wait_ns(&self, loc: &Loc, t: f64) -> f64 {
        match self.access {
            AccessTime::AverageRotation => return self.period_ns / 2.0,
            AccessTime::Constant { .. } => return 0.0,
            AccessTime::TrackSwitchPlusRotation => {}
        }
        let e = (t - self.ref_ns) / self.period_ns;
        let d = match self.ref_track {
            Some(r) if r.cyl == loc.cyl && r.head == loc.head && r.spt == loc.spt => {
                ((loc.sector + loc.spt - r.sector) % loc.spt) as f64 / loc.spt as f64
            }
            _ => {
                let x = loc.angle - self.ref_angle;
                let x = x - floor(x);
                if x > 1.0 - ANGLE_EPS {
                    0.0
                } else {
                    x
                }
            }
        };
        let w = d - e;
        let w = w - floor(w);
        if w > 1.0 - ANGLE_EPS {
            0.0
        } else {
            w * self.period_ns
        }
    }

    /// Records that the head crossed the start of sector `sector` of `loc`'s
    /// track at `t` (the new reference).
    #[inline]
    pub fn mark(&mut self, loc: &Loc, sector: u32, t: f64) {
        let sector = sector % loc.spt;
        let a = loc.angle + (sector as f64 - loc.sector as f64) / loc.spt as f64;
        self.ref_angle = a - floor(a);
        self.ref_ns = t;
        self.ref_track = Some(TrackRef { cyl: loc.cyl, head: loc.head, spt: loc.spt, sector });
    }

    /// Moves the arm to `loc`'s track from `t` (for the first track of an
    /// access, lengthened to `min_seek_ns`, DiskSim's `Minimum seek delay`,
    /// and its distance noted in `seek_cyl`); returns when it is there.
    #[inline]
    fn reach(
        &mut self,
        loc: &Loc,
        t: f64,
        write: bool,
        first: bool,
        min_seek_ns: f64,
        seek_cyl: &mut u32,
    ) -> f64 {
        let st = self.seek_ns(loc.cyl, loc.head, write);
        let mut t = t;
        if first {
            *seek_cyl = self.cyl.abs_diff(loc.cyl);
            if st < min_seek_ns {
                t += min_seek_ns - st;
            }
        }
        self.set_arm(loc.cyl, loc.head);
        t + st
    }

    /// Zero latency: when the head, at `t` on `loc`'s track, is inside the
    /// `k` sectors from `loc`, the sector boundary `b` it reaches next (how
    /// many of the `k` lie before it) and when it reaches it.
    #[inline]
    fn inside(&self, loc: &Loc, k: u64, t: f64) -> Option<(u64, f64)> {
        let pos = self.sector_pos(loc, t);
        let mut b = pos.ceil();
        if b - pos > 1.0 - ANGLE_EPS {
            b = floor(pos);
        }
        let b = b as u64 % loc.spt as u64;
        let s0 = loc.sector as u64;
        if b <= s0 || b >= s0 + k {
            return None;
        }
        let pos_b = if (b as f64) < pos { b as f64 + loc.spt as f64 } else { b as f64 };
        Some((b - s0, t + (pos_b - pos).max(0.0) * self.period_ns / loc.spt as f64))
    }

    /// Reads `[lba, lba + n)` from `t0`: per track, a seek (the first one
    /// lengthened to `min_seek_ns`, DiskSim's `Minimum seek delay`), the
    /// rotational wait, the sectors. With `immed` (zero-latency reads) a
    /// head that lands inside the wanted part of a track starts at the next
    /// sector boundary and reads round to where it began; the blocks before
    /// that point are then the first the host can have, and the ones after
    /// it are usable (in order) only once those are in. Appends the spans to
    /// `spans`.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &mut self,
        lay: &Layout,
        lba: u64,
        n: u64,
        t0: f64,
        min_seek_ns: f64,
        immed: bool,
        spans: &mut Vec<Span>,
    ) -> Access {
        let mut t = t0;
        let mut done = 0u64;
        let mut seek_cyl = 0u32;
        let mut first_wait_ns = 0.0;
        while done < n {
            let l = lba + done;
            let Some(loc) = lay.locate(l) else { break };
            let k = (lay.run_on_track(l, &loc) as u64).min(n - done);
            t = self.reach(&loc, t, false, done == 0, min_seek_ns, &mut seek_cyl);
            let q = self.period_ns / loc.spt as f64;
            let spt = loc.spt as f64;
            if let Some((a, t1)) = immed.then(|| self.inside(&loc, k, t)).flatten() {
                // zero latency: from the boundary to the end, round the
                // track, then the `a` sectors before it
                spans.push(Span { lba: l, count: a, start_ns: t1 + (spt - a as f64) * q, sector_ns: q });
                t = t1 + spt * q;
                spans.push(Span { lba: l + a, count: k - a, start_ns: t, sector_ns: 0.0 });
                self.mark(&loc, loc.sector + a as u32, t);
                done += k;
                continue;
            }
            let w = self.wait_ns(&loc, t);
            if done == 0 {
                first_wait_ns = w;
            }
            t += w;
            spans.push(Span { lba: l, count: k, start_ns: t, sector_ns: q });
            t += k as f64 * q;
            self.mark(&loc, loc.sector + k as u32, t);
            done += k;
        }
        Access { end_ns: t, seek_cyl, first_wait_ns }
    }

    /// Writes `[lba, lba + n)` from `t0`; block `lba + i` may go to the
    /// media only from `ready(i)` (its data in the buffer): a block whose
    /// sector comes before that is written a revolution later (DiskSim
    /// "dry-fires" the sector). With `immed` (zero-latency writes) a head
    /// that lands inside a track's part starts there when all its data is in.
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        lay: &Layout,
        lba: u64,
        n: u64,
        t0: f64,
        min_seek_ns: f64,
        immed: bool,
        ready: impl Fn(u64) -> f64,
    ) -> Access {
        let mut t = t0;
        let mut done = 0u64;
        let mut seek_cyl = 0u32;
        while done < n {
            let l = lba + done;
            let Some(loc) = lay.locate(l) else { break };
            let k = (lay.run_on_track(l, &loc) as u64).min(n - done);
            t = self.reach(&loc, t, true, done == 0, min_seek_ns, &mut seek_cyl);
            let q = self.period_ns / loc.spt as f64;
            if immed && ready(done + k - 1) <= t {
                if let Some((a, t1)) = self.inside(&loc, k, t) {
                    t = t1 + loc.spt as f64 * q;
                    self.mark(&loc, loc.sector + a as u32, t);
                    done += k;
                    continue;
                }
            }
            t += self.wait_ns(&loc, t);
            for i in done..done + k {
                let r = ready(i);
                if t < r {
                    t += ((r - t) / self.period_ns).ceil() * self.period_ns;
                }
                t += q;
            }
            self.mark(&loc, loc.sector + k as u32, t);
            done += k;
        }
        Access { end_ns: t, seek_cyl, first_wait_ns: 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::hdd::geometry::{LayoutBuilder, Run};

    fn layout(spt: u32, tskew: f64) -> Layout {
        let mut b = LayoutBuilder::new();
        b.push_run(Run {
            p_start: 0,
            lpt: spt,
            spt,
            first_sector: 0,
            tracks: 200,
            tpc: 2,
            cyl0: 0,
            cyl_dir: 1,
            head0: 0,
            mapping: 0,
            angle0: 0.0,
            a_track: tskew,
            a_cyl: 0.0,
        });
        b.build(2, 100, 200 * spt as u64, "t").unwrap()
    }

    fn mech(period_ns: f64) -> Mech {
        Mech::new(
            period_ns,
            0.0,
            SeekCurve::Lee { a: 0.0, b: 0.0, c: 1.0 },
            0.1e6,
            0.0,
            AccessTime::TrackSwitchPlusRotation,
        )
    }

    #[test]
    fn back_to_back_reads_never_lose_a_revolution() {
        // A period that is no whole number of ns per sector: 1199 sectors
        // in 3,994,673.77 ns. Reading 16 sectors at a time, each request
        // starting when the last one ended (in drive time or in the host's
        // rounded-up time), streams at exactly the media rate.
        let lay = layout(1199, 0.3);
        let p = 60e9 / 15_020.0;
        let q = p / 1199.0;
        let mut m = mech(p);
        let mut spans = Vec::new();
        let mut t = 0.0;
        for i in 0..70u64 {
            spans.clear();
            let a = m.read(&lay, i * 16, 16, t, 0.0, false, &mut spans);
            if i > 0 {
                assert!((a.end_ns - t - 16.0 * q).abs() < 1e-6, "request {i}: {} ns", a.end_ns - t);
            }
            t = a.end_ns;
        }
    }

    #[test]
    fn a_late_request_waits_one_turn_less_the_sectors_passed() {
        let lay = layout(100, 0.3);
        let p = 10e6;
        let q = p / 100.0;
        let mut m = mech(p);
        let mut spans = Vec::new();
        let a = m.read(&lay, 0, 10, 0.0, 0.0, false, &mut spans);
        // 2.5 sectors late for block 10: it comes round again in 97.5 sectors
        spans.clear();
        let b = m.read(&lay, 10, 1, a.end_ns + 2.5 * q, 0.0, false, &mut spans);
        assert!((spans[0].start_ns - (a.end_ns + 100.0 * q)).abs() < 1e-6);
        assert!((b.end_ns - (a.end_ns + 101.0 * q)).abs() < 1e-6);
    }

    #[test]
    fn zero_latency_read_takes_one_turn_from_the_next_boundary() {
        let lay = layout(100, 0.0);
        let p = 10e6;
        let q = p / 100.0;
        let mut m = mech(p);
        let mut spans = Vec::new();
        // head lands at sector 30.5 of a request for sectors 20..60
        let t = 30.5 * q;
        let a = m.read(&lay, 20, 40, t, 0.0, true, &mut spans);
        // starts at 31, reads 31..60, round to 20..31: one turn from 31
        assert!((a.end_ns - (31.0 * q + p)).abs() < 1e-6, "{}", a.end_ns);
        assert_eq!(spans.len(), 2);
        assert_eq!((spans[0].lba, spans[0].count), (20, 11));
        assert_eq!((spans[1].lba, spans[1].count), (31, 29));
        assert_eq!(spans[1].sector_ns, 0.0);
    }
}
