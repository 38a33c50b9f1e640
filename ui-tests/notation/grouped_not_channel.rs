// Rule: Only the channel dimension C is grouped into vectors: "NC/xHWx", "NC/32HW32".
typed_layout::layout! {
    pub struct Rows = "NCH/4W4";
}

fn main() {}
