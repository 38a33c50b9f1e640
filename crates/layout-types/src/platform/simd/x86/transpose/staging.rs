//! Strips from source runs that overfill one L1 set (NCHW's and NCDHW's channel planes a
//! multiple of 4 KiB apart), staged: the runs' lines are copied into tiles, [`GROUP`]
//! neighbouring lines of each run one after the other, and the strips read the tiles.
//! AVX-512's byte strips in cache everywhere; on AMD's cores only, AVX-512's others in cache, and
//! AVX2's of 1, 2 and 4 bytes in cache (tall ones too) or streamed from the last-level cache
//! (`Strips::tiles_runs` has AVX2's figures, and takes runs 2 KiB apart too where a set
//! overfills).
//!
//! Why: such runs share one set of the L1 data cache (64 sets of 64-byte lines, a 4 KiB
//! period), which holds 8 to 12 lines; a strip reads 16 to 64 of them, so read in place every
//! run missed L1 on every load, and the strip waited on them behind its shuffles. Copied, each
//! line is missed once, by loads nothing waits on, and a tile's lines fall in distinct sets.
//! At AVX-512 each load asks for the same run's line [`GROUP`] lines on into L2 (the next
//! group's), for more streams than the prefetchers follow; AVX2's tiles ask for nothing
//! ([`Tiles::fill`] has why). A run's neighbouring lines loaded one after the
//! other were faster than one line of each run in turn: the loop without the shuffles (u8
//! NCHW→NHWC at 1 MiB, C = 64, against a copy per thread in the same rounds, run twice) moved
//! 0.50–0.53 of the copy on one thread and 0.59 on two with one line a run, 0.60–0.61 and 0.67
//! with two, 0.64 and 0.74 with four. What the byte strips gained is at `avx512_bytes::band`.
//!
//! AVX-512's strips of 2, 4 and 8 bytes had read such runs in place, asking for each run's next
//! line into L2 (f32 and f64 only: f16 lost on one thread with it). Against that, on an AMD EPYC
//! (Zen 4), the bench's 1 MiB rows, old and new in turn twice, ÷ the strongest copy on two
//! threads (one): f32 NCHW→NHWC 0.70–0.75 (0.54) → 0.72–0.78 (0.63–0.65), NCHW→NC/32HW32
//! 0.71–0.77 (0.60–0.62) → 0.71–0.76 (0.62–0.64); f16 NCHW→NHWC 0.53–0.58 (0.48–0.54) →
//! 0.70–0.71 (0.59–0.60), NC/32HW32 0.62–0.71 (0.48–0.55) → 0.67–0.75 (0.56–0.60), NCDHW→NDHWC
//! 0.68–0.69 (0.57–0.58) → 0.68–0.72 (0.58–0.63). On Intel's cores (a Xeon: L1d 48 KiB of 12
//! ways, L2 2 MiB a core) those strips read such runs in place: the tiles lost there, the
//! bench's races, tiles and in place in turn twice, ÷ the strongest copy on two threads (one,
//! GB/s): f32 NCHW→NHWC 0.59, 0.67 (26.2, 26.7) → 0.83, 0.77 (45.0, 43.6), NC/32HW32 0.67,
//! 0.67 → 0.94, 0.81, NCDHW→NDHWC 0.68 → 0.84; f16 NCHW→NHWC 0.55, 0.61 (27.0, 28.8) → 0.77,
//! 0.80 (50.5, 46.0), NC/32HW32 0.69, 0.70 → 0.91, 0.86, NCDHW→NDHWC 0.67 → 0.82; back to back
//! (`TL_BENCH_HOT`, µs a call) f32 NCHW→NHWC 21.2–21.3 → 16.8–17.0, f16 22.6 → 16.5–17.5, f16
//! NCDHW→NDHWC 19.8–20.5 → 16.4–16.6.
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

    /// Copies lines `0..L` of the `RUNS` source runs `j * ss` bytes from `src` into tiles
    /// `0..L`, each run's lines one after the other, and where `AHEAD` asks for each run's
    /// line `L` lines on into L2. Inlined into the strips, so that each line moves through
    /// their registers.
    ///
    /// AVX2's strips ask for nothing ahead: on an AMD EPYC (Zen 3), a scratch loop of
    /// `to_layout_into` (best of 0.3 s), with and without, in turn three times, one thread at
    /// 1 MiB, GB/s: f16 NCHW→NHWC 37.9–41.4 → 43.6–43.7, NCDHW→NDHWC 42.2–42.4 → 43.6–44.1,
    /// u8 NCHW→NHWC 32.7–33.1 → 34.0–36.0, NC/32HW32 (tall) 34.2–34.6 → 36.0–36.6; two threads
    /// f32 NCHW→NHWC 86.1–97.5 → 104.6–104.9, f16 71.1–81.2 → 83.8–85.0, u8 59.3–62.8 →
    /// 65.7–67.2; streamed from the last-level cache (16 MiB) even (f16 NCHW→NHWC 45.6–46.1
    /// against 45.0–45.8 on two threads, u8 41.7–42.6 against 40.7–42.1). AVX-512's (Zen 4,
    /// Intel) were not measured without.
    ///
    /// # Safety
    ///
    /// Those `L` lines of every run are inside a live allocation.
    #[inline(always)]
    pub(super) unsafe fn fill<const L: usize, const AHEAD: bool>(&mut self, src: *const u8, ss: usize) {
        const { assert!(L <= GROUP) };
        for j in 0..RUNS {
            for l in 0..L {
                let at = src.wrapping_add(j * ss + l * LINE);
                // SAFETY: line `l` of run `j` is inside `src` (the caller's contract); the tile's
                // line is this value's own.
                unsafe { core::ptr::copy_nonoverlapping(at, self.0[l][j].0.as_mut_ptr(), LINE) };
                if AHEAD {
                    next_line_into_l2(at.wrapping_add(L * LINE));
                }
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
