// Rule: a shape is a shape *in a layout*. A family (Image) says which letters, not their order.
use typed_layout::{Image, Shape};

fn main() {
    let _ = Shape::<Image>::new([1, 2, 3, 4]);
}
