// The expansion of
//
// layout! {
//     pub struct Nc4hw4 = "NC/4HW4";
// }
//
// for a caller that depends on layout-types as `layout_types`, layout-macros as `layout_macros`.

///
///Layout `NC/4HW4`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Nc4hw4;
impl ::layout_types::Layout for Nc4hw4 {
    type Family = ::layout_types::Image;
    const FORMAT: ::layout_types::Format = ::layout_types::Format::parse_const(
        "NC/4HW4",
        <::layout_types::Image as ::layout_types::Family>::LETTERS,
    );
}
