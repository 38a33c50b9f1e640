// Rule: a layout belongs to one family; static dims of a matmul tensor (B, M, N) do not describe
// an image layout.
use typed_layout::{MatmulDims, Nhwc, StaticShape};

const STRIDES: [isize; 3] = StaticShape::<Nhwc, MatmulDims<2, 3, 4>>::STRIDES;

fn main() {
    println!("{STRIDES:?}");
}
