//! Groups between `K` planes and pixels of `K` elements (2 to 7: an image's few channels), both
//! ways: `K` registers in, `K` registers out, each output register gathered across the inputs
//! (the safety argument is the room's, in `platform/mod.rs`). Into pixels, output register
//! `k`'s element `l` is position `p = kL + l` of the pixels (`L` elements a register), element
//! `p / K` of plane `p % K`; into planes, plane `s`'s element `i` is position `p = Ki + s`,
//! element `p % L` of input register `p / L` ([`source`]).
//!
//! AVX-512 ([`groups_wide`], [`groups_vbmi`]): two-source permutes of the inputs in pairs, the
//! pairs after the first merged in by their element masks; bytes take VBMI's permutes, the
//! other sizes AVX-512 BW's and F's. SSSE3 ([`groups_ssse3`]): one byte shuffle of each input
//! register, ORed (`K²` shuffles a group of `16 K` bytes); with AVX2, the same shuffles of two
//! groups at once, one in each 128-bit lane ([`groups_lane_pairs`]). AVX2's own groups (4- and
//! 8-byte elements), without a two-source permute across 128-bit lanes, pair planes first:
//! [`gather_avx2`](mod@super::gather_avx2).

use core::arch::x86_64::*;

use super::super::Level;

/// Pairs of input registers at most (`K` up to 7).
const PAIRS: usize = 4;

/// Which way a group goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Way {
    /// `K` planes into pixels of `K` elements.
    IntoPixels,
    /// Pixels of `K` elements into `K` planes.
    IntoPlanes,
}

/// The permutes of a group of `K` registers of `w`-byte elements going `way`: per pair `q` of
/// input registers (`2q` and `2q + 1`; the last alone where `K` is odd) and output register
/// `o`, the index table of the elements `o` takes from the pair (index `e` of register `2q`,
/// `L + e` of `2q + 1`, as `w`-byte little-endian integers) and their mask.
#[derive(Clone, Copy)]
pub(super) struct Tables<const K: usize> {
    indices: [[[u8; 64]; K]; PAIRS],
    masks: [[u64; PAIRS]; K],
}

impl<const K: usize> Tables<K> {
    /// The tables for `w`-byte elements going `way` (for `K` of 1 they are never used:
    /// [`groups`](super::interleave::groups) has none).
    pub(super) const fn new(w: usize, way: Way) -> Tables<K> {
        assert!(K < 2 * PAIRS && matches!(w, 1 | 2 | 4 | 8));
        let (mut indices, mut masks) = ([[[0u8; 64]; K]; PAIRS], [[0u64; PAIRS]; K]);
        let lanes = 64 / w;
        let mut o = 0;
        while o < K {
            let mut l = 0;
            while l < lanes {
                let (r, e) = source(way, K, lanes, o, l);
                indices[r / 2][o][l * w] = ((r % 2) * lanes + e) as u8;
                masks[o][r / 2] |= 1 << l;
                l += 1;
            }
            o += 1;
        }
        Tables { indices, masks }
    }
}

/// Input register and element that element `l` of output register `o` takes, for `k` registers
/// of `lanes` elements going `way`.
const fn source(way: Way, k: usize, lanes: usize, o: usize, l: usize) -> (usize, usize) {
    match way {
        Way::IntoPixels => ((o * lanes + l) % k, (o * lanes + l) / k),
        Way::IntoPlanes => ((k * l + o) / lanes, (k * l + o) % lanes),
    }
}

/// The byte shuffles of [`groups_ssse3`] for `w`-byte elements going `way`: output register `o`,
/// input register `r`, the bytes `o` takes from `r` (0x80 elsewhere: a zero, for the OR).
pub(super) struct Masks<const K: usize>([[[u8; 16]; K]; K]);

impl<const K: usize> Masks<K> {
    /// The masks for `w`-byte elements going `way`.
    pub(super) const fn new(w: usize, way: Way) -> Masks<K> {
        assert!(matches!(w, 1 | 2 | 4 | 8));
        let mut masks = [[[0x80u8; 16]; K]; K];
        let mut o = 0;
        while o < K {
            let mut b = 0;
            while b < 16 {
                let (r, e) = source(way, K, 16 / w, o, b / w);
                masks[o][r][b] = (e * w + b % w) as u8;
                b += 1;
            }
            o += 1;
        }
        Masks(masks)
    }
}

