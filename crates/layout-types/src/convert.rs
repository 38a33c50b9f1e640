//! CPU conversions between layouts of one family.
//!
//! A conversion copies every element of a [`Source`] to the same logical index of a
//! [`Destination`]. Both are reduced to a [`Geometry`]: for each logical dimension, the affine
//! map from its coordinate to a storage offset (NC/xHWx's C maps through a group and a lane
//! stride). The plan then
//!
//! 1. refines the index space so each side is affine in every axis (C is split into groups and
//!    lanes when either side vectorizes it),
//! 2. orders the axes as the destination stores them and fuses neighbours contiguous in both,
//! 3. copies contiguous runs directly, and otherwise transposes the plane of the destination's
//!    and the source's innermost axes in cache tiles (the loops are in `kernels`).
//!
//! The loop nest is generic over the element type and both sides, so each (source, destination,
//! type) is its own monomorphized function with no per-element dispatch. Vector widths that do
//! not divide each other (NC/3HW3 to NC/4HW4) take a per-element path.
//!
//! ```
//! use typed_layout::{convert, Nchw, Nhwc, Tensor};
//! let a = Tensor::<f32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
//! let mut b = Tensor::<f32, Nhwc>::zeros([1, 2, 2, 2])?;
//! convert(&a, &mut b)?;
//! // NHWC stores the two channels of each pixel side by side.
//! assert_eq!(b.as_slice(), &[0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{Family, SameFamily, MAX_RANK};
use crate::layout::{Layout, Shape};
use crate::plan::{DimMap, Packing};

mod kernels;

pub(crate) mod sealed {
    use super::Geometry;

    /// Read access for conversions; not for use outside typed-layout.
    pub trait Readable<T> {
        fn geometry(&self) -> Geometry;
        fn data(&self) -> &[T];
    }
    /// Write access for conversions; not for use outside typed-layout.
    pub trait Writable<T> {
        fn geometry(&self) -> Geometry;
        fn data_mut(&mut self) -> &mut [T];
    }
}

/// Something a conversion can read: [`Tensor`](crate::Tensor), [`TensorView`](crate::TensorView),
/// [`StridedView`](crate::StridedView).
///
/// ```
/// use typed_layout::{convert, convert::Source, Nhwc, Tensor};
/// /// Any readable image (tensor, view, strided view) into a fresh NHWC tensor.
/// fn to_nhwc<S: Source<f32, Family = typed_layout::Image>>(src: &S, dims: [usize; 4]) -> Result<Tensor<f32, Nhwc>, typed_layout::LayoutError> {
///     let mut out = Tensor::zeros(dims)?;
///     convert(src, &mut out)?;
///     Ok(out)
/// }
/// let x = Tensor::<f32, typed_layout::Nchw>::filled([1, 2, 2, 2], 1.0)?;
/// assert_eq!(to_nhwc(&x, [1, 2, 2, 2])?.as_slice(), &[1.0; 8]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of a conversion",
    label = "not a source",
    note = "a conversion reads a `Tensor`, a `TensorView`, a `TensorViewMut` or a `StridedView`"
)]
pub trait Source<T: Element>: sealed::Readable<T> {
    /// The family of the logical dims.
    type Family: Family;
}

/// Something a conversion can write, never overlapping: [`Tensor`](crate::Tensor),
/// [`TensorViewMut`](crate::TensorViewMut), [`StridedViewMut`](crate::StridedViewMut).
///
/// ```
/// use typed_layout::{convert, convert::Destination, Nchw, Tensor};
/// /// Fills any writable image from an NCHW tensor.
/// fn fill<D: Destination<u8, Family = typed_layout::Image>>(dst: &mut D) -> Result<(), typed_layout::LayoutError> {
///     convert(&Tensor::<u8, Nchw>::filled([1, 1, 2, 2], 3)?, dst)
/// }
/// let mut y = Tensor::<u8, typed_layout::Chwn>::zeros([1, 1, 2, 2])?;
/// fill(&mut y)?;
/// assert_eq!(y.as_slice(), &[3; 4]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of a conversion",
    label = "not a destination",
    note = "outputs cannot overlap: write into a `Tensor`, a `TensorViewMut`, or a `StridedViewMut` (which proves its dimensions disjoint); a `StridedView` is input-only"
)]
pub trait Destination<T: Element>: sealed::Writable<T> {
    /// The family of the logical dims.
    type Family: Family;
}

