// The expansion of
//
// layout! {
//     /// Channels first, then the batch.
//     pub struct Cnhw = "CNHW";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

/// Channels first, then the batch.
///
///Layout `CNHW`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Cnhw;
impl ::typed_layout::Layout for Cnhw {
    type Family = ::typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "CNHW",
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for Cnhw {}
