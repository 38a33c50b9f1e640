//! What the CPU offers beyond portable Rust, chosen at run time: the SIMD [`Level`] (detected
//! once per process, so one binary runs everywhere: no `target-cpu` flag), and copies whose
//! stores stream past the cache ([`Stores::Streaming`]), the strongest way to move bytes that
//! will not be read again soon.
//!
//! ```
//! use typed_layout::simd::{copy, Level, Stores};
//! let src: Vec<f32> = (0..1000).map(|v| v as f32).collect();
//! let mut dst = vec![0.0f32; 1000];
//! copy(&mut dst[3..], &src[3..], Stores::Streaming)?; // a misaligned start is fine
//! assert_eq!(&dst[3..], &src[3..]);
//! println!("this CPU: {:?}", Level::detected());
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use std::sync::OnceLock;

use crate::dtype::Element;
use crate::error::LayoutError;
use crate::platform::out::Out;

#[cfg(test)]
pub(crate) use pixels::interleave_at;
pub(crate) use pixels::{deinterleave, deinterleave_at, interleave, interleave_streamed};

pub(crate) mod piped;
mod pixels;
pub(crate) mod strips;
#[cfg(target_arch = "x86_64")]
mod x86;

/// A SIMD instruction set level, each including the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Level {
    /// Portable Rust only (the reference every level is tested against).
    Portable,
    /// x86-64's baseline: 128-bit vectors.
    Sse2,
    /// 256-bit vectors (AVX and AVX2).
    Avx2,
    /// 512-bit vectors (AVX-512 F, BW and VL: the byte and word instructions, and the 256-bit
    /// ones in their EVEX forms), with AVX2.
    Avx512,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Portable, Level::Sse2, Level::Avx2, Level::Avx512];

    /// The highest level this CPU has, detected once per process.
    pub fn detected() -> Level {
        static LEVEL: OnceLock<Level> = OnceLock::new();
        *LEVEL.get_or_init(detect)
    }

    /// Does this CPU have the level (and so every level below it)?
    pub fn available(self) -> bool {
        self <= Level::detected()
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Level {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("avx");
    // AVX-512 also means AVX2 and VL: bytes run AVX2's strips in their EVEX forms there.
    if avx2
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
    {
        Level::Avx512
    } else if avx2 {
        Level::Avx2
    } else {
        Level::Sse2
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Level {
    Level::Portable
}

/// How a copy writes its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stores {
    /// Ordinary stores: each destination line is read into the cache before it is written.
    Ordinary,
    /// Streaming (non-temporal) stores: whole lines go to memory without being read first
    /// (the destination's partial first and last lines, if it does not start or end on a
    /// line, take ordinary stores), then a fence; the fastest for outputs larger than the
    /// cache, on most machines.
    Streaming,
}

/// Copies `src` into `dst` with `stores`, at the highest level this CPU has. Fails with
/// [`LayoutError::BufferLength`] when the lengths differ.
pub fn copy<T: Element>(dst: &mut [T], src: &[T], stores: Stores) -> Result<(), LayoutError> {
    copy_at(Level::detected(), dst, src, stores)
}

/// [`copy`] at `level` (for tests and benchmarks: a lower level than the CPU's is allowed; one
/// it lacks is refused with [`LayoutError::NotApplicable`]). Streaming stores need SSE2.
pub fn copy_at<T: Element>(
    level: Level,
    dst: &mut [T],
    src: &[T],
    stores: Stores,
) -> Result<(), LayoutError> {
    if dst.len() != src.len() {
        return Err(LayoutError::BufferLength { expected: src.len(), found: dst.len() });
    }
    if !level.available() {
        return Err(LayoutError::NotApplicable { reason: "this CPU lacks the SIMD level asked for" });
    }
    // SAFETY: both ways below copy `s`'s bytes, values, into `d`.
    let (d, s) = (unsafe { Out::new(dst).bytes().into_places() }, bytemuck::cast_slice(src));
    match (stores, level) {
        (Stores::Ordinary, _) | (Stores::Streaming, Level::Portable) => {
            d.write_copy_of_slice(s);
        }
        #[cfg(target_arch = "x86_64")]
        (Stores::Streaming, level) => x86::stream(level, d, s),
        #[cfg(not(target_arch = "x86_64"))]
        (Stores::Streaming, _) => {
            d.write_copy_of_slice(s);
        }
    }
    Ok(())
}

/// Outputs of at least this many bytes are written with streaming stores: they do not fit in
/// this machine class's L2 (2 MiB a core), so every line an ordinary store writes would first be
/// read from memory and later evicted unread.
pub(crate) const STREAMING_THRESHOLD_BYTES: usize = 4 << 20;

/// Conversions moving less than this many bytes of output (and as many of input) find their
/// source in the last-level cache when called back to back, on this machine class (an
/// ordinary-store copy per thread, back to back, moved 56–58 GB/s from 8 to 64 MiB and 29 at
/// 128 MiB; the whole-row bands that rely on it gained at 16 MiB, were mixed at 32, gained
/// nothing at 64 and lost at 128). A fixed size, measured warm: called cold, or on a CPU with
/// a smaller last-level cache, a conversion under it still takes those bands.
pub(crate) const CACHED_SOURCE_BYTES: usize = 32 << 20;

/// The stores a pass writing `bytes` of output uses: streaming from
/// [`STREAMING_THRESHOLD_BYTES`] on, ordinary below.
pub(crate) fn stores_for(bytes: usize) -> Stores {
    match bytes >= STREAMING_THRESHOLD_BYTES {
        true => Stores::Streaming,
        false => Stores::Ordinary,
    }
}

/// A streaming copy of `src` into `dst` (equal lengths) at this CPU's level, without the closing
/// fence: for a pass that streams many staged pieces and calls [`fence`] once before it returns.
pub(crate) fn stream_unfenced<T: Element>(dst: Out<'_, T>, src: &[T]) {
    // SAFETY: both ways below copy `s`'s bytes, values, into `d`.
    let (d, s) = (unsafe { dst.bytes().into_places() }, bytemuck::cast_slice(src));
    match Level::detected() {
        #[cfg(target_arch = "x86_64")]
        level if level > Level::Portable => x86::stream_unfenced(level, d, s),
        _ => {
            d.write_copy_of_slice(s);
        }
    }
}

/// `src` rounded to f16 (to nearest even) into `dst`, of equal lengths: F16C where this CPU has
/// it (detected once), `half`'s software rounding for the rest; the same bits either way.
pub(crate) fn f32_to_f16(dst: &mut [half::f16], src: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    let done = match x86::has_f16c() {
        true => x86::f32_to_f16(bytemuck::cast_slice_mut(dst), src),
        false => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (d, &s) in dst[done..].iter_mut().zip(&src[done..]) {
        *d = half::f16::from_f32(s);
    }
}

/// `src` quantized into bytes `dst` (i8's if `signed`, else u8's; equal lengths):
/// `saturate(round_half_to_even(x / scale))`, NaN to 0, with AVX2 where this CPU has it.
/// Returns how many it wrote, from the first (whole groups of 32); the caller writes the rest
/// by the same rule.
pub(crate) fn f32_quantized(dst: &mut [u8], src: &[f32], scale: f32, signed: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    return x86::quantized(dst, src, scale, signed);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dst, src, scale, signed);
        0
    }
}

/// Pixels of 2-byte values from four runs of them (channel by channel, of equal length; the
/// missing channels' runs zero) into `dst`, pixels of `words` 64-bit words: channel `c`'s bits
/// at bits `16 c` of a pixel's first word, the other words zero. Returns the pixels written,
/// from the first: whole groups of 8 with SSE2 on x86-64 (for `words` of 1, 2 and 4), none
/// elsewhere; the caller writes the rest.
pub(crate) fn half_pixels(dst: &mut [u64], words: usize, runs: [&[u16]; 4]) -> usize {
    #[cfg(target_arch = "x86_64")]
    return match words {
        1 => x86::half_pixels::<1>(dst, runs),
        2 => x86::half_pixels::<2>(dst, runs),
        4 => x86::half_pixels::<4>(dst, runs),
        _ => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dst, words, runs);
        0
    }
}

