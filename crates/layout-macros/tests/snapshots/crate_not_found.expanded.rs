// The expansion of
//
// layout! {
//     pub struct Nc4hw4 = "NC/4HW4";
// }
//
// for a caller that depends on none of typed-layout, layout-types.

///
///Layout `NC/4HW4`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Nc4hw4;
impl ::typed_layout::Layout for Nc4hw4 {
    type Family = ::typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NC/4HW4",
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
