//! Stride derivation: from a [`Format`] and logical dims to physical axes, strides and length.
//!
//! This is the single source of truth for where an element lives. It is a `const fn`, so
//! [`StaticShape`](crate::StaticShape) evaluates it at compile time and [`Shape`](crate::Shape)
//! calls the same function at run time.
//!
//! A packed layout stores its physical axes outermost first; each axis is a whole logical
//! dimension, or for NC/xHWx the group part (`c / x`) or the lane part (`c % x`) of C. The
//! innermost axis has stride 1 and each outer stride is the product of the extents inside it.
//!
//! ```
//! use typed_layout::{placement::derive, Format};
//! let format = Format::parse("NC/32HW32", "NCHW")?;
//! let p = derive(&format, &[1, 64, 5, 4], b"NCHW")?;
//! assert_eq!(p.strides(), &[1280, 640, 128, 32]); // C's stride is between groups of 32
//! assert_eq!(p.axes().len(), 5); // N, C/32, H, W, then the 32 lanes
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{DimName, LayoutError};
use crate::notation::{Format, Vector, MAX_RANK, MIN_RANK};

/// Most physical axes a layout can have: every dimension plus one vector lane axis.
///
/// ```
/// use typed_layout::{placement::MAX_AXES, NcxHwx, Shape};
/// let axes = Shape::<NcxHwx<32>>::new([1, 64, 5, 4])?.placement().axes().len();
/// assert_eq!(axes, 5); // N, C/32, H, W and the lanes: at most MAX_AXES = 9 for rank 8
/// assert!(axes <= MAX_AXES);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const MAX_AXES: usize = MAX_RANK + 1;

/// Which part of a logical dimension a physical axis walks.
///
/// ```
/// use typed_layout::{placement::Part, NcxHwx, Shape};
/// let s = Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?;
/// let parts: Vec<Part> = s.placement().axes().iter().map(|a| a.part).collect();
/// assert_eq!(parts[1], Part::Group { width: 4 }); // c / 4
/// assert_eq!(parts[4], Part::Lane { width: 4 }); // c % 4, innermost
/// assert_eq!(Part::Group { width: 4 }.coordinate(6), 1);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The whole dimension: coordinate `i`.
    Whole,
    /// The group index of a vectorized dimension: coordinate `i / width`.
    Group {
        /// Vector width x.
        width: usize,
    },
    /// The lane within a vector: coordinate `i % width`.
    Lane {
        /// Vector width x.
        width: usize,
    },
}

impl Part {
    /// This part's coordinate for logical index `i` of its dimension.
    pub const fn coordinate(self, i: usize) -> usize {
        match self {
            Part::Whole => i,
            Part::Group { width } => i / width,
            Part::Lane { width } => i % width,
        }
    }
}

/// One physical axis of a packed layout.
///
/// ```
/// use typed_layout::{placement::{Axis, Part}, Nhwc, Shape};
/// let s = Shape::<Nhwc>::new([1, 64, 5, 4])?;
/// assert_eq!(s.placement().axes()[3], Axis { dim: 1, part: Part::Whole, extent: 64, stride: 1 }); // C
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Axis {
    /// Logical index of the dimension this axis walks.
    pub dim: usize,
    /// Which part of that dimension.
    pub part: Part,
    /// Number of positions along the axis.
    pub extent: usize,
    /// Elements between neighbouring positions.
    pub stride: usize,
}

const EMPTY_AXIS: Axis = Axis { dim: 0, part: Part::Whole, extent: 1, stride: 1 };

/// The derived storage of one packed shape: dims, physical axes, logical strides and length.
///
/// ```
/// use typed_layout::{Nhwc, Shape};
/// let p = *Shape::<Nhwc>::new([1, 64, 5, 4])?.placement();
/// assert_eq!((p.dims(), p.strides(), p.len()), (&[1, 64, 5, 4][..], &[1280, 1, 256, 64][..], 1280));
/// let mut index = [0; 4];
/// p.index_at(p.offset(&[0, 3, 2, 1]).unwrap(), &mut index);
/// assert_eq!(index, [0, 3, 2, 1]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    rank: usize,
    dims: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    axes: [Axis; MAX_AXES],
    n_axes: usize,
    len: usize,
}

