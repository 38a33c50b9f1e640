//! The loop plan of a conversion, beside the layouts it relates: an affine loop nest that every
//! backend runs (the CPU loops of `convert`, the GPU kernels of `layout-gpu`).
//!
//! Both sides are reduced to a [`Geometry`]: for each logical dimension, the affine map from its
//! coordinate to a storage offset (NC/xHWx's C maps through a group and a lane stride). The plan
//! then refines the index space so each side is affine in every axis (C is split into groups and
//! lanes when either side vectorizes it), orders the axes as the destination stores them, and
//! fuses neighbours contiguous in both. Vector widths that do not divide each other (NC/3HW3 to
//! NC/4HW4) have no nest: such conversions go element by element, or through
//! [`LoopNest::via_logical`].

use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::layout::{Layout, Shape};
use crate::notation::MAX_RANK;
use crate::placement::DimMap;

mod geometry;
#[cfg(test)]
mod tests;
mod walk;

pub(crate) use geometry::same_dims;
pub use geometry::Geometry;
pub(crate) use walk::{Cursor, Walk};

/// Most loops of a nest: each dimension splits into at most three (group, sub-group, lane).
///
/// ```
/// use typed_layout::loops::MAX_LOOPS;
/// assert_eq!(MAX_LOOPS, 3 * typed_layout::MAX_RANK);
/// ```
pub const MAX_LOOPS: usize = 3 * MAX_RANK;

/// One loop of a [`LoopNest`]: how far it runs and how far each side moves per step.
///
/// ```
/// use typed_layout::{loops::{LoopAxis, LoopNest}, Bmn, ColMajor, RowMajor, Shape};
/// let (a, b) = (Shape::<Bmn<RowMajor>>::new([1, 3, 4])?, Shape::<Bmn<ColMajor>>::new([1, 3, 4])?);
/// let nest = LoopNest::between(&a, &b)?.unwrap();
/// // Column-major order: N outermost (destination stride 3), M innermost.
/// assert_eq!(nest.axes(), &[LoopAxis { extent: 4, src: 1, dst: 3 }, LoopAxis { extent: 3, src: 4, dst: 1 }]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct LoopAxis {
    /// Number of positions.
    pub extent: usize,
    /// Source elements between neighbouring positions.
    pub src: isize,
    /// Destination elements between neighbouring positions.
    pub dst: isize,
}

/// The affine loop nest of one conversion: the plan every backend runs.
///
/// Each side's map from logical index to storage is refined until it is affine in every axis
/// (C splits into groups and lanes where either side vectorizes it), the axes are ordered as the
/// destination stores them (outermost first), and neighbours contiguous on both sides are fused.
/// The CPU loops of [`convert`](crate::convert()) and the GPU kernels of `layout-gpu` both start from it.
///
/// ```
/// use typed_layout::{loops::{LoopAxis, LoopNest}, Nchw, Nhwc, Shape};
/// let src = Shape::<Nchw>::new([1, 64, 5, 4])?;
/// let dst = Shape::<Nhwc>::new([1, 64, 5, 4])?;
/// let nest = LoopNest::between(&src, &dst)?.expect("whole dims nest");
/// // N = 1 drops out, H and W fuse: a 20 × 64 transpose.
/// assert_eq!(nest.axes(), &[LoopAxis { extent: 20, src: 1, dst: 64 }, LoopAxis { extent: 64, src: 20, dst: 1 }]);
/// assert_eq!(nest.tile_axis(), Some(0)); // the source's innermost axis is not the destination's
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoopNest {
    axes: [LoopAxis; MAX_LOOPS],
    n: usize,
    src_base: isize,
    dst_base: isize,
}

