// Rule: `layout!` works without the facade: given `#![layout(crate = "::layout_types")]`, its
// expansion names layout-types alone, so a crate that depends on layout-types and layout-macros
// declares layouts and families with them.
use layout_types::{DynLayout, Family, Layout, Nchw, Shape, Tensor};

layout_macros::layout! {
    #![layout(crate = "::layout_types")]
    /// int8x4 images.
    pub struct Nc4hw4 = "NC/4HW4";
    /// NHWC whose images and rows may be padded.
    pub struct NhwcRows = "NHWC, WC-packed";
    /// Clips: batches of volumes over time.
    pub family Clip = "NTCDHW";
    pub struct ClipLast: Clip = "NTDHWC";
}

fn main() -> Result<(), layout_types::LayoutError> {
    assert_eq!(Nc4hw4::NOTATION, "NC/4HW4");
    assert_eq!(DynLayout::of::<NhwcRows>(), DynLayout::parse("NHWC, WC-packed").unwrap());
    assert_eq!(<Clip as Family>::LETTERS, "NTCDHW");
    assert_eq!(Shape::<ClipLast>::new([1, 2, 3, 4, 5, 6])?.strides(), [720, 360, 1, 90, 18, 3]);

    let x = Tensor::<u8, Nchw>::from_fn([1, 8, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as u8)?;
    let y: Tensor<u8, Nc4hw4> = x.to_layout()?;
    assert_eq!(&y.as_slice()[..5], &[0, 4, 8, 12, 1]);
    Ok(())
}
