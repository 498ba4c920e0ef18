//! Golden tests of IPODS's planning and its step-level model (issue 11):
//! the worked example of [IPODS] Fig. 2 and the figures the paper's own
//! parameters give (algorithms.md §8.2, "Golden test" and "Real-parameter
//! outputs").

use prefetchlab::policy::informed::ipods::{plan, timeline, Params, Source};

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
fn fig2_plan_starts_the_pipeline_at_block_5_and_steps_6_blocks() {
    let plan = plan(&fig2()).unwrap();
    assert_eq!((plan.pstart, plan.pnext_offset, plan.depth), (5, 6, 3));
    assert_eq!((plan.horizon_hdd, plan.max_bw_needed), (5, 17));
}

#[test]
fn the_papers_parameters_give_its_pstart_pnext_horizon_and_max_bw_needed() {
    let got: Vec<(u64, u64)> =
        (1..=5).map(|x| plan(&Params::paper(15, x)).map(|p| (p.pstart, p.pnext_offset)).unwrap()).collect();
    assert_eq!(got, vec![(3, 3), (5, 6), (7, 9), (9, 12), (11, 15)]);
    let p = plan(&Params::paper(15, 1)).unwrap();
    assert_eq!((p.depth, p.horizon_hdd, p.max_bw_needed), (14, 120, 354));
}

#[test]
fn fig2_timeline_consumes_at_5_6_10_11_14_15_18() {
    let t = timeline(&fig2(), 13, true).unwrap();
    let consumed: Vec<u64> = t.accesses.iter().map(|a| a.consumed_ns / S).collect();
    assert_eq!(&consumed[..7], &[5, 6, 10, 11, 14, 15, 18]);
    let fetched: Vec<u64> = t.accesses.iter().map(|a| a.fetch_ns / S).collect();
    assert_eq!(&fetched[..9], &[0, 0, 5, 6, 10, 11, 14, 15, 18]);
    let ssd: Vec<u64> = t.accesses.iter().filter(|a| a.source == Source::Ssd).map(|a| a.block).collect();
    assert_eq!(ssd, vec![5, 6, 7, 11, 12, 13]);
    assert_eq!(t.accesses[7].arrival_ns, 20 * S, "block 8 from the HDD arrives at 20");
    // blocks 5, 6, 7 copied at 0, on the SSD at 8; then 11, 12, 13 as 5, 6, 7 are consumed
    let copies: Vec<(u64, u64, u64)> =
        t.copies.iter().map(|c| (c.block, c.start_ns / S, c.arrival_ns / S)).collect();
    assert_eq!(copies, vec![(5, 0, 8), (6, 0, 8), (7, 0, 8), (11, 14, 22), (12, 15, 23), (13, 18, 26)]);
    // stalls: 3 per two accesses from the HDD, 2 per two from the SSD
    let stalls: Vec<u64> = t.accesses.iter().map(|a| a.stall_ns / S).collect();
    assert_eq!(&stalls[..7], &[4, 0, 3, 0, 2, 0, 2]);
}
