//! Pixels of 2-byte floats (the safety argument is the room's, in `platform/mod.rs`): f32 runs
//! rounded into f16 (F16C) or bf16 (AVX2) pixels of `W` 64-bit words, runs of 2-byte values
//! interleaved into such pixels (SSE2), and the pixel stores both share with the byte
//! widening (`widen.rs`).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::Level;

/// The pixels of `W` words both `runs` and `dst` hold, where the runs (one to four) and `W` (1,
/// 2 or 4) are a shape the pixel builders take and, if `stream`, `dst` starts on a 16-byte
/// boundary; else `None`.
pub(super) fn pixels<const W: usize, V>(
    dst: &[MaybeUninit<u8>],
    runs: &[&[V]],
    stream: bool,
) -> Option<usize> {
    pixels_of(dst, runs, stream, matches!(W, 1 | 2 | 4).then_some(8 * W))
}

/// The pixels of `bytes` bytes (`None`: a size the builder does not take) both `runs` and
/// `dst` hold, where the runs are one to four and, if `stream`, `dst` starts on a 16-byte
/// boundary; else `None`. [`pixels`] for any pixel size (the quantized byte pixels').
pub(super) fn pixels_of<V>(
    dst: &[MaybeUninit<u8>],
    runs: &[&[V]],
    stream: bool,
    bytes: Option<usize>,
) -> Option<usize> {
    let aligned = dst.as_ptr().align_offset(16) == 0;
    let bytes = bytes.filter(|_| (1..=4).contains(&runs.len()) && (aligned || !stream))?;
    Some(runs.iter().map(|r| r.len()).min().unwrap_or(0).min(dst.len() / bytes))
}

/// The first `C` runs' starts (null past the runs there are): the pixel groups' loops, one
/// for each count of runs.
pub(super) fn starts<const C: usize, V>(runs: &[&[V]]) -> [*const V; C] {
    core::array::from_fn(|c| runs.get(c).map_or(core::ptr::null(), |r| r.as_ptr()))
}

/// Pixels of f16 (or bf16 if `bf16`) from f32 runs, straight into `dst` (bytes, anywhere;
/// streamed if `stream`, then from a 16-byte boundary): up to four runs of f32 (of equal
/// length), each group of 8 values rounded to nearest even (f16 with F16C's `vcvtps2ph`, bf16
/// with AVX2's integer rounding of the top half, NaNs kept quiet: the bits of `half`'s
/// `from_f32`) and assembled into pixels of `W` words as [`byte_halves`] does. The whole
/// groups of 8 pixels at `level` AVX2 or above where the CPU has F16C, none below (nor, if
/// `stream`, off a 16-byte boundary); a caller that streams fences.
///
/// Against casting each channel's run into an L1 buffer first and building the pixels from
/// it, f32 NCHW C = 3 into f16 NHWC C = 8 on an AMD EPYC (Zen 3, AVX2): see `BENCHMARKS.md`,
/// issue 23 step 21.
pub(in crate::platform) fn float_halves<const W: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    runs: &[&[f32]],
    bf16: bool,
    stream: bool,
) -> usize {
    let Some(n) = pixels::<W, f32>(dst, runs, stream) else { return 0 };
    if level < Level::Avx2 || !super::has_f16c() {
        return 0;
    }
    let (groups, out) = (n / 8, dst.as_mut_ptr().cast());
    // SAFETY: `level` is AVX2 or above, one the CPU has, and F16C was detected; it reads
    // values [0, 8 groups) of each run and writes bytes [0, 64 groups W) of `dst`, all inside,
    // streamed only from `dst`'s 16-byte-aligned start, 16 bytes at a multiple of 16 bytes
    // from it; what it writes are values (f16 or bf16 bits and zeros).
    unsafe {
        match stream {
            true => float_halves_avx2::<W, true>(out, runs, groups, bf16),
            false => float_halves_avx2::<W, false>(out, runs, groups, bf16),
        }
    }
    8 * groups
}

/// # Safety
///
/// The CPU has AVX2 and F16C; every run holds at least `8 groups` values and `out` points to
/// at least `8 groups W` writable words (any alignment; 16-byte aligned if `STREAM`); `runs`
/// holds one to four runs; `W` is 1, 2 or 4.
#[target_feature(enable = "avx2,f16c")]
unsafe fn float_halves_avx2<const W: usize, const STREAM: bool>(
    out: *mut u64,
    runs: &[&[f32]],
    groups: usize,
    bf16: bool,
) {
    // SAFETY: the caller's contract, `C` the runs there are.
    unsafe {
        match runs.len() {
            1 => float_halves_of::<W, 1, STREAM>(out, starts(runs), groups, bf16),
            2 => float_halves_of::<W, 2, STREAM>(out, starts(runs), groups, bf16),
            3 => float_halves_of::<W, 3, STREAM>(out, starts(runs), groups, bf16),
            _ => float_halves_of::<W, 4, STREAM>(out, starts(runs), groups, bf16),
        }
    }
}

