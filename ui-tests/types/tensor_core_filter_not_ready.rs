// Rule: Tensor Cores want a filter's output channels K padded to a multiple of 8 (and filters in
// KRSC, C a multiple of 8). A static filter shape that breaks a rule has no `TensorCoreShape`.
use typed_layout::{tensor_core::TensorCoreShape, FilterDims, Krsc};

fn main() {
    let shape = TensorCoreShape::<half::f16, Krsc, FilterDims<12, 32, 3, 3>>::SHAPE;
    println!("{:?}", shape.dims());
}
