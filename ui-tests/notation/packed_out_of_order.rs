// Rule: The letters of a -packed suffix follow the format's order (NHWC is WC-packed, not CW-packed).
typed_layout::layout! {
    pub struct Rows = "NHWC, CW-packed";
}

fn main() {}
