// Rule: elements are cuDNN's data types (cudnnDataType_t): f32, f64, f16, bf16, i8, u8, i32, i64.
use typed_layout::{Nchw, Tensor};

fn main() {
    let _ = Tensor::<u16, Nchw>::zeros([1, 2, 3, 4]);
}