/// How a tensor's logical index reaches storage: dims, a map per dimension, a base offset.
///
/// ```
/// // Not built by hand: every Source and Destination gives its own, and a conversion reads the
/// // loop nest the two make. Packed shapes show it through LoopNest:
/// use typed_layout::{convert::LoopNest, Nchw, Nhwc, Shape};
/// let nest = LoopNest::between(&Shape::<Nchw>::new([2, 8, 4, 4])?, &Shape::<Nhwc>::new([2, 8, 4, 4])?)?.unwrap();
/// assert_eq!(nest.axes().len(), 3); // N, H·W, C
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    rank: usize,
    dims: [usize; MAX_RANK],
    maps: [DimMap; MAX_RANK],
    base: isize,
}

impl Geometry {
    pub(crate) fn packed(p: &Packing) -> Self {
        let mut dims = [1; MAX_RANK];
        dims[..p.rank()].copy_from_slice(p.dims());
        Geometry { rank: p.rank(), dims, maps: p.dim_maps(), base: 0 }
    }

    pub(crate) fn strided(d: &[usize], strides: &[isize], base: usize) -> Self {
        let mut dims = [1; MAX_RANK];
        dims[..d.len()].copy_from_slice(d);
        let mut maps = [DimMap::Whole { stride: 0 }; MAX_RANK];
        for (m, &s) in maps.iter_mut().zip(strides) {
            *m = DimMap::Whole { stride: s };
        }
        Geometry { rank: d.len(), dims, maps, base: base as isize }
    }

    fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    pub(crate) fn offset(&self, index: &[usize]) -> isize {
        let mut o = self.base;
        for (m, &i) in self.maps.iter().zip(index) {
            o += match *m {
                DimMap::Whole { stride } => i as isize * stride,
                DimMap::Split { width, outer, inner } => {
                    (i / width) as isize * outer + (i % width) as isize * inner
                }
            };
        }
        o
    }
}

/// Copies `src` into `dst` at the same logical indices.
///
/// ```
/// use typed_layout::{convert, Ncdhw, Ndhwc, Tensor};
/// let a = Tensor::<half::f16, Ncdhw>::from_fn([2, 3, 4, 5, 6], |i| half::f16::from_f32(i[1] as f32))?;
/// let mut b = Tensor::<half::f16, Ndhwc>::zeros([2, 3, 4, 5, 6])?;
/// convert(&a, &mut b)?;
/// assert_eq!(&b.as_slice()[..3], &[0.0, 1.0, 2.0].map(half::f16::from_f32));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// Source and destination must be of one family; dims must be equal
/// ([`LayoutError::ShapeMismatch`] otherwise).
pub fn convert<T, S, D>(src: &S, dst: &mut D) -> Result<(), LayoutError>
where
    T: Element,
    S: Source<T> + ?Sized,
    D: Destination<T> + ?Sized,
    D::Family: SameFamily<S::Family>,
{
    let (sg, dg) = (src.geometry(), dst.geometry());
    same_dims(&sg, &dg, S::Family::LETTERS.as_bytes())?;
    let (src, dst) = (src.data(), dst.data_mut());
    match LoopNest::new(&sg, &dg) {
        Some(plan) => plan.run_maybe_parallel(src, dst),
        None => per_element(&sg, src, &dg, dst),
    }
    Ok(())
}

/// [`LayoutError::ShapeMismatch`] naming the first dimension where the two sides differ.
fn same_dims(sg: &Geometry, dg: &Geometry, letters: &[u8]) -> Result<(), LayoutError> {
    match (0..sg.rank.max(dg.rank)).find(|&d| sg.dims().get(d) != dg.dims().get(d)) {
        Some(d) => Err(LayoutError::ShapeMismatch {
            dim: DimName::new(d, letters),
            source: sg.dims().get(d).copied().unwrap_or(0),
            destination: dg.dims().get(d).copied().unwrap_or(0),
        }),
        None => Ok(()),
    }
}

/// Conversions moving fewer bytes than this run on the calling thread, without allocating.
///
/// ```
/// use typed_layout::{convert::PARALLEL_THRESHOLD_BYTES, Nchw, Tensor};
/// // 4 KiB: converted on the calling thread, with no allocation besides the result.
/// let small = Tensor::<f32, Nchw>::zeros([1, 16, 8, 8])?;
/// assert!(small.as_slice().len() * 4 < PARALLEL_THRESHOLD_BYTES);
/// let _ = small.to_layout::<typed_layout::Nhwc>()?;
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const PARALLEL_THRESHOLD_BYTES: usize = 1 << 20;

/// Most refined axes: each dimension splits into at most three (group, sub-group, lane).
const MAX_REFINED: usize = 3 * MAX_RANK;

