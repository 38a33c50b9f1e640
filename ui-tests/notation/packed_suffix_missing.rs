// Rule: A packing clause follows the format as `, XY-packed` (NHWC, WC-packed).
typed_layout::layout! {
    pub struct Rows = "NHWC, WC-padded";
}

fn main() {}
