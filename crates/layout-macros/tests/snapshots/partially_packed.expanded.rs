// The expansion of
//
// layout! {
//     /// NHWC whose images and rows may be padded.
//     pub struct NhwcRows = "NHWC, WC-packed";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

/// NHWC whose images and rows may be padded.
///
///Layout `NHWC, WC-packed`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NhwcRows;
impl ::typed_layout::Layout for NhwcRows {
    type Family = ::typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NHWC, WC-packed",
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for NhwcRows {}
