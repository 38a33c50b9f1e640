// Rule: "The partially XYZ-packed terminology only applies in the context of a tensor format described with a superset of the letters used to define a partially-packed tensor."
typed_layout::layout! {
    pub struct Rows = "NHWC, DC-packed";
}

fn main() {}
