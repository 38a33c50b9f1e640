//! Three planes into three-element pixels (an RGB image's planes into its pixels) with x86's
//! permutes and byte shuffles (the safety argument is the room's, in `platform/mod.rs`).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::Level;

/// Whether this CPU has SSSE3's byte shuffle (`pshufb`), detected once.
fn has_ssse3() -> bool {
    static SSSE3: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SSSE3.get_or_init(|| is_x86_feature_detected!("ssse3"))
}

/// Whether this CPU has AVX-512 VBMI's byte permutes (`vpermb`, `vpermt2b`), detected once.
fn has_vbmi() -> bool {
    static VBMI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VBMI.get_or_init(|| is_x86_feature_detected!("avx512vbmi") && Level::Avx512.available())
}

/// Interleaves the whole groups of three equally long streams of `W`-byte elements into `dst`
/// (three elements per position): groups of 64 bytes with AVX-512's two-source permutes (at
/// `level` [`Level::Avx512`]; bytes need VBMI's), then groups of 16 with SSSE3's byte shuffle
/// (`W` of 1 and 2, where the CPU has it, at levels above [`Level::Portable`]); returns the
/// positions done.
/// `level` is one the CPU has.
///
/// For bytes, VBMI's permutes take 6 shuffles a 64-byte group where SSSE3 takes 36. u8 C = 3
/// NCHW→NHWC at 1 MiB, back to back, SSSE3 and VBMI alternating twice: one thread 51–52 →
/// 59–60 GB/s, two threads 60–62 → 70–75; at 256 MiB (streamed through staged panels) 29.6 →
/// 32.7 GB/s on two threads, 15.3 → 16.7 on one.
pub(in crate::platform) fn interleave3<const W: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    [a, b, c]: [&[u8]; 3],
) -> usize {
    let n = a.len().min(b.len()).min(c.len()).min(dst.len() / 3);
    let wide = match level == Level::Avx512 && (W >= 2 || has_vbmi()) {
        true => n / 64 * 64,
        false => 0,
    };
    // SSSE3's shuffle for bytes and halves only: without AVX-512, 4- and 8-byte elements keep
    // the plain loop (the shuffle was measured against it for the smaller elements only).
    let narrow = match level > Level::Portable && W <= 2 && has_ssse3() {
        true => (n - wide) / 16 * 16,
        false => 0,
    };
    // SAFETY: `level` is available (the caller's contract), and AVX-512 implies the features
    // its functions are compiled for, with VBMI detected for bytes; SSSE3 was detected. Each
    // function touches whole groups inside every slice: bytes `wide..wide + narrow` of the
    // streams and three times that of `dst` for SSSE3, bytes `..wide` for AVX-512 (`wide +
    // narrow` is at most `n`).
    unsafe {
        let (dst_wide, streams_wide) = (&mut dst[..3 * wide], [&a[..wide], &b[..wide], &c[..wide]]);
        match W {
            _ if wide == 0 => {}
            1 => interleave3_vbmi(dst_wide, streams_wide),
            _ => interleave3_avx512::<W>(dst_wide, streams_wide),
        }
        if narrow > 0 {
            let (streams, end) = (wide..wide + narrow, 3 * (wide + narrow));
            let (a, b, c) = (&a[streams.clone()], &b[streams.clone()], &c[streams]);
            interleave3_ssse3::<W>(&mut dst[3 * wide..end], [a, b, c]);
        }
    }
    (wide + narrow) / W
}

/// The permutes of `interleave3_avx512` and `interleave3_vbmi` for `w`-byte elements, `L = 64 / w`
/// a register: output register `k`'s element `l` is element `p = k L + l` of the interleaved run, position `p / 3`
/// of stream `p % 3`. Per output register: the indices that take streams 0 and 1 from two
/// registers (`i` of the first, `L + i` of the second), those that take stream 2 from a third,
/// and a bit per element that comes from stream 2. Indices are `w`-byte little-endian integers.
const fn interleave3_permutes(w: usize) -> ([[[u8; 64]; 3]; 2], [u64; 3]) {
    let (mut indices, mut from_c) = ([[[0u8; 64]; 3]; 2], [0u64; 3]);
    let lanes = 64 / w;
    let mut k = 0;
    while k < 3 {
        let mut l = 0;
        while l < lanes {
            let p = k * lanes + l;
            let (stream, i) = (p % 3, p / 3);
            if stream == 2 {
                indices[1][k][l * w] = i as u8;
                from_c[k] |= 1 << l;
            } else {
                indices[0][k][l * w] = (i + stream * lanes) as u8;
            }
            l += 1;
        }
        k += 1;
    }
    (indices, from_c)
}

