// The expansion of
//
// layout! {
//     pub struct Nc4hw4 = "NC/4HW4";
// }
//
// for a caller that depends on typed-layout as `tl`, layout-types as `layout_types`.

///
///Layout `NC/4HW4`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Nc4hw4;
impl ::tl::Layout for Nc4hw4 {
    type Family = ::tl::Image;
    const FORMAT: ::tl::Format = ::tl::Format::parse_const(
        "NC/4HW4",
        <::tl::Image as ::tl::Family>::LETTERS,
    );
}
