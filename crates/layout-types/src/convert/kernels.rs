//! The inner loops of a conversion plan: runs, tiled 2-D transposes, and narrow planes.
//!
//! Everything here is safe code. Speed comes from moving whole registers: a transpose block of
//! 8×8 elements (16×16 of 1-byte ones) is a handful of loads, shuffles and stores. On x86-64
//! the shuffles are SSE2's (the architecture's baseline, through `safe_arch`'s safe wrappers, in
//! [`sse2`]); elsewhere, and for 8-byte elements, the block packs its elements' bits into `u64`
//! words and swaps lanes with shifts and masks (SWAR). One bounds check covers each run.
//!
//! A plane is cut into tiles whose partly written lines stay in L2 until complete, and each
//! tile is swept along the axis whose other side has the shorter stride: one band of [`BLOCK`]
//! streams at a time runs [`SWEEP_BYTES`] long on the side with many far-apart streams, so the
//! hardware prefetcher follows few streams far ahead and they never compete for one cache set
//! (in a power-of-two plane every stream maps to the same set). Where both sides' streams are
//! far apart (a large square matrix) small square-ish tiles are walked instead ([`tiling`]).
//! The other side's lines, which the sweep would first touch a few bytes each and far apart, are
//! prefetched in address order while the previous tile runs ([`LineWalk`]).
//!
//! The level detected at run time adds more ways out (the intrinsics are in the `platform`
//! room, behind [`Strips`]). Strips transpose one register per source run (AVX-512: 16×16 f32,
//! 32×32 f16; AVX2's 32×32 for bytes) and write whole destination cache lines, with streaming
//! stores when the destination is larger than the cache ([`by_strips`]); tall strips stream
//! dense rows of half a line, two rows a line. A streamed plane whose destination rows are
//! dense, up to 1 KiB, and neither whole lines nor half lines starting on one (NHWC with C = 3
//! or 40 f32), so that lines hold parts of two or more rows, is staged instead: panels of whole
//! rows are transposed into a cache-resident buffer and streamed out as one run
//! ([`by_panels`]; C = 2 to 7 stream their pixels straight from the shuffles instead, from
//! AVX2 up, and at SSE2 for bytes and halves where the CPU has SSSE3: [`streamed_pixels`]);
//! dense rows of two lines or more that start inside one go to the strips where those stream
//! them directly, and the strips stream the lines across two rows (seams) from a staged copy
//! of their source runs ([`seams`]). A streamed large matrix into columns goes, where the level
//! has them (AVX2), through piped tiles: each tile transposed into the L1 cache while the tile
//! before streams out, four lines of each destination row back to back, 4-byte elements down
//! bands of 4 MiB of destination rows ([`by_piped_tiles`]).
//! Long destination rows whose strips do not stream them directly
//! (bytes, AVX2's halves, bytes below AVX2 without strips), and at AVX2 every size whose tiles'
//! sources are contiguous blocks (NHWC→NCHW with C ≤ 64), go through staged tiles transposed in the
//! cache and streamed out, each next tile's source prefetched meanwhile where its runs are back to
//! back or near (AVX2's halves: wherever) ([`by_staged_tiles`]). Strips whose source runs the
//! caches cannot hold together copy them into a staging buffer first ([`by_staged_source`]):
//! streamed strips that read more runs far apart at once than the prefetchers follow (bytes; at
//! AVX2 halves, and bytes' tall strips), and AVX2's in cache or from the last-level cache, where
//! more runs than an L1 set has ways all fall in one set (channel planes of a multiple of 4 KiB).

use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd;
use crate::platform::simd::strips::Strips;
use core::ops::Range;

mod line_walk;
mod next_tile;
mod piped;
mod pixels;
mod seams;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;
mod staged;
mod strip_sweep;
mod swar;
#[cfg(test)]
mod tests;

use line_walk::{LineWalk, Lines};
use piped::by_piped_tiles;
use pixels::{streamed_pixels, streamed_planes};
use staged::{by_panels, by_staged_source, by_staged_tiles};
use strip_sweep::by_strips;
use swar::swar_block;

