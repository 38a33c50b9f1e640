// The expansion of
//
// layout! {
//     pub struct Hwnc: typed_layout::Image = "HWNC";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

///
///Layout `HWNC`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Hwnc;
impl ::typed_layout::Layout for Hwnc {
    type Family = typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "HWNC",
        <typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for Hwnc {}
