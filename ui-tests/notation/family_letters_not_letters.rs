// Rule: A family names its dimensions with 3 to 8 distinct uppercase letters, in logical order.
typed_layout::layout! {
    pub family Dashed = "N-CHW";
}

fn main() {}
