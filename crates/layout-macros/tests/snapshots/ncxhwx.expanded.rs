// The expansion of
//
// layout! {
//     /// int8x32 images.
//     #[allow(dead_code)]
//     pub struct Nc32hw32 = "NC/32HW32";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

/// int8x32 images.
#[allow(dead_code)]
///
///Layout `NC/32HW32`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Nc32hw32;
impl ::typed_layout::Layout for Nc32hw32 {
    type Family = ::typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NC/32HW32",
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
