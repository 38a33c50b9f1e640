//! The strip probes' loads and stores themselves (`std::arch`, each behind the feature its
//! caller checked): the loops of `strip_loops.rs` without their shuffles.

use core::arch::x86_64::*;

/// `runs` runs of 32 bytes (`j * ss` bytes from `src`) loaded two at a time, each pair
/// streamed at once as line `i` (`i * ds` bytes from `dst`): a streamed strip without its
/// shuffles, its loads and stores in turn.
///
/// # Safety
///
/// The CPU has AVX2; those bytes are inside live, disjoint allocations; every line starts
/// on a cache line.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn streamed_pairs_avx2(src: *const u8, ss: usize, runs: usize, dst: *mut u8, ds: usize) {
    for i in 0..runs / 2 {
        // SAFETY: runs `2i` and `2i + 1` and line `i` are inside the buffers, the line
        // aligned (the caller's contract).
        unsafe {
            let a = _mm256_loadu_si256(src.add(2 * i * ss).cast());
            let b = _mm256_loadu_si256(src.add((2 * i + 1) * ss).cast());
            _mm256_stream_si256(dst.add(i * ds).cast(), a);
            _mm256_stream_si256(dst.add(i * ds + 32).cast(), b);
        }
    }
}

/// A streamed tall byte strip without its shuffles: 32 source runs of a whole line
/// (`j * ss` bytes from `src`), each loaded as two 32-byte registers, all loaded first (as
/// the strip loads its blocks), then streamed to the 2 KiB from `dst` (64 rows of 32 bytes).
///
/// # Safety
///
/// The CPU has AVX2; those bytes are inside live, disjoint allocations; `dst` starts on a
/// cache line.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn streamed_tall_bytes(src: *const u8, ss: usize, dst: *mut u8) {
    let v: [__m256i; 64] = core::array::from_fn(|i| {
        // SAFETY: run `i / 2`'s line is inside `src` (the caller's contract).
        unsafe { _mm256_loadu_si256(src.add(i / 2 * ss + i % 2 * 32).cast()) }
    });
    for (r, v) in v.iter().enumerate() {
        // SAFETY: row `r`'s 32 bytes are inside `dst`, 32-byte aligned (the caller's
        // contract).
        unsafe { _mm256_stream_si256(dst.add(r * 32).cast(), *v) };
    }
}

/// `E` registers loaded (register `j`: the 64-byte run `j * ss` bytes from `src`, or
/// with `PAIRED` the 32-byte runs `j` and `E + j`), then stored as rows `r * ds` bytes
/// from `dst`: a strip's loads and stores without its shuffles. With `LOADS` false the rows
/// are stored from one zeroed register and nothing is loaded; with `STORES` false the
/// registers are loaded and folded into one, which only row 0 takes (one store a strip, so
/// that the loads are not optimized away).
///
/// # Safety
///
/// The CPU has AVX-512 F, BW and VL; those bytes are inside live, disjoint allocations.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn strip<const E: usize, const PAIRED: bool, const LOADS: bool, const STORES: bool>(
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
) {
    let v: [__m512i; E] = core::array::from_fn(|j| {
        if !LOADS {
            return _mm512_setzero_si512();
        }
        // SAFETY: run `j` (and `E + j`) is inside `src` (the caller's contract).
        unsafe {
            match PAIRED {
                true => _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(_mm256_loadu_si256(src.add(j * ss).cast())),
                    _mm256_loadu_si256(src.add((E + j) * ss).cast()),
                ),
                false => _mm512_loadu_si512(src.add(j * ss).cast()),
            }
        }
    });
    if !STORES {
        let folded = v.iter().fold(_mm512_setzero_si512(), |a, &v| _mm512_xor_si512(a, v));
        // SAFETY: row 0's 64 bytes are inside `dst` (the caller's contract).
        unsafe { _mm512_storeu_si512(dst.cast(), folded) };
        return;
    }
    for (r, v) in v.iter().enumerate() {
        // SAFETY: row `r`'s 64 bytes are inside `dst` (the caller's contract).
        unsafe { _mm512_storeu_si512(dst.add(r * ds).cast(), *v) };
    }
}

