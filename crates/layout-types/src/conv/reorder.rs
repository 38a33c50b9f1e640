//! cuDNN's INT8x32 filter and bias reorder (`cudnnReorderFilterAndBias`) as a typed state: a
//! [`ReorderedFilter`] is its own type, made only from a KC/32RS32 filter, so an unreordered
//! filter cannot stand in for a reordered one and a filter cannot be reordered twice.
//!
//! The permutation is not documented by NVIDIA. It is taken from XLA's
//! `CudnnInferTransposeForFilterReordering` and `CudnnInferTransposeForBiasReordering`
//! (`xla/service/gpu/cudnn_support_utils`), which XLA uses in place of cuDNN's call: split the
//! output channels as `k = 8·k₈ + 2·a + b` (a < 4, b < 2) and the input channels as
//! `c = 32·c₃₂ + 4·y + z` (y < 8, z < 4), then store in the order `c₃₂, r, s, k₈, b, y, a, z`;
//! the bias `k = 32·k₃₂ + 8·p + 4·q + t` (p < 4, q < 2, t < 4) in the order `k₃₂, q, p, t`.
//! Here both are conversions between layouts of two families of split letters
//! ([`FilterSplit`], [`BiasSplit`]), so the CPU and the GPU run the conversion code every other
//! layout pair runs.
//!
//! **Verified against cuDNN**: on a device (an H200 with cuDNN 9.14, 2026-11-27),
//! `tests/gpu_device.rs` reorders four filters and their biases with libcudnn's own
//! `cudnnReorderFilterAndBias` and with this permutation on the CPU and the GPU: all three agree
//! byte for byte. Without a GPU the tests check the CPU and GPU paths against the formula above.
//!
//! ```
//! use typed_layout::conv::reorder::{reorder_int8x32, ReorderedFilter};
//! use typed_layout::{KcxRsx, Tensor};
//! let w = Tensor::<i8, KcxRsx<32>>::from_fn([32, 32, 1, 1], |[k, c, _, _]| (k * 3 + c) as i8)?;
//! let r: ReorderedFilter<i8> = reorder_int8x32(&w)?;
//! assert_eq!(r.dims(), [32, 32, 1, 1]);
//! // k = 1 (b = 1), c = 0 follows k = 0's first four channels (z) and the four k of a … (a, z).
//! assert_eq!(r.as_slice()[..4], [0, 1, 2, 3]); // k = 0, c = 0..4
//! assert_eq!(r.offset([2, 0, 0, 0]), Some(4)); // k = 2: a = 1, next after z
//! assert_eq!(r.offset([1, 0, 0, 0]), Some(4 * 8 * 4)); // k = 1: b = 1, past y and a and z
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::Element;
use crate::error::{ConvError, LayoutError};
use crate::family::Family;
use crate::layout::{named_layout, KcxRsx};
use crate::tensor::{Storage, Tensor, TensorBase};

/// A filter's dims with its channels split as cuDNN's INT8x32 reorder splits them, in logical
/// order `K A B C Y Z R S`: K = k / 8, A = (k / 2) % 4, B = k % 2, C = c / 32, Y = (c / 4) % 8,
/// Z = c % 4, then the filter's R and S.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FilterSplit;
impl Family for FilterSplit {
    const LETTERS: &'static str = "KABCYZRS";
    type Dims = [usize; 8];
    type Strides = [isize; 8];
}

/// A bias of K values split as cuDNN's INT8x32 reorder splits it, in logical order `K P Q T`:
/// K = k / 32, P = (k / 8) % 4, Q = (k / 4) % 2, T = k % 4.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BiasSplit;
impl Family for BiasSplit {
    const LETTERS: &'static str = "KPQT";
    type Dims = [usize; 4];
    type Strides = [isize; 4];
}

named_layout! {
    /// KC/32RS32 memory read with split channels (`k₈ a b c₃₂ r s y z`): the reorder's source.
    SplitKcxRsx32: FilterSplit = "KABCRSYZ"
}
named_layout! {
    /// cuDNN's reordered INT8x32 filter memory (`c₃₂ r s k₈ b y a z`).
    SplitReordered: FilterSplit = "CRSKBYAZ"
}
named_layout! {
    /// A bias in output-channel order, split.
    SplitBias: BiasSplit = "KPQT"
}
named_layout! {
    /// cuDNN's reordered bias (`k₃₂ q p t`).
    SplitBiasReordered: BiasSplit = "KQPT"
}

/// The split dims of a `[k, c, r, s]` filter.
pub fn filter_split(dims: [usize; 4]) -> Result<[usize; 8], LayoutError> {
    let [k, c, r, s] = dims;
    if !k.is_multiple_of(32) {
        return Err(ConvError::ReorderChannels { what: "output channels K", count: k }.into());
    }
    if !c.is_multiple_of(32) {
        return Err(ConvError::ReorderChannels { what: "input channels C", count: c }.into());
    }
    Ok([k / 8, 4, 2, c / 32, 8, 4, r, s])
}

/// A filter reordered as cuDNN's INT8x32 convolutions want it (see the [module](self)): the
/// same elements as the KC/32RS32 filter it was made from, in cuDNN's reordered order. Its
/// descriptor is the KC/32RS32 filter's: cuDNN learns of the reorder from the convolution
/// descriptor's reorder type (`cudnnSetConvolutionReorderType`), not from the filter's; which
/// value a pre-reordered filter takes is for the device check to confirm, like the permutation.
#[derive(Debug, Clone, PartialEq)]
pub struct ReorderedFilter<T: Element> {
    tensor: Tensor<T, SplitReordered>,
    dims: [usize; 4],
}

