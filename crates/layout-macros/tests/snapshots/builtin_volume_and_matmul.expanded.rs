// The expansion of
//
// layout! {
//     pub(crate) struct Ndhwc = "NDHWC";
//     struct Mbn = "MBN";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

///
///Layout `NDHWC`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Ndhwc;
impl ::typed_layout::Layout for Ndhwc {
    type Family = ::typed_layout::Volume;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NDHWC",
        <::typed_layout::Volume as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for Ndhwc {}
///
///Layout `MBN`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Mbn;
impl ::typed_layout::Layout for Mbn {
    type Family = ::typed_layout::Matmul;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "MBN",
        <::typed_layout::Matmul as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for Mbn {}
