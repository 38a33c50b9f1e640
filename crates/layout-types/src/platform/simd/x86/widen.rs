//! Image bytes widened into pixels of 2-byte floats (the safety argument is the room's, in
//! `platform/mod.rs`): up to four runs of bytes, each value widened to f16 or bf16 (exact:
//! every integer a byte holds is exact in both), assembled into pixels of `W` 64-bit words.
//! With ordinary stores, AVX-512 converts f16's with FP16's integer conversions where the CPU
//! has them (`widen/fp16.rs`), looks the bits up in tables with VBMI's byte permutes where it
//! has those (bf16's everywhere), else computes them from f32's bits, as AVX2 does (and the
//! streamed groups at every level from AVX2 up).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::Level;
use super::halves::{pixels, starts, store_pairs};

/// Writes the whole groups of pixels of `runs` (one to four runs of bytes, of equal length;
/// i8 if `signed`, else u8) straight into `dst` (bytes, anywhere; streamed if `stream`, then
/// from a 16-byte boundary), `W` words a pixel: channel `c`'s f16 (or bf16) bits at bits `16 c`
/// of a pixel's first word, the missing channels and the other words zero. Returns the pixels
/// written: with ordinary stores, groups of 16 at `level` [`Level::Avx512`] (F and BW; groups
/// of 64 first where the CPU has VBMI, of f16 through FP16's conversions where it has FP16)
/// and of 8 at [`Level::Avx2`]; streamed, groups of 8 from AVX2 up (AVX-512 CPUs run the AVX2
/// groups); none below. Every streamed group of 8 pixels is whole 16-byte stores, so each
/// destination line is written once, by the groups that cover it in turn; a caller that
/// streams fences.
///
/// AVX-512's groups, one 224 × 224 image of u8 NCHW C = 3 into f16 NHWC C = 4 (the bench's
/// in-cache fused row) on an AMD EPYC (Zen 4), a scratch loop of 100 000 calls, old and new in
/// turn three times: `vcvtps2ph` → f32's bits rebiased in 32-bit lanes 38.0–38.2 → 47.3–48.9
/// GB/s; rebiased → VBMI's tables ([`byte_halves_vbmi`]) 48.1–49.0 → 64.0–65.9. Then, for CPUs
/// without VBMI, the 32-bit lanes → two channels a register from bf16's bits as AVX2's
/// ([`byte_halves_avx512`]), the bench's `fused/0.5MiB` row on the same Zen 4 with the tables
/// turned off in scratch builds, in turn three times: 52.8–53.4 → 61.6–63.4 GB/s (the tables
/// 71.4–73.7). On an Intel Xeon (AVX-512 FP16; one port for 512-bit shuffles), the tables →
/// FP16's conversions (`fp16::byte_halves_fp16`), the same image, the bench's race in turn
/// twice, one thread: 55.5–55.7 → 69.6–70.0 GB/s, 0.66–0.69 → 0.88 of the one-thread copy
/// (back to back, a scratch loop of the best of 3000 calls: 58.8 → 75.5).
///
/// AVX2's groups against the tables' word-by-word pixels (`cast/tables.rs`), u8 NCHW C = 3 into
/// f16 NHWC C = 4 at 176 MiB on an AMD EPYC (Zen 3, AVX2), the bench's row (two runs each): two
/// threads 10.2–12.1 → 21.2–24.6 GB/s (0.27–0.40 → 0.67–0.69 of the strongest copy), one
/// thread 6.8–8.8 → 11.4–13.8. Streamed straight from registers against building the pixels
/// in an L1 block and streaming the block: the two phases' times had added up (one thread,
/// same row: 27 GB/s building alone, 42 streaming alone, 16.5 both), where one pass overlaps
/// them. AVX2's f16 bits rebiased from f32's as AVX-512's against `vcvtps2ph`, the pixels'
/// words then built in 32-bit lanes: one 224 × 224 image (the bench's in-cache row) 32.1–33.6
/// → 33.8–35.5 GB/s, 0.41–0.42 → 0.45–0.48 of the copy, in turn three times; the streamed
/// 176 MiB row even. Then the f16 bits computed from bf16's, two channels a register in 16-bit
/// lanes ([`byte_halves_avx2`]): the same in-cache row on an AMD EPYC (Zen 5, family 26) with
/// the level forced to AVX2, in turn three times, 49.0–51.1 → 56.5–58.6 GB/s; at AVX-512 its
/// streamed 176 MiB row (which runs these groups) even, 44.2–45.8 against 44.5–46.4. (`bf16`
/// and `signed` are tested in the loop, predicted; f16's shift by a count in a register in
/// their place went through 32-bit shifts and unpacks, 34 GB/s.) Then each channel's 8 bytes
/// loaded into both lanes and spread into 32-bit lanes by an in-lane byte shuffle, in place of
/// AVX2's zero extension, which crosses lanes: the bench's `fused/0.5MiB` row on an AMD EPYC
/// (Zen 3, AVX2), in turn three times, 32.8–32.9 → 44.0–45.4 GB/s (0.42–0.43 → 0.55–0.59 of
/// the copy); a scratch loop of the best of 20 000 calls, one thread, 32.0–33.9 → 47.6–48.7
/// (where a pixel is one word and the stores ordinary, each register's four pixels go out as
/// one 32-byte store: through `store_pairs` the bench's row moved 39.3–41.8 GB/s against
/// 40.7–46.6, in turn three times); the streamed 176 MiB row even.
pub(in crate::platform) fn byte_halves<const W: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    runs: &[&[u8]],
    signed: bool,
    bf16: bool,
    stream: bool,
) -> usize {
    let Some(n) = pixels::<W, u8>(dst, runs, stream) else { return 0 };
    let out = dst.as_mut_ptr().cast::<u64>();
    match level {
        Level::Avx512 if !stream && !bf16 && super::has_fp16() && n >= 64 => {
            let wide = n / 64;
            // SAFETY: the CPU has AVX-512 F, BW, VBMI and FP16 (`level` is one it has; VBMI
            // and FP16 detected); it reads bytes [0, 64 wide) of each run and writes words
            // [0, 64 wide W) of `dst`, all inside (`n` is at most every run's length and
            // `dst`'s pixels), with unaligned stores; what it writes are f16 bits and zeros.
            unsafe { fp16::byte_halves_fp16::<W>(out, runs, wide, signed) };
            let rest: [&[u8]; 4] = core::array::from_fn(|c| runs.get(c).map_or(&[][..], |r| &r[64 * wide..]));
            let tail = &mut dst[64 * wide * W * 8..];
            64 * wide + byte_halves::<W>(level, tail, &rest[..runs.len()], signed, bf16, stream)
        }
        Level::Avx512 if !stream && super::has_vbmi() && n >= 64 => {
            let wide = n / 64;
            // SAFETY: the CPU has AVX-512 F, BW and VBMI (`level` is one it has; VBMI
            // detected); it reads bytes [0, 64 wide) of each run and writes words
            // [0, 64 wide W) of `dst`, all inside (`n` is at most every run's length and
            // `dst`'s pixels), with unaligned stores; what it writes are the tables' values.
            unsafe { byte_halves_vbmi::<W>(out, runs, wide, (signed, bf16)) };
            let rest: [&[u8]; 4] = core::array::from_fn(|c| runs.get(c).map_or(&[][..], |r| &r[64 * wide..]));
            let tail = &mut dst[64 * wide * W * 8..];
            64 * wide + byte_halves::<W>(level, tail, &rest[..runs.len()], signed, bf16, stream)
        }
        Level::Avx512 if !stream => {
            let groups = n / 16;
            // SAFETY: the CPU has the features the function is compiled for (`level` is one it
            // has); it reads bytes [0, 16 groups) of each run and writes bytes
            // [0, 128 groups W) of `dst`, all inside (`n` is at most every run's length and
            // `dst`'s pixels), with unaligned stores; what it writes are values (f16 or bf16
            // bits and zeros).
            unsafe { byte_halves_avx512_of::<W>(out, runs, groups, signed, bf16) };
            16 * groups
        }
        level if level >= Level::Avx2 => {
            let groups = n / 8;
            // SAFETY: `level` is AVX2 or above, one the CPU has (so it has AVX2); it reads bytes [0, 8 groups) of each run and writes bytes
            // [0, 64 groups W) of `dst`, all inside, streamed only from `dst`'s 16-byte-aligned
            // start, 16 bytes at a multiple of 16 bytes from it; what it writes are values.
            unsafe {
                match stream {
                    true => byte_halves_avx2_of::<W, true>(out, runs, groups, signed, bf16),
                    false => byte_halves_avx2_of::<W, false>(out, runs, groups, signed, bf16),
                }
            }
            8 * groups
        }
        _ => 0,
    }
}

