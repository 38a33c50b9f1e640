// Rule: "a number of dimensions from 3 to 8": indexing an axis away leaves one rank less, so a
// rank-3 tensor (a batch of matrices) has no `index_axis`; take a `batch(b)` instead, which keeps
// the axis as 1.
use typed_layout::{Bmn, RowMajor, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let m = Tensor::<f32, Bmn<RowMajor>>::zeros([2, 3, 4])?;
    let _ = m.index_axis::<'B'>(0)?;
    Ok(())
}
