//! Streamed lines of a few planes written in lockstep (pixels split into planes), each plane's
//! lines held back a number of lines so that the planes' pending lines do not share their offset
//! in a 4 KiB page (the safety argument is the room's, in `platform/mod.rs`).
//!
//! Splitting pixels into planes writes line `i` of every plane at once. Where the planes start at
//! the same offset in a 4 KiB page (planes a multiple of 4 KiB apart, as 256 × 10928 f16 images
//! or 512 × 512 ones), or two of them do (2 KiB apart with three planes), those lines share their
//! offset, and the split moved half what it does otherwise. On an AMD EPYC (Zen 3), f16
//! C = 3 NHWC→NCHW at 256 MiB, a scratch loop of `to_layout_into`, one thread: planes ≡ 0 or
//! 2 KiB mod 4 KiB 15–22 GB/s, ≡ 1, 1.5 or 3.5 KiB 36–41; the same loads and streaming stores
//! without the shuffles lost only 20 % there (29–30 against 32–37 GB/s). Held back through a
//! ring of lines in the L1 cache (plane `o` written `lag[o]` lines behind plane 0, so that the
//! pending lines lie `4096 / K` bytes apart in the page), the shared-offset shapes moved 30–32
//! GB/s on one thread; the ring costs where the offsets differ already (36–40 → 26–31), so only
//! planes whose offsets lie within [`NEAR`] of each other take it.
//!
//! Taken by AVX2's 16-byte groups (bytes and halves, `gather`'s `groups_lane_pairs`) and its
//! 4- and 8-byte ones (`gather_avx2`). Same machine, old and new in turn twice: a scratch loop
//! (best of 0.7 s), one thread, GB/s: f16 [16, 3, 256, 10928] 21.1, 21.5 → 34.0, 34.7, [16, 3,
//! 512, 5464] 21.2–21.3 → 34.5–35.6, 224 × 224 images (planes ≡ 2 KiB) 24.2–24.7 → 33.4–34.5,
//! C = 4 512 × 512 14.6–14.7 → 24.7; u8 [16, 3, 512, 21848] 21.6–22.0 → 34.6–34.9; f32 [16, 3,
//! 256, 5464] 28.8 → 37.4–37.9; shapes whose planes are apart unchanged (36–40). The bench's
//! races (`-- "C=3 NHWC"`), ÷ the strongest copy, two threads (one thread): at 256 MiB f16
//! 0.67, 0.52 (0.53) → 0.93, 0.99 (0.90, 0.99), u8 0.54, 0.68 (0.52–0.53) → 1.01, 0.98 (0.90,
//! 0.95), f32 0.83, 0.87 (0.73–0.74) → 1.07, 1.01 (1.01–1.02); at 16 MiB f16 0.48, 0.53 →
//! 0.96, 0.93, u8 0.49, 0.73 → 1.06, 0.93, f32 0.93, 0.88 → 1.01, 1.01.

use core::arch::x86_64::*;

/// Lines a plane's ring holds: more than any lag ([`lags`]: under 64).
const RING: usize = 64;

/// Bytes within which two planes' offsets in a 4 KiB page count as shared.
const NEAR: usize = 256;

/// Bytes after which the offsets repeat.
const PAGE: usize = 4096;

/// Lines a plane has at least for a split to hold them back: a shorter one (a row of an image
/// view, split a row at a time) keeps the lockstep, the ring's zeroed 8–16 KiB costing more
/// than it saves there.
const MIN_LINES: usize = 4 * RING;

/// Lines each of `K` planes starting at addresses `starts` (each on a line) is held back behind
/// plane 0's (plane 0's lag is 0), so that their next lines lie `4096 / K` bytes apart in the
/// page, where `lines` of each are written; `None` where no two of them start within [`NEAR`]
/// of each other's offset, for more than four planes (their rings would fill half of L1), and
/// under [`MIN_LINES`].
fn lags<const K: usize>(starts: [usize; K], lines: usize) -> Option<[usize; K]> {
    let off = starts.map(|a| a % PAGE);
    let near = |a: usize, b: usize| {
        let d = off[a].abs_diff(off[b]);
        d.min(PAGE - d) < NEAR
    };
    let shared = (0..K).any(|a| (a + 1..K).any(|b| near(a, b)));
    // Plane `o`'s pending line lies `off[o] - off[0] - 64 * lag[o]` bytes past plane 0's (mod
    // the page): `o * PAGE / K` for the lag below, less than a line's rounding.
    let lag = |o: usize| (off[o] + 2 * PAGE - off[0] - o * PAGE / K) % PAGE / 64;
    (shared && (2..=4).contains(&K) && lines >= MIN_LINES).then(|| core::array::from_fn(lag))
}

