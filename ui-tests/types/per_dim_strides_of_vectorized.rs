// Rule: NC/xHWx's C reaches storage through a group stride and a lane ("C/x … x"), so it has no
// per-dimension stride: `strides()` exists only for `PerDimStrides` arrangements, and generic
// code that takes a dot product with them cannot be handed a vectorized layout.
use typed_layout::{NcxHwx, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let t = Tensor::<f32, NcxHwx<4>>::zeros([1, 8, 2, 2])?;
    let _ = t.strides(); // `group_strides()` is the vectorized layout's own accessor
    Ok(())
}