/// [`byte_halves_avx2`] for the runs there are (one to four), each count its own loop.
///
/// # Safety
///
/// As [`byte_halves_avx2`], `runs` holding one to four runs.
#[target_feature(enable = "avx2")]
unsafe fn byte_halves_avx2_of<const W: usize, const STREAM: bool>(
    out: *mut u64,
    runs: &[&[u8]],
    groups: usize,
    signed: bool,
    bf16: bool,
) {
    // SAFETY: the caller's contract, `C` the runs there are.
    unsafe {
        match runs.len() {
            1 => byte_halves_avx2::<W, 1, STREAM>(out, starts(runs), groups, signed, bf16),
            2 => byte_halves_avx2::<W, 2, STREAM>(out, starts(runs), groups, signed, bf16),
            3 => byte_halves_avx2::<W, 3, STREAM>(out, starts(runs), groups, signed, bf16),
            _ => byte_halves_avx2::<W, 4, STREAM>(out, starts(runs), groups, signed, bf16),
        }
    }
}

/// Groups of 8 pixels from `C` runs of bytes: each channel's 8 values spread into 32-bit lanes,
/// pixels 0, 1, 4, 5 in the low lane and 2, 3, 6, 7 in the high one (an in-lane byte shuffle of
/// the 8 bytes loaded into both lanes; i8 sign-extended by flipping and subtracting the sign
/// bit), and converted to f32 (exact), whose top halves are their bf16 bits (exact too: a byte
/// has at most 8 significant bits); two channels' bf16 bits blended into each pixel's 32-bit
/// halves (channels 0 and 1, 2 and 3), turned into f16 bits there, 16 at a time
/// ([`halves_from_bf16`]), and the halves interleaved into the pixels' first words, pixels 0-3
/// in one register and 4-7 in the other.
///
/// # Safety
///
/// The CPU has AVX2; each of the `C` runs holds at least `8 groups` bytes from its pointer and
/// `out` points to at least `8 groups W` writable words (any alignment; 16-byte aligned if
/// `STREAM`); `W` is 1, 2 or 4.
#[target_feature(enable = "avx2")]
unsafe fn byte_halves_avx2<const W: usize, const C: usize, const STREAM: bool>(
    out: *mut u64,
    runs: [*const u8; C],
    groups: usize,
    signed: bool,
    bf16: bool,
) {
    // Each byte into the low byte of its 32-bit lane, pixels 0, 1, 4, 5 in the low lane and
    // 2, 3, 6, 7 in the high one (from the 8 bytes in both lanes), so that the interleaves
    // below leave pixels 0-3 and 4-7 each in one register, in order.
    let z = -1i8;
    #[rustfmt::skip]
    let spread = _mm256_setr_epi8(
        0, z, z, z, 1, z, z, z, 4, z, z, z, 5, z, z, z,
        2, z, z, z, 3, z, z, z, 6, z, z, z, 7, z, z, z,
    );
    let flip = _mm256_set1_epi32(0x80);
    for g in 0..groups {
        let j = 8 * g;
        // Each channel's 8 values' f32 bits; missing channels zero. An index loop over the
        // constant count, so that nothing of it is left out of line.
        let mut f = [_mm256_setzero_si256(); 4];
        #[allow(clippy::needless_range_loop)]
        for c in 0..C {
            // SAFETY: bytes j..j + 8 lie in run `c` (the caller's `groups`); unaligned load.
            let x = unsafe { _mm256_set1_epi64x(runs[c].add(j).cast::<i64>().read_unaligned()) };
            let mut wide = _mm256_shuffle_epi8(x, spread);
            if signed {
                wide = _mm256_sub_epi32(_mm256_xor_si256(wide, flip), flip);
            }
            f[c] = _mm256_castps_si256(_mm256_cvtepi32_ps(wide));
        }
        // The pixels' first words as 32-bit halves (channels 0 and 1 in `lo`, 2 and 3 in
        // `hi`), interleaved within lanes: pixels 0-3 in `near`, 4-7 in `far`.
        let lo =
            halves_from_bf16(_mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(f[0]), f[1]), signed, bf16);
        let hi =
            halves_from_bf16(_mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(f[2]), f[3]), signed, bf16);
        let (near, far) = (_mm256_unpacklo_epi32(lo, hi), _mm256_unpackhi_epi32(lo, hi));
        if W == 1 && !STREAM {
            // SAFETY: pixels `j .. j + 8` (their 8 words) lie in `out` (the caller's `groups`);
            // unaligned stores.
            unsafe {
                _mm256_storeu_si256(out.add(j).cast(), near);
                _mm256_storeu_si256(out.add(j + 4).cast(), far);
            }
            continue;
        }
        let pairs = [
            _mm256_castsi256_si128(near),
            _mm256_extracti128_si256::<1>(near),
            _mm256_castsi256_si128(far),
            _mm256_extracti128_si256::<1>(far),
        ];
        // SAFETY: pixels `j .. j + 8` (their `8 W` words) lie in `out` (the caller's `groups`),
        // 16-byte aligned if `STREAM` (`out` is, and `j W` words are a multiple of 64 bytes).
        unsafe { store_pairs::<W, STREAM>(pairs, out.add(j * W)) };
    }
}

