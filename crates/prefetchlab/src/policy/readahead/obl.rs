//! OBL (one-block lookahead), algorithms.md §2; miss-triggered (decisions.md #6f).
//! STUB: to be written.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};

#[derive(Default)]
pub struct Obl;

impl Readahead for Obl {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages + 1, 0), WindowKind::Sync);
        }
    }
}
