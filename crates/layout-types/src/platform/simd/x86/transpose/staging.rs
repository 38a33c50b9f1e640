//! AVX-512's in-cache strips from source runs a multiple of 4 KiB apart (NCHW's and NCDHW's
//! channel planes), staged: the runs' lines are copied into tiles, [`GROUP`] neighbouring lines
//! of each run one after the other, and the strips read the tiles.
//!
//! Why: such runs share one set of the L1 data cache (64 sets of 64-byte lines, a 4 KiB
//! period), which holds 8 to 12 lines; a strip reads 16 to 64 of them, so read in place every
//! run missed L1 on every load, and the strip waited on them behind its shuffles. Copied, each
//! line is missed once, by loads nothing waits on, and a tile's lines fall in distinct sets.
//! Each load asks for the same run's line [`GROUP`] lines on into L2 (the next group's), for
//! more streams than the prefetchers follow. A run's neighbouring lines loaded one after the
//! other were faster than one line of each run in turn: the loop without the shuffles (u8
//! NCHW→NHWC at 1 MiB, C = 64, against a copy per thread in the same rounds, run twice) moved
//! 0.50–0.53 of the copy on one thread and 0.59 on two with one line a run, 0.60–0.61 and 0.67
//! with two, 0.64 and 0.74 with four. What the strips gained is in `BENCHMARKS.md` (step 29)
//! and at their walks: `avx512_bytes::band`, and the `band` of `super::strips!`.
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

use core::arch::x86_64::*;

use super::LINE;

/// Lines of each source run staged at once, where a band has them. Two took 1.04–1.12 × the
/// time of four (u8 NCHW→NHWC at 1 MiB, 20 000 calls a process, in turn with four eight
/// times); eight, tiles as large as L1, 1.28–1.46 ×.
pub(super) const GROUP: usize = 4;

/// [`GROUP`] tiles of `RUNS` lines: tile `l` holds line `l` of each of a group's source runs,
/// run `j` at `j * LINE` bytes from the tile's start.
pub(super) struct Tiles<const RUNS: usize>([[__m512i; RUNS]; GROUP]);

impl<const RUNS: usize> Tiles<RUNS> {
    /// Zeroed tiles.
    pub(super) fn new() -> Self {
        // SAFETY: a register's value is any 64 bytes, zeros among them.
        unsafe { core::mem::zeroed() }
    }

    /// Copies lines `0..L` of the `RUNS` source runs `j * ss` bytes from `src` into tiles
    /// `0..L`, each run's lines one after the other, and asks for each run's line `L` lines on
    /// into L2.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 F; those `L` lines of every run are inside a live allocation.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn fill<const L: usize>(&mut self, src: *const u8, ss: usize) {
        const { assert!(L <= GROUP) };
        for j in 0..RUNS {
            for (l, tile) in self.0.iter_mut().take(L).enumerate() {
                let at = src.wrapping_add(j * ss + l * LINE);
                // SAFETY: line `l` of run `j` is inside `src` (the caller's contract).
                tile[j] = unsafe { _mm512_loadu_si512(at.cast()) };
                super::next_line_into_l2(at.wrapping_add(L * LINE));
            }
        }
    }

    /// Tile `l`'s first byte: run `j`'s line at `j * LINE` bytes from it.
    pub(super) fn tile(&self, l: usize) -> *const u8 {
        self.0[l].as_ptr().cast()
    }
}

/// Bands of strips turned so that neighbouring strips read the neighbouring parts of the same
/// source lines, `per_line` strips a line (AVX-512's byte strips read half a line of each run,
/// the others a line): along the band, or from band to band where each band is one strip wide
/// (NCHW→NHWC's).
#[derive(Clone, Copy, Debug)]
pub(super) struct LineWalk {
    /// Bytes from a strip's source to the next strip's (`LINE / per_line`), and to the next
    /// band's.
    src_steps: [usize; 2],
    /// The same for the strips' destinations.
    dst_steps: [usize; 2],
    /// Strips a band, and bands.
    counts: [usize; 2],
    /// Strips that read one line of each run.
    per_line: usize,
}

impl LineWalk {
    /// The walk of `counts[1]` bands of `counts[0]` strips (strip `i` of band `k` at
    /// `k * steps[1] + i * steps[0]` bytes, source and destination), turned where that puts
    /// neighbouring strips on neighbouring parts of the same lines; `None` where neither way
    /// does.
    pub(super) fn new(
        src_steps: [usize; 2],
        dst_steps: [usize; 2],
        counts: [usize; 2],
        per_line: usize,
    ) -> Option<LineWalk> {
        let part = LINE / per_line;
        let turned = |[a, b]: [usize; 2]| [b, a];
        if src_steps[0] == part && counts[0] > 1 {
            Some(LineWalk { src_steps, dst_steps, counts, per_line })
        } else if src_steps[1] == part && counts[1] > 1 {
            let (src_steps, dst_steps, counts) = (turned(src_steps), turned(dst_steps), turned(counts));
            Some(LineWalk { src_steps, dst_steps, counts, per_line })
        } else {
            None
        }
    }

    /// Bytes from a strip's destination to the next strip's along the walk.
    pub(super) fn dst_step(&self) -> usize {
        self.dst_steps[0]
    }

    /// Walks the bands: `lines(src, dst, n)` for each group of `n` lines (`per_line * n`
    /// strips from `src` and `dst`), [`GROUP`] lines where the band has them and then one at
    /// a time, and `strip(src, dst)` for each strip left at a band's end.
    pub(super) fn run(
        self,
        src: *const u8,
        dst: *mut u8,
        mut lines: impl FnMut(*const u8, *mut u8, usize),
        mut strip: impl FnMut(*const u8, *mut u8),
    ) {
        let LineWalk { src_steps, dst_steps, counts: [count, repeat], per_line } = self;
        for k in 0..repeat {
            let (src, dst) = (src.wrapping_add(k * src_steps[1]), dst.wrapping_add(k * dst_steps[1]));
            let at = |i: usize| (src.wrapping_add(i * src_steps[0]), dst.wrapping_add(i * dst_steps[0]));
            let mut i = 0;
            for n in [GROUP, 1] {
                while i + n * per_line <= count {
                    let (s, d) = at(i);
                    lines(s, d, n);
                    i += n * per_line;
                }
            }
            for i in i..count {
                let (s, d) = at(i);
                strip(s, d);
            }
        }
    }
}
