//! The drive's side of the host interface for a read: when each block of a
//! request crosses the bus, given when it reaches the buffer (DiskSim's
//! `disk_check_bus`, `disk_buffer_transfer_size`, `disk_reconnection_or_
//! transfer_complete`; models.md §1.1, §1.7).
//!
//! Connected, the drive sends every block already in the buffer, one
//! `xfer_ns` each, back to back (DiskSim sends them in chunks of "all that
//! is in"; the blocks that arrive during a chunk form the next one, so the
//! times are the same). When it has sent all it has and the request is not
//! done, it disconnects (`Read disconnect` overhead) and reconnects once
//! `watermark` more blocks (or all the rest) are in: `First reselect`
//! overhead plus `Data preparation` (with `Hold bus entire read xfer` it
//! stays connected and waits). The request completes after its last
//! block plus the `Read completion` overhead (added by the caller).

use super::media::Span;

/// Overheads of the bus protocol (ns).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BusCosts {
    pub xfer_ns: f64,
    /// Disconnect after all buffered blocks are sent.
    pub disconnect_ns: f64,
    /// Reconnect: reselect + data preparation.
    pub reconnect_ns: f64,
    /// Stay connected while waiting for the media (`Hold bus entire read
    /// xfer`, `Never disconnect`).
    pub hold: bool,
}

/// What a read's sending is made of: its `n` blocks, described in request
/// order by `spans` (each span's blocks reach the buffer at its times), the
/// read water mark in blocks, the bus's costs, and the command phases of
/// commands that reached the drive meanwhile, in time order and disjoint
/// (`blocked`): each held the bus for its command overhead, so the drive
/// reconnects after it (DiskSim's `disk_request_arrive` takes the bus for an
/// arriving command).
#[derive(Debug, Clone, Copy)]
pub struct Sending<'a> {
    pub spans: &'a [Span],
    pub n: u64,
    pub watermark: u64,
    pub costs: &'a BusCosts,
    pub blocked: &'a [(f64, f64)],
}

/// Sends the blocks of a read ([`Sending`]). The drive is
/// first connected at `connect_ns` (a hit: after the hit overhead) or, when
/// `connect_ns` is `None`, it is disconnected and the bus is free from
/// `free_ns` (a miss), reconnecting at the watermark. Returns when the last
/// block has crossed the bus, and appends to `busy` the stretches the drive
/// holds the bus for it from `connect_ns` (or its first reconnection) on:
/// connected, no other command can reach the drive (DiskSim's bus is the
/// drive's until it disconnects). `marks` gets, for each stretch the drive
/// connects for, the blocks sent before it: where [`resend`] takes the
/// sending up again.
pub fn send(
    sending: &Sending,
    connect_ns: Option<f64>,
    free_ns: f64,
    busy: &mut Vec<(f64, f64)>,
    marks: &mut Vec<u64>,
) -> f64 {
    let Sending { spans, n, watermark, costs: c, blocked } = *sending;
    if n == 0 || spans.is_empty() {
        return connect_ns.unwrap_or(free_ns);
    }
    let w = watermark.max(1);
    if instant(c, w) {
        // an instant bus that costs nothing to come back to (or never
        // leaves): each block crosses as it comes in
        let last = spans.iter().map(|s| s.ready_ns(s.end() - 1)).fold(f64::NEG_INFINITY, f64::max);
        let first = match connect_ns {
            Some(t) => t,
            None => clear_of(blocked, reconnect_want(spans, (0, 0), 0, n, w, free_ns)) + c.reconnect_ns,
        };
        // a block that comes in while an arriving command holds the bus
        // crosses when it lets go (never while holding: none can arrive)
        let end = if first >= last || c.hold { first.max(last) } else { clear_of(blocked, last) };
        // holding the bus, it is the drive's to the end; else only for the
        // instant of each crossing, which no command can fall into
        if c.hold {
            busy.push((first - c.reconnect_ns, end));
            marks.push(0);
        }
        return end;
    }
    let t = connect_ns.unwrap_or(free_ns);
    sweep(sending, 0, t, connect_ns.is_some(), busy, marks, None).0
}