/// Derives the packed storage of `dims` (logical order) in `format`.
///
/// `letters` names the dimensions in errors. Fails on a rank outside 3..=8 or different from the
/// format's, a zero dim, a vectorized dim that is not a multiple of its width, or an element
/// count above `isize::MAX`.
///
/// ```
/// use typed_layout::{placement::derive, Format};
/// let p = derive(&Format::parse("NHWC", "NCHW")?, &[1, 64, 5, 4], b"NCHW")?;
/// assert_eq!((p.strides(), p.len()), (&[1280, 1, 256, 64][..], 1280));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const fn derive(format: &Format, dims: &[usize], letters: &[u8]) -> Result<Placement, LayoutError> {
    let rank = dims.len();
    if rank < MIN_RANK || rank > MAX_RANK {
        return Err(LayoutError::RankOutOfRange { rank });
    }
    if rank != format.rank() {
        return Err(LayoutError::DimCount { expected: format.rank(), found: rank });
    }
    let mut out = Placement {
        rank,
        dims: [1; MAX_RANK],
        strides: [0; MAX_RANK],
        axes: [EMPTY_AXIS; MAX_AXES],
        n_axes: 0,
        len: 0,
    };
    let mut d = 0;
    while d < rank {
        if dims[d] == 0 {
            return Err(LayoutError::ZeroDim { dim: DimName::new(d, letters) });
        }
        out.dims[d] = dims[d];
        d += 1;
    }
    let order = format.order();
    let vector = format.vector();
    let mut k = 0;
    while k < rank {
        let dim = order[k];
        let (part, extent) = match vector {
            Some(v) if v.dim == dim => {
                if !dims[dim].is_multiple_of(v.width) {
                    return Err(LayoutError::NotMultipleOfVector {
                        dim: DimName::new(dim, letters),
                        size: dims[dim],
                        width: v.width,
                    });
                }
                (Part::Group { width: v.width }, dims[dim] / v.width)
            }
            _ => (Part::Whole, dims[dim]),
        };
        out.axes[k] = Axis { dim, part, extent, stride: 0 };
        k += 1;
    }
    out.n_axes = rank;
    if let Some(v) = vector {
        out.axes[rank] = Axis { dim: v.dim, part: Part::Lane { width: v.width }, extent: v.width, stride: 0 };
        out.n_axes = rank + 1;
    }
    let mut stride: usize = 1;
    let mut k = out.n_axes;
    while k > 0 {
        k -= 1;
        out.axes[k].stride = stride;
        stride = match stride.checked_mul(out.axes[k].extent) {
            Some(s) if s <= isize::MAX as usize => s,
            _ => return Err(LayoutError::SizeOverflow { dim: DimName::new(out.axes[k].dim, letters) }),
        };
        if !matches!(out.axes[k].part, Part::Lane { .. }) {
            out.strides[out.axes[k].dim] = out.axes[k].stride;
        }
    }
    out.len = stride;
    Ok(out)
}

/// Derives the storage of `dims` in `format` with the given logical `strides`, checking them
/// against the format's packing: letters of the `-packed` suffix need exactly the packed stride,
/// the others at least it (the guide's partially packed rules; a fully packed format accepts
/// only its packed strides). For a vectorized C, `strides[C]` is the stride between vector
/// groups; the lanes are always contiguous.
///
/// Strides that satisfy the rules nest, so the shape never overlaps; its length is one past the
/// largest offset.
///
/// ```
/// use typed_layout::{placement::derive_strided, Format};
/// // NHWC, WC-packed: H may be padded (320 ≥ 4 · 64), W and C must be packed.
/// let f = Format::parse("NHWC", "NCHW")?.with_packed("WC", "NCHW")?;
/// let p = derive_strided(&f, &[1, 64, 5, 4], &[1600, 1, 320, 64], b"NCHW")?;
/// assert_eq!(p.len(), 4 * 320 + 3 * 64 + 63 + 1);
/// assert!(derive_strided(&f, &[1, 64, 5, 4], &[1600, 1, 320, 65], b"NCHW").is_err()); // W not packed
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const fn derive_strided(
    format: &Format,
    dims: &[usize],
    strides: &[usize],
    letters: &[u8],
) -> Result<Placement, LayoutError> {
    let mut out = match derive(format, dims, letters) {
        Ok(p) => p,
        Err(e) => return Err(e),
    };
    if strides.len() != out.rank {
        return Err(LayoutError::StrideCount { dims: out.rank, strides: strides.len() });
    }
    let packed = format.packed();
    // Inner to outer: each axis against the extent and stride of the one inside it.
    let mut inner_span: usize = 1;
    let mut k = out.n_axes;
    while k > 0 {
        k -= 1;
        let axis = out.axes[k];
        let dim = DimName::new(axis.dim, letters);
        let stride = match axis.part {
            Part::Lane { .. } => 1,
            _ => strides[axis.dim],
        };
        let is_packed = matches!(axis.part, Part::Lane { .. }) || packed[axis.dim];
        if is_packed && stride != inner_span {
            return Err(LayoutError::NotPacked { dim, stride, required: inner_span });
        }
        if !is_packed && stride < inner_span {
            return Err(LayoutError::StrideTooSmall { dim, stride, minimum: inner_span });
        }
        out.axes[k].stride = stride;
        if !matches!(axis.part, Part::Lane { .. }) {
            out.strides[axis.dim] = stride;
        }
        inner_span = match stride.checked_mul(axis.extent) {
            Some(s) if s <= isize::MAX as usize => s,
            _ => return Err(LayoutError::SizeOverflow { dim }),
        };
    }
    // Nested strides: the largest offset is below the outermost span, checked above.
    let mut last = 0;
    let mut k = 0;
    while k < out.n_axes {
        last += (out.axes[k].extent - 1) * out.axes[k].stride;
        k += 1;
    }
    out.len = last + 1;
    Ok(out)
}

