// Rule: a conversion keeps the logical dims, so its source and destination are layouts of one
// family: an image (NCHW) cannot become a batch of matrices (BMN).
use typed_layout::{convert, Bmn, Nchw, RowMajor, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let image = Tensor::<f32, Nchw>::zeros([1, 2, 3, 4])?;
    let mut matrices = Tensor::<f32, Bmn<RowMajor>>::zeros([2, 3, 4])?;
    convert(&image, &mut matrices)?;
    let _: Tensor<f32, Bmn<RowMajor>> = image.to_layout()?;
    Ok(())
}
