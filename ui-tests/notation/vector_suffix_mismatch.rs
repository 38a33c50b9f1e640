// Rule: The vector suffix repeats the width after `/`: NC/32HW32, not NC/32HW4.
typed_layout::layout! {
    pub struct Mismatch = "NC/32HW4";
}

fn main() {}
