//! The traversal of one tensor: its physical loops in memory order, each advancing one logical
//! dimension, so element-wise code walks storage linearly and still knows every element's
//! logical index.
//!
//! A [`Geometry`] gives, per logical dimension, an affine map (a vectorized C splits into a group
//! loop and a lane loop). The walk orders those loops by decreasing stride (the storage order of
//! every layout), so its innermost loop is the one of stride 1 wherever the tensor has one, and
//! callers run that loop over a plain slice.

use super::Geometry;
use crate::notation::MAX_RANK;
use crate::placement::DimMap;

/// Most loops a walk has: every dimension split in two.
const MAX_STEPS: usize = 2 * MAX_RANK;

/// One loop of a walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Step {
    /// Number of positions.
    pub(crate) extent: usize,
    /// Storage elements between neighbouring positions.
    pub(crate) stride: isize,
    /// The logical dimension it advances.
    pub(crate) dim: usize,
    /// How far that dimension's index moves per position (a vector group moves it by x).
    pub(crate) step: usize,
}

/// The loops of one tensor, outermost first, and the offset of its first element.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walk {
    loops: [Step; MAX_STEPS],
    n: usize,
    base: isize,
}

impl Walk {
    /// The walk of `g` in memory order: loops by decreasing stride magnitude, loops of one
    /// position outermost (they never move).
    pub(crate) fn new(g: &Geometry) -> Walk {
        let mut loops = [Step::default(); MAX_STEPS];
        let mut n = 0;
        for (dim, (&extent, map)) in g.dims().iter().zip(&g.maps).enumerate() {
            match *map {
                DimMap::Whole { stride } => {
                    loops[n] = Step { extent, stride, dim, step: 1 };
                    n += 1;
                }
                DimMap::Split { width, outer, inner } => {
                    loops[n] = Step { extent: extent / width, stride: outer, dim, step: width };
                    loops[n + 1] = Step { extent: width, stride: inner, dim, step: 1 };
                    n += 2;
                }
            }
        }
        let order = |s: &Step| match s.extent {
            1 => usize::MAX,
            _ => s.stride.unsigned_abs(),
        };
        loops[..n].sort_by_key(|s| core::cmp::Reverse(order(s)));
        Walk { loops, n, base: g.base }
    }

    /// The same walk with neighbours that are contiguous in storage fused into one loop (the
    /// logical index is then no longer tracked: [`Step::dim`] of a fused loop means nothing).
    /// A packed tensor becomes one loop over all its elements.
    pub(crate) fn fused(&self) -> Walk {
        let mut out = Walk { loops: [Step::default(); MAX_STEPS], n: 0, base: self.base };
        for s in self.loops().iter().filter(|s| s.extent > 1) {
            match out.n.checked_sub(1).map(|k| &mut out.loops[k]) {
                Some(last) if last.stride == s.stride * s.extent as isize => {
                    *last =
                        Step { extent: last.extent * s.extent, stride: s.stride, dim: usize::MAX, step: 0 };
                }
                _ => {
                    out.loops[out.n] = *s;
                    out.n += 1;
                }
            }
        }
        if out.n == 0 {
            out.loops[0] = Step { extent: 1, stride: 1, dim: 0, step: 0 };
            out.n = 1;
        }
        out
    }

    /// The loops, outermost first.
    pub(crate) fn loops(&self) -> &[Step] {
        &self.loops[..self.n]
    }

    /// The offset of the first element.
    pub(crate) fn base(&self) -> isize {
        self.base
    }

    /// The innermost loop.
    pub(crate) fn inner(&self) -> Step {
        self.loops[self.n - 1]
    }

    /// Number of elements walked.
    pub(crate) fn len(&self) -> usize {
        self.loops().iter().map(|s| s.extent).product()
    }