/// The f16 (or, if `bf16`, bf16) bits of 16 integers of at most 8 bits (`signed`: else
/// non-negative) from their bf16 bits, one in each 16-bit lane. f16's are bf16's with the
/// exponent rebiased (less [`REBIAS_BF16`], saturating, so that zero stays zero) and moved up
/// 3 bits over the mantissa (whose last 3 bits are zero), the sign put back at bit 15.
#[target_feature(enable = "avx2")]
#[inline]
fn halves_from_bf16(bits: __m256i, signed: bool, bf16: bool) -> __m256i {
    let rebias = _mm256_set1_epi16(REBIAS_BF16);
    match (bf16, signed) {
        (true, _) => bits,
        (false, false) => _mm256_slli_epi16::<3>(_mm256_subs_epu16(bits, rebias)),
        (false, true) => {
            let sign = _mm256_and_si256(bits, _mm256_set1_epi16(i16::MIN));
            let magnitude = _mm256_xor_si256(bits, sign);
            _mm256_or_si256(_mm256_slli_epi16::<3>(_mm256_subs_epu16(magnitude, rebias)), sign)
        }
    }
}

/// f32's exponent bias less f16's, at bf16's exponent (bit 7 of 16): a non-zero integer of at
/// most 8 bits has the f16 bits of its bf16 bits less this, shifted left by 3 (exact, as
/// `vcvtps2ph` gives them; integer operations, where `vcvtps2ph` on 512-bit registers, and
/// widening its halves back to 32-bit lanes, took most of AVX-512's groups on AMD's Zen 4).
const REBIAS_BF16: i16 = (127 - 15) << 7;

