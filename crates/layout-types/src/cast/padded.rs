//! The result of a pass that pads C: the tensor and how many of its channels are data.

use super::channel_dim;
use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{DimArray, SameFamily};
use crate::layout::{DimsOf, Layout};
use crate::tensor::{StorageMut, SubView, Tensor, TensorBase};

/// A tensor whose channel dimension C holds `channels` channels of data followed by zeros up to
/// its dims' C.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, ChannelPadded, Unscaled};
/// use typed_layout::{Nchw, NcxHwx, Tensor};
/// let x = Tensor::<i32, Nchw>::filled([1, 6, 2, 2], 9)?;
/// let p: ChannelPadded<i32, NcxHwx<4>> = relayout_cast_pad(&x, 1, Unscaled)?;
/// assert_eq!((p.channels(), p.padded_channels()), (6, 8)); // C up to the vector width's multiple
/// assert_eq!(p.tensor().dims(), [1, 8, 2, 2]);
/// let t = p.into_tensor();
/// assert_eq!((t.get([0, 5, 1, 1]), t.get([0, 6, 1, 1])), (Some(&9), Some(&0)));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelPadded<T: Element, L: Layout> {
    pub(super) tensor: Tensor<T, L>,
    pub(super) channels: usize,
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
        let c = L::LETTERS.find('C').unwrap_or(0);
        self.tensor.shape().placement().dims()[c]
    }

    /// The channels of data, as a view without the padding (no copy). Fails with
    /// [`LayoutError::NotWholeVectors`] where the data ends inside a vector of NC/xHWx (C = 3 in
    /// NC/4HW4): [`unpad_into`](ChannelPadded::unpad_into) copies those out.
    ///
    /// ```
    /// use typed_layout::cast::{relayout_cast_pad, ChannelPadded, Unscaled};
    /// use typed_layout::{Nchw, Nhwc, Tensor};
    /// let rgb = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, _, _]| c as f32)?;
    /// let padded: ChannelPadded<f32, Nhwc> = relayout_cast_pad(&rgb, 8, Unscaled)?;
    /// let data = padded.data()?;
    /// assert_eq!(data.dims(), [1, 3, 2, 2]);
    /// let back: Tensor<f32, Nchw> = data.to_layout()?;
    /// assert_eq!(back, rgb);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn data(&self) -> Result<SubView<'_, T, L>, LayoutError> {
        self.tensor.narrow('C', 0..self.channels)
    }

    /// Copies the channels of data into `dst` (any layout of the family, dims with C =
    /// [`channels`](ChannelPadded::channels)): undoes the padding, also inside the vectors of
    /// NC/xHWx.
    ///
    /// ```
    /// use typed_layout::cast::{relayout_cast_pad, ChannelPadded, Unscaled};
    /// use typed_layout::{Nchw, NcxHwx, Tensor};
    /// let x = Tensor::<i32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as i32)?;
    /// let v: ChannelPadded<i32, NcxHwx<4>> = relayout_cast_pad(&x, 1, Unscaled)?;
    /// assert!(v.data().is_err()); // 3 of 4 lanes: no view without the padding
    /// let mut back = Tensor::<i32, Nchw>::zeros([1, 3, 2, 2])?;
    /// v.unpad_into(&mut back)?;
    /// assert_eq!(back, x);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn unpad_into<W, D>(&self, dst: &mut TensorBase<W, D>) -> Result<(), LayoutError>
    where
        W: StorageMut<Elem = T>,
        D: crate::layout::Arrangement,
        D::Family: SameFamily<L::Family>,
    {
        if let Ok(view) = self.data() {
            return dst.zip_mut_with(&view, |d, &s| *d = s);
        }
        // The data ends inside a vector: element by element, in the destination's order.
        let c = channel_dim(L::LETTERS)?;
        let mut dims = self.tensor.dims();
        dims.as_mut()[c] = self.channels;
        let theirs = dst.dims();
        if let Some(d) = (0..dims.as_ref().len()).find(|&d| theirs.as_ref()[d] != dims.as_ref()[d]) {
            return Err(LayoutError::ShapeMismatch {
                dim: DimName::new(d, L::LETTERS.as_bytes()),
                source: dims.as_ref()[d],
                destination: theirs.as_ref()[d],
            });
        }
        let padded = &self.tensor;
        dst.for_each_indexed_mut(|i, v| *v = padded[DimsOf::<L>::from_fn(|k| i.as_ref()[k])]);
        Ok(())
    }
}