/// Pixels of 2-byte floats from image bytes, straight into `dst`, a destination of 2-byte
/// values (`4 words` of them a pixel), with `stores` (streaming ones from a 16-byte boundary
/// only): `runs` (one to four, of equal length; i8 if `signed`, else u8) widened to f16, or
/// bf16 if `bf16` (exact: every integer a byte holds is exact in both), channel `c`'s bits at
/// bits `16 c` of a pixel's first word, the missing channels and the other words zero. Returns
/// the pixels written, from the first: with ordinary stores whole groups of 16 with AVX-512
/// and of 8 with AVX2; streamed, groups of 8 from AVX2 up; none below,
/// streaming off a 16-byte boundary, or for `words` other than 1, 2 and 4. The caller writes
/// the rest and, streaming, fences ([`fence`]) before its pass returns.
pub(crate) fn byte_halves<U: Element>(
    dst: Out<'_, U>,
    words: usize,
    runs: &[&[u8]],
    (signed, bf16): (bool, bool),
    stores: Stores,
) -> usize {
    byte_halves_at(Level::detected(), dst, words, runs, (signed, bf16), stores)
}

/// [`byte_halves`] at `level` (one this CPU has, or lower: the tests run every level).
pub(crate) fn byte_halves_at<U: Element>(
    level: Level,
    dst: Out<'_, U>,
    words: usize,
    runs: &[&[u8]],
    (signed, bf16): (bool, bool),
    stores: Stores,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if U::SIZE == 2 {
        // SAFETY: the stores below write f16 or bf16 bits and zeros, values of `U` (2 bytes).
        let places = unsafe { dst.bytes().into_places() };
        let (level, stream) = (level.min(Level::detected()), stores == Stores::Streaming);
        return match words {
            1 => x86::byte_halves::<1>(level, places, runs, signed, bf16, stream),
            2 => x86::byte_halves::<2>(level, places, runs, signed, bf16, stream),
            4 => x86::byte_halves::<4>(level, places, runs, signed, bf16, stream),
            _ => 0,
        };
    }
    let _ = (level, dst, words, runs, signed, bf16, stores);
    0
}

