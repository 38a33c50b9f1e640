// Rule: a runtime tensor's elements are read typed only as one of cuDNN's data types (f32, f64,
// half::f16, half::bf16, i8, u8, i32, i64); u16 is none of them.
use typed_layout::{DataType, DynLayout, DynTensor, Nchw};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t = DynTensor::zeros(DataType::Half, DynLayout::parse("NCHW")?, &[1, 2, 3, 4])?;
    let _view = t.view::<u16, Nchw>()?;
    Ok(())
}
