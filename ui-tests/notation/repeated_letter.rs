// Rule: Each dimension appears exactly once in a format.
typed_layout::layout! {
    pub struct Twice = "NCHH";
}

fn main() {}
