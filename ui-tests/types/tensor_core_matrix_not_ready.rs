// Rule: Tensor Cores want a matrix operand's rows M and columns N padded to multiples of 8 (its
// batch B is not tiled: B = 1 is fine). A static operand that breaks it has no `TensorCoreShape`.
use typed_layout::{tensor_core::TensorCoreShape, Bmn, MatmulDims, RowMajor};

fn main() {
    let shape = TensorCoreShape::<half::f16, Bmn<RowMajor>, MatmulDims<1, 64, 100>>::SHAPE;
    println!("{:?}", shape.dims());
}
