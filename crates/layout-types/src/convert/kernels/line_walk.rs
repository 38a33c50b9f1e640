//! Prefetching a tile's near-side cache lines in address order while the previous tile runs.

use super::CACHE_LINE;

/// Lines of a tile on one side: `count` runs of `span` elements, `stride` apart from `first`.
#[derive(Clone, Copy)]
pub(super) struct Lines {
    pub(super) first: usize,
    pub(super) stride: usize,
    pub(super) count: usize,
    pub(super) span: usize,
}

/// The cache lines of a tile's near side, in address order: prefetched a few per block while
/// the previous tile runs, so they are in cache before its sweep starts.
///
/// Without it the sweep first touches those lines one per step, [`BLOCK`](super::BLOCK) rows apart: a
/// pattern that neither the hardware prefetcher nor the DRAM row buffers follow well (measured,
/// 256 MiB f32 NCHW→NHWC, one thread: writing a 256 KiB tile's rows band by band ran at 8 GB/s,
/// in address order at 18; the conversion went from 0.46 of a memcpy to 0.65).
pub(super) struct LineWalk {
    lines: Lines,
    /// Elements per cache line, and where index 0 sits within its line.
    per_line: usize,
    pub(super) skew: usize,
    /// Cache lines to prefetch per block.
    pub(super) per_block: usize,
    /// The next line and the element in it to yield.
    line: usize,
    at: usize,
}

impl LineWalk {
    /// A walk over `lines` of a buffer of `T` whose element 0 is at `address`, spread over
    /// `blocks` blocks.
    pub(super) fn new<T>(lines: Lines, blocks: usize, address: usize) -> Self {
        let size = core::mem::size_of::<T>();
        // A power of two: every element size is one (1, 2, 4 or 8 bytes), so `next` finds a
        // line's end with a mask, not a division (a division there, once the walk was no longer
        // inlined with its constants, made streamed NHWC→NCHW planes at 16 MiB a third slower).
        // Were it not, the walk would prefetch the wrong lines: slower, never wrong.
        let per_line = (CACHE_LINE / size).max(1);
        debug_assert!(per_line.is_power_of_two(), "{size}-byte elements");
        let skew = (address / size.max(1)) % per_line;
        let lines_per_run = (lines.span + per_line).div_ceil(per_line);
        // Done half-way through the tile, so the last lines are in before they are needed.
        let per_block = (2 * lines.count * lines_per_run).div_ceil(blocks.max(1));
        LineWalk { lines, per_line, skew, per_block, line: 0, at: lines.first }
    }

    /// Prefetches the next `per_block` cache lines of `buf` (the buffer whose address `new` was
    /// given).
    #[inline(always)]
    pub(super) fn step<T>(&mut self, buf: &[T]) {
        self.step_with(|at| {
            if let Some(x) = buf.get(at) {
                prefetch(x);
            }
        });
    }

    /// Calls `prefetch` with an element of each of the next `per_block` cache lines.
    #[inline(always)]
    pub(super) fn step_with(&mut self, mut prefetch: impl FnMut(usize)) {
        for _ in 0..self.per_block {
            let Some(at) = self.next() else { return };
            prefetch(at);
        }
    }
}

impl Iterator for LineWalk {
    type Item = usize;

    /// One element index in each cache line of the lines, in order.
    fn next(&mut self) -> Option<usize> {
        let Lines { first, stride, count, span } = self.lines;
        if self.line >= count || span == 0 {
            return None;
        }
        let at = self.at;
        let end = first + self.line * stride + span;
        let boundary = ((at + self.skew) & !(self.per_line - 1)) + self.per_line - self.skew;
        if boundary < end {
            self.at = boundary;
        } else {
            self.line += 1;
            self.at = first + self.line * stride;
        }
        Some(at)
    }
}

/// Asks for the cache line holding `x` (a hint: no effect on results).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
