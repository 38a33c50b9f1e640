//! x86-64 streaming copies (the safety argument is the room's, in `platform/mod.rs`).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;
use std::sync::OnceLock;

use super::Level;
// Bytes of a cache line (the strips' too): streaming stores write whole ones only.
use transpose::LINE;

/// Copies `src` into `dst` (equal lengths) with streaming stores of `level`'s width, then a
/// store fence. `level` is one the CPU has (checked by the caller), and above `Portable`.
pub(super) fn stream(level: Level, dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    stream_unfenced(level, dst, src);
    fence();
}

/// The store fence that orders streaming stores before every later store (so before the
/// release that hands the buffer to another thread).
pub(super) fn fence() {
    // SAFETY: SSE is part of x86-64's baseline; `sfence` touches no memory.
    unsafe { _mm_sfence() };
}

/// [`stream`] without the fence: the caller fences before its pass returns.
pub(super) fn stream_unfenced(level: Level, dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    // The head up to the first cache line of the destination, and the tail after the last
    // whole line, with ordinary stores, so that no line is written partly by streaming stores.
    // Aligned to the vector width instead (32 bytes with AVX2), a destination 16 bytes past a
    // line had each streamed row begin and end in a line shared by both kinds of store: on an
    // AMD EPYC (Zen 3), f32 NHWC→NCHW at 16 MiB into such a buffer (where glibc starts a
    // large `Vec`) moved 19.3 GB/s against 35.9 on a line; with whole lines 34.1 against 41.2
    // (u8 13.7 → 28.7, f32 at 256 MiB 14.3 → 24.1).
    let head = dst.as_ptr().align_offset(LINE).min(dst.len());
    let body = (dst.len() - head) / LINE * LINE;
    let (dst_head, rest) = dst.split_at_mut(head);
    let (dst_body, dst_tail) = rest.split_at_mut(body);
    let (src_head, rest) = src.split_at(head);
    let (src_body, src_tail) = rest.split_at(body);
    dst_head.write_copy_of_slice(src_head);
    dst_tail.write_copy_of_slice(src_tail);
    // SAFETY: `level` is available on this CPU (the caller checked `Level::available`), so the
    // feature each function is compiled for is present; the bodies are whole lines, so whole
    // vectors of the level's width (16, 32 or 64 bytes), with the destination on a line, so
    // aligned to that width (the head took the rest).
    unsafe {
        match level {
            Level::Avx512 => stream_avx512(dst_body, src_body),
            Level::Avx2 => stream_avx(dst_body, src_body),
            _ => stream_sse2(dst_body, src_body),
        }
    }
}

/// Whether this CPU is AMD's (CPUID's vendor string), read once per process: where the best
/// form of a strip differed between the vendors' cores measured, the strips choose by it.
pub(super) fn amd() -> bool {
    static AMD: OnceLock<bool> = OnceLock::new();
    *AMD.get_or_init(|| {
        let id = __cpuid(0);
        [id.ebx, id.edx, id.ecx] == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes)
    })
}

/// # Safety
///
/// The CPU has SSE2 (every x86-64 does); `dst` starts 16-byte aligned; both hold whole 16-byte
/// vectors of equal count.
#[target_feature(enable = "sse2")]
unsafe fn stream_sse2(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
        // SAFETY: `s` and `d` are 16 bytes inside their slices; `d` is 16-byte aligned (every
        // chunk of an aligned start is), as `_mm_stream_si128` requires; loads are unaligned.
        unsafe { _mm_stream_si128(d.as_mut_ptr().cast(), _mm_loadu_si128(s.as_ptr().cast())) };
    }
}

/// # Safety
///
/// The CPU has AVX; `dst` starts 32-byte aligned; both hold whole 32-byte vectors of equal
/// count.
#[target_feature(enable = "avx")]
unsafe fn stream_avx(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)) {
        // SAFETY: as in `stream_sse2`, with 32-byte vectors and alignment.
        unsafe { _mm256_stream_si256(d.as_mut_ptr().cast(), _mm256_loadu_si256(s.as_ptr().cast())) };
    }
}

/// # Safety
///
/// The CPU has AVX-512 F; `dst` starts 64-byte aligned; both hold whole 64-byte vectors of
/// equal count.
#[target_feature(enable = "avx512f")]
unsafe fn stream_avx512(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
        // SAFETY: as in `stream_sse2`, with 64-byte vectors and alignment.
        unsafe { _mm512_stream_si512(d.as_mut_ptr().cast(), _mm512_loadu_si512(s.as_ptr().cast())) };
    }
}

