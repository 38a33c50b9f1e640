//! In-cache strips from source runs a multiple of 4 KiB apart (NCHW's and NCDHW's channel
//! planes), staged: the runs' lines are copied into tiles, [`GROUP`] neighbouring lines of each
//! run one after the other, and the strips read the tiles. AVX-512's byte strips everywhere;
//! its others, and AVX2's of 2 and 4 bytes, on AMD's cores only (Intel's read such runs faster
//! in place at AVX-512: the `band` of `super::strips!` has the figures;
//! `Strips::tiles_runs` has AVX2's, which also take runs 2 KiB apart where a set overfills).
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
/// run `j` at `j * LINE` bytes from the tile's start. Each strip set copies the runs' lines in
/// with its own registers (the `fill` of `super::strips!`, which asks for each run's next group
/// through [`next_line_into_l2`]).
pub(super) struct Tiles<const RUNS: usize>([[Line; RUNS]; GROUP]);

/// One cache line of a tile, on a line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; LINE]);

impl<const RUNS: usize> Tiles<RUNS> {
    /// Zeroed tiles.
    pub(super) fn new() -> Self {
        Tiles([[Line([0; LINE]); RUNS]; GROUP])
    }

    /// Tile `l`'s first byte: run `j`'s line at `j * LINE` bytes from it.
    pub(super) fn tile(&self, l: usize) -> *const u8 {
        self.0[l].as_ptr().cast()
    }

    /// Where line `l` of run `j` goes: a whole line, on a line.
    pub(super) fn line(&mut self, l: usize, j: usize) -> *mut u8 {
        self.0[l][j].0.as_mut_ptr()
    }
}

/// Asks for the cache line at `at` into L2: a staged run's line a group on, for more runs
/// than the prefetchers follow. A hint: it reads nothing the program sees, and an address past
/// the source faults nothing.
#[inline(always)]
pub(super) fn next_line_into_l2(at: *const u8) {
    // SAFETY: SSE is part of x86-64; a prefetch reads nothing the program sees.
    unsafe { _mm_prefetch::<_MM_HINT_T1>(at.cast()) }
}