impl Placement {
    /// Number of logical dimensions.
    pub const fn rank(&self) -> usize {
        self.rank
    }

    /// Logical dims.
    pub const fn dims(&self) -> &[usize] {
        self.dims.split_at(self.rank).0
    }

    /// Logical strides: the distance between neighbours along each logical dimension; for a
    /// vectorized dimension, the distance between neighbouring vector groups.
    pub const fn strides(&self) -> &[usize] {
        self.strides.split_at(self.rank).0
    }

    /// Physical axes, outermost first.
    pub const fn axes(&self) -> &[Axis] {
        self.axes.split_at(self.n_axes).0
    }

    /// Number of elements of storage.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Always false: every dimension is at least 1.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the storage holds no padding: as many elements as the dims' product, so each
    /// offset in `0..len` holds one (offsets of distinct indices differ).
    pub(crate) fn is_dense(&self) -> bool {
        self.dims().iter().product::<usize>() == self.len
    }

    /// Bytes of storage of `elem_size`-byte elements ([`LayoutError::SizeOverflow`] past `isize::MAX`).
    pub fn bytes(&self, elem_size: usize, letters: &[u8]) -> Result<usize, LayoutError> {
        let mut last = 0; // the highest offset reached by the axes so far
        for a in self.axes().iter().rev() {
            let overflow = LayoutError::SizeOverflow { dim: DimName::new(a.dim, letters) };
            last += (a.extent - 1) * a.stride; // below len, which fits in isize
            let bytes = (last + 1).checked_mul(elem_size).filter(|&b| b <= isize::MAX as usize);
            bytes.ok_or(overflow)?;
        }
        Ok(self.len * elem_size)
    }

    /// Storage offset of the logical `index`, or the first dimension it is out of bounds in.
    pub const fn offset(&self, index: &[usize]) -> Result<usize, usize> {
        if index.len() != self.rank {
            return Err(index.len());
        }
        let mut d = 0;
        while d < self.rank {
            if index[d] >= self.dims[d] {
                return Err(d);
            }
            d += 1;
        }
        let mut offset = 0;
        let mut k = 0;
        while k < self.n_axes {
            let a = self.axes[k];
            offset += a.part.coordinate(index[a.dim]) * a.stride;
            k += 1;
        }
        Ok(offset)
    }

    /// [`Placement::offset`] for the hot path of element access: `index` has one entry per
    /// dimension, and `vector` is the format's vectorized dimension (lanes contiguous), a
    /// constant where the caller is monomorphized per layout, so the loop unrolls into a dot
    /// product with bounds checks. `None` outside the dims.
    #[inline(always)]
    pub(crate) fn locate(&self, index: &[usize], vector: Option<Vector>) -> Option<usize> {
        let (dims, strides) = (&self.dims, &self.strides);
        let mut offset = 0;
        let mut inside = true;
        for k in 0..index.len().min(MAX_RANK) {
            let i = index[k];
            inside &= i < dims[k];
            offset += match vector {
                Some(v) if v.dim == k => (i / v.width) * strides[k] + i % v.width,
                _ => i * strides[k],
            };
        }
        inside.then_some(offset)
    }

