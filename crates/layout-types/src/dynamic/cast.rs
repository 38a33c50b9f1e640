//! The fused relayout, cast and channel padding of [`cast`](crate::cast), on runtime tensors:
//! the source's and destination's data types and layouts known only at run time.

use super::{Data, DynTensor};
use crate::cast::{padded, CastNest, EveryCast};
use crate::desc::DynLayout;
use crate::dtype::DataType;
use crate::error::LayoutError;

impl DynTensor {
    /// This tensor relaid out into `layout`, cast to `data_type` with `cast` and C padded with
    /// zeros up to a multiple of `multiple` (and of `layout`'s vector width), in one pass: the
    /// runtime form of [`cast::relayout_cast_pad`](crate::cast::relayout_cast_pad), running the
    /// same plan (the source's C is the channels of data; the result's C is padded).
    ///
    /// ```
    /// use typed_layout::cast::Unscaled;
    /// use typed_layout::{DataType, DynLayout, DynTensor, Nchw, Tensor};
    /// let rgb = DynTensor::from(Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, _, w]| (10 * c + w) as f32)?);
    /// let x = rgb.relayout_cast_pad(DataType::Half, DynLayout::parse("NHWC")?, 8, Unscaled)?;
    /// assert_eq!((x.data_type(), x.dims()), (DataType::Half, &[1, 8, 2, 2][..]));
    /// let first: Vec<f32> = x.as_slice::<half::f16>()?[..8].iter().map(|v| v.to_f32()).collect();
    /// assert_eq!(first, [0.0, 10.0, 20.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn relayout_cast_pad<C: EveryCast>(
        &self,
        data_type: DataType,
        layout: DynLayout,
        multiple: usize,
        cast: C,
    ) -> Result<DynTensor, LayoutError> {
        self.same_family(&layout)?;
        let letters = layout.letters();
        let width = layout.format().vector().map_or(1, |v| v.width);
        let dims = padded(self.dims(), letters, width, multiple)?;
        let placement = layout.shape(&dims)?;
        let bytes = placement.bytes(data_type.size(), letters.as_bytes())?;
        let plan = CastNest::between(&self.placement, &placement, letters)?;
        let data: &Data = &self.data;
        let data = data.cast_fresh(&plan, data_type, bytes, cast)?;
        Ok(DynTensor { layout, placement, data })
    }
}
