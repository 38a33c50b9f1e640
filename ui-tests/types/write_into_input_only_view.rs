// Rule: "the dimensions of the output tensors cannot overlap". A StridedView may overlap, so it
// is input-only; outputs are Tensor, TensorViewMut, or a StridedViewMut proven disjoint.
use typed_layout::{convert, Image, Nchw, StridedView, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let src = Tensor::<u8, Nchw>::zeros([1, 1, 2, 2])?;
    let data = [0u8; 4];
    // Strides [0, 0, 0, 1]: every row is the same two bytes.
    let mut overlapping = StridedView::<u8, Image>::new([1, 1, 2, 2], [0, 0, 0, 1], 0, &data)?;
    convert(&src, &mut overlapping)?;
    Ok(())
}
