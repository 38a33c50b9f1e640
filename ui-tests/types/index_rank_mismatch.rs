// Rule: dims and indices are given in the family's logical order, one per letter: a 4-D image
// tensor is indexed by [n, c, h, w].
use typed_layout::{Nhwc, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let t = Tensor::<f32, Nhwc>::zeros([1, 2, 3, 4])?;
    let _ = t.get([0, 1, 2]);
    Ok(())
}