mod deinterleave;
mod gather;
mod gather_avx2;
mod halves;
mod interleave;
mod piped;
mod quantize;
mod skew;
mod transpose;
mod widen;

pub(super) use deinterleave::deinterleave;
pub(super) use halves::{float_halves, half_pixels, half_pixels_streamed};
pub(super) use interleave::{interleave, interleave_streamed};
pub(super) use piped::piped_tiles;
pub(super) use quantize::{quantized, quantized_pixels};
pub(super) use widen::byte_halves;

/// Whether this CPU has AVX-512 VBMI's byte permutes (`vpermb`, `vpermt2b`), detected once.
pub(super) fn has_vbmi() -> bool {
    static VBMI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VBMI.get_or_init(|| is_x86_feature_detected!("avx512vbmi") && Level::Avx512.available())
}

/// Whether this CPU has AVX-512 FP16's conversions and VBMI's byte permutes, detected once.
pub(super) fn has_fp16() -> bool {
    static FP16: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FP16.get_or_init(|| is_x86_feature_detected!("avx512fp16") && has_vbmi())
}

/// Whether this CPU converts f32 to f16 in hardware (F16C, with the AVX it is encoded in).
pub(super) fn has_f16c() -> bool {
    static F16C: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *F16C.get_or_init(|| is_x86_feature_detected!("f16c") && is_x86_feature_detected!("avx"))
}

/// Converts the whole groups of 8 of `src` into f16 bits in `dst` (equal lengths) with F16C,
/// rounding to nearest even; returns how many it converted. The caller checked [`has_f16c`].
pub(super) fn f32_to_f16(dst: &mut [u16], src: &[f32]) -> usize {
    let whole = src.len().min(dst.len()) / 8 * 8;
    // SAFETY: the caller checked `has_f16c`, so the features the function is compiled for are
    // present; it touches only whole groups of 8 inside both slices.
    unsafe { f32_to_f16_f16c(&mut dst[..whole], &src[..whole]) };
    whole
}

/// # Safety
///
/// The CPU has AVX and F16C; both slices hold whole groups of 8 of equal count.
#[target_feature(enable = "avx,f16c")]
unsafe fn f32_to_f16_f16c(dst: &mut [u16], src: &[f32]) {
    for (d, s) in dst.chunks_exact_mut(8).zip(src.chunks_exact(8)) {
        // SAFETY: `s` is 8 f32 and `d` 8 u16 inside their slices; both accesses are unaligned.
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(s.as_ptr()));
            _mm_storeu_si128(d.as_mut_ptr().cast(), h);
        }
    }
}

/// How a band's rows are written: which strips are fastest depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Writes {
    /// Streamed from registers (every row on a cache line).
    Streamed,
    /// Ordinary stores in a conversion whose buffers fit in the caches.
    InCache,
    /// Ordinary stores in a conversion that does not fit (its staged tiles, or rows not on a
    /// cache line): the source comes from memory.
    Ordinary,
}

/// Bytes apart that a strip's source runs lie at most to count as near ([`Kind::near_runs`]):
/// a few lines, so that the runs of a strip span a few pages at most and fall in different
/// cache sets.
pub(super) const NEAR_RUN_BYTES: usize = 256;

/// Bytes apart, or a multiple of them, that a strip's destination rows lie to count as
/// [`Kind::page_strided_rows`]: a 4 KiB page, which is also the period of the L1 data cache's
/// sets (64 sets of 64-byte lines), so that every row's line of a strip falls in one set.
pub(super) const PAGE_STRIDE_BYTES: usize = 4 << 10;

/// Which strips a band runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kind {
    /// A level this CPU has, above `Portable`.
    pub(super) level: Level,
    /// Bytes of an element: 1, 2, 4 or 8.
    pub(super) size: usize,
    /// How the rows are written.
    pub(super) writes: Writes,
    /// Tall strips (AVX2 and AVX-512 levels): blocks stacked along the source runs, for
    /// destination rows shorter than a line; streamed only into dense rows of half a line.
    pub(super) tall: bool,
    /// The source runs of a strip lie within [`NEAR_RUN_BYTES`] of each other.
    pub(super) near_runs: bool,
    /// The destination rows of a strip lie a multiple of [`PAGE_STRIDE_BYTES`] apart (an NCHW
    /// image of f16 whose pixels are a multiple of 2048).
    pub(super) page_strided_rows: bool,
    /// AVX-512's streamed byte strips are whole lines held in 64-byte registers (else AVX2's
    /// blocks in their EVEX forms): `super::strips::Strips::whole_line_bytes`.
    pub(super) whole_line_bytes: bool,
    /// The strips (not tall) read their source runs through tiles:
    /// `super::strips::Strips::tiles_runs`.
    pub(super) tiles_runs: bool,
}