/// Eight pixels' first words (one 512-bit register) stored as pixels of `W` words: vector `q`
/// of the pixels' words holds pixels `q 8/W ..` in its lanes `0, W, 2W, ..`, zeros between.
struct Spread<const W: usize> {
    lanes: [__m512i; W],
    firsts: __mmask8,
}

impl<const W: usize> Spread<W> {
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn new() -> Self {
        let per = 8 / W as i64;
        let lanes = core::array::from_fn(|q| {
            let lane = |l: i64| q as i64 * per + l / W as i64;
            _mm512_setr_epi64(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7))
        });
        let firsts = match W {
            1 => 0xff,
            2 => 0x55,
            _ => 0x11,
        };
        Spread { lanes, firsts }
    }

    /// Stores the 8 pixels whose first words are `words` at `out`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 F; `out` points to `8 W` writable words (any alignment).
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store(&self, out: *mut u64, words: __m512i) {
        for (q, lanes) in self.lanes.iter().enumerate() {
            let v = match W {
                1 => words,
                _ => _mm512_maskz_permutexvar_epi64(self.firsts, *lanes, words),
            };
            // SAFETY: words 8q .. 8q + 8 lie in `out`'s `8 W` (the caller's contract);
            // unaligned store.
            unsafe { _mm512_storeu_si512(out.add(8 * q).cast(), v) };
        }
    }
}

/// [`byte_halves_avx512`] for the runs there are (one to four), each count its own loop.
///
/// # Safety
///
/// As [`byte_halves_avx512`], `runs` holding one to four runs.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn byte_halves_avx512_of<const W: usize>(
    out: *mut u64,
    runs: &[&[u8]],
    groups: usize,
    signed: bool,
    bf16: bool,
) {
    // SAFETY: the caller's contract, `C` the runs there are.
    unsafe {
        match runs.len() {
            1 => byte_halves_avx512::<W, 1>(out, starts(runs), groups, signed, bf16),
            2 => byte_halves_avx512::<W, 2>(out, starts(runs), groups, signed, bf16),
            3 => byte_halves_avx512::<W, 3>(out, starts(runs), groups, signed, bf16),
            _ => byte_halves_avx512::<W, 4>(out, starts(runs), groups, signed, bf16),
        }
    }
}

