//! Strip alignment: one mechanism that wraps any window policy, shared by
//! SASEQP (algorithms.md §3.1) and SARA (§4.1–§4.2).
//!
//! [`StripAligned`] runs the wrapped policy unchanged, but hands it a context
//! whose [`RaContext::submit`] fits every window to the strips before it goes
//! out, and returns the fitted window. The policy then advances by the
//! actual window and grows the next one from its own uncut size — what
//! \[TC09\] needs for Fig. 4 (decisions.md #2) and \[IEICE13\] calls
//! `intact_size`. Without the wrapper the context returns the window as
//! given, so a plain policy behaves exactly as before.
//!
//! **The split point** (decisions.md #2b, §4.1 step 2): walking the window's
//! pages from `start + 1`, the first page that lies outside the strip of
//! `phys(start)`, or whose physical block does not follow the previous
//! page's (a fragmented file), is at offset `fs`; with none before the
//! window's end (or EOF) there is no split. The walk never goes past the
//! first strip, so it costs at most one strip of `bmap` lookups.
//!
//! Only windows that read ahead are fitted: a window that holds nothing past
//! the read's demand pages (the on-demand kernel's small random read, a
//! 2.6.18 random read) goes out as it is.
//!
//! **Fits**:
//! * [`Fit::Cut`] (SASEQP, basic SARA): the window shrinks to `fs` pages, but
//!   never below the demand pages it holds (decisions.md #2c; \[IEICE13\]'s
//!   `req_size` floor).
//! * [`Fit::Extend`] (extended SARA, §4.2): with a split, the window grows to
//!   `size + fs`, so it ends on the strip boundary after its split and the
//!   next window starts aligned. `aligned = true` is the literal reading
//!   (decisions.md #4d, `sara.extend_aligned`): an aligned window longer than
//!   one strip is extended by a whole strip too; `false` extends only on a
//!   partial leading fragment (`fs` below a strip) or a physical
//!   discontinuity.
//!
//! **The marker** moves with the window: the part before the marker (the
//! synchronous part, `size − async_size`) is kept, so an async window
//! (`async_size = size`) stays all async with the marker on its first page,
//! and an initial window keeps `async_size = size − req` if `size > req`,
//! else `size` (decisions.md #4c). A window without a marker keeps none.

use super::{PageStatus, RaContext, RaDeviceState, Readahead, Submitted, Window, WindowKind};

/// How a window is fitted to the strips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Shrink to the end of the first strip (SASEQP, basic SARA).
    Cut,
    /// Grow by the first strip's part (extended SARA).
    Extend { aligned: bool },
}

/// A window policy whose windows are fitted to the strips below.
#[derive(Debug, Clone)]
pub struct StripAligned<P> {
    pub inner: P,
    fit: Fit,
    strip_pages: u64,
}

impl<P: Readahead> StripAligned<P> {
    /// `strip_pages` is the strip the fit aligns to (the array's, or SARA's
    /// `strip_kb`); at least 1.
    pub fn new(inner: P, fit: Fit, strip_pages: u64) -> Self {
        StripAligned { inner, fit, strip_pages: strip_pages.max(1) }
    }
}

impl<P: Readahead> Readahead for StripAligned<P> {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        let mut fitted = FitCtx {
            ctx,
            fit: self.fit,
            strip_pages: self.strip_pages,
            demand_start: index,
            demand_end: index + req_pages,
        };
        self.inner.on_page(&mut fitted, index, req_pages, status);
    }
    fn ignores_cached_pages(&self) -> bool {
        self.inner.ignores_cached_pages()
    }
    fn on_fallback_miss(&mut self, index: u64) {
        self.inner.on_fallback_miss(index)
    }
    fn on_read_end(&mut self, end_pos_bytes: u64) {
        self.inner.on_read_end(end_pos_bytes)
    }
    fn set_max_pages(&mut self, max_pages: u64) {
        self.inner.set_max_pages(max_pages)
    }
}

/// Where a window first leaves its first strip or its physical run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Pages before the split (`fs`), at least 1.
    pub offset_pages: u64,
    /// True when the split is a physical discontinuity, false when it is
    /// the strip boundary.
    pub discontiguous: bool,
}

/// The first split of `w` (see the module doc), or `None`.
pub fn first_split(ctx: &dyn RaContext, w: Window, strip_pages: u64) -> Option<Split> {
    let len = w.size.min(ctx.file_pages().saturating_sub(w.start));
    if len < 2 {
        return None;
    }
    let first = ctx.phys_block(w.start);
    let strip_left = strip_pages - first % strip_pages;
    let mut prev = first;
    for i in 1..len {
        if i == strip_left {
            return Some(Split { offset_pages: i, discontiguous: false });
        }
        let p = ctx.phys_block(w.start + i);
        if p != prev + 1 {
            return Some(Split { offset_pages: i, discontiguous: true });
        }
        prev = p;
    }
    None
}

