// Rule: A format lists every dimension of its family, sorted in decreasing order of the strides.
typed_layout::layout! {
    pub struct NoWidth = "NCH";
}

fn main() {}