/// [`byte_halves_avx2`] with AVX-512: groups of 16 pixels, each pixel's 32-bit halves ORed
/// from two channels' f32 bits (the first's top half moved down; the low halves are zero), the
/// halves put in pixel order by two-source permutes.
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; each of the `C` runs holds at least `16 groups` bytes from its
/// pointer and `out` points to at least `16 groups W` writable words (any alignment); `W` is 1,
/// 2 or 4.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn byte_halves_avx512<const W: usize, const C: usize>(
    out: *mut u64,
    runs: [*const u8; C],
    groups: usize,
    signed: bool,
    bf16: bool,
) {
    // 32-bit halves of 8 pixels' first words: pixel k's low half (channels 0, 1) from `lo`,
    // its high half (channels 2, 3) from `hi`, for pixels 0..8 and 8..16.
    let first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    let second = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    let spread = Spread::<W>::new();
    for g in 0..groups {
        let j = 16 * g;
        // Each channel's 16 values' f32 bits, in order; missing channels zero (an index loop
        // over the constant count, as AVX2's).
        let mut f = [_mm512_setzero_si512(); 4];
        #[allow(clippy::needless_range_loop)]
        for c in 0..C {
            // SAFETY: bytes j..j + 16 lie in run `c` (the caller's `groups`); unaligned load.
            let x = unsafe { _mm_loadu_si128(runs[c].add(j).cast()) };
            let wide = if signed { _mm512_cvtepi8_epi32(x) } else { _mm512_cvtepu8_epi32(x) };
            f[c] = _mm512_castps_si512(_mm512_cvtepi32_ps(wide));
        }
        let pair = |a: __m512i, b: __m512i| _mm512_or_si512(_mm512_srli_epi32::<16>(a), b);
        let lo = halves_from_bf16_512(pair(f[0], f[1]), signed, bf16);
        let hi = halves_from_bf16_512(pair(f[2], f[3]), signed, bf16);
        let words = [_mm512_permutex2var_epi32(lo, first, hi), _mm512_permutex2var_epi32(lo, second, hi)];
        for (k, words) in words.into_iter().enumerate() {
            // SAFETY: pixels j + 8k .. + 8 (their 8 W words) lie in `out` (the caller's `groups`).
            unsafe { spread.store(out.add((j + 8 * k) * W), words) };
        }
    }
}

/// [`halves_from_bf16`] with AVX-512: 32 lanes.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn halves_from_bf16_512(bits: __m512i, signed: bool, bf16: bool) -> __m512i {
    let rebias = _mm512_set1_epi16(REBIAS_BF16);
    match (bf16, signed) {
        (true, _) => bits,
        (false, false) => _mm512_slli_epi16::<3>(_mm512_subs_epu16(bits, rebias)),
        (false, true) => {
            let sign = _mm512_and_si512(bits, _mm512_set1_epi16(i16::MIN));
            let magnitude = _mm512_xor_si512(bits, sign);
            _mm512_or_si512(_mm512_slli_epi16::<3>(_mm512_subs_epu16(magnitude, rebias)), sign)
        }
    }
}

/// The 2-byte float bits of every byte value as two byte tables (low bytes, high bytes) of 256
/// entries each, four 64-byte registers: entry `x` for the byte `x` (read as i8 where signed).
#[repr(C, align(64))]
struct Table {
    low: [[u8; 64]; 4],
    high: [[u8; 64]; 4],
}

impl Table {
    /// The table of the f16 (or bf16 if `bf16`) bits of each byte value.
    const fn of(bf16: bool, signed: bool) -> Table {
        let (mut low, mut high) = ([[0; 64]; 4], [[0; 64]; 4]);
        let mut x = 0;
        while x < 256 {
            let v = if signed { x as u8 as i8 as i32 } else { x as i32 };
            let b = if bf16 { half_of(v, 127, 7) } else { half_of(v, 15, 10) };
            (low[x / 64][x % 64], high[x / 64][x % 64]) = (b as u8, (b >> 8) as u8);
            x += 1;
        }
        Table { low, high }
    }
}