/// Strides of the pieces `(outer, middle, lane)` of a dimension cut at `big` and `small`
/// (`i = o*big + m*small + l`), as seen by one side's map.
fn pieces(map: DimMap, big: usize, small: usize) -> Option<[isize; 3]> {
    Some(match map {
        DimMap::Whole { stride } => [big as isize * stride, small as isize * stride, stride],
        DimMap::Split { width, outer, inner } if width == big => [outer, small as isize * inner, inner],
        DimMap::Split { width, outer, inner } if width == small => {
            [(big / small) as isize * outer, outer, inner]
        }
        DimMap::Split { .. } => return None,
    })
}

fn width(map: DimMap) -> usize {
    match map {
        DimMap::Whole { .. } => 1,
        DimMap::Split { width, .. } => width,
    }
}

impl LoopNest {
    /// The loop nest converting packed `src` into packed `dst`, or `None` when their vector
    /// widths do not nest (NC/3HW3 to NC/4HW4: such conversions go element by element).
    ///
    /// Fails with [`LayoutError::ShapeMismatch`] when the dims differ.
    pub fn between<S: Layout, D: Layout>(
        src: &Shape<S>,
        dst: &Shape<D>,
    ) -> Result<Option<LoopNest>, LayoutError>
    where
        D::Family: SameFamily<S::Family>,
    {
        let (sg, dg) = (Geometry::packed(src.placement()), Geometry::packed(dst.placement()));
        same_dims(&sg, &dg, S::Family::LETTERS.as_bytes())?;
        Ok(LoopNest::new(&sg, &dg))
    }

    /// For widths that do not nest: the two nests of a conversion through a row-major buffer
    /// of the logical dims (`product(dims)` elements, dimension 0 outermost), which nests with
    /// every layout. Backends without a per-element path convert in these two passes.
    ///
    /// ```
    /// use typed_layout::{loops::LoopNest, NcxHwx, Shape};
    /// let (a, b) = (Shape::<NcxHwx<3>>::new([1, 12, 2, 2])?, Shape::<NcxHwx<4>>::new([1, 12, 2, 2])?);
    /// assert_eq!(LoopNest::between(&a, &b)?, None);
    /// let (first, second) = LoopNest::via_logical(&a, &b)?;
    /// assert_eq!(first.axes().iter().map(|x| x.extent).product::<usize>(), 48);
    /// assert_eq!(second.axes().iter().map(|x| x.extent).product::<usize>(), 48);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn via_logical<S: Layout, D: Layout>(
        src: &Shape<S>,
        dst: &Shape<D>,
    ) -> Result<(LoopNest, LoopNest), LayoutError>
    where
        D::Family: SameFamily<S::Family>,
    {
        let (sg, dg) = (Geometry::packed(src.placement()), Geometry::packed(dst.placement()));
        same_dims(&sg, &dg, S::Family::LETTERS.as_bytes())?;
        let dims = sg.dims();
        let mut strides = [0isize; MAX_RANK];
        let mut step = 1isize;
        for d in (0..dims.len()).rev() {
            strides[d] = step;
            step *= dims[d] as isize; // the product is the element count, below isize::MAX
        }
        let logical = Geometry::strided(dims, &strides[..dims.len()], 0);
        match (LoopNest::new(&sg, &logical), LoopNest::new(&logical, &dg)) {
            (Some(first), Some(second)) => Ok((first, second)),
            _ => unreachable!("a width-1 side nests with every width"),
        }
    }

    /// The loops, outermost first (ordered by decreasing destination stride).
    pub fn axes(&self) -> &[LoopAxis] {
        &self.axes[..self.n]
    }

    /// Storage offsets of the first element on each side: `(source, destination)`.
    pub fn bases(&self) -> (isize, isize) {
        (self.src_base, self.dst_base)
    }

    /// The axis to tile against the innermost one, or `None` when the innermost axis is the
    /// source's fastest too (or is contiguous in the source), so every innermost run is a
    /// copy. When it is `Some(k)`, the plane of axes `k` and the last is transposed.
    pub fn tile_axis(&self) -> Option<usize> {
        tile_axis(self.axes())
    }

    /// The refined, ordered, fused loop nest, or `None` when vector widths do not nest.
    pub(crate) fn new(src: &Geometry, dst: &Geometry) -> Option<LoopNest> {
        let mut plan =
            LoopNest { axes: [LoopAxis::default(); MAX_LOOPS], n: 0, src_base: src.base, dst_base: dst.base };
        for d in 0..src.rank {
            let (ws, wd) = (width(src.maps[d]), width(dst.maps[d]));
            let (big, small) = (ws.max(wd), ws.min(wd));
            if !big.is_multiple_of(small) {
                return None;
            }
            let extents = [src.dims[d] / big, big / small, small];
            let s = pieces(src.maps[d], big, small)?;
            let t = pieces(dst.maps[d], big, small)?;
            for k in 0..3 {
                if extents[k] > 1 {
                    plan.axes[plan.n] = LoopAxis { extent: extents[k], src: s[k], dst: t[k] };
                    plan.n += 1;
                }
            }
        }
        let axes = &mut plan.axes[..plan.n];
        axes.sort_by_key(|a| core::cmp::Reverse(a.dst.unsigned_abs()));
        // Fuse neighbours that are contiguous on both sides.
        let mut n = 0;
        for k in 0..plan.n {
            let a = plan.axes[k];
            if n > 0 {
                let outer = &mut plan.axes[n - 1];
                let scaled = |stride: isize| stride.checked_mul(a.extent as isize);
                if scaled(a.src) == Some(outer.src) && scaled(a.dst) == Some(outer.dst) {
                    *outer = LoopAxis { extent: outer.extent * a.extent, src: a.src, dst: a.dst };
                    continue;
                }
            }
            plan.axes[n] = a;
            n += 1;
        }
        plan.n = n;
        Some(plan)
    }

    /// The same nest over positions `start..start + count` of the outermost axis, with the
    /// destination's base moved to `dst_base` (a task writing its own chunk of the output).
    #[cfg(feature = "parallel")]
    pub(crate) fn outer_part(&self, start: usize, count: usize, dst_base: isize) -> LoopNest {
        let mut part = *self;
        let outer = self.axes[0];
        part.axes[0].extent = count.min(outer.extent - start);
        part.src_base = self.src_base + start as isize * outer.src;
        part.dst_base = dst_base;
        part
    }
}

