//! AVX-512's in-cache strips from source runs a multiple of 4 KiB apart (NCHW's and NCDHW's
//! channel planes), staged: the runs' lines are copied into tiles, [`GROUP`] neighbouring lines
//! of each run one after the other, and the strips read the tiles. The byte strips everywhere;
//! the others on AMD's cores only (Intel's read such runs faster in place: the `band` of
//! `super::strips!` has the figures).
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
                next_line_into_l2(at.wrapping_add(L * LINE));
            }
        }
    }

    /// Tile `l`'s first byte: run `j`'s line at `j * LINE` bytes from it.
    pub(super) fn tile(&self, l: usize) -> *const u8 {
        self.0[l].as_ptr().cast()
    }
}

/// Asks for the cache line at `at` into L2: a staged run's line a group on, for more runs
/// than the prefetchers follow. A hint: it reads nothing the program sees, and an address past
/// the source faults nothing.
#[inline(always)]
fn next_line_into_l2(at: *const u8) {
    // SAFETY: SSE is part of x86-64; a prefetch reads nothing the program sees.
    unsafe { _mm_prefetch::<_MM_HINT_T1>(at.cast()) }
}
