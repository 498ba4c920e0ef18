//! Linux on-demand readahead (2.6.24, 3.10, 3.12), algorithms.md §1.3.
//! STUB: to be written.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};
use crate::config::LinuxVariant;

pub struct OnDemand {
    max: u64,
    variant: LinuxVariant,
}

impl OnDemand {
    pub fn new(max: u64, variant: LinuxVariant) -> Self {
        OnDemand { max, variant }
    }
}

impl Readahead for OnDemand {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        let _ = (self.max, self.variant);
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages, 0), WindowKind::Sync);
        }
    }
}
