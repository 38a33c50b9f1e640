// Rule: the guide's matmul layouts are packed row-major ([MN, N, 1]) and packed column-major
// ([MN, 1, M]): `Bmn<RowMajor>` and `Bmn<ColMajor>`.
use typed_layout::{Bmn, Nchw, Shape};

fn main() {
    let _ = Shape::<Bmn<Nchw>>::new([2, 3, 4]);
}
