// Rule: NC/xHWx groups C into vectors of x channels: x is at least 1.
typed_layout::layout! {
    pub struct Empty = "NC/0HW0";
}

fn main() {}