/// `w` fitted to the strips; `demand` is the read's remaining pages
/// `[start, end)`, which a cut never leaves out.
pub fn fit_window(ctx: &dyn RaContext, w: Window, fit: Fit, strip_pages: u64, demand: (u64, u64)) -> Window {
    if w.start + w.size <= demand.1 {
        return w; // demand pages only (a random read): nothing read ahead to fit
    }
    let Some(split) = first_split(ctx, w, strip_pages) else {
        return w;
    };
    let end = w.start + w.size;
    let size = match fit {
        Fit::Cut => {
            let floor = if demand.0 < end && demand.1 > w.start { demand.1.min(end) - w.start } else { 0 };
            split.offset_pages.max(floor)
        }
        Fit::Extend { aligned } => {
            if aligned || split.discontiguous || split.offset_pages < strip_pages {
                w.size + split.offset_pages
            } else {
                w.size
            }
        }
    };
    if size == w.size {
        return w;
    }
    let sync_part = w.size - w.async_size.min(w.size);
    let async_size = if w.async_size == 0 {
        0
    } else if size > sync_part {
        size - sync_part
    } else {
        size
    };
    Window::new(w.start, size, async_size)
}

/// The context the wrapped policy sees: everything passes through, except
/// that a window is fitted before it is submitted.
struct FitCtx<'a, 'b> {
    ctx: &'a mut (dyn RaContext + 'b),
    fit: Fit,
    strip_pages: u64,
    demand_start: u64,
    demand_end: u64,
}

impl RaContext for FitCtx<'_, '_> {
    fn is_cached(&self, page: u64) -> bool {
        self.ctx.is_cached(page)
    }
    fn file_pages(&self) -> u64 {
        self.ctx.file_pages()
    }
    fn congested(&self) -> bool {
        self.ctx.congested()
    }
    fn phys_block(&self, page: u64) -> u64 {
        self.ctx.phys_block(page)
    }
    fn strip_blocks(&self) -> u64 {
        self.ctx.strip_blocks()
    }
    fn pending_ios_per_disk(&self) -> f64 {
        self.ctx.pending_ios_per_disk()
    }
    fn now_ns(&self) -> u64 {
        self.ctx.now_ns()
    }
    fn active_streams(&self) -> u32 {
        self.ctx.active_streams()
    }
    fn sane_max_pages(&self) -> u64 {
        self.ctx.sane_max_pages()
    }
    fn device_state(&mut self) -> &mut RaDeviceState {
        self.ctx.device_state()
    }
    fn submit(&mut self, w: Window, kind: WindowKind) -> Submitted {
        let fitted =
            fit_window(&*self.ctx, w, self.fit, self.strip_pages, (self.demand_start, self.demand_end));
        self.ctx.submit(fitted, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::MockFile;
    use super::*;

    fn fit(f: &MockFile, w: (u64, u64, u64), fit: Fit, demand: (u64, u64)) -> (u64, u64, u64) {
        let w = fit_window(f, Window::new(w.0, w.1, w.2), fit, f.strip_blocks, demand);
        (w.start, w.size, w.async_size)
    }

    #[test]
    fn cut_at_the_strip_end_keeps_an_async_window_async() {
        let f = MockFile::new(1000);
        assert_eq!(fit(&f, (12, 16, 16), Fit::Cut, (4, 6)), (12, 4, 4));
        // inside one strip: unchanged
        assert_eq!(fit(&f, (16, 16, 16), Fit::Cut, (4, 6)), (16, 16, 16));
    }

    #[test]
    fn cut_never_drops_demand_pages() {
        let f = MockFile::new(1000);
        // a sync window over demand [14, 20): the cut at 16 would leave 16..20 out
        assert_eq!(fit(&f, (14, 8, 2), Fit::Cut, (14, 20)), (14, 6, 6));
        // initial window of 8 pages for a 2-page read at 14: cut to the strip end
        assert_eq!(fit(&f, (14, 8, 6), Fit::Cut, (14, 16)), (14, 2, 2));
    }

    #[test]
    fn a_physical_discontinuity_splits_inside_a_strip() {
        let mut f = MockFile::new(1000);
        f.fragment_at(20, 100);
        assert_eq!(fit(&f, (16, 16, 16), Fit::Cut, (0, 2)), (16, 4, 4));
        assert_eq!(fit(&f, (16, 16, 16), Fit::Extend { aligned: false }, (0, 2)), (16, 20, 20));
    }

    #[test]
    fn extend_literal_and_partial_readings() {
        let f = MockFile::new(1000);
        // a partial leading fragment: both readings extend to the strip boundary
        assert_eq!(fit(&f, (12, 16, 16), Fit::Extend { aligned: true }, (0, 2)), (12, 20, 20));
        assert_eq!(fit(&f, (12, 16, 16), Fit::Extend { aligned: false }, (0, 2)), (12, 20, 20));
        // an aligned two-strip window: the literal reading adds a strip
        assert_eq!(fit(&f, (16, 32, 32), Fit::Extend { aligned: true }, (0, 2)), (16, 48, 48));
        assert_eq!(fit(&f, (16, 32, 32), Fit::Extend { aligned: false }, (0, 2)), (16, 32, 32));
    }

    #[test]
    fn no_split_before_eof_and_no_marker_kept_none() {
        let f = MockFile::new(14);
        assert_eq!(fit(&f, (12, 16, 16), Fit::Cut, (0, 2)), (12, 16, 16));
        let g = MockFile::new(100);
        assert_eq!(fit(&g, (12, 8, 0), Fit::Cut, (12, 13)), (12, 4, 0));
    }
}