/// Pixels of f16 (or bf16 if `bf16`) from f32 runs (one to four, of equal length; the missing
/// channels zero), straight into `dst`, a destination of 2-byte values (`4 words` of them a
/// pixel), with `stores` (streaming ones from a 16-byte boundary only): each value rounded to
/// nearest even (the bits of `half`'s `from_f32`), channel `c`'s at bits `16 c` of a pixel's
/// first word, the other words zero. Returns the pixels written, from the first: whole groups
/// of 8 with AVX2 and F16C (bf16 needs only AVX2, but every AVX2 CPU has F16C: one check for
/// both), none below, streaming off a 16-byte boundary, or for `words` other than 1, 2 and 4.
/// The caller writes the rest and, streaming, fences ([`fence`]) before its pass returns.
pub(crate) fn float_halves<U: Element>(
    dst: Out<'_, U>,
    words: usize,
    runs: &[&[f32]],
    bf16: bool,
    stores: Stores,
) -> usize {
    float_halves_at(Level::detected(), dst, words, runs, bf16, stores)
}

/// [`float_halves`] at `level` (one this CPU has, or lower: the tests run every level).
pub(crate) fn float_halves_at<U: Element>(
    level: Level,
    dst: Out<'_, U>,
    words: usize,
    runs: &[&[f32]],
    bf16: bool,
    stores: Stores,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if U::SIZE == 2 {
        // SAFETY: the stores below write f16 or bf16 bits and zeros, values of `U` (2 bytes).
        let places = unsafe { dst.bytes().into_places() };
        let (level, stream) = (level.min(Level::detected()), stores == Stores::Streaming);
        return match words {
            1 => x86::float_halves::<1>(level, places, runs, bf16, stream),
            2 => x86::float_halves::<2>(level, places, runs, bf16, stream),
            4 => x86::float_halves::<4>(level, places, runs, bf16, stream),
            _ => 0,
        };
    }
    let _ = (level, dst, words, runs, bf16, stores);
    0
}

