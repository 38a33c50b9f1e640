// Rule: "A tensor descriptor ... supports a number of dimensions from 3 to 8": a family has 3 to
// 8 letters.
typed_layout::layout! {
    pub family Pair = "MN";
    pub family Nine = "ABCDEFGHI";
}

fn main() {}