/// The lines of `K` planes written in lockstep, plane `o`'s `lags[o]` lines behind (held in a
/// ring meanwhile), streamed.
pub(super) struct Skewed<const K: usize> {
    outs: [*mut u8; K],
    lags: [usize; K],
    ring: [[[__m256i; 2]; RING]; K],
}

impl<const K: usize> Skewed<K> {
    /// Lines into the planes starting at `outs` (each on a line), `lines` of each, held back by
    /// [`lags`]; `None` where it holds none back.
    #[target_feature(enable = "avx2")]
    pub(super) fn for_planes(outs: [*mut u8; K], lines: usize) -> Option<Skewed<K>> {
        let lags = lags(outs.map(|o| o as usize), lines)?;
        Some(Skewed { outs, lags, ring: [[[_mm256_setzero_si256(); 2]; RING]; K] })
    }

    /// Line `i` of every plane (`lines[o]`, its two halves): plane `o`'s is streamed
    /// `lags[o]` lines later, and the line held back that long streamed now.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2; line `i` of every plane (64 bytes, `64 * i` from its start) is inside
    /// it, each plane starts on a line; lines come in order from 0.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn line(&mut self, i: usize, lines: [[__m256i; 2]; K]) {
        for (o, line) in lines.into_iter().enumerate() {
            let lag = self.lags[o];
            if lag == 0 {
                // SAFETY: line `i` of plane `o` (the caller's contract).
                unsafe { self.stream(o, i, line) };
                continue;
            }
            self.ring[o][i % RING] = line;
            if let Some(due) = i.checked_sub(lag) {
                // SAFETY: line `due < i` of plane `o` was given (lines come in order), so it
                // is inside the plane; it is the ring's entry `due % RING` still (`lag < RING`).
                unsafe { self.stream(o, due, self.ring[o][due % RING]) };
            }
        }
    }

    /// Streams the lines still held back, `lines` having been given.
    ///
    /// # Safety
    ///
    /// As [`Skewed::line`] for every line given.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn finish(&mut self, lines: usize) {
        for o in 0..K {
            for due in lines.saturating_sub(self.lags[o])..lines {
                // SAFETY: line `due` of plane `o` was given, and held back (`due + lag >= lines`).
                unsafe { self.stream(o, due, self.ring[o][due % RING]) };
            }
        }
    }

    /// Streams `line` as line `i` of plane `o`.
    ///
    /// # Safety
    ///
    /// As [`Skewed::line`].
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn stream(&self, o: usize, i: usize, [low, high]: [__m256i; 2]) {
        let at = self.outs[o].wrapping_add(64 * i);
        // SAFETY: the line is inside plane `o` and on a line (the caller's contract).
        unsafe {
            _mm256_stream_si256(at.cast(), low);
            _mm256_stream_si256(at.add(32).cast(), high);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Planes that share an offset in the page are held back so that their next lines lie a
    /// `K`th of the page apart; planes already apart, and more than four, are not.
    #[test]
    fn planes_sharing_a_page_offset_are_held_back() {
        let base = 1 << 30;
        // Three planes 4 KiB apart: 42 and 21 lines behind (2688 and 1344 bytes).
        assert_eq!(lags([base, base + 4096, base + 8192], MIN_LINES), Some([0, 42, 21]));
        // Two of three 2 KiB apart share (0, 2048, 0): spread to 0, 1365, 2730.
        let lags3 = lags([base, base + 2048, base + 4096], MIN_LINES).expect("planes 0 and 2 share");
        for (o, lag) in lags3.iter().enumerate() {
            let next = ((o * 2048) + 2 * PAGE - 64 * lag) % PAGE;
            assert!(next.abs_diff(o * PAGE / 3) < 64, "plane {o} lags {lag}: next line at {next}");
        }
        // Within `NEAR`, and across the page's end.
        assert!(lags([base, base + 4096 + 192], MIN_LINES).is_some());
        assert!(lags([base + 4032, base + 4096 * 5 + 64], MIN_LINES).is_some());
        // Apart: 1 KiB, 1.5 KiB, NEAR itself.
        assert_eq!(lags([base, base + 1024, base + 2048], MIN_LINES), None);
        assert_eq!(lags([base, base + 1536, base + 3072], MIN_LINES), None);
        assert_eq!(lags([base, base + NEAR], MIN_LINES), None);
        // Too short a split, or five planes sharing (their rings would be 20 KiB): none.
        assert_eq!(lags([base, base + 4096], MIN_LINES - 1), None);
        assert_eq!(lags([base; 5], MIN_LINES), None);
        // Every lag is under the ring.
        for step in (0..PAGE).step_by(64) {
            let l = lags([base, base + step, base + 2 * step, base + 3 * step], MIN_LINES).unwrap_or([0; 4]);
            assert!(l.iter().all(|&l| l < RING), "{step}: {l:?}");
        }
    }
}