/// Pixels of `bytes` bytes (4, 8, 16 or 32) quantized from f32 runs (one to four, of equal
/// length; the missing channels zero), straight into `dst`, a destination of bytes (i8 if
/// `signed`, else u8), with `stores` (streaming ones from a 16-byte boundary only): each value
/// `saturate(round_half_to_even(x / scale))`, NaN to 0 (the bits of [`f32_quantized`]),
/// channel `c`'s at byte `c` of a pixel, the pixel's other bytes zero. Returns the pixels
/// written, from the first: whole groups of 8 from AVX2 up, none below, streaming off a
/// 16-byte boundary, or for other pixel sizes. The caller writes the rest and, streaming,
/// fences ([`fence`]) before its pass returns.
pub(crate) fn quantized_pixels<U: Element>(
    dst: Out<'_, U>,
    bytes: usize,
    runs: &[&[f32]],
    (scale, signed): (f32, bool),
    stores: Stores,
) -> usize {
    quantized_pixels_at(Level::detected(), dst, bytes, runs, (scale, signed), stores)
}

/// [`quantized_pixels`] at `level` (one this CPU has, or lower: the tests run every level).
pub(crate) fn quantized_pixels_at<U: Element>(
    level: Level,
    dst: Out<'_, U>,
    bytes: usize,
    runs: &[&[f32]],
    rule: (f32, bool),
    stores: Stores,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if U::SIZE == 1 {
        // SAFETY: the stores below write quantized bytes and zeros, values of `U` (one byte:
        // i8 or u8, every bit pattern a value).
        let places = unsafe { dst.bytes().into_places() };
        let (level, stream) = (level.min(Level::detected()), stores == Stores::Streaming);
        return match bytes {
            4 => x86::quantized_pixels::<4>(level, places, runs, rule, stream),
            8 => x86::quantized_pixels::<8>(level, places, runs, rule, stream),
            16 => x86::quantized_pixels::<16>(level, places, runs, rule, stream),
            32 => x86::quantized_pixels::<32>(level, places, runs, rule, stream),
            _ => 0,
        };
    }
    let _ = (level, dst, bytes, runs, rule, stores);
    0
}

/// [`half_pixels`] with streaming stores straight into `dst`, a destination of 2-byte values
/// (`4 words` of them a pixel) that starts on a 16-byte boundary: no staging block. Returns
/// the pixels written, from the first: whole groups of 8 with SSE2 on x86-64, none on another
/// boundary, elsewhere, or for `words` other than 1, 2 and 4. The caller writes the rest and
/// fences ([`fence`]) before its pass returns.
pub(crate) fn half_pixels_streamed<U: Element>(dst: Out<'_, U>, words: usize, runs: [&[u16]; 4]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if U::SIZE == 2 {
        // SAFETY: the stores below write the runs' 2-byte values and zeros, values of `U`.
        let Some(places) = (unsafe { aligned_places::<U, u64>(dst) }) else { return 0 };
        return match words {
            1 => x86::half_pixels_streamed::<1>(places, runs),
            2 => x86::half_pixels_streamed::<2>(places, runs),
            4 => x86::half_pixels_streamed::<4>(places, runs),
            _ => 0,
        };
    }
    let _ = (dst, words, runs);
    0
}

