//! Relayout, cast and channel padding fused into one pass over the source: an f32 NCHW image
//! with C = 3 becomes an f16 NHWC tensor with C padded to 8 (what Tensor Cores want), an f32
//! NCHW tensor becomes NC/32HW32 i8 with a scale (cuDNN's INT8x32 input preparation), an
//! NC/xHWx destination gets C padded up to a multiple of x.
//!
//! The padding is never silent: the result is a [`ChannelPadded`] tensor, whose dims (and so its
//! descriptor) carry the padded C and which says how many channels are data.
//!
//! ```
//! use typed_layout::cast::{relayout_cast_pad, Convert};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! use half::f16;
//!
//! let rgb = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as f32)?;
//! let padded = relayout_cast_pad::<f32, f16, Nchw, Nhwc, _>(&rgb, 8, Convert)?;
//! assert_eq!((padded.channels(), padded.padded_channels()), (3, 8));
//! assert_eq!(padded.tensor().dims(), [1, 8, 2, 2]);
//! // Pixel (0, 0): the three channels, then five zeros.
//! let first: Vec<f32> = padded.tensor().as_slice()[..8].iter().map(|v| v.to_f32()).collect();
//! assert_eq!(first, [0.0, 100.0, 200.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{Family, SameFamily};
use crate::layout::{Layout, Shape};
use crate::tensor::Tensor;

/// How a source element becomes a destination element.
pub trait Cast<S: Element, D: Element>: Copy {
    /// The destination value of `value`.
    fn cast(&self, value: S) -> D;
}

/// The value in the destination type: floats rounded to nearest, integers rounded half away from
/// zero and saturated (NaN becomes 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Convert;

/// `value × scale`, then as [`Convert`]: saturated to the destination (`Scale(127.0 / max)`
/// quantizes to i8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale(pub f64);

impl<S: Element, D: Element> Cast<S, D> for Convert {
    #[inline]
    fn cast(&self, value: S) -> D {
        D::from_f64(value.to_f64())
    }
}

impl<S: Element, D: Element> Cast<S, D> for Scale {
    #[inline]
    fn cast(&self, value: S) -> D {
        D::from_f64(value.to_f64() * self.0)
    }
}

/// A tensor whose channel dimension C holds `channels` channels of data followed by zeros up to
/// its dims' C.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelPadded<T: Element, L: Layout> {
    tensor: Tensor<T, L>,
    channels: usize,
}

impl<T: Element, L: Layout> ChannelPadded<T, L> {
    /// The padded tensor (its dims carry the padded C).
    pub fn tensor(&self) -> &Tensor<T, L> {
        &self.tensor
    }
    /// The padded tensor, owned.
    pub fn into_tensor(self) -> Tensor<T, L> {
        self.tensor
    }
    /// Channels of data.
    pub fn channels(&self) -> usize {
        self.channels
    }
    /// Channels stored, data and padding.
    pub fn padded_channels(&self) -> usize {
        let c = <L::Family as Family>::LETTERS.find('C').unwrap_or(0);
        self.tensor.shape().packing().dims()[c]
    }
}

/// Copies `src` into layout `LD`, casting each element with `cast` and padding C with zeros up to
/// a multiple of `multiple` (and of `LD`'s vector width), in one pass over the source.
///
/// Fails for a family without a C, a `multiple` of 0, or a padded size that does not fit.
pub fn relayout_cast_pad<S, D, LS, LD, C>(
    src: &Tensor<S, LS>,
    multiple: usize,
    cast: C,
) -> Result<ChannelPadded<D, LD>, LayoutError>
where
    S: Element,
    D: Element,
    LS: Layout,
    LD: Layout,
    LD::Family: SameFamily<LS::Family>,
    C: Cast<S, D>,
{
    let letters = <LS::Family as Family>::LETTERS;
    let c = letters.find('C').ok_or(LayoutError::NotApplicable {
        reason: "channel padding needs a family with a channel dimension C",
    })?;
    if multiple == 0 {
        return Err(LayoutError::NotApplicable { reason: "channels are padded to a multiple of at least 1" });
    }
    let width = LD::FORMAT.vector().map_or(1, |v| v.width);
    let step =
        lcm(multiple, width).ok_or(LayoutError::SizeOverflow { dim: DimName::new(c, letters.as_bytes()) })?;
    let src_dims = src.shape().packing().dims();
    let channels = src_dims[c];
    let padded = channels
        .div_ceil(step)
        .checked_mul(step)
        .ok_or(LayoutError::SizeOverflow { dim: DimName::new(c, letters.as_bytes()) })?;
    let mut dims = src_dims.to_vec();
    dims[c] = padded;
    let shape = Shape::<LD>::from_slice(&dims)?;
    let mut out = Tensor::<D, LD>::filled_in(shape, D::default())?;

    // Walk the source in its memory order (reads sequential), writing each element once.
    let (sp, dp) = (*src.shape().packing(), *shape.packing());
    let from = src.as_slice();
    let to = out.as_mut_slice();
    let mut index = vec![0usize; src_dims.len()];
    for (offset, &value) in from.iter().enumerate() {
        sp.index_at(offset, &mut index);
        let Ok(target) = dp.offset(&index) else {
            return Err(LayoutError::NotApplicable {
                reason: "the padded destination holds every source index",
            });
        };
        to[target] = cast.cast(value);
    }
    Ok(ChannelPadded { tensor: out, channels })
}

/// The least common multiple, if it fits (`a`, `b` at least 1).
fn lcm(a: usize, b: usize) -> Option<usize> {
    let l = a as u128 / crate::overlap::gcd(a as u128, b as u128) * b as u128;
    usize::try_from(l).ok()
}
