// Rule: Dimension letters are uppercase (the guide writes NCHW, never nchw).
typed_layout::layout! {
    pub struct Lower = "NcHW";
}

fn main() {}