/// Calls `f(src_offset, dst_offset)` for every position of `axes` (outermost first).
#[inline]
pub(crate) fn for_each_offset(
    axes: &[LoopAxis],
    src_base: isize,
    dst_base: isize,
    mut f: impl FnMut(isize, isize),
) {
    let mut counters = [0usize; MAX_LOOPS];
    let (mut s, mut d) = (src_base, dst_base);
    loop {
        f(s, d);
        let mut k = axes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            counters[k] += 1;
            s += axes[k].src;
            d += axes[k].dst;
            if counters[k] < axes[k].extent {
                break;
            }
            s -= axes[k].src * axes[k].extent as isize;
            d -= axes[k].dst * axes[k].extent as isize;
            counters[k] = 0;
        }
    }
}

/// [`LoopNest::tile_axis`] of any loops ordered as a nest orders them (outermost first, the
/// destination's innermost last): for a nest rewritten by its user (say, a contiguous run
/// folded into a wider element).
///
/// ```
/// use typed_layout::loops::{tile_axis, LoopAxis};
/// // A 3 × 5 plane transposed: the source's innermost axis is the first.
/// let plane = [LoopAxis { extent: 3, src: 1, dst: 5 }, LoopAxis { extent: 5, src: 3, dst: 1 }];
/// assert_eq!(tile_axis(&plane), Some(0));
/// assert_eq!(tile_axis(&plane[1..]), None);
/// ```
pub fn tile_axis(axes: &[LoopAxis]) -> Option<usize> {
    let (inner, _) = axes.split_last()?;
    let (k, _) = axes.iter().enumerate().min_by_key(|(_, a)| a.src.unsigned_abs())?;
    (k != axes.len() - 1 && inner.src.unsigned_abs() > 1).then_some(k)
}
