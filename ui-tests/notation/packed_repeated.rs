// Rule: Each letter appears once in a -packed suffix.
typed_layout::layout! {
    pub struct Rows = "NHWC, WWC-packed";
}

fn main() {}
