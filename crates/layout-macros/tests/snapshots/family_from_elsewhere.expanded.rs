// The expansion of
//
// layout! {
//     pub struct ClipLast: clips::Clip = "NTDHWC";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

///
///Layout `NTDHWC`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClipLast;
impl ::typed_layout::Layout for ClipLast {
    type Family = clips::Clip;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NTDHWC",
        <clips::Clip as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for ClipLast {}
const _: ::typed_layout::Format = <ClipLast as ::typed_layout::Layout>::FORMAT;
