// Rule: a runtime tensor is written only through a mutable borrow: a typed mutable view of a
// shared one does not exist.
use typed_layout::{DataType, DynLayout, DynTensor, Nchw};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t = DynTensor::zeros(DataType::Float, DynLayout::parse("NCHW")?, &[1, 2, 3, 4])?;
    let shared = &t;
    shared.view_mut::<f32, Nchw>()?[[0, 0, 0, 0]] = 1.0;
    Ok(())
}