/// `groups` groups of 16-byte registers by `masks`: input register `r` of group `g` at
/// `ins[r] + g * in_step`, output register `o` at `outs[o] + g * out_step`, streamed when
/// `STREAM`; with `LINES`, four groups at a time, each output's four registers stored back to
/// back (a whole line of a plane: one group at a time, the 16-byte streaming stores went to
/// the planes in turn, and moved 0.65–0.66 of a streaming copy where a line at a time moved
/// 0.96–0.99: C = 3 NHWC→NCHW at 256 MiB, AMD EPYC, Zen 4, two threads, u8 and f16). With
/// `STREAM` and `LINES` (pixels into planes, whose inputs lie back to back) the source is asked
/// for ahead ([`prefetch_ahead`]); at AVX2 that path is [`groups_lane_pairs`]'s, where the
/// prefetch was measured (its doc), and below AVX2 it was not.
///
/// # Safety
///
/// The CPU has SSSE3; those 16 bytes of every register are inside live allocations, the
/// outputs disjoint from each other and from the inputs; with `STREAM`, every output register
/// starts on 16 bytes; with `LINES`, `groups` is a multiple of 4.
#[target_feature(enable = "ssse3")]
pub(super) unsafe fn groups_ssse3<const K: usize, const STREAM: bool, const LINES: bool>(
    masks: &Masks<K>,
    (ins, in_step): ([*const u8; K], usize),
    (outs, out_step): ([*mut u8; K], usize),
    groups: usize,
) {
    // SAFETY: every mask is 16 bytes of a constant; unaligned loads.
    let m: [[__m128i; K]; K] =
        masks.0.each_ref().map(|o| o.each_ref().map(|t| unsafe { _mm_loadu_si128(t.as_ptr().cast()) }));
    let per = if LINES { 4 } else { 1 };
    for g0 in (0..groups).step_by(per) {
        if STREAM && LINES {
            prefetch_ahead::<K>(ins[0].wrapping_add(g0 * in_step), per * 16);
        }
        let mut parts = [[_mm_setzero_si128(); K]; 4];
        for (j, part) in parts.iter_mut().take(per).enumerate() {
            let g = g0 + j;
            let x: [__m128i; K] = core::array::from_fn(|r| {
                // SAFETY: input register `r` of group `g` is inside its buffer (the caller's
                // contract; `g < groups`, with `LINES` as `groups` is a multiple of 4).
                unsafe { _mm_loadu_si128(ins[r].add(g * in_step).cast()) }
            });
            for (o, out) in part.iter_mut().enumerate() {
                let mut v = _mm_shuffle_epi8(x[0], m[o][0]);
                for r in 1..K {
                    v = _mm_or_si128(v, _mm_shuffle_epi8(x[r], m[o][r]));
                }
                *out = v;
            }
        }
        for o in 0..K {
            for (j, part) in parts.iter().take(per).enumerate() {
                let to = outs[o].wrapping_add((g0 + j) * out_step).cast();
                // SAFETY: output register `o` of group `g0 + j` is inside its buffer, and on 16
                // bytes where streamed (the caller's contract).
                unsafe {
                    match STREAM {
                        true => _mm_stream_si128(to, part[o]),
                        false => _mm_storeu_si128(to, part[o]),
                    }
                }
            }
        }
    }
}

/// The 16-byte groups (bytes and halves) at `level`, going `way`: two a register with AVX2
/// ([`groups_lane_pairs`], which says what that gained), else [`groups_ssse3`]; into planes a
/// line of each plane at a time where streamed (`LINES` is `STREAM`), into pixels one group at
/// a time. The one place that choice is made, for both ways.
///
/// # Safety
///
/// The CPU has `level` and SSSE3; the rest is [`groups_lane_pairs`]'s contract where `level` is
/// AVX2 or more, else [`groups_ssse3`]'s with `LINES` as said.
#[inline]
pub(super) unsafe fn groups_16<const K: usize, const STREAM: bool>(
    level: Level,
    way: Way,
    masks: &Masks<K>,
    ins: ([*const u8; K], usize),
    outs: ([*mut u8; K], usize),
    groups: usize,
) {
    // SAFETY: the caller's contract is the chosen function's, and the CPU has its features
    // (AVX2 where `level` is AVX2 or more; SSSE3).
    unsafe {
        match (level >= Level::Avx2, way) {
            (true, _) => groups_lane_pairs::<K, STREAM>(way, masks, ins, outs, groups),
            (false, Way::IntoPlanes) => groups_ssse3::<K, STREAM, STREAM>(masks, ins, outs, groups),
            (false, Way::IntoPixels) => groups_ssse3::<K, STREAM, false>(masks, ins, outs, groups),
        }
    }
}