/// Edge of a transpose block, in elements.
pub(super) const BLOCK: usize = 8;

/// Bytes a band of [`BLOCK`] streams runs before the sweep turns to the next band: long enough
/// for the hardware prefetcher to lock onto each stream (measured on a 256 MiB f32 NCHW→NHWC,
/// one thread: 1 KiB runs 15 % slower, 2 KiB 6 %, 8 KiB 7 %).
const SWEEP_BYTES: usize = 4096;

/// Bytes of a tile: the lines a sweep leaves partly written stay in L2 until complete.
const TILE_BYTES: usize = 256 << 10;

/// Tile edges are multiples of this, which every block edge divides.
const TILE_GRAIN: usize = 16;

/// Bytes of a cache line.
pub(super) const CACHE_LINE: usize = 64;

/// Bytes of a staging buffer: a panel of destination staged in the cache before it streams out
/// (`staged`), or source runs staged for the strips (`staged`, `seams`; far runs from memory
/// take longer panels where the strips gain by them: `staged::FAR_PANEL_BYTES`).
const PANEL_BYTES: usize = 64 << 10;

/// A staging buffer, on cache-line boundaries.
#[repr(C, align(64))]
struct Staging([u8; PANEL_BYTES]);

/// Shortest sweep worth making, in bytes per stream.
const MIN_SWEEP_BYTES: usize = 512;

/// Bytes of a tile's (rows, columns) where both sides' streams are far apart: 1 KiB source runs,
/// 128-byte destination runs.
const SQUARE_TILE_BYTES: (usize, usize) = (1024, 128);

