//! AVX2's byte strips with ordinary stores into rows a multiple of 4 KiB apart (NCHW planes
//! from NHWC pixels), and all of them in cache: 32 rows by one 64-byte line, transposed in four
//! quarters of 16 source runs through a 2 KiB tile. Register `j` of quarter `q` holds source
//! run `16 q + j` (32 bytes); four in-lane unpack rounds leave register `i` holding row `i`'s
//! bytes `16 q ..` in its low lane and row `16 + i`'s in its high lane. Each such register goes
//! into the tile whole (register `16 q + i` of it), and rows `i` and `16 + i` then leave it
//! whole: the four quarters' registers `i` loaded, their lanes paired across registers
//! (`permute2x128`) into the two rows' 32-byte halves, stored back to back.
//!
//! Before, each register's lanes went into the tile as two 16-byte stores, lines `i` and
//! `16 + i` (128 stores a strip where there are now 64, on a core that stores one 32- or 16-byte
//! register a cycle), and each row left as two loads and two stores. On an AMD EPYC (Zen 3),
//! u8 NHWC→NCHW with C = 64 at 1 MiB, a scratch loop of `to_layout_into` (best of 20 000
//! calls), old and new in turn three times: one thread 22.7–23.5 → 25.8–26.5 GB/s, two
//! threads 35.9–42.3 → 32.3–48.4 (they swing by a third there); the bench's race
//! (`-- "u8/1MiB/NHWC->NCHW"`, in turn three times) 30.2–34.6 → 34.9–36.9 GB/s, one thread
//! 23.2–24.0 → 25.6–26.5.
//!
//! The generic strips ([`super::avx2`]) store each row's 32-byte halves block by block, and
//! rows a multiple of 4 KiB apart share one L1 set (8 ways on AMD's Zen 3, 12 on recent
//! Intel cores): a strip's 32 rows evict each other between its two blocks. On an AMD EPYC
//! (Zen 3), u8 NHWC→NCHW with C = 64 at 1 MiB, a scratch loop of `convert` (best of 15 × 64
//! calls), old and new alternating four times: one thread 13.3–17.0 → 18.2–24.5 GB/s, two
//! threads 19.4–24.3 → 33.5–35.4. Where the rows are not so placed that first tile gained
//! nothing (NCHW→NHWC's 64-byte pixels: 20.8–21.2 → 15.8–16.3 GB/s on one thread); with the
//! tile's stores halved it gains in cache (u8 at 1 MiB, a scratch loop of `to_layout_into`,
//! best of 10 000 calls, the generic strips and these in turn three times, GB/s of 1 MiB a
//! call: one thread NCHW→NHWC 14.7–15.1 → 15.8–16.1, 1024 × 1024 matrices into columns
//! 11.5–12.1 → 13.9–14.7; two threads 20.0–27.6 → 21.6–30.3 and 21.6–22.2 → 20.6–27.8; the
//! bench's race, in turn three times, one thread: row→column 23.6–24.7 → 25.3–28.2,
//! NCHW→NHWC 27.6–28.8 → 27.6–30.4, two threads even), but not for a streamed conversion's
//! staged tiles, whose source comes from memory (u8 at 16 and 256 MiB, the bench's races in
//! turn twice, ÷ the strongest copy: mixed, row→column at 16 MiB 0.44, 0.42 → 0.40, 0.29 and at
//! 256 MiB 0.40, 0.38 → 0.37, 0.39, NCHW→NHWC at 256 MiB 0.54, 0.59 → 0.60, 0.54), so those
//! keep the generic strips. The same quarters stored straight to the rows lost
//! (NHWC→NCHW at 1 MiB, one thread: 15.4 → 9.1: 16-byte pieces of 32 rows in one set), and
//! joined in pairs in registers they were even with the generic strips (the spills of the
//! 32×32 block cost nothing measurable there).
//!
//! Into rows a multiple of 2 KiB apart, a band's strips go [`SIDE_BY_SIDE`] at a time along the
//! rows ([`strips`]): each strip's quarters into a tile of its own, then each row's eight lines
//! stored back to back (512 bytes over eight L1 sets), not one line of each of 32 rows in turn, 16
//! or 32 of them in one set of 8 ways, whose lines evict each other before their stores land (the
//! bench's u8 NHWC→NCHW at 1 MiB into rows 16 KiB and 128 bytes apart moved 84.9 GB/s on two
//! threads, into its own rows 53.8). On an AMD EPYC (Zen 3), u8 NHWC→NCHW at 1 MiB, a scratch loop
//! of `to_layout_into` (best of 0.5 s), one binary each way in turn twice, one thread, GB/s: C = 64
//! 128 × 128 images 26.9–28.4 → 32.9–33.8, two 64 × 64 27.3–27.9 → 33.4–33.6, 64 × 128 27.8–28.2 →
//! 33.9–34.3; C = 32 128 × 256 29.2–30.4 → 37.6–38.0; C = 256 32 × 128 26.2–26.9 → 30.4–30.6; a
//! 4096 × 256 matrix into columns 26.3–26.8 → 30.7–33.0. Two threads gained 10–30 %, but C = 256
//! (46.3–46.5 → 40.3–43.4). Two and four strips at a time gained less (128 × 128: 29.9–30.1, 31.2),
//! sixteen lost (25.6–25.9: their tiles fill the L1). Into rows not so placed it lost (120 × 130
//! images 43.0–43.6 → 33.4–33.9, C = 128 90 × 90 38.2–38.4 → 31.6–31.7), so those take one strip at
//! a time; so did rows 1 KiB apart (eight of 32 in a set: 16 images of 32 × 32 34.7–36.7 →
//! 30.1–30.9), where rows 2 KiB apart gained (eight of 32 × 64 28.9–29.4 → 33.4–34.0, two threads
//! 53.8–57.5 → 61.9–65.7). The bench's race (`-- "u8/1MiB/NHWC->NCHW"`, in turn twice): two threads
//! 49.0, 49.7 → 60.7, 58.4 GB/s, one thread 27.3, 27.6 → 33.2, 33.1; typed-layout ÷ the in-cache
//! probe on one thread 0.74 → 0.89–0.90.
//!
//! From runs that overfill one L1 set (NCHW's channel planes, a 1024-wide matrix's rows), on AMD's
//! cores, the strips read their runs' lines through [`staging`](super::staging)'s tiles
//! ([`band`]; `Strips::tiles_runs` has the figures).
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

