// The expansion of
//
// layout! {
//     pub struct Int8x32 = "NC/32HW4";
//     pub family Bad = "NCHN";
//     pub struct BadLast: Bad = "NHNC";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

///
///Placeholder for a rejected declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Int8x32;
impl ::typed_layout::Layout for Int8x32 {
    type Family = ::typed_layout::Image;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
        <::typed_layout::Image as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for Int8x32 {}
///
///Placeholder for a rejected declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bad;
impl ::typed_layout::Family for Bad {
    const LETTERS: &'static str = "ABCD";
    type Dims = [usize; 4usize];
    type Strides = [isize; 4usize];
}
///
///Placeholder for a rejected declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BadLast;
impl ::typed_layout::Layout for BadLast {
    type Family = Bad;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        <Bad as ::typed_layout::Family>::LETTERS,
        <Bad as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for BadLast {}
::core::compile_error! {
    "invalid layout \"NC/32HW4\": the vector suffix repeats the width after `/` (NC/32HW32, not NC/32HW4)\n  | NC/32HW4\n  |        ^ here\n  = guide: NC/32HW32 Memory Layout\n  = family `Image` (N, C, H, W in logical order), inferred from the letters; state another with `struct Name: Family = \"…\"`"
}
::core::compile_error! {
    "invalid family letters \"NCHN\": each dimension appears exactly once in a format\n  | NCHN\n  |    ^ here\n  = guide: WXYZ Tensor Descriptor\n  = family `Bad` lists its letters in logical order"
}