impl<T: Element> ReorderedFilter<T> {
    /// The filter's dims `[k, c, r, s]`.
    pub const fn dims(&self) -> [usize; 4] {
        self.dims
    }

    /// The reordered elements, as cuDNN reads them.
    pub fn as_slice(&self) -> &[T] {
        self.tensor.as_slice()
    }

    /// The reordered elements, owned.
    pub fn into_vec(self) -> Vec<T> {
        self.tensor.into_vec()
    }

    /// Where filter element `[k, c, r, s]` is in the reordered memory, if inside the filter.
    pub fn offset(&self, [k, c, r, s]: [usize; 4]) -> Option<usize> {
        let [kk, cc, rr, ss] = self.dims;
        if k >= kk || c >= cc || r >= rr || s >= ss {
            return None;
        }
        let split = [k / 8, (k / 2) % 4, k % 2, c / 32, (c / 4) % 8, c % 4, r, s];
        self.tensor.shape().offset(split).ok()
    }

    /// The filter descriptor cuDNN takes for it: the INT8x32 one of its KC/32RS32 source.
    pub fn cudnn_filter(&self) -> Result<crate::desc::FormatArgs, LayoutError> {
        crate::layout::Shape::<KcxRsx<32>>::new(self.dims)?.cudnn_filter(T::DATA_TYPE)
    }
}

/// `filter` reordered as cuDNN's `cudnnReorderFilterAndBias` does for INT8x32 convolutions
/// (see the [module](self) for the permutation and its source). `filter` is a KC/32RS32 tensor
/// or view whose K and C are multiples of 32 ([`ConvError::ReorderChannels`] otherwise).
pub fn reorder_int8x32<S, T>(filter: &TensorBase<S, KcxRsx<32>>) -> Result<ReorderedFilter<T>, LayoutError>
where
    S: Storage<Elem = T>,
    T: Element,
{
    let dims = filter.dims();
    let split = filter_split(dims)?;
    let source = filter.reshape::<SplitKcxRsx32>(split)?;
    Ok(ReorderedFilter { tensor: source.to_layout()?, dims })
}

/// A bias reordered as cuDNN's INT8x32 convolutions want it (see the [module](self)): its own
/// type, like [`ReorderedFilter`], made only by [`reorder_bias_int8x32`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReorderedBias<T: Element> {
    values: Vec<T>,
}

impl<T: Element> ReorderedBias<T> {
    /// The reordered values, as cuDNN reads them.
    pub fn as_slice(&self) -> &[T] {
        &self.values
    }
    /// The reordered values, owned.
    pub fn into_vec(self) -> Vec<T> {
        self.values
    }
    /// Output channels K.
    pub fn len(&self) -> usize {
        self.values.len()
    }
    /// Never: a bias has at least 32 values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A bias of `K` values reordered as `cudnnReorderFilterAndBias` reorders it for INT8x32
/// convolutions (K a multiple of 32).
///
/// ```
/// use typed_layout::conv::reorder::reorder_bias_int8x32;
/// let bias: Vec<f32> = (0..32).map(|k| k as f32).collect();
/// let r = reorder_bias_int8x32(&bias)?;
/// // k₃₂ q p t: the 4 of t, then p steps by 8 channels, then q by 4.
/// assert_eq!(&r.as_slice()[..8], &[0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0]);
/// assert_eq!(&r.as_slice()[16..20], &[4.0, 5.0, 6.0, 7.0]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn reorder_bias_int8x32<T: Element>(bias: &[T]) -> Result<ReorderedBias<T>, LayoutError> {
    let split = bias_split(bias.len())?;
    let plain = crate::tensor::TensorView::<T, SplitBias>::new(split, bias)?;
    Ok(ReorderedBias { values: plain.to_layout::<SplitBiasReordered>()?.into_vec() })
}

/// The split dims of a bias of `k` values (K a multiple of 32).
pub fn bias_split(k: usize) -> Result<[usize; 4], LayoutError> {
    if !k.is_multiple_of(32) || k == 0 {
        return Err(ConvError::ReorderChannels { what: "bias values (output channels K)", count: k }.into());
    }
    Ok([k / 32, 4, 2, 4])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;

    /// The split layouts are the formula of the module docs.
    #[test]
    fn the_split_layouts_are_the_formula() {
        let (k, c, r, s) = (64usize, 64usize, 2usize, 3usize);
        let shape = crate::layout::Shape::<SplitReordered>::new(filter_split([k, c, r, s]).unwrap()).unwrap();
        for (kk, cc, rr, ss) in [(0, 0, 0, 0), (1, 0, 0, 0), (2, 5, 1, 2), (63, 63, 1, 2), (9, 33, 0, 1)] {
            let split = [kk / 8, (kk / 2) % 4, kk % 2, cc / 32, (cc / 4) % 8, cc % 4, rr, ss];
            let (k8, a, b, c32, y, z) = (split[0], split[1], split[2], split[3], split[4], split[5]);
            let want = ((((((c32 * r + rr) * s + ss) * (k / 8) + k8) * 2 + b) * 8 + y) * 4 + a) * 4 + z;
            assert_eq!(shape.offset(split).unwrap(), want);
        }
        assert_eq!(SplitReordered::NOTATION, "CRSKBYAZ");
    }
}
