// Rule: Tensor Cores want the channel count C padded to a multiple of 8. A static shape that
// breaks a Tensor Core rule has no `TensorCoreShape`.
use typed_layout::{tensor_core::TensorCoreShape, ImageDims, Nhwc};

fn main() {
    let shape = TensorCoreShape::<f32, Nhwc, ImageDims<8, 3, 224, 224>>::SHAPE;
    println!("{:?}", shape.dims());
}
