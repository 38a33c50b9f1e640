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
