//! The strip probe's loads and stores (`std::arch`: the bench is built for baseline x86-64).
//! Their loops without the shuffles, one per pass the probes of `strip_probes.rs` mirror.

/// A pass's geometry: channels a pixel, pixels a channel plane, bytes an element, channels
/// a band, pixels a tile.
#[derive(Clone, Copy)]
pub(super) struct Geometry {
    pub(super) channels: usize,
    pub(super) pixels: usize,
    pub(super) size: usize,
    pub(super) band: usize,
    pub(super) sweep: usize,
}

/// Whether this CPU has what the probe's loads and stores need.
pub(super) fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether this CPU has AVX2 (the probes of AVX2's streamed passes).
pub(super) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether this CPU is AMD's (CPUID's vendor string), as the library tells its cores apart.
pub(super) fn amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let id = std::arch::x86_64::__cpuid(0);
        [id.ebx, id.edx, id.ecx] == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The NCHW destination (bytes) that the tasks write side by side, each its own pixels of
/// every channel's plane: [`task`] asserts that its strips lie inside it, and the caller
/// gives the tasks disjoint pixel ranges.
pub(super) struct Parts {
    start: *mut u8,
    len: usize,
}

// SAFETY: the tasks write disjoint bytes (their pixel ranges are disjoint) of a buffer the
// `Parts` borrows mutably for its whole life.
unsafe impl Sync for Parts {}

impl Parts {
    pub(super) fn new(d: &mut [u8]) -> Parts {
        Parts { start: d.as_mut_ptr(), len: d.len() }
    }
}

/// What a probe's strips do: the whole strip's loads and stores, or one side alone (so that
/// the two sides' times can be set against the whole's).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Both,
    /// The loads, folded into one register a strip, which row 0 takes.
    Loads,
    /// The stores, of a zeroed register.
    Stores,
}

