// Rule: a declaration reads `vis struct Name [: Family] = "notation";`.
typed_layout::layout! {
    pub struct Nhwc4 "NHWC";
}

fn main() {}
