// Rule: A -packed suffix names at least one letter ("an NHWC tensor WC-packed").
typed_layout::layout! {
    pub struct Rows = "NHWC, -packed";
}

fn main() {}
