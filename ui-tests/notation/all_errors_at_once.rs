// Rule: one compile shows every problem of an invocation, and each rejected declaration still
// declares its type, so code that uses it reports nothing further.
use typed_layout::{layout, Shape, Tensor};

layout! {
    /// Rejected: the suffix does not repeat the width.
    pub struct Int8x32 = "NC/32HW4";
    /// Accepted.
    pub struct Cnhw = "CNHW";
    /// Rejected: D is not a letter of the format.
    pub struct Rows = "NHWC, DC-packed";
}

fn main() {
    // No "cannot find type" or "not a layout" cascades: the placeholders are layouts.
    let _ = Shape::<Int8x32>::new([1, 32, 2, 2]);
    let _ = Tensor::<f32, Rows>::zeros([1, 2, 3, 4]);
    let _ = Shape::<Cnhw>::new([1, 2, 3, 4]);
}
