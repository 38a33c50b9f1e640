// Rule: a view of shared storage is read-only: a sub-tensor taken with `crop` / `narrow` of a
// shared view cannot be written; take it with `crop_mut` / `narrow_mut` of a mutable tensor.
use typed_layout::{Nhwc, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let t = Tensor::<u8, Nhwc>::zeros([1, 3, 4, 4])?;
    let view = t.view();
    view.narrow('H', 0..2)?.fill(1);
    Ok(())
}
