//! IPODS, pipelined informed prefetching from HDD to SSD to the client cache
//! (Al Assaf et al.; algorithms.md §8.2, decisions.md 8–9): the planning
//! figures and the paper's own step-level model of a run.
//!
//! * [`plan`] gives what IPODS derives before it starts — the pipeline depth
//!   `Max_BW − X_cache` (Eq. 1), `Pstart` (Algorithm 1: the first hinted
//!   block an HDD → SSD copy can bring to the SSD before the application
//!   needs it), the `Pnext` offset (Algorithm 2: when pipelined block `b` is
//!   consumed, the next block to pipeline is `b + offset`), TIP's prefetch
//!   horizon on the HDD path `⌈T_hdd-net / T_unit⌉` and "Max_BW needed",
//!   `⌈(T_hdd-net + T_hdd-ss + T_ss-net) / T_unit⌉` (the paper's 354, which
//!   it does not derive; algorithms.md gives this reading).
//! * [`timeline`] is the model of the paper's Fig. 2, one hinted block per
//!   access: TIP keeps `X_cache` client fetches in flight (block `i +
//!   X_cache` is fetched when block `i` is consumed), a fetch takes
//!   `T_ss-net` when the block's SSD copy has arrived by then and
//!   `T_hdd-net` otherwise, and access `i` is due `T_unit` after access
//!   `i − 1` was consumed (access 1 at `T_unit`); a stall is the wait past
//!   that. The pipeline copies blocks `Pstart … Pstart + depth − 1` at time
//!   0 (taking `T_hdd-ss`), and each time a pipelined block is consumed it
//!   copies the block `offset` further on unless that one was copied
//!   already. Choice: a pipelined block whose copy came too late (fetched
//!   from the HDD) still hands its pipeline slot on, so the depth holds.
//!   Without IPODS (`ipods = false`) every fetch is from the HDD: TIP alone.
//!
//! Times are integer nanoseconds, so the loops compare exactly (the
//! paper's 0.037 s steps summed as floats would not).

use crate::error::{Error, Result};

/// The most accesses the planning loops walk before giving up (a `T_unit`
/// too small for the latencies).
const MAX_PLAN_STEPS: u64 = 100_000_000;

/// The most hinted blocks [`timeline`] follows (it keeps every block's times).
pub const MAX_TIMELINE_BLOCKS: u64 = 10_000_000;

/// IPODS's parameters, named as in the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Concurrent read requests the storage system sustains.
    pub max_bw: u32,
    /// Prefetch buffers TIP uses at the client (concurrent client fetches).
    pub x_cache: u32,
    /// Time per access between reads: `T_cpu + T_hit + T_driver`.
    pub t_unit_ns: u64,
    /// HDD → network → client cache.
    pub t_hdd_net_ns: u64,
    /// SSD → network → client cache (also `T_consume-ss`).
    pub t_ss_net_ns: u64,
    /// HDD → SSD inside a storage node.
    pub t_hdd_ss_ns: u64,
}

impl Params {
    /// The device times of the paper's simulation (§5: 200 MB blocks,
    /// `T_unit` 0.037 s, HDD → client 4.43 s, SSD → client 4.158 s, HDD → SSD
    /// 4.5 s) with the given `Max_BW` and `X_cache`.
    pub fn paper(max_bw: u32, x_cache: u32) -> Params {
        Params {
            max_bw,
            x_cache,
            t_unit_ns: 37_000_000,
            t_hdd_net_ns: 4_430_000_000,
            t_ss_net_ns: 4_158_000_000,
            t_hdd_ss_ns: 4_500_000_000,
        }
    }

    /// Checks the parameters; errors name the parameter.
    pub fn check(&self) -> Result<()> {
        if self.max_bw == 0 {
            return Err(Error::config("max_bw", "the storage system sustains at least 1 request, got 0"));
        }
        if self.x_cache == 0 {
            return Err(Error::config("x_cache", "TIP needs at least 1 prefetch buffer, got 0"));
        }
        if self.x_cache > self.max_bw {
            return Err(Error::config(
                "x_cache",
                format!(
                    "TIP's {} concurrent fetches exceed max_bw = {}: the pipeline depth max_bw − x_cache \
                     would be negative",
                    self.x_cache, self.max_bw
                ),
            ));
        }
        for (key, v) in [
            ("t_unit", self.t_unit_ns),
            ("t_hdd_net", self.t_hdd_net_ns),
            ("t_ss_net", self.t_ss_net_ns),
            ("t_hdd_ss", self.t_hdd_ss_ns),
        ] {
            if v == 0 {
                return Err(Error::config(key, "must be more than 0 s"));
            }
        }
        let total = self.t_hdd_net_ns.saturating_add(self.t_hdd_ss_ns).saturating_add(self.t_ss_net_ns);
        if total / self.t_unit_ns > MAX_PLAN_STEPS {
            return Err(Error::config(
                "t_unit",
                format!(
                    "{} ns per access against {} ns of latencies: more than {MAX_PLAN_STEPS} accesses ahead",
                    self.t_unit_ns, total
                ),
            ));
        }
        Ok(())
    }