/// The bits of a 2-byte float whose exponent has `bias` and whose mantissa `mantissa` bits
/// (f16: 15 and 10, bf16: 127 and 7) for an integer of at most 8 bits and a sign: exact.
const fn half_of(v: i32, bias: u32, mantissa: u32) -> u16 {
    let (sign, m) = ((v < 0) as u16, v.unsigned_abs());
    match m {
        0 => 0,
        _ => {
            let e = 31 - m.leading_zeros();
            sign << 15 | ((bias + e) << mantissa | (m << (mantissa - e)) & ((1 << mantissa) - 1)) as u16
        }
    }
}

static U8_F16: Table = Table::of(false, false);
static I8_F16: Table = Table::of(false, true);
static U8_BF16: Table = Table::of(true, false);
static I8_BF16: Table = Table::of(true, true);

/// Groups of 64 pixels of `W` words from one to four runs of bytes, each byte's bits looked up
/// in `table` (VBMI's two-source byte permutes: 128 entries a permute, the byte's top bit
/// choosing between two), then the low and high bytes, the channels and the pixels interleaved
/// in 128-bit lanes. The bytes are first permuted so that those lanes come out as whole
/// groups of 8 pixels in order: lane `L` of source register `i` takes the byte of pixel
/// `8 (i / 2) + 2L + i % 2`.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW and VBMI; every run holds at least `64 groups` bytes and `out`
/// points to at least `64 groups W` writable words (any alignment); `runs` holds one to four
/// runs; `W` is 1, 2 or 4.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn byte_halves_vbmi<const W: usize>(
    out: *mut u64,
    runs: &[&[u8]],
    groups: usize,
    (signed, bf16): (bool, bool),
) {
    let table: &Table = match (signed, bf16) {
        (false, false) => &U8_F16,
        (true, false) => &I8_F16,
        (false, true) => &U8_BF16,
        (true, true) => &I8_BF16,
    };
    let order: [u8; 64] = core::array::from_fn(|p| {
        let (lane, i) = (p / 16, p % 16);
        (8 * (i / 2) + 2 * lane + i % 2) as u8
    });
    // SAFETY: 64 bytes each, inside `order` and the table (unaligned loads).
    let (order, low, high) = unsafe {
        let load = |t: &[u8; 64]| _mm512_loadu_si512(t.as_ptr().cast());
        (load(&order), table.low.each_ref().map(load), table.high.each_ref().map(load))
    };
    let spread = Spread::<W>::new();
    let zero = _mm512_setzero_si512();
    for g in 0..groups {
        let j = 64 * g;
        // Channel `c`'s words, lane by lane: pixels `0..8` of each lane's group in `a[c]`,
        // `8..16` in `b[c]`.
        let (mut a, mut b) = ([zero; 4], [zero; 4]);
        for (c, run) in runs.iter().enumerate() {
            // SAFETY: bytes j..j + 64 lie in the run (the caller's `groups`); unaligned load.
            let x = _mm512_permutexvar_epi8(order, unsafe { _mm512_loadu_si512(run.as_ptr().add(j).cast()) });
            let top = _mm512_movepi8_mask(x);
            let look = |t: &[__m512i; 4]| {
                let under = _mm512_permutex2var_epi8(t[0], x, t[1]);
                _mm512_mask_blend_epi8(top, under, _mm512_permutex2var_epi8(t[2], x, t[3]))
            };
            let (lo, hi) = (look(&low), look(&high));
            (a[c], b[c]) = (_mm512_unpacklo_epi8(lo, hi), _mm512_unpackhi_epi8(lo, hi));
        }
        for (half, h) in [a, b].into_iter().enumerate() {
            let ab = [_mm512_unpacklo_epi16(h[0], h[1]), _mm512_unpackhi_epi16(h[0], h[1])];
            let cd = [_mm512_unpacklo_epi16(h[2], h[3]), _mm512_unpackhi_epi16(h[2], h[3])];
            for k in 0..2 {
                let pixels = [_mm512_unpacklo_epi32(ab[k], cd[k]), _mm512_unpackhi_epi32(ab[k], cd[k])];
                for (t, words) in pixels.into_iter().enumerate() {
                    // Pixels `8m .. 8m + 8` of the group, in order.
                    let m = 4 * half + 2 * k + t;
                    // SAFETY: pixels j + 8m .. + 8 (their 8 W words) lie in `out` (the
                    // caller's `groups`).
                    unsafe { spread.store(out.add((j + 8 * m) * W), words) };
                }
            }
        }
    }
}

mod fp16;
#[cfg(test)]
mod tests;
