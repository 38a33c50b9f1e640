// The expansion of
//
// layout! {
//     /// Clips: batches of volumes over time.
//     pub family Clip = "NTCDHW";
//     pub struct ClipLast: Clip = "NTDHWC";
// }
//
// for a caller that depends on typed-layout as `typed_layout`.

/// Clips: batches of volumes over time.
///
///Letters, in logical order: `NTCDHW`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Clip;
impl ::typed_layout::Family for Clip {
    const LETTERS: &'static str = "NTCDHW";
    type Dims = [usize; 6usize];
    type Strides = [isize; 6usize];
}
///
///Layout `NTDHWC`, declared with `layout!`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClipLast;
impl ::typed_layout::Layout for ClipLast {
    type Family = Clip;
    const FORMAT: ::typed_layout::Format = ::typed_layout::Format::parse_const(
        "NTDHWC",
        <Clip as ::typed_layout::Family>::LETTERS,
    );
}
impl ::typed_layout::PerDimStrides for ClipLast {}
