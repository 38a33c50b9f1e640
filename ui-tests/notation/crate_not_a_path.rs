// Rule: the crate of `#![layout(crate = "…")]` is a path in quotes, such as "::layout_types";
// the declarations still exist (naming the crate found in Cargo.toml), so nothing cascades.
layout_macros::layout! {
    #![layout(crate = "layout types")]
    pub struct Nc4hw4 = "NC/4HW4";
}

fn main() {
    let _ = layout_types::Shape::<Nc4hw4>::new([1, 4, 2, 2]);
}