/// When the drive wants the bus back for the connection that follows
/// `sent` blocks, the bus free from `free_ns`: once `watermark` more blocks
/// (or all the rest) are in, command phases aside (as [`send`] reconnects;
/// an instant bus records a connection only when it holds the bus, from
/// its first reconnection).
pub fn wants(sending: &Sending, sent: u64, free_ns: f64) -> f64 {
    let Sending { spans, n, watermark, .. } = *sending;
    let (si, off) = span_holding(spans, sent);
    if si == spans.len() || sent >= n {
        return free_ns;
    }
    reconnect_want(spans, (si, off), sent, n, watermark.max(1), free_ns)
}

/// The span holding block `sent` of the request (`spans.len()` past the
/// last), and the block's offset there.
fn span_holding(spans: &[Span], sent: u64) -> (usize, u64) {
    let (mut si, mut off) = (0usize, sent);
    while si < spans.len() && off >= spans[si].count {
        off -= spans[si].count;
        si += 1;
    }
    (si, off)
}

/// When the drive, disconnected with `sent` of `n` blocks sent (block
/// `sent` at `at` in `spans`) and the bus free from `free_ns`, wants to
/// reconnect: once `w` more blocks (or all the rest) are in.
fn reconnect_want(spans: &[Span], at: (usize, u64), sent: u64, n: u64, w: u64, free_ns: f64) -> f64 {
    let target = (sent + w).min(n) - 1;
    free_ns.max(ready_at(spans, at.0, at.1, target - sent))
}

/// Whether [`send`] takes the instant bus's shortcut: it records no
/// connections to take up again, so [`resend`] cannot resume it (plan it
/// again in full).
pub fn instant(c: &BusCosts, watermark: u64) -> bool {
    c.xfer_ns == 0.0 && (c.hold || (watermark.max(1) == 1 && c.disconnect_ns == 0.0 && c.reconnect_ns == 0.0))
}

/// A sending planned before: its stretches and marks from some connection
/// on, and the time its last block crossed.
pub type OldPlan<'a> = (&'a [(f64, f64)], &'a [u64], f64);

/// [`send`] taken up again where `sent` blocks have crossed and the bus is
/// the drive's to take from `free_ns` (a new command phase in `blocked`
/// since), into `busy` and `marks`, until it meets again the sending planned
/// before, `old` (the stretches and marks from there on, and the end they
/// came to). Returns the end, and where in `old` it met it (the rest of
/// `old` stands; `None`: it did not, and `busy` holds the whole rest). Not
/// for an instant bus ([`instant`]).
pub fn resend(
    sending: &Sending,
    sent: u64,
    free_ns: f64,
    busy: &mut Vec<(f64, f64)>,
    marks: &mut Vec<u64>,
    old: OldPlan,
) -> (f64, Option<usize>) {
    sweep(sending, sent, free_ns, false, busy, marks, Some(old))
}