    /// The elements of this placement whose index along logical dimension `dim` lies in
    /// `start..start + len`, with the same strides: the placement of a sub-tensor, and the
    /// offset of its first element. Its length is one past its highest offset (it reaches
    /// elements of the parent between its own). A vectorized dimension narrows only at whole
    /// vectors; `letters` names the dimension in errors.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Nchw, Shape};
    /// let p = *Shape::<Nchw>::new([2, 3, 4, 5])?.placement();
    /// let (rows, offset) = p.narrowed(2, 1, 2, b"NCHW")?; // h in 1..3
    /// assert_eq!((rows.dims(), rows.strides(), offset), (&[2, 3, 2, 5][..], &[60, 20, 5, 1][..], 5));
    /// assert_eq!(rows.len(), 60 + 2 * 20 + 5 + 4 + 1);
    /// let v = *Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?.placement();
    /// assert!(v.narrowed(1, 4, 4, b"NCHW").is_ok()); // the second vector of channels
    /// assert!(v.narrowed(1, 2, 4, b"NCHW").is_err()); // half of each
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn narrowed(
        &self,
        dim: usize,
        start: usize,
        len: usize,
        letters: &[u8],
    ) -> Result<(Placement, usize), LayoutError> {
        let name = DimName::new(dim, letters);
        let size = match self.dims().get(dim) {
            Some(&size) => size,
            None => return Err(LayoutError::NoSuchAxis { index: dim, rank: self.rank }),
        };
        let end = start.checked_add(len).filter(|&end| len > 0 && end <= size);
        let Some(end) = end else {
            return Err(LayoutError::RangeOutOfBounds {
                dim: name,
                start,
                end: start.saturating_add(len),
                size,
            });
        };
        let mut out = *self;
        let mut offset = 0;
        for a in out.axes[..out.n_axes].iter_mut().filter(|a| a.dim == dim) {
            match a.part {
                Part::Whole => {
                    a.extent = len;
                    offset += start * a.stride;
                }
                Part::Group { width } => {
                    if !start.is_multiple_of(width) || !len.is_multiple_of(width) {
                        return Err(LayoutError::NotWholeVectors { dim: name, start, end, width });
                    }
                    a.extent = len / width;
                    offset += start / width * a.stride;
                }
                Part::Lane { .. } => {}
            }
        }
        out.dims[dim] = len;
        out.len = 1 + out.axes().iter().map(|a| (a.extent - 1) * a.stride).sum::<usize>();
        Ok((out, offset))
    }

    /// Writes into `index` (one entry per dimension) the logical index stored at `offset`
    /// (below [`Placement::len`]): the inverse of [`Placement::offset`].
    pub fn index_at(&self, offset: usize, index: &mut [usize]) {
        index.iter_mut().for_each(|i| *i = 0);
        for a in self.axes() {
            let k = (offset / a.stride) % a.extent;
            index[a.dim] += match a.part {
                Part::Group { width } => k * width,
                _ => k,
            };
        }
    }

    /// The affine map of each logical dimension: how its coordinate reaches storage.
    pub(crate) fn dim_maps(&self) -> [DimMap; MAX_RANK] {
        let mut maps = [DimMap::Whole { stride: 0 }; MAX_RANK];
        for a in self.axes() {
            maps[a.dim] = match (a.part, maps[a.dim]) {
                (Part::Whole, _) => DimMap::Whole { stride: a.stride as isize },
                (Part::Group { width }, DimMap::Split { inner, .. }) => {
                    DimMap::Split { width, outer: a.stride as isize, inner }
                }
                (Part::Group { width }, _) => DimMap::Split { width, outer: a.stride as isize, inner: 0 },
                (Part::Lane { width }, DimMap::Split { outer, .. }) => {
                    DimMap::Split { width, outer, inner: a.stride as isize }
                }
                (Part::Lane { width }, _) => DimMap::Split { width, outer: 0, inner: a.stride as isize },
            };
        }
        maps
    }
}

/// How one logical dimension's coordinate `i` contributes to a storage offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DimMap {
    /// `i * stride`.
    Whole { stride: isize },
    /// `(i / width) * outer + (i % width) * inner`.
    Split { width: usize, outer: isize, inner: isize },
}

#[cfg(test)]
mod tests;