/// The loop [`interleave3_avx512`] and [`interleave3_vbmi`] share, for `$w`-byte elements: per
/// group of 64 bytes of each stream, output register `$k` (0..3) is `$permute`, of the loaded
/// registers `$va`, `$vb`, `$vc`, register `$k`'s index tables `$ab` (streams 0 and 1) and `$cc`
/// (stream 2), and `$from_c`, the masks of the elements from stream 2 (`interleave3_permutes`).
/// Expands to unsafe code: the caller's function has the features its permutes need.
macro_rules! interleave3_groups {
    ($w:expr, $dst:expr, [$a:expr, $b:expr, $c:expr],
     |$va:ident, $vb:ident, $vc:ident, $ab:ident, $cc:ident, $from_c:ident, $k:ident| $permute:expr) => {{
        let (indices, $from_c) = const { interleave3_permutes($w) };
        // SAFETY: every index table is 64 bytes of a constant; unaligned loads.
        let load = |t: &[u8; 64]| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
        let (ab, cc): ([__m512i; 3], [__m512i; 3]) =
            (indices[0].each_ref().map(load), indices[1].each_ref().map(load));
        let groups = $a.chunks_exact(64).zip($b.chunks_exact(64)).zip($c.chunks_exact(64));
        for (out, ((a, b), c)) in $dst.chunks_exact_mut(192).zip(groups) {
            // SAFETY: `a`, `b`, `c` are 64 bytes and `out` 192 inside their slices; unaligned.
            unsafe {
                let [$va, $vb, $vc] = [a, b, c].map(|x| _mm512_loadu_si512(x.as_ptr().cast()));
                for $k in 0..3 {
                    let ($ab, $cc) = (ab[$k], cc[$k]);
                    _mm512_storeu_si512(out[64 * $k..].as_mut_ptr().cast(), $permute);
                }
            }
        }
    }};
}

/// # Safety
///
/// The CPU has AVX-512 F and BW; the streams hold whole groups of 64 bytes of equal count and
/// `dst` three times their bytes; `W` is 2, 4 or 8.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn interleave3_avx512<const W: usize>(dst: &mut [MaybeUninit<u8>], [a, b, c]: [&[u8]; 3]) {
    interleave3_groups!(W, dst, [a, b, c], |va, vb, vc, ab, cc, from_c, k| match W {
        2 => _mm512_mask_permutexvar_epi16(
            _mm512_permutex2var_epi16(va, ab, vb),
            from_c[k] as __mmask32,
            cc,
            vc,
        ),
        4 => _mm512_mask_permutexvar_epi32(
            _mm512_permutex2var_epi32(va, ab, vb),
            from_c[k] as __mmask16,
            cc,
            vc,
        ),
        _ => _mm512_mask_permutexvar_epi64(
            _mm512_permutex2var_epi64(va, ab, vb),
            from_c[k] as __mmask8,
            cc,
            vc,
        ),
    });
}

/// # Safety
///
/// The CPU has AVX-512 F, BW and VBMI; the streams hold whole groups of 64 bytes of equal count
/// and `dst` three times their bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn interleave3_vbmi(dst: &mut [MaybeUninit<u8>], [a, b, c]: [&[u8]; 3]) {
    interleave3_groups!(1, dst, [a, b, c], |va, vb, vc, ab, cc, from_c, k| {
        _mm512_mask_permutexvar_epi8(_mm512_permutex2var_epi8(va, ab, vb), from_c[k], cc, vc)
    });
}

/// The `pshufb` masks of `interleave3` for `w`-byte elements: output register `k`, stream `s`.
/// Byte `j` of output register `k` is byte `p % w` of element `p / w` (`p = 16k + j`), which is
/// position `p / w / 3` of stream `p / w % 3`; other streams' masks hold 0x80 there (a zero).
const fn interleave3_masks(w: usize) -> [[[u8; 16]; 3]; 3] {
    let mut masks = [[[0x80u8; 16]; 3]; 3];
    let mut p = 0;
    while p < 48 {
        let element = p / w;
        masks[p / 16][element % 3][p % 16] = ((element / 3) * w + p % w) as u8;
        p += 1;
    }
    masks
}

/// # Safety
///
/// The CPU has SSSE3; the streams hold whole groups of 16 bytes of equal count and `dst` three
/// times their bytes.
#[target_feature(enable = "ssse3")]
unsafe fn interleave3_ssse3<const W: usize>(dst: &mut [MaybeUninit<u8>], [a, b, c]: [&[u8]; 3]) {
    let masks = const { interleave3_masks(W) };
    let m: [[__m128i; 3]; 3] = core::array::from_fn(|k| {
        core::array::from_fn(|s| {
            // SAFETY: every mask is 16 bytes of a constant; unaligned loads.
            unsafe { _mm_loadu_si128(masks[k][s].as_ptr().cast()) }
        })
    });
    let groups = a.chunks_exact(16).zip(b.chunks_exact(16)).zip(c.chunks_exact(16));
    for (out, ((a, b), c)) in dst.chunks_exact_mut(48).zip(groups) {
        // SAFETY: `a`, `b`, `c` are 16 bytes and `out` 48 inside their slices; unaligned.
        unsafe {
            let v = [a, b, c].map(|x| _mm_loadu_si128(x.as_ptr().cast()));
            for (k, m) in m.iter().enumerate() {
                let lo = _mm_or_si128(_mm_shuffle_epi8(v[0], m[0]), _mm_shuffle_epi8(v[1], m[1]));
                let w = _mm_or_si128(lo, _mm_shuffle_epi8(v[2], m[2]));
                _mm_storeu_si128(out[16 * k..].as_mut_ptr().cast(), w);
            }
        }
    }
}
