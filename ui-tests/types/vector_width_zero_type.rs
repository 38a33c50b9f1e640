// Rule: the vector width x of NC/xHWx is at least 1. `NcxHwx<0>` names no layout; using it fails
// in `const` evaluation (reported by `cargo build`, after monomorphization).
use typed_layout::{NcxHwx, Shape};

fn main() {
    let _ = Shape::<NcxHwx<0>>::new([1, 4, 2, 2]);
}
