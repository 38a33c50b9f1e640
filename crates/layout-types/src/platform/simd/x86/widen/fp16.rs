//! Image bytes into f16 pixels with AVX-512 FP16's integer conversions (the safety argument is
//! the room's, in `platform/mod.rs`): each byte permuted straight into its channel's word of
//! its pixel, then every word converted at once (`vcvtuw2ph`).

use core::arch::x86_64::*;

/// [`byte_halves_fp16_of`] for the runs there are (one to four) and `signed`, each its own loop.
///
/// # Safety
///
/// As [`byte_halves_fp16_of`], `runs` holding one to four runs.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512fp16")]
pub(super) unsafe fn byte_halves_fp16<const W: usize>(
    out: *mut u64,
    runs: &[&[u8]],
    groups: usize,
    signed: bool,
) {
    // SAFETY: the caller's contract, with `C` the runs there are.
    unsafe {
        match (runs.len(), signed) {
            (1, false) => byte_halves_fp16_of::<W, 1, false>(out, runs, groups),
            (2, false) => byte_halves_fp16_of::<W, 2, false>(out, runs, groups),
            (3, false) => byte_halves_fp16_of::<W, 3, false>(out, runs, groups),
            (_, false) => byte_halves_fp16_of::<W, 4, false>(out, runs, groups),
            (1, true) => byte_halves_fp16_of::<W, 1, true>(out, runs, groups),
            (2, true) => byte_halves_fp16_of::<W, 2, true>(out, runs, groups),
            (3, true) => byte_halves_fp16_of::<W, 3, true>(out, runs, groups),
            (_, true) => byte_halves_fp16_of::<W, 4, true>(out, runs, groups),
        }
    }
}

/// Groups of 64 pixels of `W` words of f16 from the first `C` runs of bytes (i8 if `SIGNED`,
/// else u8): per 8 pixels, VBMI's byte permutes put each channel's byte in the low byte of its
/// pixel's word `c` (zeros elsewhere: the missing channels and the high bytes; channels 0 and
/// 1 in one two-source permute, channel 2 merged in by a one-source one, channel 3 ORed in
/// with a second two-source one), then the 32 words are converted as unsigned integers to f16
/// (zero stays zero). Signed bytes go in with their top bit flipped (`x + 128`, 0..=255,
/// exact) and their channels' words come out less 128 (exact in f16: integers of at most 8
/// bits). Two shuffles and one conversion per 8 pixels of three channels, where
/// [`super::byte_halves_vbmi`]'s lookups and interleaves take about 4.5 (which Intel's cores
/// run on one port). Permuting from two runs' halves side by side instead (one 128-bit shuffle
/// a half group, then one two-source permute per 8 pixels) was slower: one 224 × 224 image of
/// u8 C = 3 into f16 C = 4 on an Intel Xeon (AVX-512 FP16), one thread, back to back, 75.5
/// GB/s this way, 67.3–70.3 so.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VBMI and FP16; each of the first `C` runs holds at least
/// `64 groups` bytes and `out` points to at least `64 groups W` writable words (any alignment);
/// `W` is 1, 2 or 4, `C` 1 to 4.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512fp16")]
unsafe fn byte_halves_fp16_of<const W: usize, const C: usize, const SIGNED: bool>(
    out: *mut u64,
    runs: &[&[u8]],
    groups: usize,
) {
    // Byte `b` of register `m` (pixels `8m .. 8m + 8`): pixel `p = 8m + b / 8`, word
    // `c = b % 8 / 2`, a channel's byte where `b` is even and `c < C`. Channels 0 and 2 are
    // read from index `p`, 1 and 3 from `64 + p`, a two-source permute's second source (a
    // one-source permute reads 6 bits).
    let mask = |channels: core::ops::Range<usize>| {
        let holds = |b: usize| b.is_multiple_of(2) && channels.contains(&(b % 8 / 2)) && b % 8 / 2 < C;
        (0..64).filter(|&b| holds(b)).fold(0u64, |m, b| m | 1 << b)
    };
    let (k01, k2, k3) = (mask(0..2), mask(2..3), mask(3..4));
    let index: [__m512i; 8] = core::array::from_fn(|m| {
        let bytes: [u8; 64] = core::array::from_fn(|b| (8 * m + b / 8 + 64 * (b % 8 / 2 % 2)) as u8);
        // SAFETY: 64 bytes inside `bytes` (an unaligned load).
        unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
    });
    // Words holding a channel (for the signed bytes' correction).
    let words = (0..32).filter(|&w| w % 4 < C).fold(0u32, |m, w| m | 1 << w);
    let spread = super::Spread::<W>::new();
    let flip = _mm512_set1_epi8(if SIGNED { i8::MIN } else { 0 });
    // 128.0's f16 bits.
    let bias = _mm512_castsi512_ph(_mm512_set1_epi16(0x5800));
    let zero = _mm512_setzero_si512();
    let starts: [*const u8; C] = core::array::from_fn(|c| runs[c].as_ptr());
    for g in 0..groups {
        let j = 64 * g;
        let r: [__m512i; 4] = core::array::from_fn(|c| match c < C {
            // SAFETY: bytes j..j + 64 lie in run `c` (the caller's `groups`); unaligned load.
            true => _mm512_xor_si512(flip, unsafe { _mm512_loadu_si512(starts[c].add(j).cast()) }),
            false => zero,
        });
        for (m, &index) in index.iter().enumerate() {
            let mut pixels = match C {
                1 => _mm512_maskz_permutexvar_epi8(k01, index, r[0]),
                _ => _mm512_maskz_permutex2var_epi8(k01, r[0], index, r[1]),
            };
            if C >= 3 {
                pixels = _mm512_mask_permutexvar_epi8(pixels, k2, index, r[2]);
            }
            if C == 4 {
                pixels = _mm512_or_si512(pixels, _mm512_maskz_permutex2var_epi8(k3, r[2], index, r[3]));
            }
            let mut halves = _mm512_cvtepu16_ph(pixels);
            if SIGNED {
                halves = _mm512_maskz_sub_ph(words, halves, bias);
            }
            // SAFETY: pixels j + 8m .. + 8 (their 8 W words) lie in `out` (the caller's
            // `groups`).
            unsafe { spread.store(out.add((j + 8 * m) * W), _mm512_castph_si512(halves)) };
        }
    }
}