    /// Parameters from durations as text (`"0.037s"`, `"37ms"`), in the
    /// order `t_unit`, `t_hdd_net`, `t_ss_net`, `t_hdd_ss`; checked.
    pub fn parse(max_bw: u32, x_cache: u32, times: [&str; 4]) -> Result<Params> {
        let keys = ["t_unit", "t_hdd_net", "t_ss_net", "t_hdd_ss"];
        let mut ns = [0u64; 4];
        for i in 0..4 {
            ns[i] = crate::units::parse_duration(times[i]).map_err(|m| Error::config(keys[i], m))?;
        }
        let p = Params {
            max_bw,
            x_cache,
            t_unit_ns: ns[0],
            t_hdd_net_ns: ns[1],
            t_ss_net_ns: ns[2],
            t_hdd_ss_ns: ns[3],
        };
        p.check()?;
        Ok(p)
    }

    /// `T_stall-ss(X_cache)`: the stall per group of `X_cache` accesses
    /// served from the SSD, 0 when the fetches overlap it all.
    pub fn stall_ss_ns(&self) -> u64 {
        self.t_ss_net_ns.saturating_sub(self.x_cache as u64 * self.t_unit_ns)
    }

    /// Algorithms 1 and 2: walks the application's access clock as if
    /// every block were on the SSD (starting at `−T_unit`, one `T_unit` per
    /// access, a `T_stall-ss` after every `X_cache` accesses) and returns
    /// the first access `k` at which the clock reaches `target_ns` (`k + 1`
    /// when a stall step reaches it).
    fn accesses_until(&self, target_ns: u64) -> u64 {
        let stall = self.stall_ss_ns();
        let x = self.x_cache as u64;
        // the clock in ns plus one T_unit, so that it starts at 0
        let mut clock = 0u64;
        let mut k = 0u64;
        loop {
            k += 1;
            if clock >= target_ns {
                return k;
            }
            if k.is_multiple_of(x) {
                clock += stall;
                if clock >= target_ns {
                    return k + 1;
                }
            }
            clock += self.t_unit_ns;
        }
    }
}

/// What IPODS derives from its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The first hinted block copied HDD → SSD (blocks count from 1).
    pub pstart: u64,
    /// When pipelined block `b` is consumed, block `b + pnext_offset` is copied.
    pub pnext_offset: u64,
    /// Concurrent HDD → SSD copies, `Max_BW − X_cache`.
    pub depth: u64,
    /// TIP's prefetch horizon on the HDD path, `⌈T_hdd-net / T_unit⌉`.
    pub horizon_hdd: u64,
    /// `⌈(T_hdd-net + T_hdd-ss + T_ss-net) / T_unit⌉`: the Max_BW at which
    /// every latency is hidden.
    pub max_bw_needed: u64,
}

/// The plan of `p` (checked).
pub fn plan(p: &Params) -> Result<Plan> {
    p.check()?;
    let pstart = p.accesses_until(p.t_hdd_ss_ns);
    let pnext = p.accesses_until(p.t_hdd_ss_ns + p.t_ss_net_ns);
    let total = p.t_hdd_net_ns + p.t_hdd_ss_ns + p.t_ss_net_ns;
    Ok(Plan {
        pstart,
        pnext_offset: pnext - 1,
        depth: (p.max_bw - p.x_cache) as u64,
        horizon_hdd: p.t_hdd_net_ns.div_ceil(p.t_unit_ns),
        max_bw_needed: total.div_ceil(p.t_unit_ns),
    })
}

/// Where a client fetch read its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Ssd,
    Hdd,
}

/// One hinted block's way in the step-level model (blocks count from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub block: u64,
    pub fetch_ns: u64,
    pub source: Source,
    pub arrival_ns: u64,
    pub consumed_ns: u64,
    pub stall_ns: u64,
}

/// One HDD → SSD copy of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy {
    pub block: u64,
    pub start_ns: u64,
    pub arrival_ns: u64,
}

/// A run of the step-level model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    pub accesses: Vec<Access>,
    pub copies: Vec<Copy>,
    /// When the last block was consumed.
    pub elapsed_ns: u64,
    pub stall_ns: u64,
}