/// [`float_halves_avx2`] for `C` runs, each count its own loop (the loop over the runs there
/// were tested their count in every group: `perf` put about 15 % of the samples there). One
/// 224 × 224 image of f32 NCHW C = 3 into f16 NHWC C = 8 (the bench's `fused/1.3MiB` row) on an
/// AMD EPYC (Zen 3, AVX2), in turn three times: two threads 53.8–55.3 → 56.8–59.2 GB/s
/// (0.68–0.72 → 0.74–0.75 of the copy), one thread 48.0–55.1 → 58.4–69.1 (0.61–0.72 →
/// 0.77–0.87); a scratch loop of the best of 10 000 calls, one thread, 66.0–69.1 → 71.9–72.9.
/// Each two pixels of two words stored as one 32-byte register (a lane permute of their pair)
/// lost there: 70.6–70.9 → 60.0–60.4.
///
/// # Safety
///
/// As [`float_halves_avx2`], `runs` the starts of its `C` runs.
#[target_feature(enable = "avx2,f16c")]
unsafe fn float_halves_of<const W: usize, const C: usize, const STREAM: bool>(
    out: *mut u64,
    runs: [*const f32; C],
    groups: usize,
    bf16: bool,
) {
    for g in 0..groups {
        let j = 8 * g;
        // Each channel's 8 values as 2-byte floats, one register each; missing channels zero.
        let mut h = [_mm_setzero_si128(); 4];
        #[allow(clippy::needless_range_loop)]
        for c in 0..C {
            // SAFETY: values j..j + 8 lie in run `c` (the caller's `groups`); unaligned load.
            let f = unsafe { _mm256_loadu_ps(runs[c].add(j)) };
            h[c] = match bf16 {
                true => bf16_bits(f),
                false => _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(f),
            };
        }
        // SAFETY: pixels `j .. j + 8` (their `8 W` words) lie in `out` (the caller's `groups`),
        // 16-byte aligned if `STREAM` (`out` is, and `j W` words are a multiple of 64 bytes).
        unsafe { store_pixels::<W, STREAM>(h, out.add(j * W)) };
    }
}

/// The bf16 bits of 8 f32, rounded to nearest even: the top half after adding 0x7FFF and the
/// kept half's lowest bit (a carry into the exponent rounds up to the next binade or to
/// infinity); a NaN's top half with its quiet bit set.
#[target_feature(enable = "avx2")]
#[inline]
fn bf16_bits(f: __m256) -> __m128i {
    let x = _mm256_castps_si256(f);
    let lowest = _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(1));
    let bias = _mm256_add_epi32(lowest, _mm256_set1_epi32(0x7FFF));
    let rounded = _mm256_srli_epi32::<16>(_mm256_add_epi32(x, bias));
    let magnitude = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF_FFFF));
    let nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7F80_0000));
    let quiet = _mm256_or_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(0x0040));
    let bits = _mm256_blendv_epi8(rounded, quiet, nan);
    // 16-bit values in 32-bit lanes: packed (each lane's four twice), the lanes' first
    // halves brought together.
    let packed = _mm256_packus_epi32(bits, bits);
    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(packed))
}

/// Pixels of `W` words from four registers of 8 halves each (channel `c`'s in `h[c]`): the
/// channels paired, then the pairs paired, gives pixels `2k` and `2k + 1`'s first words, stored
/// with the padding's zero words between, streamed if `STREAM`. SSE2 only: x86-64's baseline.
///
/// # Safety
///
/// `out` points to `8 W` writable words, 16-byte aligned if `STREAM`.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) unsafe fn store_pixels<const W: usize, const STREAM: bool>(h: [__m128i; 4], out: *mut u64) {
    let (ab, cd) = (
        [_mm_unpacklo_epi16(h[0], h[1]), _mm_unpackhi_epi16(h[0], h[1])],
        [_mm_unpacklo_epi16(h[2], h[3]), _mm_unpackhi_epi16(h[2], h[3])],
    );
    let pairs = [
        _mm_unpacklo_epi32(ab[0], cd[0]),
        _mm_unpackhi_epi32(ab[0], cd[0]),
        _mm_unpacklo_epi32(ab[1], cd[1]),
        _mm_unpackhi_epi32(ab[1], cd[1]),
    ];
    // SAFETY: the caller's contract.
    unsafe { store_pairs::<W, STREAM>(pairs, out) };
}