/// Copies one run along `axis`.
#[inline]
pub(super) fn copy_run<T: Copy>(src: &[T], s: isize, mut dst: Out<'_, T>, d: isize, axis: LoopAxis) {
    let n = axis.extent;
    if axis.src == 1 && axis.dst == 1 {
        let (s, d) = (s as usize, d as usize);
        dst.at(d..d + n).copy_from(&src[s..s + n]);
    } else if axis.dst == 1 {
        let out = dst.into_at(d as usize..d as usize + n);
        for (i, o) in out.slots().enumerate() {
            o.set(src[(s + i as isize * axis.src) as usize]);
        }
    } else {
        for i in 0..n as isize {
            dst.set((d + i * axis.dst) as usize, src[(s + i * axis.src) as usize]);
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
///
/// With `strips` (a SIMD level above SSE2's blocks, chosen once per conversion), the part of the
/// plane that starts on a destination cache line and holds whole strips goes through
/// [`Strips`] instead ([`by_strips`]), and only its edges take the loops above.
#[inline(never)] // once per plane; kept apart so the block loop gets the registers to itself
pub(super) fn transpose<T: Element>(
    src: &[T],
    s: isize,
    mut dst: Out<'_, T>,
    d: isize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Option<Strips>,
) {
    let unit = cols.dst == 1 && rows.src == 1 && cols.src >= 0 && rows.dst >= 0;
    if let Some(strips) = strips.filter(|_| unit) {
        let (s, d) = (s as usize, d as usize);
        // Dense pixels of a few elements from as many streams, streamed where this CPU can (an
        // RGB image's planes into its pixels, larger than the caches), and the inverse.
        let (k, stream) = (cols.extent, cols.src as usize);
        let pixels = strips.streaming() && (2..8).contains(&k) && rows.dst == k as isize;
        if pixels && streamed_pixels(strips.level(), (src, s, stream), (dst.rb(), d), k, rows.extent) {
            return;
        }
        let (k, stream) = (rows.extent, rows.dst as usize);
        let planes = strips.streaming() && (2..8).contains(&k) && cols.src == k as isize;
        if planes && streamed_planes(strips.level(), (src, s), (dst.rb(), d, stream), k, cols.extent) {
            return;
        }
        if by_panels(src, s, dst.rb(), d, rows, cols, strips)
            || by_staged_tiles(src, s, dst.rb(), d, rows, cols, strips)
            || by_staged_source(src, s, dst.rb(), d, rows, cols, strips)
            || by_piped_tiles(src, s, dst.rb(), d, rows, cols, strips)
            || by_strips(src, s, dst.rb(), d, rows, cols, strips)
        {
            return;
        }
    }
    plane(src, s, dst, d, rows, cols)
}

/// [`transpose`] without strips: the SSE2 or SWAR blocks, the narrow loops, or the scalar loop.
fn plane<T: Element>(src: &[T], s: isize, mut dst: Out<'_, T>, d: isize, rows: LoopAxis, cols: LoopAxis) {
    let unit = cols.dst == 1 && rows.src == 1 && cols.src >= 0 && rows.dst >= 0;
    if !unit {
        for (r, c) in tiles(rows.extent, cols.extent, square_tile::<T>()) {
            scalar_tile(src, s, dst.rb(), d, rows, cols, r, c);
        }
        return;
    }
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    {
        let (s, d) = (s as usize, d as usize);
        if cols.extent < BLOCK {
            narrow!(cols.extent, interleave(src, s, src_stride, dst, d, dst_stride, rows.extent));
        }
        if rows.extent < BLOCK {
            narrow!(rows.extent, deinterleave(src, s, src_stride, dst, d, dst_stride, cols.extent));
        }
    }
    let (along_rows, tile) = tiling::<T>(src_stride, dst_stride);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if T::SIZE == 1 && rows.extent >= sse2::BYTE_BLOCK && cols.extent >= sse2::BYTE_BLOCK {
        return tiled::<T, { sse2::BYTE_BLOCK }>(
            src, s as usize, dst, d as usize, rows, cols, along_rows, tile,
        );
    }
    tiled::<T, BLOCK>(src, s as usize, dst, d as usize, rows, cols, along_rows, tile)
}

/// The tiles of a plane with unit inner strides, in `E`×`E` blocks.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tiled<T: Element, const E: usize>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    along_rows: bool,
    tile: (usize, usize),
) {
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let near_lines =
        |r: &Range<usize>, c: &Range<usize>| near_lines(along_rows, (s, src_stride), (d, dst_stride), r, c);
    let mut tiles = tiles(rows.extent, cols.extent, tile).peekable();
    while let Some((r_tile, c_tile)) = tiles.next() {
        // Whole blocks, then the ragged right and bottom edges.
        let rb = r_tile.start + r_tile.len() / E * E;
        let cb = c_tile.start + c_tile.len() / E * E;
        let (bands, sweep) = if along_rows {
            (c_tile.start..cb, r_tile.start..rb)
        } else {
            (r_tile.start..rb, c_tile.start..cb)
        };
        let blocks = (bands.len() / E) * (sweep.len() / E);
        let mut next = tiles.peek().map(|(r, c)| match along_rows {
            true => LineWalk::new::<T>(near_lines(r, c), blocks, dst.address(0)),
            false => LineWalk::new::<T>(near_lines(r, c), blocks, src.as_ptr() as usize),
        });
        for band in bands.step_by(E) {
            for at in sweep.clone().step_by(E) {
                let (r, c) = if along_rows { (at, band) } else { (band, at) };
                let (from, to) = (s + r + c * src_stride, d + r * dst_stride + c);
                transpose_block::<T, E>(src, from, src_stride, dst.rb(), to, dst_stride);
                match (&mut next, along_rows) {
                    (Some(walk), true) => walk.step_with(|at| dst.prefetch(at)),
                    (Some(walk), false) => walk.step(src),
                    (None, _) => {}
                }
            }
        }
        let (s, d) = (s as isize, d as isize);
        scalar_tile(src, s, dst.rb(), d, rows, cols, r_tile.start..rb, cb..c_tile.end);
        scalar_tile(src, s, dst.rb(), d, rows, cols, rb..r_tile.end, c_tile);
    }
}

/// The near side's lines of the tile `r` × `c`: the destination's rows when sweeping along
/// rows, else the source's columns (`(start, stride)` of each side).
fn near_lines(
    along_rows: bool,
    (s, src_stride): (usize, usize),
    (d, dst_stride): (usize, usize),
    r: &Range<usize>,
    c: &Range<usize>,
) -> Lines {
    if along_rows {
        Lines { first: d + r.start * dst_stride + c.start, stride: dst_stride, count: r.len(), span: c.len() }
    } else {
        Lines { first: s + c.start * src_stride + r.start, stride: src_stride, count: c.len(), span: r.len() }
    }
}

/// How to cut a plane whose columns are `src_stride` apart in the source and rows `dst_stride`
/// apart in the destination: whether to sweep along rows, and a tile's (rows, columns).
///
/// The side with the longer stride has the many far-apart streams: it is swept in bands of
/// [`BLOCK`] streams, [`SWEEP_BYTES`] long, while the lines the other side leaves partly written
/// (one per step of the sweep, the shorter stride apart) stay within [`TILE_BYTES`]. Where both
/// strides are long (a large square matrix) no sweep that long fits: tiles of
/// [`SQUARE_TILE_BYTES`] runs are walked block row by block row instead.
fn tiling<T>(src_stride: usize, dst_stride: usize) -> (bool, (usize, usize)) {
    let size = core::mem::size_of::<T>();
    let along_rows = dst_stride <= src_stride;
    let near = dst_stride.min(src_stride).saturating_mul(size).max(1);
    // Whole blocks of every edge, so only the plane's own ends are ragged.
    let whole = |n: usize| n / TILE_GRAIN * TILE_GRAIN;
    let sweep = whole((SWEEP_BYTES / size).min(TILE_BYTES / near));
    if sweep * size < MIN_SWEEP_BYTES {
        return (false, square_tile::<T>());
    }
    let across = whole(TILE_BYTES / (sweep * size)).max(TILE_GRAIN);
    (along_rows, if along_rows { (sweep, across) } else { (across, sweep) })
}

/// Elements of `T` from `address` (an element's) to the next cache line's start.
fn line_offset<T>(address: usize) -> usize {
    (address.next_multiple_of(CACHE_LINE) - address) / core::mem::size_of::<T>().max(1)
}

/// A tile's (rows, columns) of [`SQUARE_TILE_BYTES`].
fn square_tile<T>() -> (usize, usize) {
    let (rows, cols) = SQUARE_TILE_BYTES;
    let size = core::mem::size_of::<T>();
    ((rows / size).max(BLOCK), (cols / size).max(BLOCK))
}

/// The tiles of a `rows` × `cols` plane, as (row range, column range).
fn tiles(
    rows: usize,
    cols: usize,
    (tr, tc): (usize, usize),
) -> impl Iterator<Item = (core::ops::Range<usize>, core::ops::Range<usize>)> {
    (0..rows).step_by(tr).flat_map(move |r0| {
        (0..cols).step_by(tc).map(move |c0| (r0..(r0 + tr).min(rows), c0..(c0 + tc).min(cols)))
    })
}

/// `K` source streams (at `s + c * stream`, each `n` long) interleaved into `n` destination rows
/// of `K` elements (at `d + i * row`).
#[inline(never)] // once per plane; its loop compiles apart from the block loops
fn interleave<T: Element, const K: usize>(
    src: &[T],
    s: usize,
    stream: usize,
    mut dst: Out<'_, T>,
    d: usize,
    row: usize,
    n: usize,
) {
    let streams: [&[T]; K] = core::array::from_fn(|c| &src[s + c * stream..s + c * stream + n]);
    // Dense pixels: the platform's groups, then blocks of 64 pixels.
    if row == K {
        simd::interleave(dst.into_at(d..d + n * K), streams);
    } else {
        for i in 0..n {
            let out = dst.at(d + i * row..d + i * row + K);
            for (o, from) in out.slots().zip(&streams) {
                o.set(from[i]);
            }
        }
    }
}

/// `n` source runs of `K` elements (at `s + i * run`) spread over `K` destination streams (at
/// `d + r * stream`, each `n` long).
#[inline(never)] // as `interleave`
fn deinterleave<T: Element, const K: usize>(
    src: &[T],
    s: usize,
    run: usize,
    dst: Out<'_, T>,
    d: usize,
    stream: usize,
    n: usize,
) {
    // The destination does not overlap itself, so `stream >= n` and the streams are disjoint chunks.
    let mut chunks = dst.into_at(d..).chunks(stream);
    let mut streams: [Out<'_, T>; K] =
        core::array::from_fn(|_| chunks.next().unwrap_or_default().into_at(..n));
    // Dense runs get their own loop, as in `interleave`: the platform's groups first (an RGB
    // image's pixels, and other few-channel ones), then blocks of 64 pixels, each channel's values
    // gathered into a buffer (a fixed-stride loop the compiler turns into shuffles) and written
    // to its stream at once. The blocks against a checked store per value, on an AMD EPYC
    // (Zen 4), NHWC→NCHW, two threads, in turn twice: at 256 MiB with C = 3 f32 16.6–17.0 →
    // 25.6–34.1 GB/s, f16 8.9–9.0 → 17.7–18.0, u8 5.3 → 7.0–8.4; at 1 MiB f32 C = 3 8.0 →
    // 23.8, C = 4 4.5 → 26.2, u8 C = 3 1.9 → 3.7, C = 4 1.1 → 6.1. The shuffles against the
    // blocks: `simd::deinterleave_at`; streamed: [`streamed_planes`].
    if run == K {
        const PIXELS: usize = 64;
        let done = simd::deinterleave(&src[s..s + n * K], streams.each_mut().map(|o| o.rb()));
        let mut blocks = src[s + done * K..s + n * K].chunks_exact(K * PIXELS);
        let mut at = done;
        for block in blocks.by_ref() {
            for (c, to) in streams.iter_mut().enumerate() {
                let values: [T; PIXELS] = core::array::from_fn(|j| block[j * K + c]);
                to.at(at..at + PIXELS).copy_from(&values);
            }
            at += PIXELS;
        }
        for (i, from) in blocks.remainder().chunks_exact(K).enumerate() {
            for (to, &v) in streams.iter_mut().zip(from) {
                to.set(at + i, v);
            }
        }
    } else {
        for i in 0..n {
            let from = &src[s + i * run..s + i * run + K];
            for (to, &v) in streams.iter_mut().zip(from) {
                to.set(i, v);
            }
        }
    }
}

/// One `E`×`E` block: source runs start at `from + c * src_stride` (contiguous along the
/// destination's rows), destination runs at `to + r * dst_stride`. `E` is [`BLOCK`], or
/// `sse2::BYTE_BLOCK` for 1-byte elements on x86-64.
#[inline(always)]
fn transpose_block<T: Element, const E: usize>(
    src: &[T],
    from: usize,
    src_stride: usize,
    dst: Out<'_, T>,
    to: usize,
    dst_stride: usize,
) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        if E == sse2::BYTE_BLOCK {
            return sse2::byte_block(src, from, src_stride, dst, to, dst_stride);
        }
        if T::SIZE < 8 {
            return sse2::block(src, from, src_stride, dst, to, dst_stride);
        }
    }
    swar_block(src, from, src_stride, dst, to, dst_stride)
}

/// Element by element over `rows` × `cols` of the plane.
#[allow(clippy::too_many_arguments)]
#[inline]
fn scalar_tile<T: Copy>(
    src: &[T],
    s: isize,
    mut dst: Out<'_, T>,
    d: isize,
    rows: LoopAxis,
    cols: LoopAxis,
    rs: core::ops::Range<usize>,
    cs: core::ops::Range<usize>,
) {
    for r in rs {
        let (sr, dr) = (s + r as isize * rows.src, d + r as isize * rows.dst);
        for c in cs.clone() {
            dst.set((dr + c as isize * cols.dst) as usize, src[(sr + c as isize * cols.src) as usize]);
        }
    }
}
