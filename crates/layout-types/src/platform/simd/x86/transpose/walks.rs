//! The walks of a band's strips (`super::super::strips::Band`'s geometry, in bytes): one
//! strip at a time, several at a time, and turned so that neighbouring strips read neighbouring
//! lines of the same source runs, a group of lines at a time (the staged strips').

use super::staging::GROUP;
use super::LINE;

/// Calls `strip(src, dst)` for `repeat` bands of `count` strips, strip `i` of band `k` at
/// `src + k * src_next + i * src_step` and `dst + k * dst_next + i * dst_step` (the band geometry
/// of `super::super::strips::Band`, in bytes): the walk every kind of strip shares, but those
/// that go several at a time ([`each_group`]) or staged ([`LineWalk`]).
#[inline(always)]
pub(super) fn each_strip(
    src: *const u8,
    [src_step, src_next]: [usize; 2],
    dst: *mut u8,
    [dst_step, dst_next]: [usize; 2],
    [count, repeat]: [usize; 2],
    mut strip: impl FnMut(*const u8, *mut u8),
) {
    for k in 0..repeat {
        let (src, dst) = (src.wrapping_add(k * src_next), dst.wrapping_add(k * dst_next));
        for i in 0..count {
            strip(src.wrapping_add(i * src_step), dst.wrapping_add(i * dst_step));
        }
    }
}

/// [`each_strip`]'s walk `N` strips at a time: `group(src, dst)` for strips `i` to `i + N - 1`
/// of a band (`i` a multiple of `N`; the others `src_step` and `dst_step` on) and
/// `single(src, dst)` for each strip left at a band's end.
#[inline(always)]
pub(super) fn each_group<const N: usize>(
    src: *const u8,
    [src_step, src_next]: [usize; 2],
    dst: *mut u8,
    [dst_step, dst_next]: [usize; 2],
    [count, repeat]: [usize; 2],
    mut group: impl FnMut(*const u8, *mut u8),
    mut single: impl FnMut(*const u8, *mut u8),
) {
    let whole = count / N * N;
    for k in 0..repeat {
        let (src, dst) = (src.wrapping_add(k * src_next), dst.wrapping_add(k * dst_next));
        let at = |i: usize| (src.wrapping_add(i * src_step), dst.wrapping_add(i * dst_step));
        for i in (0..whole).step_by(N) {
            let (s, d) = at(i);
            group(s, d);
        }
        for i in whole..count {
            let (s, d) = at(i);
            single(s, d);
        }
    }
}

/// Bands of strips turned so that neighbouring strips read the neighbouring parts of the same
/// source lines, `per_line` strips a line (AVX-512's byte strips read half a line of each run,
/// the others a line): along the band, or from band to band where each band is one strip wide
/// (NCHW→NHWC's).
#[derive(Clone, Copy, Debug)]
pub(super) struct LineWalk {
    /// Bytes from a strip's source to the next strip's (`LINE / per_line`), and to the next
    /// band's.
    src_steps: [usize; 2],
    /// The same for the strips' destinations.
    dst_steps: [usize; 2],
    /// Strips a band, and bands.
    counts: [usize; 2],
    /// Strips that read one line of each run.
    per_line: usize,
}

impl LineWalk {
    /// The walk of `counts[1]` bands of `counts[0]` strips (strip `i` of band `k` at
    /// `k * steps[1] + i * steps[0]` bytes, source and destination), turned where that puts
    /// neighbouring strips on neighbouring parts of the same lines; `None` where neither way
    /// does.
    pub(super) fn new(
        src_steps: [usize; 2],
        dst_steps: [usize; 2],
        counts: [usize; 2],
        per_line: usize,
    ) -> Option<LineWalk> {
        let part = LINE / per_line;
        let turned = |[a, b]: [usize; 2]| [b, a];
        if src_steps[0] == part && counts[0] > 1 {
            Some(LineWalk { src_steps, dst_steps, counts, per_line })
        } else if src_steps[1] == part && counts[1] > 1 {
            let (src_steps, dst_steps, counts) = (turned(src_steps), turned(dst_steps), turned(counts));
            Some(LineWalk { src_steps, dst_steps, counts, per_line })
        } else {
            None
        }
    }

    /// Bytes from a strip's destination to the next strip's along the walk.
    pub(super) fn dst_step(&self) -> usize {
        self.dst_steps[0]
    }

    /// Walks the bands: `lines(src, dst, n)` for each group of `n` lines (`per_line * n`
    /// strips from `src` and `dst`), [`GROUP`] lines where the band has them and then one at
    /// a time, and `strip(src, dst)` for each strip left at a band's end.
    pub(super) fn run(
        self,
        src: *const u8,
        dst: *mut u8,
        mut lines: impl FnMut(*const u8, *mut u8, usize),
        mut strip: impl FnMut(*const u8, *mut u8),
    ) {
        let LineWalk { src_steps, dst_steps, counts: [count, repeat], per_line } = self;
        for k in 0..repeat {
            let (src, dst) = (src.wrapping_add(k * src_steps[1]), dst.wrapping_add(k * dst_steps[1]));
            let at = |i: usize| (src.wrapping_add(i * src_steps[0]), dst.wrapping_add(i * dst_steps[0]));
            let mut i = 0;
            for n in [GROUP, 1] {
                while i + n * per_line <= count {
                    let (s, d) = at(i);
                    lines(s, d, n);
                    i += n * per_line;
                }
            }
            for i in i..count {
                let (s, d) = at(i);
                strip(s, d);
            }
        }
    }
}
