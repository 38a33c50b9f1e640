//! AVX2's groups between `K` planes and pixels of `K` elements of 4 or 8 bytes (2 to 7: an
//! image's few channels), both ways (the safety argument is the room's, in `platform/mod.rs`).
//! A group is one 32-byte register of each plane and `K` registers of pixels.
//!
//! AVX2 has no two-source permute across its 128-bit lanes, so `K = 2^a m` (`m` odd) goes in
//! two kinds of step. Pairing: two planes of `u`-byte units become one of `2u`-byte units
//! (unpacks and a lane swap, `u` of 4 and 8; a lane swap alone for 16), `a` times, so that `m`
//! planes of `2^a W`-byte units are left. Odd: `m` planes of units of which a register holds
//! `L` (8, 4 or 2), a power of two and so prime to `m`: unit `i` of plane `s` is position
//! `p = m i + s`, lane `p % L` of pixel register `p / L`, and `i ↦ (m i + s) % L` is one to
//! one, so one `vpermd` of a plane's register moves its units to their lanes and each pixel
//! register is blended from the `m` permuted planes (into planes: blended, then permuted).

use core::arch::x86_64::*;

use super::gather::{prefetch_ahead, Way};

/// Registers of a group at most (`K` up to 7, rounded up to a power of two for the pairing's
/// index arithmetic).
const MOST: usize = 8;

/// The odd step's tables for `m` planes of `u`-byte units (`L = 32 / u` a register), in 4-byte
/// units (`vpermd`'s): per plane `s` its permute, and per pair `(a, b)` the byte mask of the
/// blend (0xFF: taken from it) that takes into pixel register `b` the bytes of plane `a`
/// (into pixels), or into plane `b` the bytes of pixel register `a` (into planes).
pub(super) struct Odd {
    permutes: [[u32; 8]; MOST],
    masks: [[[u8; 32]; MOST]; MOST],
}

impl Odd {
    /// The tables for `K = 2^a m` planes of `w`-byte elements going `way` (the odd step's
    /// units are `2^a w` bytes). Empty where no odd step runs (`m = 1`) or the groups take no
    /// such planes (`K` outside 2 to 7, elements of 1 or 2 bytes: never used, as
    /// [`groups`](super::interleave::groups) picks AVX2's for none of those).
    pub(super) const fn new(k: usize, w: usize, way: Way) -> Odd {
        let (mut permutes, mut masks) = ([[0u32; 8]; MOST], [[[0u8; 32]; MOST]; MOST]);
        if k < 2 || k >= MOST || !matches!(w, 4 | 8) {
            return Odd { permutes, masks };
        }
        let (m, chunks) = odd_part(k);
        let u = w * chunks;
        let (lanes, units) = (32 / u, u / 4);
        if m == 1 {
            return Odd { permutes, masks };
        }
        let mut s = 0;
        while s < m {
            let mut i = 0;
            while i < lanes {
                let lane = (m * i + s) % lanes;
                let (to, from) = match way {
                    Way::IntoPixels => (lane, i),
                    Way::IntoPlanes => (i, lane),
                };
                let mut q = 0;
                while q < units {
                    permutes[s][to * units + q] = (from * units + q) as u32;
                    q += 1;
                }
                i += 1;
            }
            s += 1;
        }
        let mut a = 0;
        while a < m {
            let mut b = 0;
            while b < m {
                let mut byte = 0;
                while byte < 32 {
                    let taken = match way {
                        Way::IntoPixels => (b * lanes + byte / u) % m == a,
                        Way::IntoPlanes => (a * lanes + byte / u) % m == b,
                    };
                    if taken {
                        masks[a][b][byte] = 0xFF;
                    }
                    byte += 1;
                }
                b += 1;
            }
            a += 1;
        }
        Odd { permutes, masks }
    }
}

/// Two planes' registers of `u`-byte units (4, 8 or 16) interleaved: their 64 bytes of pairs.
#[target_feature(enable = "avx2")]
#[inline]
fn pair(u: usize, a: __m256i, b: __m256i) -> [__m256i; 2] {
    let (lo, hi) = match u {
        4 => (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)),
        8 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
        _ => (a, b),
    };
    [_mm256_permute2x128_si256::<0x20>(lo, hi), _mm256_permute2x128_si256::<0x31>(lo, hi)]
}

/// The inverse of [`pair`]: 64 bytes of pairs of `u`-byte units into the two planes' registers.
#[target_feature(enable = "avx2")]
#[inline]
fn unpair(u: usize, p: __m256i, q: __m256i) -> [__m256i; 2] {
    // Lane 0 of each, then lane 1: for 16-byte units the planes themselves.
    let (lo, hi) = (_mm256_permute2x128_si256::<0x20>(p, q), _mm256_permute2x128_si256::<0x31>(p, q));
    match u {
        4 => {
            let (lo, hi) = (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
            [
                _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi)),
                _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(lo, hi)),
            ]
        }
        8 => [_mm256_unpacklo_epi64(lo, hi), _mm256_unpackhi_epi64(lo, hi)],
        _ => [lo, hi],
    }
}