/// Runs `repeat` bands of `count` strips of `kind` (`super::strips::Band`'s geometry in bytes:
/// `[src_stride, src_step, src_next]` and `[dst_stride, dst_step, dst_next]`) from the start of
/// `src` and from `dst`.
///
/// # Safety
///
/// Every strip lies inside `src` and inside the destination view `dst` points into, in lines
/// that view alone writes (`Out::holds_lines`); the level is on this CPU and above `Portable`
/// (AVX2 at least for tall strips); every destination row starts on a cache line when the rows
/// are [`Writes::Streamed`] (a tall strip's rows are half lines, dense, every other one on a
/// line). `Strips::band`, the caller, checks all of it.
pub(super) unsafe fn band(
    kind: Kind,
    src: &[u8],
    dst: *mut u8,
    src_geometry: [usize; 3],
    dst_geometry: [usize; 3],
    counts: [usize; 2],
) {
    use transpose::{avx2, avx2_bytes, avx2_evex, avx512, avx512_bytes, lanes, sse2, LINE};
    let (s, d) = (src.as_ptr(), dst);
    let Kind { level, size, writes, tall, near_runs, page_strided_rows, whole_line_bytes, .. } = kind;
    macro_rules! with {
        ($isa:ident, $w:literal, $m:literal, $stream:literal, $tall:literal, $whole:literal) => {
            // The runs a strip reads: a register's elements (tall), else a line's.
            $isa::band::<
                $w,
                { $isa::V / $w },
                { LINE / $isa::V },
                $m,
                $stream,
                $tall,
                $whole,
                {
                    if $tall {
                        $isa::V / $w
                    } else {
                        LINE / $w
                    }
                },
            >(s, src_geometry, d, dst_geometry, counts, kind.tiles_runs)
        };
    }
    macro_rules! run {
        ($isa:ident, $stream:literal, $tall:literal) => {
            run!($isa, $stream, $tall, false)
        };
        ($isa:ident, $stream:literal, $tall:literal, $whole:literal) => {
            match size {
                1 => with!($isa, 1, 16, $stream, $tall, $whole),
                2 => with!($isa, 2, 8, $stream, $tall, $whole),
                4 => with!($isa, 4, 4, $stream, $tall, $whole),
                _ => with!($isa, 8, 2, $stream, $tall, $whole),
            }
        };
        ($isa:ident) => {
            match writes {
                Writes::Streamed => run!($isa, true, false),
                _ => run!($isa, false, false),
            }
        };
    }
    // SAFETY: the caller's checks above are the contract of `band` at each level: the feature is
    // present, every strip's bytes are inside `src` and the destination's lines (its view's
    // alone, so disjoint from `src`), and streamed rows are aligned.
    unsafe {
        match level {
            // Tall strips: AVX2's blocks (their EVEX forms at AVX-512), one register wide.
            Level::Avx512 if tall && writes == Writes::Streamed => run!(avx2_evex, true, true),
            Level::Avx512 if tall => run!(avx2_evex, false, true),
            Level::Avx2 if tall && writes == Writes::Streamed => run!(avx2, true, true),
            Level::Avx2 if tall => run!(avx2, false, true),
            // Bytes: AVX-512's strips of whole lines where the lines are streamed from registers
            // (on Intel's cores; on AMD's, AVX2's blocks: `Strips`'s `whole_line_bytes`),
            // and in cache from far runs (neighbouring strips paired; `avx512_bytes` says how
            // and what it gained); AVX2's blocks in their EVEX forms for a
            // streamed conversion's staged tiles, whose source comes from memory (u8 NHWC→NCHW at
            // 256 MiB: 0.82–0.85 of the strongest copy, 0.72–0.76 with the paired strips).
            // Bytes in cache from near source runs (NHWC→NCHW's pixels, a line or a few
            // apart): strips whose loads gather the lanes (u8 NHWC→NCHW at 1 MiB, two threads
            // back to back, alternating three times: 65–69 → 78–88 GB/s). Where the runs are
            // far apart (NCHW→NHWC's channel planes, a matrix's rows), each run's line is
            // loaded twice, once per row group, and those lines share a cache set: slower
            // there (one thread, u8 NCHW→NHWC 31–37 → 24–28 GB/s, row→column 33–36 → 30–32),
            // as it was for f32 everywhere (NHWC→NCHW −7 %). Near runs into rows close together
            // gain too: 64-pixel images 54 → 61–62 GB/s, 128×64 matrices 69–74 → 78–82.
            Level::Avx512 if size == 1 && writes == Writes::InCache && near_runs => {
                lanes::avx512::band::<1, 16>(s, src_geometry, d, dst_geometry, counts)
            }
            // Halves in cache from near source runs into rows a multiple of 4 KiB apart: the
            // same gathered lanes (three in-lane rounds, no cross-lane round), two neighbouring
            // strips a row group at a time. Two threads, alternating three times, f16 NHWC→NCHW
            // with 64 channels: rows 4 KiB apart 81–86 → 89–94 GB/s, 8 KiB 83–86 → 90–97,
            // 16 KiB 76–80 → 91–97, 20 KiB 62–66 → 87–91; an 8192×64 matrix's rows into
            // columns 78–80 → 95–97. Elsewhere they were slower: rows 2 KiB apart 96–100 →
            // 91–93, 6 KiB 67–74 → 62–64, 112×112 images 73 → 64–68, 128×128 matrices 94–98 →
            // 76–78. Rows a multiple of 4 KiB apart put a strip's 32 lines in one L1 set (12
            // ways): the cross-lane strips store all 32 at once, the gathered lanes 8 a group,
            // and the pair of strips spreads each group's stores over two sets.
            Level::Avx512 if size == 2 && writes == Writes::InCache && near_runs && page_strided_rows => {
                lanes::avx512::band::<2, 8>(s, src_geometry, d, dst_geometry, counts)
            }
            Level::Avx512 if size == 1 && writes == Writes::Streamed && whole_line_bytes => {
                avx512_bytes::band::<true>(s, src_geometry, d, dst_geometry, counts)
            }
            Level::Avx512 if size == 1 && writes == Writes::InCache => {
                avx512_bytes::band::<false>(s, src_geometry, d, dst_geometry, counts)
            }
            Level::Avx512 if size == 1 => run!(avx2_evex),
            Level::Avx512 => run!(avx512),
            // Bytes into rows a multiple of 4 KiB apart, ordinary stores, and any bytes in
            // cache: each strip's rows formed in a tile first (`avx2_bytes` says why and what
            // it gained).
            Level::Avx2
                if size == 1
                    && (writes == Writes::InCache || (writes == Writes::Ordinary && page_strided_rows)) =>
            {
                avx2_bytes::band(s, src_geometry, d, dst_geometry, counts, kind.tiles_runs)
            }
            // Halves in cache from near source runs into rows a multiple of 4 KiB apart: AVX-512's
            // gathered lanes in two 16-byte lanes, two registers a row (`lanes` says how): each
            // row group's two parts of 8 registers fit AVX2's 16, where the whole-line strips
            // below hold 32 and spill. On an AMD EPYC (Zen 3), f16 NHWC→NCHW with C = 64 at
            // 1 MiB, the bench's race in turn three times: two threads 47.4–48.3 → 56.8–60.9
            // GB/s, one thread 25.3–26.4 → 32.4–33.1; a scratch loop of `to_layout_into` over
            // rows 4 to 32 KiB apart and 4096 × 128 and 8192 × 64 matrices into columns, one
            // thread 25.6–28.6 → 31.0–40.5, two 48–52 → 62–75. Into rows not so placed they
            // were mixed (28 × 28 images −5 to −15 %, rows 6 KiB apart +20 %): not taken there.
            Level::Avx2 if size == 2 && writes == Writes::InCache && near_runs && page_strided_rows => {
                lanes::avx2::band::<2, 8>(s, src_geometry, d, dst_geometry, counts)
            }
            // Halves and words into such rows: each strip's blocks first, then its rows whole,
            // one after the other (the order of streamed strips), not each row's halves a
            // block apart. On an AMD EPYC (Zen 3), NHWC→NCHW with C = 64 at 1 MiB, a scratch
            // loop of `convert` (best of 15 × 32 calls) alternating six times, one thread: f32
            // 28.7–39.4 → 33.9–45.4 GB/s, f16 19.9–21.5 → 21.0–27.0; two threads (which swing
            // by half there) best of each f32 59.9 → 80.7, f16 40.4 → 38.2. Everywhere (not
            // only into such rows) f16 lost 15–27 % on one thread (NCHW→NHWC, NC/32HW32,
            // row→column).
            Level::Avx2 if matches!(size, 2 | 4) && writes != Writes::Streamed && page_strided_rows => {
                run!(avx2, false, false, true)
            }
            Level::Avx2 => run!(avx2),
            _ => run!(sse2),
        }
    }
}
