//! The didactic synchronous SEQP of [TC09] Fig. 3 (decisions.md #3).
//! STUB: to be written.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};
use crate::config::Growth;

pub struct Seqp {
    init: u64,
    growth: Growth,
    max: u64,
}

impl Seqp {
    pub fn new(init: u64, growth: Growth, max: u64) -> Self {
        Seqp { init, growth, max }
    }
}

impl Readahead for Seqp {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        let _ = (self.init, self.growth, self.max);
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages, 0), WindowKind::Sync);
        }
    }
}
