//! No prefetching (algorithms.md §2): fetch exactly the requested pages.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};

pub struct NoReadahead;

impl Readahead for NoReadahead {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages, 0), WindowKind::Sync);
        }
    }

    /// Only a missing page starts a read.
    fn ignores_cached_pages(&self) -> bool {
        true
    }
}
