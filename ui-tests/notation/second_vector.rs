// Rule: Only one dimension, C, is grouped into vectors.
typed_layout::layout! {
    pub struct Twice = "NC/4H/4W4";
}

fn main() {}
