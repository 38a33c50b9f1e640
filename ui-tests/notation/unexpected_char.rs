// Rule: A format is made of dimension letters, and `/x ... x` for a vectorized C.
typed_layout::layout! {
    pub struct Dash = "N-CHW";
}

fn main() {}