use core::arch::x86_64::*;

use super::staging::{Tiles, GROUP};

/// Source runs of a quarter, and registers of its transpose.
const Q: usize = 16;

/// Rows of a strip (bytes of a source run).
const E: usize = 32;

/// Strips that go side by side along their rows into rows a multiple of
/// [`SIDE_BY_SIDE_ROWS_APART`] apart ([`strips`]).
const SIDE_BY_SIDE: usize = 8;

/// Bytes a multiple of which apart rows take strips side by side: 2 KiB, from which 16 or more
/// of a strip's 32 rows share one L1 set (of 8 ways on AMD's Zen 3).
const SIDE_BY_SIDE_ROWS_APART: usize = 2048;

/// The tile a strip's quarters are transposed into: quarter `q`'s register `i` (rows `i` and
/// `16 + i`, bytes `16 q ..`) at 32-byte register `16 q + i`.
#[repr(C, align(64))]
struct Tile([u8; E * 64]);

/// One round of the in-lane transpose of 16 registers: pair `k` is the low and high byte
/// interleave of registers `k` and `k + 8` (each round rotates the bits of (register, byte);
/// four rounds swap them). Written out, so that the registers stay registers.
#[target_feature(enable = "avx2")]
#[inline]
fn unpack_round(g: [__m256i; Q]) -> [__m256i; Q] {
    macro_rules! pairs {
        ($($k:literal)*) => {
            [$(_mm256_unpacklo_epi8(g[$k], g[$k + 8]), _mm256_unpackhi_epi8(g[$k], g[$k + 8]),)*]
        };
    }
    pairs!(0 1 2 3 4 5 6 7)
}

/// A strip's four quarters transposed into `tile`: source runs `j * ss` bytes from `src`
/// (32 bytes each, `j` in 0..64).
///
/// # Safety
///
/// The CPU has AVX2; those bytes are inside a live allocation.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn quarters(src: *const u8, ss: usize, tile: &mut Tile) {
    let t = tile.0.as_mut_ptr();
    for q in 0..4 {
        // SAFETY: runs `16 q + j` are inside `src` (the caller's contract); unaligned loads.
        let v: [__m256i; Q] =
            core::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.add((Q * q + j) * ss).cast()) });
        let v = unpack_round(unpack_round(unpack_round(unpack_round(v))));
        for (i, row) in v.into_iter().enumerate() {
            // SAFETY: register `16 q + i` of the tile is inside it (`i < 16`, `q < 4`) and
            // 32-byte aligned (the tile is 64-byte aligned).
            unsafe { _mm256_store_si256(t.add((Q * q + i) * 32).cast(), row) };
        }
    }
}

