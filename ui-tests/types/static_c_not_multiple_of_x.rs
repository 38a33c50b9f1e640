// Rule: NC/xHWx groups C into vectors of x channels, so C must be a multiple of x. A static shape
// that breaks it does not compile.
use typed_layout::{ImageDims, NcxHwx, StaticShape};

const STRIDES: [isize; 4] = StaticShape::<NcxHwx<32>, ImageDims<1, 48, 5, 4>>::GROUP_STRIDES;

fn main() {
    println!("{STRIDES:?}");
}
