//! x86-64 streaming copies (the safety argument is the room's, in `platform/mod.rs`).

use core::arch::x86_64::*;

use super::Level;

/// Copies `src` into `dst` (equal lengths) with streaming stores of `level`'s width, then a
/// store fence. `level` is one the CPU has (checked by the caller), and above `Portable`.
pub(super) fn stream(level: Level, dst: &mut [u8], src: &[u8]) {
    let width = match level {
        Level::Avx512 => 64,
        Level::Avx2 => 32,
        _ => 16,
    };
    // The head up to the first `width`-aligned destination byte, and the tail after the last
    // whole vector, with ordinary stores.
    let head = dst.as_ptr().align_offset(width).min(dst.len());
    let body = (dst.len() - head) / width * width;
    let (dst_head, rest) = dst.split_at_mut(head);
    let (dst_body, dst_tail) = rest.split_at_mut(body);
    let (src_head, rest) = src.split_at(head);
    let (src_body, src_tail) = rest.split_at(body);
    dst_head.copy_from_slice(src_head);
    dst_tail.copy_from_slice(src_tail);
    // SAFETY: `level` is available on this CPU (the caller checked `Level::available`), so the
    // feature each function is compiled for is present; the bodies are whole vectors of
    // `width` bytes with the destination aligned to `width` (the head took the rest).
    unsafe {
        match level {
            Level::Avx512 => stream_avx512(dst_body, src_body),
            Level::Avx2 => stream_avx(dst_body, src_body),
            _ => stream_sse2(dst_body, src_body),
        }
    }
}

/// # Safety
///
/// The CPU has SSE2 (every x86-64 does); `dst` starts 16-byte aligned; both hold whole 16-byte
/// vectors of equal count.
#[target_feature(enable = "sse2")]
unsafe fn stream_sse2(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
        // SAFETY: `s` and `d` are 16 bytes inside their slices; `d` is 16-byte aligned (every
        // chunk of an aligned start is), as `_mm_stream_si128` requires; loads are unaligned.
        unsafe { _mm_stream_si128(d.as_mut_ptr().cast(), _mm_loadu_si128(s.as_ptr().cast())) };
    }
    _mm_sfence();
}

/// # Safety
///
/// The CPU has AVX; `dst` starts 32-byte aligned; both hold whole 32-byte vectors of equal
/// count.
#[target_feature(enable = "avx")]
unsafe fn stream_avx(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)) {
        // SAFETY: as in `stream_sse2`, with 32-byte vectors and alignment.
        unsafe { _mm256_stream_si256(d.as_mut_ptr().cast(), _mm256_loadu_si256(s.as_ptr().cast())) };
    }
    _mm_sfence();
}

/// # Safety
///
/// The CPU has AVX-512 F; `dst` starts 64-byte aligned; both hold whole 64-byte vectors of
/// equal count.
#[target_feature(enable = "avx512f")]
unsafe fn stream_avx512(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
        // SAFETY: as in `stream_sse2`, with 64-byte vectors and alignment.
        unsafe { _mm512_stream_si512(d.as_mut_ptr().cast(), _mm512_loadu_si512(s.as_ptr().cast())) };
    }
    _mm_sfence();
}
