//! The inner loops of a conversion plan: runs, tiled 2-D transposes, and narrow planes.
//!
//! Everything here is safe code. Speed comes from moving whole machine words: a transpose block
//! packs its elements' bits into `u64` words and swaps lanes with shifts and masks (SWAR), so an
//! 8×8 block of f32 is 16 word loads, 12 word swaps and 16 word stores instead of 64 scalar
//! loads and stores; one bounds check covers each run of [`BLOCK`] elements.

use super::LoopAxis;
use crate::dtype::Element;

/// Edge of a transpose block, in elements.
pub(super) const BLOCK: usize = 8;

/// Length in bytes of a tile's source runs: long enough that the hardware prefetcher follows each
/// of the many source streams (one per destination column).
const ROW_TILE_BYTES: usize = 1024;

/// Tile edge along the destination's contiguous axis, in elements: a tile's source rows stay in
/// L1 while its destination rows are written.
const fn col_tile<T>() -> usize {
    match core::mem::size_of::<T>() {
        1 => 128,
        2 => 64,
        _ => 32,
    }
}

/// Copies one run along `axis`.
#[inline]
pub(super) fn copy_run<T: Copy>(src: &[T], s: isize, dst: &mut [T], d: isize, axis: LoopAxis) {
    let n = axis.extent;
    if axis.src == 1 && axis.dst == 1 {
        let (s, d) = (s as usize, d as usize);
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    } else if axis.dst == 1 {
        let out = &mut dst[d as usize..d as usize + n];
        for (i, o) in out.iter_mut().enumerate() {
            *o = src[(s + i as isize * axis.src) as usize];
        }
    } else {
        for i in 0..n as isize {
            dst[(d + i * axis.dst) as usize] = src[(s + i * axis.src) as usize];
        }
    }
}

/// Calls `$f::<$k>($args)` for a narrow extent `$k` in 2..[`BLOCK`] and returns from the
/// enclosing function; falls through for any other extent.
macro_rules! narrow {
    ($k:expr, $f:ident($($arg:expr),*)) => {
        match $k {
            2 => return $f::<_, 2>($($arg),*),
            3 => return $f::<_, 3>($($arg),*),
            4 => return $f::<_, 4>($($arg),*),
            5 => return $f::<_, 5>($($arg),*),
            6 => return $f::<_, 6>($($arg),*),
            7 => return $f::<_, 7>($($arg),*),
            _ => {}
        }
    };
}

/// Copies the plane spanned by `rows` (the source's innermost axis) and `cols` (the
/// destination's innermost axis).
///
/// With unit strides on both inner sides it picks one of three loops: source streams interleaved
/// into short destination rows ([`interleave`]: C < 8 in NCHW→NHWC), short source runs spread
/// over destination streams ([`deinterleave`]: C < 8 in NHWC→NCHW), or tiles of
/// [`BLOCK`]×[`BLOCK`] blocks. Strided or mirrored inner axes take the scalar loop, tiled.
#[inline(never)] // once per plane; kept apart so the block loop gets the registers to itself
pub(super) fn transpose<T: Element>(
    src: &[T],
    s: isize,
    dst: &mut [T],
    d: isize,
    rows: LoopAxis,
    cols: LoopAxis,
) {
    let unit = cols.dst == 1 && rows.src == 1 && cols.src >= 0 && rows.dst >= 0;
    if unit {
        let (s, d) = (s as usize, d as usize);
        if cols.extent < BLOCK {
            narrow!(
                cols.extent,
                interleave(src, s, cols.src as usize, dst, d, rows.dst as usize, rows.extent)
            );
        }
        if rows.extent < BLOCK {
            narrow!(
                rows.extent,
                deinterleave(src, s, cols.src as usize, dst, d, rows.dst as usize, cols.extent)
            );
        }
    }
    let (tr, tc) = (ROW_TILE_BYTES / T::SIZE, col_tile::<T>());
    for r0 in (0..rows.extent).step_by(tr) {
        let r1 = (r0 + tr).min(rows.extent);
        for c0 in (0..cols.extent).step_by(tc) {
            let c1 = (c0 + tc).min(cols.extent);
            if !unit {
                scalar_tile(src, s, dst, d, rows, cols, r0..r1, c0..c1);
                continue;
            }
            // Whole blocks, then the ragged right and bottom edges.
            let (rb, cb) = (r0 + (r1 - r0) / BLOCK * BLOCK, c0 + (c1 - c0) / BLOCK * BLOCK);
            for r in (r0..rb).step_by(BLOCK) {
                for c in (c0..cb).step_by(BLOCK) {
                    let from = (s + r as isize + c as isize * cols.src) as usize;
                    let to = (d + r as isize * rows.dst + c as isize) as usize;
                    transpose_block(src, from, cols.src as usize, dst, to, rows.dst as usize);
                }
            }
            scalar_tile(src, s, dst, d, rows, cols, r0..rb, cb..c1);
            scalar_tile(src, s, dst, d, rows, cols, rb..r1, c0..c1);
        }
    }
}

/// `K` source streams (at `s + c * stream`, each `n` long) interleaved into `n` destination rows
/// of `K` elements (at `d + i * row`).
#[inline]
fn interleave<T: Copy, const K: usize>(
    src: &[T],
    s: usize,
    stream: usize,
    dst: &mut [T],
    d: usize,
    row: usize,
    n: usize,
) {
    let streams: [&[T]; K] = core::array::from_fn(|c| &src[s + c * stream..s + c * stream + n]);
    // Dense rows get their own loop: `chunks_exact` drops the per-row bounds check, which one
    // `chunks(row)` loop for both cases does not (measured: C = 3 up to 20 % slower).
    if row == K {
        for (i, out) in dst[d..d + n * K].chunks_exact_mut(K).enumerate() {
            for (o, from) in out.iter_mut().zip(&streams) {
                *o = from[i];
            }
        }
    } else {
        for i in 0..n {
            let out = &mut dst[d + i * row..d + i * row + K];
            for (o, from) in out.iter_mut().zip(&streams) {
                *o = from[i];
            }
        }
    }
}

