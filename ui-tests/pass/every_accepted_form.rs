// Rule: every form the grammar accepts declares a layout usable wherever a named one is:
// plain permutations, vectorized C (4-D and 5-D), partially packed formats, user families of
// ranks 3 to 8 in a stated logical order, with doc comments, attributes and any visibility.
use typed_layout::{
    layout, DataType, DynLayout, Family, ImageDims, Layout, Nchw, Ncdhw, Shape, StaticShape, Tensor, TensorDesc,
};

layout! {
    /// Channels first, then the batch.
    pub struct Cnhw = "CNHW";
    /// The same family, stated.
    pub(crate) struct Hwnc: typed_layout::Image = "HWNC";
    /// int8x4 and int8x32 images.
    struct Nc4hw4 = "NC/4HW4";
    #[allow(dead_code)]
    struct Nc32hw32 = "NC/32HW32";
    /// Volumes in groups of 32 channels.
    pub struct Nc32dhw32 = "NC/32DHW32";
    /// Batch-major column-major matrices, and another order.
    pub struct Mbn = "MBN";
    /// NHWC with padded images and rows; NCHW with only N packed.
    pub struct NhwcRows = "NHWC, WC-packed";
    pub struct NchwN = "NCHW, N-packed";
    /// A vectorized, partially packed layout.
    pub struct Nc4hw4Rows = "NC/4HW4, HW-packed";

    /// Clips: batches of volumes over time, logical order N, T, C, D, H, W.
    pub family Clip = "NTCDHW";
    pub struct ClipLast: Clip = "NTDHWC";
    pub struct ClipVec: Clip = "NTC/8DHW8";
    /// Families of every rank from 3 to 8.
    pub family R3 = "XYZ";
    pub struct R3Rev: R3 = "ZYX";
    pub family R7 = "ABCDEFG";
    pub struct R7Rev: R7 = "GFEDCBA";
    pub family R8 = "ABCDEFGH";
    pub struct R8Rows: R8 = "ABCDEFGH, GH-packed";
}

fn same<L: Layout>(spec: &str, letters: &str) {
    let runtime = DynLayout::parse_in(spec, letters).expect("the runtime parser accepts what the macro accepts");
    assert_eq!(DynLayout::of::<L>(), runtime, "{spec}");
}

fn main() -> Result<(), typed_layout::LayoutError> {
    same::<Cnhw>("CNHW", "NCHW");
    same::<Hwnc>("HWNC", "NCHW");
    same::<Nc4hw4>("NC/4HW4", "NCHW");
    same::<Nc32hw32>("NC/32HW32", "NCHW");
    same::<Nc32dhw32>("NC/32DHW32", "NCDHW");
    same::<Mbn>("MBN", "BMN");
    same::<NhwcRows>("NHWC, WC-packed", "NCHW");
    same::<NchwN>("NCHW, N-packed", "NCHW");
    same::<Nc4hw4Rows>("NC/4HW4, HW-packed", "NCHW");
    same::<ClipLast>("NTDHWC", "NTCDHW");
    same::<ClipVec>("NTC/8DHW8", "NTCDHW");
    same::<R3Rev>("ZYX", "XYZ");
    same::<R7Rev>("GFEDCBA", "ABCDEFG");
    same::<R8Rows>("ABCDEFGH, GH-packed", "ABCDEFGH");
    assert_eq!(<Clip as Family>::LETTERS, "NTCDHW");

    // Conversions, host tensors, static shapes and descriptors take declared layouts.
    let x = Tensor::<i32, Nchw>::from_fn([2, 8, 3, 5], |[n, c, h, w]| (1000 * n + 100 * c + 10 * h + w) as i32)?;
    let y: Tensor<i32, Nc4hw4> = x.to_layout()?;
    let z: Tensor<i32, Cnhw> = y.to_layout()?;
    let back: Tensor<i32, Nchw> = z.to_layout()?;
    assert_eq!(back.as_slice(), x.as_slice());
    assert_eq!(z.get([1, 7, 2, 4]), Some(&1724));

    const S: [isize; 4] = StaticShape::<Cnhw, ImageDims<2, 3, 4, 5>>::STRIDES;
    assert_eq!(S, [20, 40, 5, 1]);
    let d = TensorDesc::from_shape(DataType::Float, &Shape::<Hwnc>::new([2, 3, 4, 5])?)?;
    assert!(d.fully_packed("HWNC")?);

    // A padded shape in a partially packed layout, filled by a conversion.
    let rows = Shape::<NhwcRows>::with_strides([2, 8, 3, 5], [3 * 43 + 5, 1, 8 * 5 + 3, 8])?;
    assert!(DynLayout::of::<NhwcRows>().describes(&TensorDesc::new(
        DataType::Int32,
        &[2, 8, 3, 5],
        &rows.strides().map(|s| s as isize),
    )?)?);

    let v = Tensor::<f32, Ncdhw>::from_fn([1, 32, 2, 2, 2], |[_, c, d, h, w]| (c + d + h + w) as f32)?;
    let _: Tensor<f32, Nc32dhw32> = v.to_layout()?;
    let clip = Tensor::<u8, ClipLast>::zeros([1, 2, 3, 4, 5, 6])?;
    let _: Tensor<u8, ClipVec> = Tensor::zeros([1, 2, 8, 1, 1, 1])?;
    assert_eq!(clip.as_slice().len(), 720);
    Ok(())
}
