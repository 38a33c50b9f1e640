// Rule: `crate` is the one key of `#![layout(…)]`; any other is an error that names it.
layout_macros::layout! {
    #![layout(krate = "::layout_types")]
    pub struct Nc4hw4 = "NC/4HW4";
}

fn main() {
    let _ = layout_types::Shape::<Nc4hw4>::new([1, 4, 2, 2]);
}