/// `n` source runs of `K` elements (at `s + i * run`) spread over `K` destination streams (at
/// `d + r * stream`, each `n` long).
#[inline]
fn deinterleave<T: Copy, const K: usize>(
    src: &[T],
    s: usize,
    run: usize,
    dst: &mut [T],
    d: usize,
    stream: usize,
    n: usize,
) {
    // The destination does not overlap itself, so `stream >= n` and the streams are disjoint chunks.
    let mut chunks = dst[d..].chunks_mut(stream);
    let mut streams: [&mut [T]; K] = core::array::from_fn(|_| {
        let chunk = chunks.next().unwrap_or_default();
        &mut chunk[..n]
    });
    // Dense runs get their own loop, as in `interleave`.
    if run == K {
        for (i, from) in src[s..s + n * K].chunks_exact(K).enumerate() {
            for (to, &v) in streams.iter_mut().zip(from) {
                to[i] = v;
            }
        }
    } else {
        for i in 0..n {
            let from = &src[s + i * run..s + i * run + K];
            for (to, &v) in streams.iter_mut().zip(from) {
                to[i] = v;
            }
        }
    }
}

/// One [`BLOCK`]×[`BLOCK`] block: source runs start at `from + c * src_stride` (contiguous along
/// the destination's rows), destination runs at `to + r * dst_stride`.
///
/// The runs are packed into `u64` words (`8 / size` lanes each) and transposed in three stages,
/// each swapping the off-diagonal halves of 2×2 sub-blocks of half the previous edge: a swap of
/// whole words where the sub-block edge is at least a word, a masked shift within words below it.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // `i`, `j`, `k` index two rows at once
fn transpose_block<T: Element>(
    src: &[T],
    from: usize,
    src_stride: usize,
    dst: &mut [T],
    to: usize,
    dst_stride: usize,
) {
    let lanes = 8 / T::SIZE; // elements per word
    let words = BLOCK / lanes; // words per run
    let mut block = [[0u64; BLOCK]; BLOCK];
    for (c, run) in block.iter_mut().enumerate() {
        let at = from + c * src_stride;
        let elements: &[T; BLOCK] = src[at..at + BLOCK].try_into().expect("a run is BLOCK long");
        for (k, word) in run[..words].iter_mut().enumerate() {
            *word = pack(&elements[k * lanes..(k + 1) * lanes]);
        }
    }
    // Plain counted loops with `continue`: the compiler unrolls them fully and keeps `block` in
    // registers (iterator adapters here defeat that).
    let mut half = BLOCK / 2;
    while half > 0 {
        for i in 0..BLOCK {
            if i & half != 0 {
                continue;
            }
            let j = i + half;
            if half >= lanes {
                let shift = half / lanes; // in words
                for k in 0..words {
                    if k & shift != 0 {
                        let t = block[i][k];
                        block[i][k] = block[j][k - shift];
                        block[j][k - shift] = t;
                    }
                }
            } else {
                let bits = 8 * half * T::SIZE;
                let low = u64::MAX / ((1 << bits) + 1); // lanes whose index has bit `half` clear
                for k in 0..words {
                    let (a, b) = (block[i][k], block[j][k]);
                    let t = ((a >> bits) ^ b) & low;
                    block[i][k] = a ^ (t << bits);
                    block[j][k] = b ^ t;
                }
            }
        }
        half /= 2;
    }
    for (r, run) in block.iter().enumerate() {
        let at = to + r * dst_stride;
        let out: &mut [T; BLOCK] = (&mut dst[at..at + BLOCK]).try_into().expect("a run is BLOCK long");
        for (k, &word) in run[..words].iter().enumerate() {
            unpack(word, &mut out[k * lanes..(k + 1) * lanes]);
        }
    }
}

/// The elements' bits side by side, the first in the low bits. Goes through bytes, which the
/// compiler turns into one word load.
#[inline(always)]
fn pack<T: Element>(elements: &[T]) -> u64 {
    let mut bytes = [0u8; 8];
    for (chunk, &e) in bytes.chunks_exact_mut(T::SIZE).zip(elements) {
        chunk.copy_from_slice(&e.to_word().to_le_bytes()[..T::SIZE]);
    }
    u64::from_le_bytes(bytes)
}

/// The inverse of [`pack`].
#[inline(always)]
fn unpack<T: Element>(word: u64, out: &mut [T]) {
    for (o, chunk) in out.iter_mut().zip(word.to_le_bytes().chunks_exact(T::SIZE)) {
        let mut bytes = [0u8; 8];
        bytes[..T::SIZE].copy_from_slice(chunk);
        *o = T::from_word(u64::from_le_bytes(bytes));
    }
}

/// Element by element over `rows` × `cols` of the plane.
#[allow(clippy::too_many_arguments)]
#[inline]
fn scalar_tile<T: Copy>(
    src: &[T],
    s: isize,
    dst: &mut [T],
    d: isize,
    rows: LoopAxis,
    cols: LoopAxis,
    rs: core::ops::Range<usize>,
    cs: core::ops::Range<usize>,
) {
    for r in rs {
        let (sr, dr) = (s + r as isize * rows.src, d + r as isize * rows.dst);
        for c in cs.clone() {
            dst[(dr + c as isize * cols.dst) as usize] = src[(sr + c as isize * cols.src) as usize];
        }
    }
}
