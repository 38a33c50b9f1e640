//! How a tensor's logical index reaches storage, as the loop plan sees it: one affine map per
//! logical dimension (a split one for a vectorized C) and a base offset.

use crate::error::{DimName, LayoutError};
use crate::notation::MAX_RANK;
use crate::placement::{DimMap, Placement};

/// How a tensor's logical index reaches storage: dims, a map per dimension, a base offset.
///
/// ```
/// // Not built by hand: every Source and Destination gives its own, and a conversion reads the
/// // loop nest the two make. Packed shapes show it through LoopNest:
/// use typed_layout::{loops::LoopNest, Nchw, Nhwc, Shape};
/// let nest = LoopNest::between(&Shape::<Nchw>::new([2, 8, 4, 4])?, &Shape::<Nhwc>::new([2, 8, 4, 4])?)?.unwrap();
/// assert_eq!(nest.axes().len(), 3); // N, H·W, C
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub(super) rank: usize,
    pub(super) dims: [usize; MAX_RANK],
    pub(super) maps: [DimMap; MAX_RANK],
    pub(super) base: isize,
}

impl Geometry {
    pub(crate) fn packed(p: &Placement) -> Self {
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

    /// Each dimension's map.
    pub(crate) fn maps(&self) -> &[DimMap] {
        &self.maps[..self.rank]
    }

    pub(crate) fn dims(&self) -> &[usize] {
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

/// [`LayoutError::ShapeMismatch`] naming the first dimension where the two sides differ.
pub(crate) fn same_dims(sg: &Geometry, dg: &Geometry, letters: &[u8]) -> Result<(), LayoutError> {
    match (0..sg.rank.max(dg.rank)).find(|&d| sg.dims().get(d) != dg.dims().get(d)) {
        Some(d) => Err(LayoutError::ShapeMismatch {
            dim: DimName::new(d, letters),
            source: sg.dims().get(d).copied().unwrap_or(0),
            destination: dg.dims().get(d).copied().unwrap_or(0),
        }),
        None => Ok(()),
    }
}