/// A table's 32 bytes as a register.
#[target_feature(enable = "avx2")]
#[inline]
fn load<T, const N: usize>(table: &[T; N]) -> __m256i {
    const { assert!(N * size_of::<T>() == 32) };
    // SAFETY: the table's 32 bytes (asserted); unaligned load.
    unsafe { _mm256_loadu_si256(table.as_ptr().cast()) }
}

/// The odd part of `K` and its power of two: the odd step's planes and each one's chunks.
const fn odd_part(k: usize) -> (usize, usize) {
    (k >> k.trailing_zeros(), 1 << k.trailing_zeros())
}

/// Pairs planes `2j` and `2j + 1` of `planes` planes of `chunks` registers of `u`-byte units
/// (plane `s`'s chunk `c` at `regs[s * chunks + c]`): `planes / 2` planes of `2 chunks`.
#[target_feature(enable = "avx2")]
#[inline]
fn pair_planes(regs: [__m256i; MOST], planes: usize, chunks: usize, u: usize) -> [__m256i; MOST] {
    let mut next = regs;
    for j in 0..planes / 2 {
        for c in 0..chunks {
            let two = pair(u, regs[2 * j * chunks + c], regs[(2 * j + 1) * chunks + c]);
            (next[2 * (j * chunks + c)], next[2 * (j * chunks + c) + 1]) = (two[0], two[1]);
        }
    }
    next
}

/// The inverse of [`pair_planes`]: `planes` planes of `chunks` registers of pairs of `u`-byte
/// units into `2 planes` planes of `chunks / 2`.
#[target_feature(enable = "avx2")]
#[inline]
fn unpair_planes(regs: [__m256i; MOST], planes: usize, chunks: usize, u: usize) -> [__m256i; MOST] {
    let (mut next, half) = (regs, chunks / 2);
    for j in 0..planes {
        for c in 0..half {
            let [a, b] = unpair(u, regs[j * chunks + 2 * c], regs[j * chunks + 2 * c + 1]);
            (next[2 * j * half + c], next[(2 * j + 1) * half + c]) = (a, b);
        }
    }
    next
}

/// One group of `K` planes' registers into `K` pixel registers, in order: the pairing steps,
/// then the odd step by `odd` (into pixels).
#[target_feature(enable = "avx2")]
#[inline]
fn into_pixels<const K: usize, const W: usize>(odd: &Odd, x: [__m256i; K]) -> [__m256i; K] {
    let (m, chunks) = const { odd_part(K) };
    let mut regs = [_mm256_setzero_si256(); MOST];
    regs[..K].copy_from_slice(&x);
    if chunks >= 2 {
        regs = pair_planes(regs, K, 1, W);
    }
    if chunks >= 4 {
        regs = pair_planes(regs, K / 2, 2, 2 * W);
    }
    let mut out = [_mm256_setzero_si256(); K];
    if m == 1 {
        out.copy_from_slice(&regs[..K]);
        return out;
    }
    // Chunk `c` of the `m` planes: pixel registers `c m .. c m + m`.
    for c in 0..chunks {
        let mut v = [_mm256_setzero_si256(); MOST];
        for s in 0..m {
            v[s] = _mm256_permutevar8x32_epi32(regs[s * chunks + c], load(&odd.permutes[s]));
        }
        // Index loops over constant counts, not iterator adapters (clippy's suggestion): those
        // were left out of line, `Skip::next` and `Take::nth` calls per blend, and f32 C = 3
        // NCHW→NHWC at 1 MiB moved 12 GB/s on an AMD EPYC (Zen 3), 0.23 of a copy (0.97 so).
        for k in 0..m {
            let mut w = v[0];
            #[allow(clippy::needless_range_loop)]
            for s in 1..m {
                w = _mm256_blendv_epi8(w, v[s], load(&odd.masks[s][k]));
            }
            out[c * m + k] = w;
        }
    }
    out
}

