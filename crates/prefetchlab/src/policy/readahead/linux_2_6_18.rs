//! Linux 2.6.18 readahead (current + ahead window), algorithms.md §1.2.
//! STUB: to be written.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};

pub struct Linux2618 {
    max: u64,
}

impl Linux2618 {
    pub fn new(max: u64) -> Self {
        Linux2618 { max }
    }
}

impl Readahead for Linux2618 {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        let _ = self.max;
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages, 0), WindowKind::Sync);
        }
    }
}
