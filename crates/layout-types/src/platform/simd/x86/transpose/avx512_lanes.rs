//! AVX-512's strips of bytes and halves with their lanes gathered by the loads: 32 destination
//! rows by one 64-byte line, for a conversion in cache whose strips read near source runs
//! (`x86::band` says where they are measured faster than the other strips).
//!
//! For `W`-byte elements a 16-byte lane holds `M = 16 / W` of them, and a strip reads `4M`
//! source runs (its `64 / W` columns). Row group `g` (rows `Mg..Mg + M`) is `M` registers:
//! register `i` takes lane `l` from source run `Ml + i`, bytes `16g..16g + 16` (one 16-byte load
//! and three inserted). The lanes are then where the rows want them before any shuffle, so
//! `log2 M` rounds of in-lane interleaves transpose them, and register `k` of group `g` is
//! destination row `Mg + k`, whole: no cross-lane round, and `M` registers held at a time.
//!
//! A band's strips go two at a time, row group by row group: each group's rows are written
//! two lines each, over two cache sets (`x86::band` says why that matters).
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

use core::arch::x86_64::*;

/// Rows of a strip.
const ROWS: usize = 32;

/// One round of the in-lane interleave of a group of 16 byte registers, written out (a loop
/// over an array of registers went through memory): pair `k` is the low and high byte
/// interleave of registers `k` and `k + 8`; four rounds transpose each lane's 16×16 block.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn bytes(g: [__m512i; 16]) -> [__m512i; 16] {
    macro_rules! pairs {
        ($($k:literal)*) => {
            [$(_mm512_unpacklo_epi8(g[$k], g[$k + 8]), _mm512_unpackhi_epi8(g[$k], g[$k + 8]),)*]
        };
    }
    pairs!(0 1 2 3 4 5 6 7)
}

/// [`bytes`] for a group of 8 registers of halves (2-byte elements): pairs `k` and `k + 4`;
/// three rounds transpose each lane's 8×8 block.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn halves(g: [__m512i; 8]) -> [__m512i; 8] {
    macro_rules! pairs {
        ($($k:literal)*) => {
            [$(_mm512_unpacklo_epi16(g[$k], g[$k + 4]), _mm512_unpackhi_epi16(g[$k], g[$k + 4]),)*]
        };
    }
    pairs!(0 1 2 3)
}

/// Transposes each 16-byte lane of a group of `M` registers (16 of bytes or 8 of halves).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn transpose<const M: usize>(mut g: [__m512i; M]) -> [__m512i; M] {
    if let Ok(b) = <&mut [__m512i; 16]>::try_from(&mut g[..]) {
        *b = bytes(bytes(bytes(bytes(*b))));
    } else if let Ok(h) = <&mut [__m512i; 8]>::try_from(&mut g[..]) {
        *h = halves(halves(halves(*h)));
    }
    g
}

/// Group registers from `src`: register `i` takes lane `l` from bytes `0..16` of source
/// run `Ml + i` (`ss` bytes apart).
///
/// # Safety
///
/// The CPU has AVX-512 F; those bytes are inside a live allocation.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn load<const M: usize>(src: *const u8, ss: usize) -> [__m512i; M] {
    // Runs `i`, `M + i`, `2M + i`, `3M + i` from one pointer and two strides (with the
    // addresses of all the runs computed apart, they spilled from the general registers).
    let (quarter, three) = (M * ss, 3 * M * ss);
    let mut at = src;
    let mut v = [_mm512_setzero_si512(); M];
    for r in v.iter_mut() {
        // SAFETY: bytes `0..16` of runs `i`, `M + i`, `2M + i` and `3M + i` are inside
        // `src` (the caller's contract).
        unsafe {
            let lane = |p: *const u8| _mm_loadu_si128(p.cast());
            let x = _mm512_castsi128_si512(lane(at));
            let x = _mm512_inserti32x4::<1>(x, lane(at.add(quarter)));
            let x = _mm512_inserti32x4::<2>(x, lane(at.add(2 * quarter)));
            *r = _mm512_inserti32x4::<3>(x, lane(at.add(three)));
        }
        at = at.wrapping_add(ss);
    }
    v
}

/// `Q` neighbouring strips of `W`-byte elements (`M = 16 / W`), row group by row group: strip
/// `q`'s source runs `q * src_step + j * ss` bytes from `src` (64 / `W` of them, 32 elements
/// each), its rows `q * dst_step + r * ds` bytes from `dst` (64 bytes each, `r` in 0..32),
/// ordinary stores.
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; those bytes are inside live, disjoint allocations.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn strips<const W: usize, const M: usize, const Q: usize>(
    src: *const u8,
    [ss, src_step]: [usize; 2],
    dst: *mut u8,
    [ds, dst_step]: [usize; 2],
) {
    const { assert!(M * W == 16 && (W == 1 || W == 2)) };
    for g in 0..ROWS / M {
        for q in 0..Q {
            // SAFETY: group `g`'s bytes of strip `q` are inside `src` (the caller's contract).
            let rows = transpose::<M>(unsafe { load::<M>(src.add(q * src_step + 16 * g), ss) });
            for (k, row) in rows.iter().enumerate() {
                // SAFETY: row `Mg + k`'s 64 bytes of strip `q` are inside `dst` (the caller's
                // contract).
                unsafe { _mm512_storeu_si512(dst.add(q * dst_step + (g * M + k) * ds).cast(), *row) };
            }
        }
    }
}

/// `repeat` bands of `count` strips of `W`-byte elements (`M = 16 / W`), strip `i` of band
/// `k` at `src + k * src_next + i * src_step` and `dst + k * dst_next + i * dst_step`: two
/// strips a call to [`strips`](fn@strips), and the last one alone when `count` is odd.
///
/// # Safety
///
/// As [`strips`](fn@strips), for every strip.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn band<const W: usize, const M: usize>(
    src: *const u8,
    [ss, src_step, src_next]: [usize; 3],
    dst: *mut u8,
    [ds, dst_step, dst_next]: [usize; 3],
    [count, repeat]: [usize; 2],
) {
    let (steps, geometry) = (([src_step, src_next], [dst_step, dst_next]), ([ss, src_step], [ds, dst_step]));
    super::each_pair(
        src,
        steps.0,
        dst,
        steps.1,
        [count, repeat],
        // SAFETY: every strip of the bands is inside both buffers (the caller's contract).
        |s, d| unsafe { strips::<W, M, 2>(s, geometry.0, d, geometry.1) },
        // SAFETY: as above.
        |s, d| unsafe { strips::<W, M, 1>(s, geometry.0, d, geometry.1) },
    );
}
