//! The next staged tile's source, asked for while a tile streams out ([`NextTile`]: the staged
//! tiles of `staged`).

use super::line_walk::prefetch;

/// The next staged tile's source, asked for a row's share at a time while a tile's rows stream
/// out: its runs (`runs` of `len` elements, `stride` apart from `start`), walked as one block of
/// lines where they lie back to back. Walked run by run, the loop's per-run bounds took 17 % of
/// a u8 NHWC→NCHW pass at 256 MiB on one thread (`perf`), its runs one line each. On an AMD EPYC
/// (Zen 3), a scratch loop of `convert` (best of 5 calls), run by run → as one block, old and
/// new alternating three or four times, C = 64: u8 at 256 MiB one thread 10.4–11.4 →
/// 12.1–13.3 GB/s, two threads 19.3–20.1 → 21.9–25.5; f16 11.0–12.8 → 15.6–16.4 and
/// 23.0–24.9 → 23.0–28.7; f32 15.3–17.2 → 13.4–17.7 and 25.6–27.1 → 23.8–28.2 (even); at
/// 16 MiB two threads u8 18.7–19.3 → 23.1–23.6, f16 19.6–22.5 → 24.8–26.5. The near runs
/// (C = 128) kept their walk, now with one bounds check a run: two threads u8 11.6–14.2 →
/// 10.8–14.9, f16 11.8–12.6 → 13.7–14.0.
pub(super) struct NextTile {
    /// The first element of the first run.
    start: usize,
    /// Runs (or, as one block, lines) a row asks for.
    share: usize,
    /// How many of them, all rows together.
    count: usize,
    /// Elements from one piece's start to the next (a run's stride, or a line).
    step: usize,
    /// Elements of a piece (a run, or a line).
    len: usize,
    /// Elements of a cache line.
    line: usize,
}

impl NextTile {
    /// The tile of `[runs, len, stride]` from `start`, shared among `rows` rows.
    pub(super) fn new(start: usize, [runs, len, stride]: [usize; 3], rows: usize, line: usize) -> Self {
        let (count, step, len) = match len == stride {
            true => ((runs * len).div_ceil(line), line, line),
            false => (runs, stride, len),
        };
        Self { start, share: count.div_ceil(rows.max(1)), count, step, len, line }
    }

    /// Prefetches row `r`'s share of the tile's lines (none past `src`'s end).
    pub(super) fn prefetch_share<T>(&self, src: &[T], r: usize) {
        let pieces = (r * self.share).min(self.count)..((r + 1) * self.share).min(self.count);
        if pieces.is_empty() {
            return;
        }
        if self.step == self.len {
            // One block: the share's lines back to back.
            let from = (self.start + pieces.start * self.step).min(src.len());
            let to = (self.start + pieces.end * self.step).min(src.len());
            src[from..to].iter().step_by(self.line).for_each(prefetch);
            return;
        }
        for k in pieces {
            let from = (self.start + k * self.step).min(src.len());
            let to = (from + self.len).min(src.len());
            src[from..to].iter().step_by(self.line).for_each(prefetch);
        }
    }
}