/// The inverse of [`into_pixels`] (`odd` into planes): one group of `K` pixel registers into
/// the `K` planes' registers.
#[target_feature(enable = "avx2")]
#[inline]
fn into_planes<const K: usize, const W: usize>(odd: &Odd, x: [__m256i; K]) -> [__m256i; K] {
    let (m, chunks) = const { odd_part(K) };
    let mut regs = [_mm256_setzero_si256(); MOST];
    match m {
        1 => regs[..K].copy_from_slice(&x),
        _ => {
            for c in 0..chunks {
                for s in 0..m {
                    let mut g = x[c * m];
                    for k in 1..m {
                        g = _mm256_blendv_epi8(g, x[c * m + k], load(&odd.masks[k][s]));
                    }
                    regs[s * chunks + c] = _mm256_permutevar8x32_epi32(g, load(&odd.permutes[s]));
                }
            }
        }
    }
    if chunks >= 4 {
        regs = unpair_planes(regs, m, 4, 2 * W);
    }
    if chunks >= 2 {
        regs = unpair_planes(regs, K / 2, 2, W);
    }
    let mut out = [_mm256_setzero_si256(); K];
    out.copy_from_slice(&regs[..K]);
    out
}

/// `groups` groups of `W`-byte elements (4 or 8) going `way`: input register `r` of group `g`
/// at `ins[r] + g * in_step`, output register `o` at `outs[o] + g * out_step`, streamed when
/// `STREAM`; with `LINES`, two groups at a time, each output's two registers stored back to
/// back (a whole line of a plane, as SSSE3's four: see [`groups_ssse3`](super::gather::groups_ssse3));
/// with both (pixels into planes, whose inputs lie back to back) the source asked for ahead
/// ([`prefetch_ahead`]).
///
/// # Safety
///
/// The CPU has AVX2; those 32 bytes of every register are inside live allocations, the outputs
/// disjoint from each other and from the inputs; with `STREAM`, every output register starts
/// on 32 bytes; with `LINES`, `groups` is even.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn groups_avx2<const K: usize, const W: usize, const STREAM: bool, const LINES: bool>(
    way: Way,
    (ins, in_step): ([*const u8; K], usize),
    (outs, out_step): ([*mut u8; K], usize),
    groups: usize,
) {
    let odd: &Odd = match way {
        Way::IntoPixels => const { &Odd::new(K, W, Way::IntoPixels) },
        Way::IntoPlanes => const { &Odd::new(K, W, Way::IntoPlanes) },
    };
    let per = if LINES { 2 } else { 1 };
    // Streamed lines of planes that share their offset in a 4 KiB page are held back from each
    // other (`skew` says why and what it gained).
    let streamed = STREAM && LINES && way == Way::IntoPlanes;
    let mut skewed = streamed.then(|| super::skew::Skewed::for_planes(outs, groups / 2)).flatten();
    for g0 in (0..groups).step_by(per) {
        // Streamed lines of planes from back-to-back pixels: the source asked for ahead, as
        // `groups_lane_pairs` does. f32 C = 3 NHWC→NCHW on an AMD EPYC (Zen 3), a scratch loop
        // of `convert` alternating four times: at 256 MiB one thread 14.7–15.9 → 17.0–18.2
        // GB/s, two threads 26.2–27.6 → 26.8–31.8; at 16 MiB 26.3–30.2 → 28.8–30.0.
        if STREAM && LINES {
            prefetch_ahead::<K>(ins[0].wrapping_add(g0 * in_step), per * 32);
        }
        let mut parts = [[_mm256_setzero_si256(); K]; 2];
        for (j, part) in parts.iter_mut().take(per).enumerate() {
            let g = g0 + j;
            let x: [__m256i; K] = core::array::from_fn(|r| {
                // SAFETY: input register `r` of group `g` is inside its buffer (the caller's
                // contract; `g < groups`, with `LINES` as `groups` is even).
                unsafe { _mm256_loadu_si256(ins[r].add(g * in_step).cast()) }
            });
            *part = match way {
                Way::IntoPixels => into_pixels::<K, W>(odd, x),
                Way::IntoPlanes => into_planes::<K, W>(odd, x),
            };
        }
        if let Some(skewed) = skewed.as_mut() {
            let lines = core::array::from_fn(|o| [parts[0][o], parts[1][o]]);
            // SAFETY: line `g0 / 2` of each plane (its groups `g0` and `g0 + 1`, `out_step` 32)
            // is inside it, each plane starts on a line (streamed), lines in order.
            unsafe { skewed.line(g0 / 2, lines) };
            continue;
        }
        for o in 0..K {
            for (j, part) in parts.iter().take(per).enumerate() {
                let to = outs[o].wrapping_add((g0 + j) * out_step).cast();
                // SAFETY: output register `o` of group `g0 + j` is inside its buffer, and on 32
                // bytes where streamed (the caller's contract).
                unsafe {
                    match STREAM {
                        true => _mm256_stream_si256(to, part[o]),
                        false => _mm256_storeu_si256(to, part[o]),
                    }
                }
            }
        }
    }
    if let Some(skewed) = skewed.as_mut() {
        // SAFETY: as above, for the lines given.
        unsafe { skewed.finish(groups / 2) };
    }
}
