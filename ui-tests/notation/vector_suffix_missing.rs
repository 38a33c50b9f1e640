// Rule: A vectorized format ends with its vector width (NC/32HW32).
typed_layout::layout! {
    pub struct NoSuffix = "NC/32HW";
}

fn main() {}