/// `dst`'s storage as places of `V` (a plain-data vector or word type), when it starts on a
/// 16-byte boundary: the places of the streamed pixel stores. The tail that fills no whole `V`
/// is left out.
///
/// # Safety
///
/// The caller writes only values of `U` into the places (as [`Out::into_places`] asks).
#[cfg(target_arch = "x86_64")]
unsafe fn aligned_places<U: Element, V: Copy>(dst: Out<'_, U>) -> Option<&mut [core::mem::MaybeUninit<V>]> {
    debug_assert!(core::mem::align_of::<V>() <= 16);
    // SAFETY: the caller's contract.
    let bytes = unsafe { dst.bytes().into_places() };
    if bytes.as_ptr().align_offset(16) != 0 {
        return None;
    }
    // SAFETY: `bytes` starts 16-byte aligned, at least `V`'s alignment; `len / size` whole
    // places of `V` lie inside it; `MaybeUninit` places carry no validity requirement, and the
    // caller writes only values into them.
    Some(unsafe {
        core::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len() / core::mem::size_of::<V>())
    })
}

/// Streams `groups` groups of 8 pixels of `W` 64-bit words straight into `dst`, a destination
/// of 2- or 4-byte values that starts on a 16-byte boundary: group `g` is `make(g)`, pixels
/// `8 g .. 8 g + 8`, two words a 16-byte streaming store (SSE2, x86-64's baseline), so the
/// pixels are built in registers and each destination line is written once, by the groups
/// that cover it in turn. Returns the groups written: on x86-64 as many as `dst` holds; none
/// for other than 2- or 4-byte values, on another boundary, or elsewhere (the caller writes
/// the rest). The caller fences ([`fence`]) before its pass returns.
#[inline(always)]
pub(crate) fn stream_words<U: Element, const W: usize>(
    dst: Out<'_, U>,
    groups: usize,
    mut make: impl FnMut(usize) -> [[u64; W]; 8],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if matches!(U::SIZE, 2 | 4) {
        use core::arch::x86_64::{__m128i, _mm_set_epi64x, _mm_stream_si128};
        // SAFETY: the stores below write the words `make` returns, whose bytes are values of
        // `U` (2- or 4-byte plain data: every bit pattern is one).
        let Some(pairs) = (unsafe { aligned_places::<U, __m128i>(dst) }) else { return 0 };
        let groups = groups.min(pairs.len() / (4 * W));
        for (g, out) in pairs.chunks_exact_mut(4 * W).take(groups).enumerate() {
            let pixels = make(g);
            for (o, w) in out.iter_mut().zip(pixels.as_flattened().chunks_exact(2)) {
                // SAFETY: `o` is one aligned 16-byte place of `dst` (a chunk of `pairs`);
                // both intrinsics are SSE2, x86-64's baseline.
                unsafe { _mm_stream_si128(o.as_mut_ptr(), _mm_set_epi64x(w[1] as i64, w[0] as i64)) };
            }
        }
        return groups;
    }
    let _ = (dst, groups, &mut make);
    0
}

/// Orders every streaming store made so far on this thread before its later stores.
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    if Level::detected() > Level::Portable {
        x86::fence();
    }
}

/// [`copy`] on `threads` threads, one contiguous part each (the calling thread and rayon's
/// workers, up to the pool's size; feature `parallel`, else one thread).
pub fn copy_parallel<T: Element>(
    dst: &mut [T],
    src: &[T],
    stores: Stores,
    threads: usize,
) -> Result<(), LayoutError> {
    if dst.len() != src.len() {
        return Err(LayoutError::BufferLength { expected: src.len(), found: dst.len() });
    }
    #[cfg(feature = "parallel")]
    if threads > 1 && dst.len() > 1 {
        // Parts of whole 4 KiB pages, so no two threads write one cache line.
        let page = (4096 / T::SIZE).max(1);
        let part = dst.len().div_ceil(threads).div_ceil(page) * page;
        let result = std::sync::Mutex::new(Ok(()));
        crate::tasks::for_each(dst.chunks_mut(part).zip(src.chunks(part)), |(d, s)| {
            if let Err(e) = copy(d, s, stores) {
                *result.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Err(e);
            }
        });
        return result.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    let _ = threads;
    copy(dst, src, stores)
}