/// Bytes ahead of the group it reads that a streamed group loop asks for its source lines (where
/// the source is larger than the caches, the loop's shuffles between its loads left the
/// hardware prefetcher behind): [`prefetch_ahead`].
const STREAMED_SOURCE_AHEAD: usize = 2048;

/// Asks for the source lines [`STREAMED_SOURCE_AHEAD`] bytes past `at` of groups of `K` inputs of
/// `bytes` each, back to back (pixels into planes: a line of each plane at a time). A hint:
/// nothing is read, and an address past the buffer is never touched.
#[inline(always)]
pub(super) fn prefetch_ahead<const K: usize>(at: *const u8, bytes: usize) {
    let ahead = at.wrapping_add(STREAMED_SOURCE_AHEAD);
    for line in 0..(K * bytes).div_ceil(64) {
        // SAFETY: x86-64 has SSE; a prefetch reads nothing and faults on no address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(64 * line).cast()) };
    }
}

/// [`groups_ssse3`] with AVX2: two groups a 32-byte register, group `g` in the low 128-bit lane
/// and `g + 1` in the high one, each lane shuffled by the same 16-byte masks (AVX2's byte
/// shuffle stays inside lanes), so half the loads, shuffles and ORs a group. Into planes
/// (`way`), output register `o` of groups `g` and `g + 1` is the 32 bytes at `outs[o] + 16 g`
/// (each plane's groups back to back, `out_step` 16), one store; streamed, two such pairs at a
/// time (a whole line of each plane, stored back to back), with the source asked for ahead
/// ([`prefetch_ahead`]). Into pixels, each lane is stored where [`groups_ssse3`] stores its
/// group, group `g`'s registers then `g + 1`'s (in address order). A last odd group goes
/// through [`groups_ssse3`]. On an AMD EPYC (Zen 3), u8 C = 3 NHWC→NCHW through `convert` (a scratch
/// loop, best of 5 calls, alternating four times beside the same loads and stores without the
/// shuffles): at 256 MiB, two threads, 16.7–18.7 GB/s → 22.5–24.6 (the loads and stores alone
/// 26.7–29.2), one thread 8.9–12.1 → 13.6–15.5 (14.7–16.8); in cache (1 MiB, calls back to
/// back) 66–75 → 87–111, one thread 41–42 → 64–65. The prefetch alone gave a third of the
/// streamed gain.
///
/// # Safety
///
/// As [`groups_ssse3`] with `LINES` equal to `STREAM` into planes (`false` into pixels); the
/// CPU has AVX2; into planes, `out_step` is 16 and with `STREAM` every output starts on a line
/// (so that each 32-byte store is aligned to its width).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn groups_lane_pairs<const K: usize, const STREAM: bool>(
    way: Way,
    masks: &Masks<K>,
    (ins, in_step): ([*const u8; K], usize),
    (outs, out_step): ([*mut u8; K], usize),
    groups: usize,
) {
    // The masks in both lanes (once, outside the loop).
    let m: [[__m256i; K]; K] = masks.0.each_ref().map(|o| {
        o.each_ref().map(|t| {
            // SAFETY: every mask is 16 bytes of a constant; an unaligned load.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr().cast()) })
        })
    });
    // Pairs of groups an iteration: streamed, a line of each plane.
    let per = if STREAM { 2 } else { 1 };
    let pairs = groups / 2 / per * per;
    // Streamed planes that share their offset in a 4 KiB page are held back from each other
    // (`skew` says why and what it gained).
    let streamed = STREAM && way == Way::IntoPlanes;
    let mut skewed = streamed.then(|| super::skew::Skewed::for_planes(outs, groups / 4)).flatten();
    // Index loops over the pairs (`per` is a constant): `take` and `skip` in such a loop were
    // not inlined into it (`gather_avx2`'s blends, BENCHMARKS.md step 34).
    let mut p0 = 0;
    while p0 < pairs {
        if STREAM && way == Way::IntoPlanes {
            prefetch_ahead::<K>(ins[0].wrapping_add(2 * p0 * in_step), 2 * per * 16);
        }
        let mut parts = [[_mm256_setzero_si256(); K]; 2];
        #[allow(clippy::needless_range_loop)] // index loops, as said above
        for j in 0..per {
            let g = 2 * (p0 + j);
            let mut x = [_mm256_setzero_si256(); K];
            for (r, x) in x.iter_mut().enumerate() {
                // SAFETY: input register `r` of groups `g` and `g + 1` is inside its buffer (the
                // caller's contract: `g + 1 < groups`); unaligned loads.
                *x = unsafe {
                    _mm256_loadu2_m128i(ins[r].add((g + 1) * in_step).cast(), ins[r].add(g * in_step).cast())
                };
            }
            for (o, out) in parts[j].iter_mut().enumerate() {
                let mut v = _mm256_shuffle_epi8(x[0], m[o][0]);
                for r in 1..K {
                    v = _mm256_or_si256(v, _mm256_shuffle_epi8(x[r], m[o][r]));
                }
                *out = v;
            }
        }
        match (way, skewed.as_mut()) {
            // A line of each plane, held back as `skewed` says (`per` is 2: streamed).
            (Way::IntoPlanes, Some(skewed)) => {
                let lines = core::array::from_fn(|o| [parts[0][o], parts[1][o]]);
                // SAFETY: line `p0 / 2` of each plane (its pairs `p0` and `p0 + 1`) is inside
                // it, each plane starts on a line (the caller's contract), lines in order.
                unsafe { skewed.line(p0 / per, lines) };
            }
            // A plane's two groups back to back: one 32-byte store, a plane's line in turn.
            (Way::IntoPlanes, None) => {
                for o in 0..K {
                    #[allow(clippy::needless_range_loop)] // index loops, as said above
                    for j in 0..per {
                        let to = outs[o].wrapping_add(2 * (p0 + j) * 16).cast();
                        // SAFETY: output register `o` of both groups is inside its buffer, 32
                        // bytes from `to`; with `STREAM` on 32 bytes (each plane starts on a
                        // line, and a line is two pairs: the caller's contract).
                        unsafe {
                            match STREAM {
                                true => _mm256_stream_si256(to, parts[j][o]),
                                false => _mm256_storeu_si256(to, parts[j][o]),
                            }
                        }
                    }
                }
            }
            // Pixels: group `g`'s `K` registers, then group `g + 1`'s, in address order.
            (Way::IntoPixels, _) => {
                #[allow(clippy::needless_range_loop)] // index loops, as said above
                for j in 0..per {
                    let g = 2 * (p0 + j);
                    for o in 0..K {
                        let v = parts[j][o];
                        let (low, high) = (_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
                        let (a, b) =
                            (outs[o].wrapping_add(g * out_step), outs[o].wrapping_add((g + 1) * out_step));
                        // SAFETY: output register `o` of groups `g` and `g + 1` is inside its
                        // buffer (16 bytes at `a` and at `b`), on 16 bytes where streamed (the
                        // caller's contract).
                        unsafe {
                            match STREAM {
                                true => {
                                    _mm_stream_si128(a.cast(), low);
                                    _mm_stream_si128(b.cast(), high);
                                }
                                false => {
                                    _mm_storeu_si128(a.cast(), low);
                                    _mm_storeu_si128(b.cast(), high);
                                }
                            }
                        }
                    }
                }
            }
        }
        p0 += per;
    }
    if let Some(skewed) = skewed.as_mut() {
        // SAFETY: as above, for the lines given.
        unsafe { skewed.finish(pairs / per) };
    }
    let done = 2 * pairs;
    if done < groups {
        let ins = ins.map(|i| i.wrapping_add(done * in_step));
        let outs = outs.map(|o| o.wrapping_add(done * out_step));
        // SAFETY: the groups left are inside the buffers (the caller's contract), one at a time.
        unsafe { groups_ssse3::<K, STREAM, false>(masks, (ins, in_step), (outs, out_step), groups - done) };
    }
}

/// The loop [`groups_wide`] and [`groups_vbmi`] share: per group `g`, input register `r` loaded
/// from `ins[r] + g * in_step`, output register `o` stored (streamed where `$stream`) at
/// `outs[o] + g * out_step`; `$perm2(a, idx, b)` the two-source permute, `$perm1(src, k, idx,
/// a)` the masked one-source permute merging into `src`, `$merge(src, k, v)` the masked move,
/// `$mask` the mask type. Expands to unsafe code: the caller's function has the features.
macro_rules! gather_groups {
    ($k:ident, $stream:expr, $tables:expr, [$ins:expr, $in_step:expr], [$outs:expr, $out_step:expr],
     $groups:expr, $perm2:ident, $perm1:ident, $merge:ident, $mask:ty) => {{
        let tables: &Tables<$k> = $tables;
        // SAFETY: every index table is 64 bytes of a constant; unaligned loads.
        let load = |t: &[u8; 64]| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
        let indices: [[__m512i; $k]; PAIRS] = tables.indices.each_ref().map(|p| p.each_ref().map(load));
        let pairs = $k.div_ceil(2);
        for g in 0..$groups {
            let x: [__m512i; $k] = core::array::from_fn(|r| {
                // SAFETY: input register `r` of group `g` is inside its buffer (the caller's
                // contract); unaligned loads.
                unsafe { _mm512_loadu_si512($ins[r].add(g * $in_step).cast()) }
            });
            for o in 0..$k {
                let mut v = $perm2(x[0], indices[0][o], x[1]);
                for q in 1..pairs {
                    let mask = tables.masks[o][q] as $mask;
                    v = match 2 * q + 1 < $k {
                        true => $merge(v, mask, $perm2(x[2 * q], indices[q][o], x[2 * q + 1])),
                        false => $perm1(v, mask, indices[q][o], x[2 * q]),
                    };
                }
                let to = $outs[o].wrapping_add(g * $out_step).cast();
                // SAFETY: output register `o` of group `g` is inside its buffer, and on a line
                // where streamed (the caller's contract).
                unsafe {
                    match $stream {
                        true => _mm512_stream_si512(to, v),
                        false => _mm512_storeu_si512(to, v),
                    }
                }
            }
        }
    }};
}

/// `groups` groups of `W`-byte elements (2, 4 or 8) by `tables`: input register `r` of group `g`
/// at `ins[r] + g * in_step`, output register `o` at `outs[o] + g * out_step`, streamed when
/// `STREAM`.
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; those 64 bytes of every register are inside live allocations,
/// the outputs disjoint from each other and from the inputs; with `STREAM`, every output register
/// starts on a line.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn groups_wide<const K: usize, const W: usize, const STREAM: bool>(
    tables: &Tables<K>,
    (ins, in_step): ([*const u8; K], usize),
    (outs, out_step): ([*mut u8; K], usize),
    groups: usize,
) {
    match W {
        2 => gather_groups!(
            K,
            STREAM,
            tables,
            [ins, in_step],
            [outs, out_step],
            groups,
            _mm512_permutex2var_epi16,
            _mm512_mask_permutexvar_epi16,
            _mm512_mask_mov_epi16,
            __mmask32
        ),
        4 => gather_groups!(
            K,
            STREAM,
            tables,
            [ins, in_step],
            [outs, out_step],
            groups,
            _mm512_permutex2var_epi32,
            _mm512_mask_permutexvar_epi32,
            _mm512_mask_mov_epi32,
            __mmask16
        ),
        _ => gather_groups!(
            K,
            STREAM,
            tables,
            [ins, in_step],
            [outs, out_step],
            groups,
            _mm512_permutex2var_epi64,
            _mm512_mask_permutexvar_epi64,
            _mm512_mask_mov_epi64,
            __mmask8
        ),
    }
}

/// [`groups_wide`] for bytes.
///
/// # Safety
///
/// As [`groups_wide`]; the CPU has AVX-512 VBMI too.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn groups_vbmi<const K: usize, const STREAM: bool>(
    tables: &Tables<K>,
    (ins, in_step): ([*const u8; K], usize),
    (outs, out_step): ([*mut u8; K], usize),
    groups: usize,
) {
    gather_groups!(
        K,
        STREAM,
        tables,
        [ins, in_step],
        [outs, out_step],
        groups,
        _mm512_permutex2var_epi8,
        _mm512_mask_permutexvar_epi8,
        _mm512_mask_mov_epi8,
        __mmask64
    )
}
