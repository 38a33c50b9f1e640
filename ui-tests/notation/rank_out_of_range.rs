// Rule: "A tensor descriptor ... supports a number of dimensions from 3 to 8."
typed_layout::layout! {
    pub family Pair = "MN";
}

fn main() {}
