// Rule: a filter (K, C, R, S) is not an image (N, C, H, W): converting one into the other is
// converting between families, and a filter descriptor exists only for filters (an image has a
// tensor descriptor by format instead).
use typed_layout::{Kcrs, Nchw, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let w = Tensor::<f32, Kcrs>::zeros([64, 3, 7, 7])?;
    let _: Tensor<f32, Nchw> = w.to_layout()?;
    let x = Tensor::<f32, Nchw>::zeros([1, 3, 224, 224])?;
    let _ = x.cudnn_filter()?;
    let _ = w.cudnn_format()?;
    Ok(())
}