/// One loop of a [`LoopNest`]: how far it runs and how far each side moves per step.
///
/// ```
/// use typed_layout::{convert::{LoopAxis, LoopNest}, Bmn, ColMajor, RowMajor, Shape};
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
/// The CPU loops in this module and the GPU kernels of `layout-gpu` both start from it.
///
/// ```
/// use typed_layout::{convert::{LoopAxis, LoopNest}, Nchw, Nhwc, Shape};
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
    axes: [LoopAxis; MAX_REFINED],
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
        let (sg, dg) = (Geometry::packed(src.packing()), Geometry::packed(dst.packing()));
        same_dims(&sg, &dg, S::Family::LETTERS.as_bytes())?;
        Ok(LoopNest::new(&sg, &dg))
    }

    /// For widths that do not nest: the two nests of a conversion through a row-major buffer
    /// of the logical dims (`product(dims)` elements, dimension 0 outermost), which nests with
    /// every layout. Backends without a per-element path convert in these two passes.
    ///
    /// ```
    /// use typed_layout::{convert::LoopNest, NcxHwx, Shape};
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
        let (sg, dg) = (Geometry::packed(src.packing()), Geometry::packed(dst.packing()));
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
        let axes = self.axes();
        let (inner, _) = axes.split_last()?;
        let (k, _) = axes.iter().enumerate().min_by_key(|(_, a)| a.src.unsigned_abs())?;
        (k != axes.len() - 1 && inner.src.unsigned_abs() > 1).then_some(k)
    }

    /// The refined, ordered, fused loop nest, or `None` when vector widths do not nest.
    fn new(src: &Geometry, dst: &Geometry) -> Option<LoopNest> {
        let mut plan = LoopNest {
            axes: [LoopAxis::default(); MAX_REFINED],
            n: 0,
            src_base: src.base,
            dst_base: dst.base,
        };
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

    /// Runs on rayon's pool when the `parallel` feature is on, the conversion moves at least
    /// [`PARALLEL_THRESHOLD_BYTES`], and the destination splits into disjoint contiguous ranges.
    fn run_maybe_parallel<T: Element>(&self, src: &[T], dst: &mut [T]) {
        #[cfg(feature = "parallel")]
        if let Some(rows) = self.parallel_rows::<T>() {
            return self.run_parallel(src, dst, rows);
        }
        self.run(src, dst)
    }

    /// Positions of the outermost axis per task, when the destination can be cut there: the
    /// axis's positions own disjoint contiguous ranges (every inner destination stride is
    /// positive and the inner span fits in the outer stride).
    #[cfg(feature = "parallel")]
    fn parallel_rows<T>(&self) -> Option<usize> {
        let axes = &self.axes[..self.n];
        let (outer, inner) = axes.split_first()?;
        let elements: usize = axes.iter().map(|a| a.extent).product();
        let threads = rayon::current_num_threads();
        if threads < 2 || elements.saturating_mul(core::mem::size_of::<T>()) < PARALLEL_THRESHOLD_BYTES {
            return None;
        }
        let mut span: isize = 1;
        for a in inner {
            if a.dst <= 0 {
                return None;
            }
            span += (a.extent as isize - 1) * a.dst;
        }
        if self.dst_base < 0 || outer.dst < span || outer.extent < 2 {
            return None;
        }
        Some(outer.extent.div_ceil(4 * threads))
    }

    /// Cuts the outermost axis into tasks of `rows` positions, each writing its own chunk.
    #[cfg(feature = "parallel")]
    fn run_parallel<T: Element>(&self, src: &[T], dst: &mut [T], rows: usize) {
        use rayon::prelude::*;
        let outer = self.axes[0];
        let region = &mut dst[self.dst_base as usize..];
        region.par_chunks_mut(rows * outer.dst as usize).enumerate().for_each(|(task, chunk)| {
            let start = task * rows;
            if start >= outer.extent {
                return; // trailing storage past the last position (padding)
            }
            let mut part = *self;
            part.axes[0].extent = rows.min(outer.extent - start);
            part.src_base = self.src_base + start as isize * outer.src;
            part.dst_base = 0;
            part.run(src, chunk);
        });
    }

    fn run<T: Element>(&self, src: &[T], dst: &mut [T]) {
        let axes = self.axes();
        let Some((&inner, outer)) = axes.split_last() else {
            dst[self.dst_base as usize] = src[self.src_base as usize];
            return;
        };
        // The axis the source walks fastest; if it is not the destination's innermost, tile the two.
        if let Some(src_inner_pos) = self.tile_axis() {
            let src_inner = axes[src_inner_pos];
            let mut rest = [LoopAxis::default(); MAX_REFINED];
            let mut m = 0;
            for (i, a) in outer.iter().enumerate() {
                if i != src_inner_pos {
                    rest[m] = *a;
                    m += 1;
                }
            }
            for_each_offset(&rest[..m], self.src_base, self.dst_base, |s, d| {
                kernels::transpose(src, s, dst, d, src_inner, inner)
            });
        } else {
            for_each_offset(outer, self.src_base, self.dst_base, |s, d| {
                kernels::copy_run(src, s, dst, d, inner)
            });
        }
    }
}

