//! AVX2's byte strips into rows a multiple of 4 KiB apart, with ordinary stores (NCHW planes
//! from NHWC pixels): 32 rows by one 64-byte line, transposed in four quarters of 16 source
//! runs through a 2 KiB tile. Register `j` of quarter `q` holds source run `16 q + j` (32
//! bytes); four in-lane unpack rounds leave register `i` holding row `i`'s bytes `16 q ..` in
//! its low lane and row `16 + i`'s in its high lane. Those go into line `i` and `16 + i` of the
//! tile (so the 128 stores of 16 bytes fall in 32 different cache sets), and each row then
//! leaves the tile whole, two 32-byte stores back to back.
//!
//! The generic strips ([`super::avx2`]) store each row's 32-byte halves block by block, and
//! rows a multiple of 4 KiB apart share one L1 set (8 ways on AMD's Zen 3, 12 on recent
//! Intel cores): a strip's 32 rows evict each other between its two blocks. On an AMD EPYC
//! (Zen 3), u8 NHWC→NCHW with C = 64 at 1 MiB, a scratch loop of `convert` (best of 15 × 64
//! calls), old and new alternating four times: one thread 13.3–17.0 → 18.2–24.5 GB/s, two
//! threads 19.4–24.3 → 33.5–35.4. Where the rows are not so
//! placed the tile gains nothing (NCHW→NHWC's 64-byte pixels: 20.8–21.2 → 15.8–16.3 on one
//! thread), and neither did the same quarters stored straight to the rows (NHWC→NCHW at
//! 1 MiB, one thread: 15.4 → 9.1: 16-byte pieces of 32 rows in one set) or joined in pairs
//! in registers (even with the generic strips: the spills of the 32×32 block cost nothing
//! measurable there).
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

use core::arch::x86_64::*;

/// Source runs of a quarter, and registers of its transpose.
const Q: usize = 16;

/// Rows of a strip (bytes of a source run).
const E: usize = 32;

/// The tile a strip's rows are formed in: row `r` in line `r`.
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

/// One strip: source runs `j * ss` bytes from `src` (32 bytes each, `j` in 0..64), rows
/// `r * ds` bytes from `dst` (64 bytes each, `r` in 0..32), ordinary stores, through `tile`.
///
/// # Safety
///
/// The CPU has AVX2; those bytes are inside live allocations, `dst`'s disjoint from `src`'s.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn strip(src: *const u8, ss: usize, dst: *mut u8, ds: usize, tile: &mut Tile) {
    let t = tile.0.as_mut_ptr();
    for q in 0..4 {
        // SAFETY: runs `16 q + j` are inside `src` (the caller's contract); unaligned loads.
        let v: [__m256i; Q] =
            core::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.add((Q * q + j) * ss).cast()) });
        let v = unpack_round(unpack_round(unpack_round(unpack_round(v))));
        for (i, row) in v.into_iter().enumerate() {
            // SAFETY: lines `i` and `16 + i` of the tile, bytes `16 q .. 16 q + 16`, are inside
            // it (`i < 16`, `q < 4`) and 16-byte aligned (the tile is 64-byte aligned).
            unsafe {
                _mm_store_si128(t.add(i * 64 + Q * q).cast(), _mm256_castsi256_si128(row));
                _mm_store_si128(t.add((Q + i) * 64 + Q * q).cast(), _mm256_extracti128_si256::<1>(row));
            }
        }
    }
    for r in 0..E {
        // SAFETY: line `r` of the tile is inside it and aligned; row `r`'s 64 bytes are inside
        // `dst` (the caller's contract; unaligned stores).
        unsafe {
            let (a, b) =
                (_mm256_load_si256(t.add(r * 64).cast()), _mm256_load_si256(t.add(r * 64 + 32).cast()));
            _mm256_storeu_si256(dst.add(r * ds).cast(), a);
            _mm256_storeu_si256(dst.add(r * ds + 32).cast(), b);
        }
    }
}

/// `repeat` bands of `count` strips, strip `i` of band `k` at `src + k * src_next + i *
/// src_step` and `dst + k * dst_next + i * dst_step`.
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
) {
    let mut tile = Tile([0; E * 64]);
    super::each_strip(src, [src_step, src_next], dst, [dst_step, dst_next], counts, |s, d| {
        // SAFETY: every strip of the bands is inside both buffers (the caller's contract); the
        // tile is this function's own.
        unsafe { strip(s, ss, d, ds, &mut tile) }
    });
}