/// The model of the module doc over `blocks` hinted blocks, with the
/// pipeline (`ipods`) or TIP alone.
pub fn timeline(p: &Params, blocks: u64, ipods: bool) -> Result<Timeline> {
    let plan = plan(p)?;
    if blocks > MAX_TIMELINE_BLOCKS {
        return Err(Error::config(
            "blocks",
            format!("the step-level model follows at most {MAX_TIMELINE_BLOCKS} blocks, got {blocks}"),
        ));
    }
    let n = blocks as usize;
    let x = p.x_cache as usize;
    // when each block's SSD copy arrives (u64::MAX: never copied)
    let mut on_ssd = vec![u64::MAX; n + 1];
    let mut copies = Vec::new();
    let mut copy = |b: u64, at: u64, on_ssd: &mut Vec<u64>| {
        if (b as usize) <= n && on_ssd[b as usize] == u64::MAX {
            on_ssd[b as usize] = at + p.t_hdd_ss_ns;
            copies.push(Copy { block: b, start_ns: at, arrival_ns: at + p.t_hdd_ss_ns });
        }
    };
    if ipods {
        for b in plan.pstart..plan.pstart + plan.depth {
            copy(b, 0, &mut on_ssd);
        }
    }
    let mut accesses: Vec<Access> = Vec::with_capacity(n);
    let (mut consumed, mut stall_total) = (0u64, 0u64);
    for i in 1..=n {
        let fetch = if i <= x { 0 } else { accesses[i - x - 1].consumed_ns };
        let (source, took) =
            if on_ssd[i] <= fetch { (Source::Ssd, p.t_ss_net_ns) } else { (Source::Hdd, p.t_hdd_net_ns) };
        let arrival = fetch + took;
        let due = consumed + p.t_unit_ns;
        let at = arrival.max(due);
        let stall = at - due;
        stall_total += stall;
        consumed = at;
        accesses.push(Access {
            block: i as u64,
            fetch_ns: fetch,
            source,
            arrival_ns: arrival,
            consumed_ns: at,
            stall_ns: stall,
        });
        if ipods && on_ssd[i] != u64::MAX {
            copy(i as u64 + plan.pnext_offset, at, &mut on_ssd);
        }
    }
    Ok(Timeline { accesses, copies, elapsed_ns: consumed, stall_ns: stall_total })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    /// [IPODS] Fig. 2: Max_BW 5, X_cache 2, T_unit 1, T_hdd-net 5, T_hdd-ss 8, T_ss-net 4.
    fn fig2() -> Params {
        Params {
            max_bw: 5,
            x_cache: 2,
            t_unit_ns: S,
            t_hdd_net_ns: 5 * S,
            t_ss_net_ns: 4 * S,
            t_hdd_ss_ns: 8 * S,
        }
    }

    #[test]
    fn the_pipeline_shortens_a_run_only_while_tip_alone_stalls() {
        let ipods = timeline(&Params::paper(15, 1), 2000, true).unwrap();
        let tip = timeline(&Params::paper(15, 1), 2000, false).unwrap();
        assert!(tip.accesses.iter().all(|a| a.source == Source::Hdd));
        assert!(ipods.elapsed_ns < tip.elapsed_ns, "{} vs {}", ipods.elapsed_ns, tip.elapsed_ns);
        // enough buffers hide the HDD: no stall left for the pipeline to remove
        let many = Params::paper(354, 130);
        let (a, b) = (timeline(&many, 2000, true).unwrap(), timeline(&many, 2000, false).unwrap());
        assert_eq!(b.stall_ns, b.accesses[0].stall_ns, "only the first access waits");
        assert!(a.elapsed_ns <= b.elapsed_ns);
    }

    #[test]
    fn parameters_parse_from_durations_with_units() {
        let p = Params::parse(5, 2, ["1s", "5s", "4s", "8000ms"]).unwrap();
        assert_eq!(p, fig2());
        let e = Params::parse(5, 2, ["1s", "5 parsecs", "4s", "8s"]).unwrap_err().to_string();
        assert!(e.contains("`t_hdd_net`") && e.contains("5 parsecs"), "{e}");
        assert!(Params::parse(5, 9, ["1s", "5s", "4s", "8s"]).is_err());
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = |p: Params| plan(&p).unwrap_err().to_string();
        assert!(e(Params { x_cache: 6, ..fig2() }).contains("`x_cache`"));
        assert!(e(Params { max_bw: 0, ..fig2() }).contains("`max_bw`"));
        assert!(e(Params { t_unit_ns: 0, ..fig2() }).contains("`t_unit`"));
        assert!(e(Params { t_ss_net_ns: 0, ..fig2() }).contains("`t_ss_net`"));
        assert!(e(Params { t_unit_ns: 1, ..fig2() }).contains("more than 100000000 accesses"));
    }
}