/// Calls `f(src_offset, dst_offset)` for every position of `axes` (outermost first).
#[inline]
fn for_each_offset(axes: &[LoopAxis], src_base: isize, dst_base: isize, mut f: impl FnMut(isize, isize)) {
    let mut counters = [0usize; MAX_REFINED];
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

/// The general path: every logical index, offsets from each side's maps.
fn per_element<T: Copy>(sg: &Geometry, src: &[T], dg: &Geometry, dst: &mut [T]) {
    let dims = dg.dims();
    let mut index = [0usize; MAX_RANK];
    loop {
        dst[dg.offset(&index[..dims.len()]) as usize] = src[sg.offset(&index[..dims.len()]) as usize];
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Chwn, Image, Nchw, NcxHwx, Nhwc, StridedView, Tensor};

    fn guide() -> Tensor<i32, Nchw> {
        Tensor::from_vec([1, 64, 5, 4], (0..1280).collect()).unwrap()
    }

    #[test]
    fn plan_fuses_nchw_to_nhwc_into_a_2d_transpose() {
        let src = Geometry::packed(guide().shape().packing());
        let dst = Geometry::packed(crate::Shape::<Nhwc>::new([1, 64, 5, 4]).unwrap().packing());
        let plan = LoopNest::new(&src, &dst).unwrap();
        // N is 1 (dropped); H and W fuse into one axis of 20: a 20×64 transpose.
        assert_eq!(plan.n, 2);
        assert_eq!(plan.axes[0], LoopAxis { extent: 20, src: 1, dst: 64 });
        assert_eq!(plan.axes[1], LoopAxis { extent: 64, src: 20, dst: 1 });
    }

    #[test]
    fn identity_is_one_contiguous_run() {
        let src = Geometry::packed(guide().shape().packing());
        let plan = LoopNest::new(&src, &src).unwrap();
        assert_eq!(plan.n, 1);
        assert_eq!(plan.axes[0], LoopAxis { extent: 1280, src: 1, dst: 1 });
    }

    #[test]
    fn widths_that_do_not_nest_take_the_per_element_path() {
        let a = Tensor::<i32, NcxHwx<3>>::from_fn([2, 12, 3, 2], |[n, c, h, w]| {
            (n * 1000 + c * 100 + h * 10 + w) as i32
        })
        .unwrap();
        let b: Tensor<i32, NcxHwx<4>> = a.to_layout().unwrap();
        let c: Tensor<i32, Chwn> = b.to_layout().unwrap();
        for n in 0..2 {
            for ch in 0..12 {
                for h in 0..3 {
                    for w in 0..2 {
                        let v = (n * 1000 + ch * 100 + h * 10 + w) as i32;
                        assert_eq!(b.get([n, ch, h, w]), Some(&v));
                        assert_eq!(c.get([n, ch, h, w]), Some(&v));
                    }
                }
            }
        }
    }

    #[test]
    fn mismatched_dims_are_an_error_and_leave_the_output_alone() {
        let a = Tensor::<u8, Nchw>::filled([1, 2, 3, 4], 7).unwrap();
        let mut b = Tensor::<u8, Nhwc>::filled([1, 2, 4, 3], 9).unwrap();
        assert!(matches!(convert(&a, &mut b), Err(LayoutError::ShapeMismatch { .. })));
        assert!(b.as_slice().iter().all(|&v| v == 9));
    }

    #[test]
    fn negative_strides_mirror() {
        let data: Vec<i8> = (0..6).collect();
        // W mirrored: read each row backwards.
        let v = StridedView::<i8, Image>::new(&data, [1, 1, 2, 3], [6, 6, 3, -1], 2).unwrap();
        let t: Tensor<i8, Nchw> = v.to_layout().unwrap();
        assert_eq!(t.as_slice(), &[2, 1, 0, 5, 4, 3]);
    }
}