    /// Calls `f(offset, index)` at the start of every run of the innermost loop, in order:
    /// `offset` is the run's first storage offset, `index` its first element's logical index
    /// (entries past the rank are 0).
    #[inline]
    pub(crate) fn for_each_run(&self, mut f: impl FnMut(isize, &[usize; MAX_RANK])) {
        let outer = &self.loops[..self.n - 1];
        let mut counters = [0usize; MAX_STEPS];
        let mut index = [0usize; MAX_RANK];
        let mut offset = self.base;
        loop {
            f(offset, &index);
            let mut k = outer.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                let s = outer[k];
                counters[k] += 1;
                if counters[k] < s.extent {
                    offset += s.stride;
                    if s.dim < MAX_RANK {
                        index[s.dim] += s.step;
                    }
                    break;
                }
                counters[k] = 0;
                offset -= (s.extent as isize - 1) * s.stride;
                if s.dim < MAX_RANK {
                    index[s.dim] -= (s.extent - 1) * s.step;
                }
            }
        }
    }
}

/// A position in a [`Walk`], advanced one element at a time: the state of an external iterator.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor {
    walk: Walk,
    counters: [usize; MAX_STEPS],
    index: [usize; MAX_RANK],
    offset: isize,
    left: usize,
}

impl Cursor {
    /// At the first element of `walk`.
    pub(crate) fn new(walk: Walk) -> Cursor {
        Cursor { walk, counters: [0; MAX_STEPS], index: [0; MAX_RANK], offset: walk.base, left: walk.len() }
    }

    /// Elements not yet visited.
    pub(crate) fn left(&self) -> usize {
        self.left
    }

    /// Whether no element has been visited yet.
    pub(crate) fn at_start(&self) -> bool {
        self.left == self.walk.len()
    }

    /// The walk this cursor follows.
    pub(crate) fn walk(&self) -> &Walk {
        &self.walk
    }

    /// The current element's offset and logical index, then moves to the next element.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<(isize, [usize; MAX_RANK])> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let current = (self.offset, self.index);
        if self.left > 0 {
            let mut k = self.walk.n;
            while k > 0 {
                k -= 1;
                let s = self.walk.loops[k];
                self.counters[k] += 1;
                if self.counters[k] < s.extent {
                    self.offset += s.stride;
                    if s.dim < MAX_RANK {
                        self.index[s.dim] += s.step;
                    }
                    break;
                }
                self.counters[k] = 0;
                self.offset -= (s.extent as isize - 1) * s.stride;
                if s.dim < MAX_RANK {
                    self.index[s.dim] -= (s.extent - 1) * s.step;
                }
            }
        }
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Layout, NcxHwx, Nhwc, Shape};

    fn walk_of<L: Layout>(dims: &[usize]) -> Walk {
        Walk::new(&Geometry::packed(Shape::<L>::from_slice(dims).unwrap().placement()))
    }

    #[test]
    fn packed_walks_fuse_into_one_run_in_storage_order() {
        let w = walk_of::<NcxHwx<4>>(&[2, 8, 3, 5]);
        assert_eq!(w.loops().len(), 5);
        assert_eq!(w.inner(), Step { extent: 4, stride: 1, dim: 1, step: 1 });
        let f = w.fused();
        assert_eq!(f.loops(), &[Step { extent: 240, stride: 1, dim: usize::MAX, step: 0 }]);
    }

    #[test]
    fn cursor_visits_offsets_in_order_with_their_indices() {
        let shape = Shape::<Nhwc>::new([2, 3, 2, 2]).unwrap();
        let mut c = Cursor::new(Walk::new(&Geometry::packed(shape.placement())));
        let mut seen = 0;
        while let Some((offset, index)) = c.next() {
            assert_eq!(offset as usize, seen);
            assert_eq!(shape.offset([index[0], index[1], index[2], index[3]]).unwrap(), seen);
            seen += 1;
        }
        assert_eq!(seen, 24);
    }

    #[test]
    fn runs_cover_a_strided_window_once() {
        // A 2×3 window with row stride 10 from offset 11, and a mirrored axis.
        let g = Geometry::strided(&[1, 1, 2, 3], &[0, 0, 10, -1], 13);
        let w = Walk::new(&g);
        let mut offsets = Vec::new();
        w.for_each_run(|o, index| {
            for j in 0..w.inner().extent {
                offsets.push((o + j as isize * w.inner().stride, index[2], index[3] + j));
            }
        });
        assert_eq!(offsets, [(13, 0, 0), (12, 0, 1), (11, 0, 2), (23, 1, 0), (22, 1, 1), (21, 1, 2)]);
    }
}