/// `G` strips side by side along their rows: strip `g` reads source runs `j * ss` bytes from
/// `src[g]` (32 bytes each, `j` in 0..64) and writes rows `r * ds + 64 g` bytes from `dst`
/// (64 bytes each, `r` in 0..32), ordinary stores, through `tiles[g]`; each row's `G` lines
/// back to back.
///
/// # Safety
///
/// The CPU has AVX2; those bytes are inside live allocations, `dst`'s disjoint from `src`'s.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn strips<const G: usize>(
    src: [*const u8; G],
    ss: usize,
    dst: *mut u8,
    ds: usize,
    tiles: &mut [Tile; G],
) {
    for (src, tile) in src.into_iter().zip(tiles.iter_mut()) {
        // SAFETY: the caller's contract.
        unsafe { quarters(src, ss, tile) };
    }
    for i in 0..Q {
        // SAFETY: registers `i`, `16 + i`, `32 + i` and `48 + i` of each tile are inside it and
        // aligned; rows `i` and `16 + i` (64 bytes of each strip) are inside `dst` (the
        // caller's contract; unaligned stores).
        unsafe {
            let mut high = [[_mm256_setzero_si256(); 2]; G];
            let at = dst.add(i * ds);
            for (g, tile) in tiles.iter().enumerate() {
                let t = tile.0.as_ptr();
                let [a, b, c, d] = [0, 1, 2, 3].map(|q| _mm256_load_si256(t.add((Q * q + i) * 32).cast()));
                _mm256_storeu_si256(at.add(64 * g).cast(), _mm256_permute2x128_si256::<0x20>(a, b));
                _mm256_storeu_si256(at.add(64 * g + 32).cast(), _mm256_permute2x128_si256::<0x20>(c, d));
                high[g] = [_mm256_permute2x128_si256::<0x31>(a, b), _mm256_permute2x128_si256::<0x31>(c, d)];
            }
            let at = dst.add((Q + i) * ds);
            for (g, [lo, hi]) in high.into_iter().enumerate() {
                _mm256_storeu_si256(at.add(64 * g).cast(), lo);
                _mm256_storeu_si256(at.add(64 * g + 32).cast(), hi);
            }
        }
    }
}

/// One strip ([`strips`] of one).
///
/// # Safety
///
/// As [`strips`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn strip(src: *const u8, ss: usize, dst: *mut u8, ds: usize, tile: &mut Tile) {
    // SAFETY: the caller's contract.
    unsafe { strips::<1>([src], ss, dst, ds, core::array::from_mut(tile)) }
}

/// `repeat` bands of `count` strips, strip `i` of band `k` at `src + k * src_next + i *
/// src_step` and `dst + k * dst_next + i * dst_step`; where `tiles` (`Strips::tiles_runs`: runs
/// that overfill one L1 set, on AMD's cores), neighbouring strips two a line read their runs'
/// lines through [`staging`](super::staging)'s tiles, four lines of each run at once where the
/// band has them.
///
/// # Safety
///
/// As [`strip`], for every strip.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn band(
    src: *const u8,
    [ss, src_step, src_next]: [usize; 3],
    dst: *mut u8,
    [ds, dst_step, dst_next]: [usize; 3],
    counts: [usize; 2],
    tiles: bool,
) {
    let mut tile = Tile([0; E * 64]);
    let steps = ([src_step, src_next], [dst_step, dst_next]);
    let walk = match tiles {
        true => super::walks::LineWalk::new(steps.0, steps.1, counts, 2),
        false => None,
    };
    if let Some(walk) = walk {
        // The strips left at a band's end read in place, through a tile of their own (both
        // closures are alive at once).
        let (mut staged, mut tail) = (Tiles::<{ 2 * E }>::new(), Tile([0; E * 64]));
        let step = walk.dst_step();
        walk.run(
            src,
            dst,
            // SAFETY: every strip of the bands is inside both buffers (the caller's contract), so
            // the `n` lines of each of their 64 runs are inside `src`; the CPU has AVX2. Tile
            // `l` holds line `l` of each run, a line apart: strip `2 l + p` reads its 32 bytes
            // `32 p` into each, and writes its rows where the walk puts it.
            |s, d, n| unsafe {
                match n {
                    GROUP => staged.fill::<GROUP, false>(s, ss),
                    _ => staged.fill::<1, false>(s, ss),
                }
                for l in 0..n {
                    for p in 0..2 {
                        let src = staged.tile(l).wrapping_add(p * E);
                        strip(src, super::LINE, d.wrapping_add((2 * l + p) * step), ds, &mut tile);
                    }
                }
            },
            // SAFETY: as above.
            |s, d| unsafe { strip(s, ss, d, ds, &mut tail) },
        );
        return;
    }
    // Into rows a multiple of 2 KiB apart, strips side by side along the rows, where a band has
    // that many (its rows' lines back to back), the rest one at a time.
    if ds.is_multiple_of(SIDE_BY_SIDE_ROWS_APART) && dst_step == super::LINE && counts[0] >= SIDE_BY_SIDE {
        let mut tiles: [Tile; SIDE_BY_SIDE] = core::array::from_fn(|_| Tile([0; E * 64]));
        super::each_group::<SIDE_BY_SIDE>(
            src,
            steps.0,
            dst,
            steps.1,
            counts,
            // SAFETY: every strip of the bands is inside both buffers (the caller's contract),
            // and strip `i + g` starts `64 g` bytes after strip `i` in `dst` (`dst_step`).
            |s, d| unsafe {
                let from = core::array::from_fn(|g| s.wrapping_add(g * src_step));
                strips(from, ss, d, ds, &mut tiles)
            },
            // SAFETY: as above.
            |s, d| unsafe { strip(s, ss, d, ds, &mut tile) },
        );
        return;
    }
    super::each_strip(src, steps.0, dst, steps.1, counts, |s, d| {
        // SAFETY: every strip of the bands is inside both buffers (the caller's contract); the
        // tile is this function's own.
        unsafe { strip(s, ss, d, ds, &mut tile) }
    });
}