/// [`strip`] doing `part` of it: both sides, its loads alone or its stores alone.
///
/// # Safety
///
/// As [`strip`].
pub(super) unsafe fn strip_part<const E: usize, const PAIRED: bool>(
    part: super::Part,
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
) {
    use super::Part;
    // SAFETY: the caller's contract is `strip`'s.
    unsafe {
        match part {
            Part::Both => strip::<E, PAIRED, true, true>(src, ss, dst, ds),
            Part::Loads => strip::<E, PAIRED, true, false>(src, ss, dst, ds),
            Part::Stores => strip::<E, PAIRED, false, true>(src, ss, dst, ds),
        }
    }
}

/// `E` registers loaded (register `j`: the 64-byte run `j * ss` bytes from `src`), then
/// streamed as lines `r * ds` bytes from `dst`: a streamed strip without its shuffles.
///
/// # Safety
///
/// As [`strip`]; every line starts on a cache line.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn streamed_strip<const E: usize>(src: *const u8, ss: usize, dst: *mut u8, ds: usize) {
    // SAFETY: run `j` is inside `src` (the caller's contract).
    let v: [__m512i; E] = core::array::from_fn(|j| unsafe { _mm512_loadu_si512(src.add(j * ss).cast()) });
    for (r, v) in v.iter().enumerate() {
        // SAFETY: line `r` is inside `dst` and aligned (the caller's contract).
        unsafe { _mm512_stream_si512(dst.add(r * ds).cast(), *v) };
    }
}

/// The runs of `from` (`len` bytes each) streamed into `to`, run `r` at `r * pitch`,
/// line by line, unfenced. Panics unless the runs are whole lines, start on lines, fit
/// in `to`, and the CPU has AVX-512 F or AVX2.
pub(super) fn stream_runs(from: &[u8], len: usize, to: &mut [u8], pitch: usize) {
    let runs = from.len() / len.max(1);
    assert!(len.is_multiple_of(64) && from.len() == runs * len && pitch.is_multiple_of(64));
    assert!(to.as_ptr().align_offset(64) == 0 && runs > 0 && (runs - 1) * pitch + len <= to.len());
    if !std::arch::is_x86_feature_detected!("avx512f") {
        assert!(std::arch::is_x86_feature_detected!("avx2"));
        #[target_feature(enable = "avx2")]
        fn lines(from: &[u8], len: usize, to: &mut [u8], pitch: usize) {
            for (r, run) in from.chunks_exact(len).enumerate() {
                let to = &mut to[r * pitch..r * pitch + len];
                for (f, t) in run.chunks_exact(32).zip(to.chunks_exact_mut(32)) {
                    // SAFETY: both chunks are 32 bytes, `t` 32-byte aligned (`to`
                    // starts on a line, `pitch` and `len` are whole lines: asserted).
                    unsafe {
                        _mm256_stream_si256(t.as_mut_ptr().cast(), _mm256_loadu_si256(f.as_ptr().cast()))
                    };
                }
            }
        }
        // SAFETY: the CPU has AVX2 (asserted); `lines` is otherwise safe.
        return unsafe { lines(from, len, to, pitch) };
    }
    #[target_feature(enable = "avx512f")]
    fn lines(from: &[u8], len: usize, to: &mut [u8], pitch: usize) {
        for (r, run) in from.chunks_exact(len).enumerate() {
            let to = &mut to[r * pitch..r * pitch + len];
            for (f, t) in run.chunks_exact(64).zip(to.chunks_exact_mut(64)) {
                // SAFETY: both chunks are 64 bytes, `t` on a line (`to` starts on one,
                // `pitch` and `len` are whole lines: asserted by the caller).
                unsafe { _mm512_stream_si512(t.as_mut_ptr().cast(), _mm512_loadu_si512(f.as_ptr().cast())) };
            }
        }
    }
    // SAFETY: the CPU has AVX-512 F (asserted); `lines` is otherwise safe.
    unsafe { lines(from, len, to, pitch) }
}

/// Asks for the cache line of `x` (a hint).
pub(super) fn prefetch(x: &u8) {
    // SAFETY: SSE is part of x86-64; a prefetch reads nothing the program sees.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const u8).cast()) }
}

/// Orders the streamed stores before what follows, as the library does before a pass
/// returns.
pub(super) fn fence() {
    // SAFETY: SSE2 is part of x86-64.
    unsafe { _mm_sfence() }
}