/// Eight pixels of `W` words from their first words, two a register (`pairs[k]` holds pixels
/// `2k` and `2k + 1`'s), stored with the padding's zero words between, streamed if `STREAM`.
/// SSE2 only: x86-64's baseline.
///
/// # Safety
///
/// `out` points to `8 W` writable words, 16-byte aligned if `STREAM`.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) unsafe fn store_pairs<const W: usize, const STREAM: bool>(pairs: [__m128i; 4], out: *mut u64) {
    let zero = _mm_setzero_si128();
    for (k, p) in pairs.into_iter().enumerate() {
        // Pixel `2k`'s first word.
        let first = 2 * k * W;
        // SAFETY: words `first .. first + 2W` lie in `out`'s `8 W` (the caller's contract),
        // each store two words at an even word from `out`.
        unsafe {
            match W {
                1 => store16::<STREAM>(out.add(first).cast(), p),
                _ => {
                    store16::<STREAM>(out.add(first).cast(), _mm_unpacklo_epi64(p, zero));
                    store16::<STREAM>(out.add(first + W).cast(), _mm_unpackhi_epi64(p, zero));
                    for z in (2..W).step_by(2) {
                        store16::<STREAM>(out.add(first + z).cast(), zero);
                        store16::<STREAM>(out.add(first + W + z).cast(), zero);
                    }
                }
            }
        }
    }
}

/// Stores `v`'s 16 bytes at `at`, streamed if `STREAM`: the stores of [`store_pairs`] and of
/// `quantize.rs`'s byte pixels. SSE2 only: x86-64's baseline.
///
/// # Safety
///
/// `at` points to 16 writable bytes, 16-byte aligned if `STREAM`.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) unsafe fn store16<const STREAM: bool>(at: *mut u8, v: __m128i) {
    // SAFETY: the caller's contract.
    unsafe {
        match STREAM {
            true => _mm_stream_si128(at.cast(), v),
            false => _mm_storeu_si128(at.cast(), v),
        }
    }
}

/// Writes the whole groups of 8 pixels of four runs of 2-byte values (channel by channel, of
/// equal length) into `dst`, `W` words a pixel (1, 2 or 4): channel `c`'s bits at bits `16 c`
/// of a pixel's first word, the other words zero. Returns the pixels written. SSE2 only, so
/// every x86-64 runs it.
///
/// f32 NCHW C = 3 into f16 NHWC C = 8 at 448 MiB on an AMD EPYC (Zen 3, AVX2), the fused pass's
/// bench row, word by word → these groups: two threads 14.0–15.6 → 23.3–28.3 GB/s (0.47–0.52
/// → 0.87–0.92 of the strongest copy), one thread 9.4–14.0 → 17.8–20.3.
pub(in crate::platform) fn half_pixels<const W: usize>(dst: &mut [u64], runs: [&[u16]; 4]) -> usize {
    if !matches!(W, 1 | 2 | 4) {
        return 0;
    }
    let groups = runs.iter().map(|r| r.len()).min().unwrap_or(0).min(dst.len() / W) / 8;
    // SAFETY: `dst` holds at least `8 groups W` words.
    unsafe { half_groups::<W, false>(dst.as_mut_ptr(), runs, groups) };
    8 * groups
}

/// [`half_pixels`] with streaming stores, straight into `dst`, which starts on a 16-byte
/// boundary (the caller fences).
pub(in crate::platform) fn half_pixels_streamed<const W: usize>(
    dst: &mut [MaybeUninit<u64>],
    runs: [&[u16]; 4],
) -> usize {
    let groups = runs.iter().map(|r| r.len()).min().unwrap_or(0).min(dst.len() / W) / 8;
    if !matches!(W, 1 | 2 | 4) || dst.as_ptr().cast::<u8>().align_offset(16) != 0 {
        return 0;
    }
    // SAFETY: `dst` holds at least `8 groups W` words and starts 16-byte aligned; the words
    // written are the runs' values and zeros.
    unsafe { half_groups::<W, true>(dst.as_mut_ptr().cast(), runs, groups) };
    8 * groups
}

/// # Safety
///
/// `out` points to at least `8 groups W` writable words, 16-byte aligned if `STREAM`; every
/// run holds at least `8 groups` values; `W` is 1, 2 or 4.
unsafe fn half_groups<const W: usize, const STREAM: bool>(out: *mut u64, runs: [&[u16]; 4], groups: usize) {
    for g in 0..groups {
        let j = 8 * g;
        // SAFETY: values `j .. j + 8` lie in every run (the caller's `groups`), unaligned
        // loads of SSE2 (x86-64's baseline); pixels `j .. j + 8` lie in `out`, 16-byte
        // aligned if `STREAM` (`j W` words are a multiple of 64 bytes).
        unsafe {
            let h = runs.map(|r| _mm_loadu_si128(r.as_ptr().add(j).cast()));
            store_pixels::<W, STREAM>(h, out.add(j * W));
        }
    }
}