/// The sending from `sent` blocks on, the bus next free at `t` (connected
/// or not); see [`send`] and [`resend`].
fn sweep(
    sending: &Sending,
    mut sent: u64,
    mut t: f64,
    mut connected: bool,
    busy: &mut Vec<(f64, f64)>,
    marks: &mut Vec<u64>,
    old: Option<OldPlan>,
) -> (f64, Option<usize>) {
    let Sending { spans, n, watermark, costs: c, blocked } = *sending;
    let w = watermark.max(1);
    let x = c.xfer_ns;
    // sent: blocks sent so far; t: when the bus is next free (connected);
    // since: when the current connection began; mark: blocks sent before it
    let mut since = t;
    let mut mark = sent;
    // the span holding block `sent`, and its offset there
    let (mut si, mut off) = span_holding(spans, sent);
    // the first old stretch not begun before `since`
    let mut oi = 0usize;
    // a bus faster than the media that reconnects for every block at no
    // cost: a block the bus is free for when it comes in crosses alone (not
    // while meeting an old plan again, which is looked for at reconnections)
    let trickle = w == 1 && c.reconnect_ns == 0.0 && c.disconnect_ns == 0.0 && !c.hold && old.is_none();
    while sent < n {
        if !connected && trickle {
            // the steps below for such a block, without their division
            let s = &spans[si];
            let ready = s.ready_ns(s.lba + off);
            let b = blocked.partition_point(|&(_, to)| to <= ready);
            if s.sector_ns > x && t <= ready && blocked.get(b).is_none_or(|&(from, _)| from > ready) {
                since = ready;
                mark = sent;
                t = ready + x;
                sent += 1;
                off += 1;
                if off == s.count {
                    si += 1;
                    off = 0;
                    if si == spans.len() {
                        break;
                    }
                }
                if sent < n {
                    let s = &spans[si];
                    if s.ready_ns(s.lba + off) > t {
                        busy.push((since, t));
                        marks.push(mark);
                    } else {
                        connected = true;
                    }
                }
                continue;
            }
        }
        if !connected {
            // reconnect once `w` more blocks (or all the rest) are in
            since = clear_of(blocked, reconnect_want(spans, (si, off), sent, n, w, t));
            if let Some((stretches, old_marks, end)) = old {
                // met the old sending again: the rest is as planned
                while oi < stretches.len() && stretches[oi].0 < since {
                    oi += 1;
                }
                if oi < old_marks.len() && stretches[oi].0 == since && old_marks[oi] == sent {
                    return (end, Some(oi));
                }
            }
            t = since + c.reconnect_ns;
            connected = true;
            mark = sent;
        }
        let s = &spans[si];
        let i = s.lba + off;
        let r = s.ready_ns(i);
        if r > t {
            // caught up with the media: wait connected, or disconnect
            if c.hold {
                t = r;
            } else {
                t += c.disconnect_ns;
                busy.push((since, t));
                marks.push(mark);
                connected = false;
                continue;
            }
        }
        // send back to back from block i: the blocks of this span that are
        // in by the time the bus reaches them
        let left = s.count - off;
        let m = if s.sector_ns <= x {
            left
        } else {
            // block i+j is in at r + j·q and would be sent from t + j·x
            let j = ((t - r) / (s.sector_ns - x)) as u64 + 1;
            j.min(left)
        };
        t += m as f64 * x;
        sent += m;
        off += m;
        if off == s.count {
            si += 1;
            off = 0;
            if si == spans.len() {
                break;
            }
        }
    }
    busy.push((since, t));
    marks.push(mark);
    (t, None)
}

/// `t`, or the end of the stretches of `blocked` (in time order, disjoint)
/// it falls in, one after another.
pub fn clear_of(blocked: &[(f64, f64)], t: f64) -> f64 {
    let mut i = blocked.partition_point(|&(from, _)| from <= t).saturating_sub(1);
    let mut a = t;
    while let Some(&(from, to)) = blocked.get(i) {
        if from > a {
            break;
        }
        if a < to {
            a = to;
        }
        i += 1;
    }
    a
}

