// Rule: `/` is followed by the vector width x (NC/32HW32).
typed_layout::layout! {
    pub struct NoWidth = "NC/HW";
}

fn main() {}