/// The library's piped tiles (`platform/simd/x86/piped.rs`) without their shuffles: a plane
/// of `cols` source runs (`ss` bytes apart, `rows` elements of `W` bytes each) into `rows`
/// destination rows (`ds` bytes apart), a tile of one line of each of `256 / W` runs at a time,
/// each step's `N = 16 / W` registers of 32 bytes loaded and stored into the tile as their two
/// 16-byte lanes where the library stores its transposed lanes, a share of the previous tile's
/// rows streamed after each step, down bands of `band` destination rows (rounded up to whole
/// tiles) one column of tiles after another; then a store fence.
///
/// # Safety
///
/// The CPU has AVX2; `rows` is a multiple of `64 / W` and `cols` of `256 / W`; those bytes are
/// inside live, disjoint allocations; `dst` and `ds` are multiples of a line.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn piped_tiles<const W: usize, const N: usize>(
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
    [rows, cols]: [usize; 2],
    band: usize,
) {
    const ROW: usize = 256; // bytes of each destination row a tile holds
    let (tile_rows, tile_runs) = (64 / W, ROW / W);
    let steps = 2 * tile_runs / N;
    let share = tile_rows.div_ceil(steps);
    #[repr(C, align(64))]
    struct Tiles([[u8; ROW * 64]; 2]);
    let mut tiles = Tiles([[0; ROW * 64]; 2]);
    let mut pending: Option<*mut u8> = None;
    let mut k_tile = 0;
    let band = band.clamp(1, rows.max(1)).next_multiple_of(tile_rows);
    for b0 in (0..rows).step_by(band) {
        for c0 in (0..cols).step_by(tile_runs) {
            for r0 in (b0..rows.min(b0 + band)).step_by(tile_rows) {
                let (this, last) = tiles.0.split_at_mut(1);
                let (this, last) =
                    if k_tile % 2 == 0 { (&mut this[0], &last[0]) } else { (&mut last[0], &this[0]) };
                for k in 0..steps {
                    let (group, half) = (k / 2, k % 2);
                    let at = group * N * W;
                    for j in 0..N {
                        // SAFETY: run `c0 + group * N + j`'s 32 bytes at `r0 * W + half * 32` are
                        // inside the plane (the caller's contract).
                        let v = unsafe {
                            _mm256_loadu_si256(src.add((c0 + group * N + j) * ss + r0 * W + half * 32).cast())
                        };
                        let (low, high) =
                            ((half * 32 / W + j) * ROW + at, (half * 32 / W + N + j) * ROW + at);
                        // SAFETY: both are 32 bytes of plain data.
                        let lanes: [[u8; 16]; 2] = unsafe { core::mem::transmute(v) };
                        this[low..low + 16].copy_from_slice(&lanes[0]);
                        this[high..high + 16].copy_from_slice(&lanes[1]);
                    }
                    if let Some(to) = pending {
                        for r in (k * share).min(tile_rows)..((k + 1) * share).min(tile_rows) {
                            // SAFETY: the previous tile's row `r` is inside the plane, on a line.
                            unsafe { stream_row(&last[r * ROW..(r + 1) * ROW], to.add(r * ds)) };
                        }
                    }
                }
                // SAFETY: this tile's first row and column are inside the plane.
                pending = Some(unsafe { dst.add(r0 * ds + c0 * W) });
                k_tile += 1;
            }
        }
    }
    if let Some(to) = pending {
        let last = &tiles.0[(k_tile + 1) % 2];
        for r in 0..tile_rows {
            // SAFETY: as above.
            unsafe { stream_row(&last[r * ROW..(r + 1) * ROW], to.add(r * ds)) };
        }
    }
    _mm_sfence();
}

/// `row`'s bytes (whole registers) streamed to `to`.
///
/// # Safety
///
/// The CPU has AVX2; `to` starts on a line and holds `row.len()` bytes.
#[target_feature(enable = "avx2")]
unsafe fn stream_row(row: &[u8], to: *mut u8) {
    for (k, chunk) in row.chunks_exact(32).enumerate() {
        // SAFETY: the caller's contract.
        unsafe { _mm256_stream_si256(to.add(k * 32).cast(), _mm256_loadu_si256(chunk.as_ptr().cast())) };
    }
}