/// When the block `ahead` blocks after (span `si`, offset `off`) is in.
fn ready_at(spans: &[Span], mut si: usize, off: u64, ahead: u64) -> f64 {
    let mut k = off + ahead;
    while si < spans.len() {
        let s = &spans[si];
        if k < s.count {
            return s.ready_ns(s.lba + k);
        }
        k -= s.count;
        si += 1;
    }
    spans.last().map_or(0.0, |s| s.ready_ns(s.end() - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(lba: u64, count: u64, start: f64, q: f64) -> Span {
        Span { lba, count, start_ns: start, sector_ns: q }
    }

    /// [`send`] of all the blocks of `spans`, no command phases in the way,
    /// the bus free from 0.
    fn sent(
        spans: &[Span],
        watermark: u64,
        c: &BusCosts,
        connect: Option<f64>,
        busy: &mut Vec<(f64, f64)>,
    ) -> f64 {
        let n = spans.iter().map(|s| s.count).sum();
        let sending = Sending { spans, n, watermark, costs: c, blocked: &[] };
        send(&sending, connect, 0.0, busy, &mut Vec::new())
    }

    #[test]
    fn a_slow_bus_is_the_bottleneck_after_the_first_block() {
        // media 1 per 10, bus 1 per 15: block 0 in at 10, sent by 25, …
        let c = BusCosts { xfer_ns: 15.0, ..Default::default() };
        let t = sent(&[span(0, 10, 0.0, 10.0)], 1, &c, None, &mut Vec::new());
        assert_eq!(t, 10.0 + 10.0 * 15.0);
    }

    #[test]
    fn a_fast_bus_follows_the_media_and_pays_each_reconnect() {
        // media 1 per 10, bus 1 per 1, watermark 4: reconnect at 40 (+5),
        // send 4 (+4) → 49; blocks 4.. in at 50, 60, ...; caught up → disconnect
        // (+2) and wait for 4 more: block 7 in at 80 → 85, send 8..: ...
        let c = BusCosts { xfer_ns: 1.0, disconnect_ns: 2.0, reconnect_ns: 5.0, hold: false };
        let mut busy = Vec::new();
        let t = sent(&[span(0, 8, 0.0, 10.0)], 4, &c, None, &mut busy);
        // first connection: at 45 sends blocks 0..3 (49); block 4 in at 50 > 49:
        // disconnect 51; reconnect when block 7 in (80) + 5 = 85; sends 4..7 → 89
        assert_eq!(t, 89.0);
        // the bus is the drive's from each reconnection's start to its disconnect
        assert_eq!(busy, [(40.0, 51.0), (80.0, 89.0)]);
        // with no overheads and watermark 1 the last block leaves as it comes in
        let z = BusCosts { xfer_ns: 1.0, ..Default::default() };
        assert_eq!(sent(&[span(0, 8, 0.0, 10.0)], 1, &z, None, &mut Vec::new()), 81.0);
        // an instant bus: the last block crosses the moment it is in
        let i = BusCosts::default();
        assert_eq!(sent(&[span(0, 8, 0.0, 10.0)], 1, &i, None, &mut Vec::new()), 80.0);
        assert_eq!(sent(&[span(0, 8, 0.0, 10.0)], 1, &i, Some(95.0), &mut Vec::new()), 95.0);
        // holding the bus: reconnect once, at the watermark, then wait
        let h = BusCosts { reconnect_ns: 5.0, hold: true, ..Default::default() };
        let mut busy = Vec::new();
        assert_eq!(sent(&[span(0, 8, 0.0, 10.0)], 4, &h, None, &mut busy), 80.0);
        // held from the reconnection (block 3 in at 40) to the last block
        assert_eq!(busy, [(40.0, 80.0)]);
        assert_eq!(sent(&[span(0, 2, 0.0, 10.0)], 4, &h, None, &mut Vec::new()), 25.0);
    }

    #[test]
    fn a_hit_is_sent_from_the_connection() {
        let c = BusCosts { xfer_ns: 2.0, ..Default::default() };
        // all 5 blocks already in
        let mut busy = Vec::new();
        let t = sent(&[span(100, 5, 0.0, 0.0)], 1, &c, Some(30.0), &mut busy);
        assert_eq!(t, 40.0);
        assert_eq!(busy, [(30.0, 40.0)]);
    }

    #[test]
    fn the_trickle_shortcut_sends_as_the_general_steps_do() {
        // `send` takes a block that the bus is free for when it comes in
        // (no reconnect or disconnect cost, watermark 1) without the general
        // steps; `resend` against an old plan it never meets takes none:
        // both must give the same stretches, marks and end, to the bit, over
        // spans slower and faster than the bus, a span already in, and
        // command phases in the way
        let c = BusCosts { xfer_ns: 1.7, ..Default::default() };
        let mut x = 7u64;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for case in 0..200 {
            let mut spans = Vec::new();
            let (mut lba, mut at) = (1000u64, 100.0 + next(50) as f64);
            for k in 0..1 + next(4) {
                let count = 1 + next(40);
                let q = match (case + k) % 4 {
                    0 => 0.0,
                    1 => 1.0 + next(10) as f64 / 10.0,
                    _ => 2.0 + next(80) as f64 / 10.0,
                };
                spans.push(span(lba, count, at, q));
                lba += count;
                at += count as f64 * q + next(30) as f64;
            }
            let n: u64 = spans.iter().map(|s| s.count).sum();
            let mut blocked = Vec::new();
            let mut b = 90.0;
            for _ in 0..next(4) {
                b += next(150) as f64 / 3.0;
                let to = b + 1.0 + next(20) as f64;
                blocked.push((b, to));
                b = to;
            }
            let free = 95.0 + next(40) as f64;
            let sending = Sending { spans: &spans, n, watermark: 1, costs: &c, blocked: &blocked };
            let (mut busy, mut marks) = (Vec::new(), Vec::new());
            let end = send(&sending, None, free, &mut busy, &mut marks);
            let (mut busy2, mut marks2) = (Vec::new(), Vec::new());
            let (end2, met) = resend(&sending, 0, free, &mut busy2, &mut marks2, (&[], &[], 0.0));
            assert_eq!(met, None);
            assert_eq!(end.to_bits(), end2.to_bits(), "case {case}");
            assert_eq!(busy, busy2, "case {case}");
            assert_eq!(marks, marks2, "case {case}");
        }
    }
}