/// One task: pixels `pixels` of every channel, from the NHWC source `s` (bytes) into the NCHW
/// destination `d`, tile by tile, band by band, strip by strip, each strip's `part`. Panics
/// unless every strip lies inside both buffers and the CPU passes [`avx512`]; the caller gives
/// each task its own pixels.
pub(super) fn task(s: &[u8], d: &Parts, pixels: std::ops::Range<usize>, g: Geometry, part: Part) {
    let Geometry { channels, pixels: all, size, band, sweep } = g;
    // The strips below: f32 16 channels by 16 pixels, f16 32 by 32, u8 32 by 64.
    assert!(avx512() && matches!((size, band), (4, 16) | (2, 32) | (1, 32)));
    let line = 64 / size; // pixels a strip
    let plane = all.checked_mul(size).expect("a destination row's bytes");
    assert!(d.len == channels * plane && channels.is_multiple_of(band));
    assert!(pixels.end <= all && pixels.start.is_multiple_of(line) && pixels.len().is_multiple_of(line));
    assert!(sweep > 0 && sweep.is_multiple_of(line) && s.len() == d.len);
    assert!(d.start.align_offset(64) == 0 && plane.is_multiple_of(64));
    for t0 in pixels.clone().step_by(sweep) {
        for b in (0..channels).step_by(band) {
            for p in (t0..(t0 + sweep).min(pixels.end)).step_by(line) {
                let (from, to) = ((p * channels + b) * size, (b * all + p) * size);
                // SAFETY: the CPU has AVX-512 F, BW and VL (asserted); the strip reads the
                // runs of pixels `p..p + line` (`line` of them, `band * size` bytes each:
                // 64, or 32 for u8), `channels * size` apart from `from` (inside `s`, as
                // long as `d`: `p + line <= all`, `b + band <= channels`), and writes `band`
                // lines of 64 bytes, `plane` apart from `to`: inside `d`, in this task's
                // pixels (`p..p + line` inside `pixels`, asserted), which no other task
                // writes.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    let (src, dst) = (s.as_ptr().add(from), d.start.add(to));
                    let ss = channels * size;
                    match size {
                        4 => x86::strip_part::<16, false>(part, src, ss, dst, plane),
                        2 => x86::strip_part::<32, false>(part, src, ss, dst, plane),
                        _ => x86::strip_part::<32, true>(part, src, ss, dst, plane),
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("no AVX-512 here: asserted above {from} {to}");
            }
        }
    }
}

/// One task of a streamed NHWC→NCHW pass: the images of `d` (bytes: whole NCHW images) from
/// the NHWC images at the start of `s`, image by image, tile by tile, band by band, strip
/// by strip, streamed, with the next tile's source lines prefetched over the first half of
/// each tile's bands where it has more than two; then a store fence. A strip of 2- or 4-byte
/// elements loads a 64-byte run a pixel and streams a line a channel; of bytes (AVX2's blocks in
/// their EVEX forms, 32 channels a band) a 32-byte run a pixel, two pixels' runs streamed as a
/// channel's line. Panics unless every strip lies inside both slices, every destination line
/// starts on a cache line and the CPU passes [`avx512`].
pub(super) fn streamed_nchw_task(s: &[u8], d: &mut [u8], g: Geometry) {
    let Geometry { channels, pixels, size, band, sweep } = g;
    assert!(avx512() && matches!((size, band), (4, 16) | (2, 32) | (1, 32)));
    let line = 64 / size; // pixels a strip
    let image = channels.checked_mul(pixels).and_then(|e| e.checked_mul(size)).expect("an image's bytes");
    assert!(image > 0 && d.len().is_multiple_of(image) && d.len() <= s.len());
    assert!(channels.is_multiple_of(band) && pixels.is_multiple_of(sweep) && sweep.is_multiple_of(line));
    assert!(d.as_ptr().align_offset(64) == 0 && (pixels * size).is_multiple_of(64));
    let (bands, tile) = (channels / band, sweep * channels * size); // a tile's source bytes
    let per_band = tile.div_ceil(64).div_ceil(bands.div_ceil(2)); // lines prefetched a band
    for i in 0..d.len() / image {
        let (s, d) = (&s[i * image..(i + 1) * image], &mut d[i * image..(i + 1) * image]);
        for t0 in (0..pixels).step_by(sweep) {
            let next = (t0 + sweep) * channels * size; // the next tile's source, if any
            for (k, b) in (0..channels).step_by(band).enumerate() {
                for p in (t0..t0 + sweep).step_by(line) {
                    let (from, to) = ((p * channels + b) * size, (b * pixels + p) * size);
                    // SAFETY: the CPU has AVX-512 F, BW and VL (asserted), so AVX2; the strip
                    // reads `line` runs of `band * size` bytes (64, or 32 for bytes),
                    // `channels * size` apart from `from` (pixels `p + line <= pixels`,
                    // channels `b + band <= channels`: inside the image `s`), and streams
                    // `band` lines of 64 bytes, `pixels * size` apart from `to` (inside the
                    // image `d`), each on a cache line (`d`, `pixels * size` and `p * size` are
                    // multiples of 64).
                    #[cfg(target_arch = "x86_64")]
                    unsafe {
                        let (src, dst) = (s.as_ptr().add(from), d.as_mut_ptr().add(to));
                        match (size, band) {
                            (1, _) => x86::streamed_pairs_avx2(src, channels, line, dst, pixels),
                            (_, 16) => x86::streamed_strip::<16>(src, channels * size, dst, pixels * size),
                            _ => x86::streamed_strip::<32>(src, channels * size, dst, pixels * size),
                        }
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    unreachable!("no AVX-512 here: asserted above {from} {to}");
                }
                let lines = (next + k * per_band * 64..next + (k + 1) * per_band * 64).step_by(64);
                let walks = bands > 2;
                for at in lines.take_while(|&at| at < s.len() && walks && k < bands.div_ceil(2)) {
                    #[cfg(target_arch = "x86_64")]
                    x86::prefetch(&s[at]);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

/// One task of a u8 (or, with AVX2, f16 and f32) NHWC→NCHW pass through staged tiles, without
/// the transposes: the images of `d` (whole NCHW images) from the NHWC images at the start of
/// `s`, image by image, tile by tile (15 lines of every channel's plane, the last tile what is
/// left: 60 KiB of source, copied as it lies into a buffer with ordinary stores), each tile's
/// 64 runs streamed to the 64 planes at the tile's pixels while (without AVX-512, as the
/// library does) the next tile's source is prefetched, a run's share with each run; then a
/// store fence. Panics unless the images are 64 channels of 1, 2 or 4 bytes, whole lines, lines
/// aligned, and the CPU passes [`avx512`] or [`avx2`].
pub(super) fn staged_nchw_task(s: &[u8], d: &mut [u8], g: Geometry) {
    const TILE: usize = 15 * 64; // bytes of a plane a tile: the library's, an odd number of lines
    let Geometry { channels, pixels, size, .. } = g;
    assert!((avx512() || avx2()) && matches!(size, 1 | 2 | 4) && channels == 64);
    let plane = pixels * size; // bytes
    let image = channels * plane;
    assert!(image > 0 && d.len().is_multiple_of(image) && d.len() <= s.len());
    assert!(d.as_ptr().align_offset(64) == 0 && plane.is_multiple_of(64));
    let mut staging = vec![0u8; channels * TILE];
    for i in 0..d.len() / image {
        let (s, d) = (&s[i * image..], &mut d[i * image..(i + 1) * image]);
        for t0 in (0..plane).step_by(TILE) {
            let len = TILE.min(plane - t0);
            let staged = &mut staging[..channels * len];
            staged.copy_from_slice(&s[t0 * channels..(t0 + len) * channels]);
            let next = (t0 + len) * channels; // the next tile's source (or the next image's)
            for (r, run) in staged.chunks_exact(len).enumerate() {
                let ahead = (next + r * len..next + (r + 1) * len).step_by(64);
                #[cfg(target_arch = "x86_64")]
                ahead.filter_map(|at| s.get(at)).filter(|_| !avx512()).for_each(x86::prefetch);
                #[cfg(target_arch = "x86_64")]
                x86::stream_runs(run, len, &mut d[r * plane + t0..], plane);
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("no AVX2 here: asserted above {ahead:?} {run:?}");
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

/// A streamed pass's plane: channels, pixels, bytes an element, channels a band (the
/// plane's channels where its bands run across them, one strip's where they run down the
/// pixels), and whether its source comes from memory (not the last-level cache).
#[derive(Clone, Copy)]
pub(super) struct Streamed {
    pub(super) channels: usize,
    pub(super) pixels: usize,
    pub(super) size: usize,
    pub(super) band: usize,
    pub(super) from_memory: bool,
}

impl Streamed {
    /// Whether the strips are AVX2's (no AVX-512 here) in the library's columns of one strip's
    /// planes down all the pixels, its source runs read in place: a source from memory (from
    /// the last-level cache, AVX2's strips on AMD's cores read runs that share an L1 set
    /// through tiles, another loop), on AMD's cores for halves and bytes (Intel's stage their
    /// far runs: `Strips::stages_far_runs`), f32's 16 planes on both.
    pub(super) fn avx2_columns(&self) -> bool {
        let in_place = self.size == 4 || amd();
        !avx512() && avx2() && self.from_memory && in_place && self.band == self.strip().1
    }

    /// A strip's pixels and channels. At AVX-512 a register's elements each way for 2- and
    /// 4-byte elements; for bytes (AVX2's blocks in their EVEX forms) 32 pixels by a line's 64
    /// channels, or, where a pixel is 32 channels (half a line: tall strips), a line's 64
    /// pixels by 32. At AVX2 a 32-byte register's pixels by a line's channels (bytes as
    /// above).
    pub(super) fn strip(&self) -> (usize, usize) {
        match (self.size, self.channels) {
            (1, 32) => (64, 32),
            (1, _) => (32, 64),
            (size, _) if !avx512() => (32 / size, 64 / size),
            (size, _) => (64 / size, 64 / size),
        }
    }
}

/// One task: plane `t` of the channel-first source `s` (bytes) streamed into the task's
/// part `d` of the channel-last destination (bytes), band by band (`g.band` channels each),
/// down a band strip by strip along the pixels and across it strip by strip along the
/// channels, then a store fence: the library's order. A strip of 2- or 4-byte elements loads
/// one 64-byte run a channel and streams one line a pixel; of bytes, a 32-byte run a channel
/// and one line a pixel (two runs a line), or (tall) a whole line a channel and its pixels'
/// half lines, dense. Panics unless every strip lies inside both slices, every destination
/// line starts on a cache line and the CPU passes [`avx512`] (or [`Streamed::avx2_columns`]:
/// AVX2's strips load a 32-byte run a plane, each pair streamed at once as a pixel's line).
pub(super) fn streamed_task(s: &[u8], d: &mut [u8], t: usize, g: Streamed) {
    let Streamed { channels: k, pixels: p, size, band, .. } = g;
    assert!((avx512() || g.avx2_columns()) && matches!(size, 1 | 2 | 4));
    let (px, ch) = g.strip();
    let bytes = k.checked_mul(p).and_then(|n| n.checked_mul(size)).expect("a plane's bytes");
    assert!(k.is_multiple_of(band) && band.is_multiple_of(ch) && p.is_multiple_of(px) && d.len() == bytes);
    assert!((t + 1).checked_mul(bytes).is_some_and(|end| end <= s.len()));
    assert!(
        d.as_ptr().align_offset(64) == 0
            && (k * size).is_multiple_of(32)
            && (k * size * px).is_multiple_of(64)
    );
    let base = t * bytes;
    for b0 in (0..k).step_by(band) {
        for p0 in (0..p).step_by(px) {
            for c0 in (b0..b0 + band).step_by(ch) {
                let (from, to) = (base + (c0 * p + p0) * size, (p0 * k + c0) * size);
                // SAFETY: the CPU has AVX-512 F, BW and VL, or AVX2 for AVX2's strips
                // (asserted); the strip reads `ch` runs of `px * size` bytes, `p * size` apart
                // from `from` (channels
                // `c0 + ch <= k` of plane `t`, pixels `p0 + px <= p`: inside `s`), and streams
                // `px` rows of `ch * size` bytes, `k * size` apart from `to` (inside `d`), on
                // cache lines where they are whole lines (asserted: `d` and `k * size` are
                // multiples of 64 then, and so is `c0 * size`), or dense half lines from a line
                // (`k * size` is 32 and `px` even).
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    let (src, dst) = (s.as_ptr().add(from), d.as_mut_ptr().add(to));
                    match (size, ch) {
                        (1, 32) => x86::streamed_tall_bytes(src, p, dst),
                        (1, _) => x86::streamed_pairs_avx2(src, p, 64, dst, k),
                        _ if !avx512() => x86::streamed_pairs_avx2(src, p * size, ch, dst, k * size),
                        (2, _) => x86::streamed_strip::<32>(src, p * size, dst, k * size),
                        _ => x86::streamed_strip::<16>(src, p * size, dst, k * size),
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("no AVX-512 here: asserted above {from} {to}");
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

/// The streamed row→column pass of one `m × k` matrix (bytes: `m` source rows of `k` elements
/// of `size` bytes, into `k` destination rows of `m` elements) in the library's order
/// (`by_strips` on a large square plane), without the shuffles: tiles of 4 KiB along each source
/// row (`SWEEP_BYTES`), in each bands of the `64 / size` source rows one destination line
/// takes (two side by side where the library's level is AVX2, a strip of each in turn:
/// `square_bands`; one at AVX-512), down which a strip loads a piece of each row and streams
/// one line of each of its destination rows, then a store fence. With `wide` (AVX-512's strips
/// of whole lines, 2- and 4-byte elements: the library's 32×32 f16 and 16×16 f32 strips) a
/// strip loads a line of each row and streams a line of each of its `64 / size` destination
/// rows; otherwise (AVX2's) 32 bytes of each and a line of each of its `32 / size` rows, a load
/// pair and its line in turn.
/// Panics unless the elements are of 1, 2 or 4 bytes (2 or 4 `wide`), whole tiles and bands
/// fit, the destination rows are whole lines starting on one, and the CPU has AVX2 (passes
/// [`avx512`] where `wide`).
pub(super) fn row_to_column_task(s: &[u8], d: &mut [u8], [m, k]: [usize; 2], size: usize, wide: bool) {
    let (runs, row, col) = (64 / size, k * size, m * size); // source rows a band; bytes a row
    let has = if wide { avx512() && matches!(size, 2 | 4) } else { avx2() && matches!(size, 1 | 2 | 4) };
    assert!(has && s.len() >= m * row && d.len() >= k * col);
    assert!(row_to_column_fits([m, k], size));
    assert!(d.as_ptr().align_offset(64) == 0);
    let piece = if wide { 64 } else { 32 }; // bytes of each source row a strip loads
    let bands = if avx512() { 1 } else { 2 };
    for t0 in (0..row).step_by(SWEEP) {
        for m1 in (0..m).step_by(runs * bands) {
            // The tile's bands side by side: at each step along the rows, a strip of each.
            let steps = (t0..t0 + SWEEP).step_by(piece);
            for (b, m0) in steps.flat_map(|b| (m1..m).step_by(runs).take(bands).map(move |m0| (b, m0))) {
                let (from, to) = (m0 * row + b, b / size * col + m0 * size);
                // SAFETY: the CPU has the strip's features (asserted); the strip reads `piece`
                // bytes of source rows `m0..m0 + runs` (`m0 + runs <= m`) at byte `b` of each
                // (`b + piece <= row`: `row` is whole tiles), inside `s`, and streams a line of
                // each of its destination rows (`runs`, or `runs / 2`), `col` bytes apart from
                // `to` (rows `b / size ..` up to `(b + piece) / size <= k`, columns
                // `m0 .. m0 + runs` of `m`: inside `d`), each on a line (`d`, `col` and
                // `m0 * size = 64 · m0 / runs` are multiples of 64).
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    let (src, dst) = (s.as_ptr().add(from), d.as_mut_ptr().add(to));
                    match (wide, runs) {
                        (false, _) => x86::streamed_pairs_avx2(src, row, runs, dst, col),
                        (true, 16) => x86::streamed_strip::<16>(src, row, dst, col),
                        (true, _) => x86::streamed_strip::<32>(src, row, dst, col),
                    }
                };
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("no AVX2 here: asserted above {from} {to}");
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

/// The streamed row→column pass of one `m × k` matrix (`m` source rows of `k` elements of
/// `size` bytes, into `k` destination rows of `m` elements) in the library's order at AVX2
/// (`by_piped_tiles`, in its bands), without the shuffles ([`x86::piped_tiles`]). Panics unless
/// the elements are of 1, 2 or 4 bytes, whole tiles fit (`m` a multiple of `256 / size`, `k` of
/// `64 / size`, both above zero), the destination starts on a line, its rows are whole lines,
/// and the CPU has AVX2.
pub(super) fn piped_row_to_column_task(s: &[u8], d: &mut [u8], [m, k]: [usize; 2], size: usize) {
    let (row, col) = (k * size, m * size); // bytes of a source row, of a destination row
    assert!(avx2() && matches!(size, 1 | 2 | 4) && s.len() >= m * row && d.len() >= k * col);
    assert!(piped_fits([m, k], size) && m > 0 && k > 0 && d.as_ptr().align_offset(64) == 0);
    // SAFETY: the CPU has AVX2; the plane's `m` runs of `k` elements (`row` bytes apart) are
    // inside `s`, its `k` rows of `m` elements (`col` bytes apart, a whole number of lines from
    // a line) inside `d`; whole tiles (all asserted).
    #[cfg(target_arch = "x86_64")]
    unsafe {
        let (src, dst) = (s.as_ptr(), d.as_mut_ptr());
        // The library's bands (`piped_band`): 4 MiB of destination rows for 4-byte elements.
        let band = if size == 4 { ((4 << 20) / col).clamp(1, k) } else { k };
        match size {
            1 => x86::piped_tiles::<1, 16>(src, row, dst, col, [k, m], band),
            2 => x86::piped_tiles::<2, 8>(src, row, dst, col, [k, m], band),
            _ => x86::piped_tiles::<4, 4>(src, row, dst, col, [k, m], band),
        }
    }
}

/// Whether [`piped_row_to_column_task`] takes an `m × k` matrix of `size`-byte elements.
pub(super) fn piped_fits([m, k]: [usize; 2], size: usize) -> bool {
    let size = size.max(1);
    m.is_multiple_of(256 / size) && k.is_multiple_of(64 / size) && (m * size).is_multiple_of(64)
}

/// Bytes of a tile of [`row_to_column_task`] along each source row: the library's sweep
/// (`SWEEP_BYTES`).
const SWEEP: usize = 4096;

/// Whether [`row_to_column_task`] takes an `m × k` matrix of `size`-byte elements: whole tiles
/// along the rows, whole bands down the columns, destination rows of whole lines.
pub(super) fn row_to_column_fits([m, k]: [usize; 2], size: usize) -> bool {
    let (runs, row, col) = (64 / size.max(1), k * size, m * size);
    row.is_multiple_of(SWEEP) && m.is_multiple_of(runs) && col.is_multiple_of(64)
}

/// The write side of a large matrix's transpose: the task's source read in order and streamed
/// out in runs of `lines` cache lines to each destination row in turn (rows `pitch` bytes apart:
/// run `g` of row 0, of row 1, …, then run `g + 1`), then a store fence. `lines = 1` is the
/// library's row→column sweep's writes, one line of each destination row at a time. Panics
/// unless `d` starts on a line, `pitch` is a whole number of runs and `s` holds `d`'s bytes, or
/// the CPU lacks AVX2.
pub(super) fn write_runs_task(s: &[u8], d: &mut [u8], pitch: usize, lines: usize) {
    let run = 64 * lines;
    assert!(lines > 0 && pitch.is_multiple_of(run) && d.len().is_multiple_of(pitch) && s.len() >= d.len());
    let rows = d.len() / pitch;
    for (g, from) in (0..pitch).step_by(run).zip(s.chunks_exact(rows * run)) {
        #[cfg(target_arch = "x86_64")]
        x86::stream_runs(from, run, &mut d[g..], pitch);
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no streaming stores here {g} {from:?}");
    }
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

#[cfg(target_arch = "x86_64")]
#[path = "strip_loops_x86.rs"]
mod x86;
