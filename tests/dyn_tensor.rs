//! The runtime-typed tensor on every named layout and every data type: typed tensors in and out
//! without a copy, typed views, bytes in and out, conversions between runtime layouts equal to
//! the typed conversions (layouts parsed at run time included: NC/xHWx with x from a string, a
//! user family), and each mismatch refused naming what differs, the tensor given back.

use half::{bf16, f16};
use typed_layout::{
    layout, Bmn, Cdhwn, Chwn, ColMajor, DataType, DynLayout, DynTensor, Element, Kcdrs, Kcrs, KcxRsx, Kdrsc,
    Krsc, Layout, LayoutError, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Tensor,
};

mod support;
use support::samples::{every_named_layout_and_type, logical, Sample};

/// A typed tensor of `dims` through a `DynTensor` and back, for one type and layout.
fn round_trip<T: Sample, L: Layout>(dims: &[usize]) {
    let t = logical::<T, L>(dims);
    let ptr = t.as_slice().as_ptr();
    let dynamic = DynTensor::from(t.clone());
    let what = format!("{} {}", L::NOTATION, T::DATA_TYPE);
    assert_eq!(dynamic.data_type(), T::DATA_TYPE, "{what}");
    assert_eq!(dynamic.layout(), DynLayout::of::<L>(), "{what}");
    assert_eq!(dynamic.dims(), dims, "{what}");
    assert_eq!(dynamic.strides(), t.shape().placement().strides(), "{what}");
    assert_eq!(dynamic.as_bytes(), bytes_of(t.as_slice()), "{what}");
    // A typed view reads the same elements; a view of another type or layout is refused.
    assert_eq!(dynamic.view::<T, L>().unwrap().to_layout::<L>().unwrap(), t, "{what}");
    assert_eq!(
        dynamic.view::<T::Other, L>().unwrap_err(),
        LayoutError::DataTypeMismatch { expected: <T::Other as Element>::DATA_TYPE, found: T::DATA_TYPE },
        "{what}"
    );
    // Bytes out and in: the same tensor.
    let copied = DynTensor::from_bytes(T::DATA_TYPE, dynamic.layout(), dims, dynamic.as_bytes()).unwrap();
    assert_eq!(copied.try_into_tensor::<T, L>().unwrap(), t, "{what}");
    // Back to the typed tensor: the same allocation, no copy.
    let moved = DynTensor::from(t);
    assert_eq!(moved.as_bytes().as_ptr(), ptr.cast(), "{what}: a copy");
    let back = moved.try_into_tensor::<T, L>().unwrap();
    assert_eq!(back.as_slice().as_ptr(), ptr, "{what}: a copy");
    // Asked for as another type: refused, named, and given back intact.
    let e = DynTensor::from(back).try_into_tensor::<T::Other, L>().unwrap_err();
    assert_eq!(
        e.error(),
        LayoutError::DataTypeMismatch { expected: <T::Other as Element>::DATA_TYPE, found: T::DATA_TYPE },
        "{what}"
    );
    assert_eq!(e.into_inner().as_bytes().as_ptr(), ptr.cast(), "{what}: not given back");
}

/// The elements' bytes in the machine's order (every element type is plain old data).
fn bytes_of<T: Element>(s: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(s).to_vec()
}

#[test]
fn typed_tensors_round_trip_through_dyn_tensor_on_every_named_layout_and_type() {
    every_named_layout_and_type!(round_trip);
}

/// `DynTensor::to_layout` from `S` into `D`, both named at run time only, against the typed
/// conversion.
fn runtime_conversion<T: Sample, S: Layout, D: Layout>(dims: &[usize])
where
    D::Family: typed_layout::SameFamily<S::Family>,
{
    let t = logical::<T, S>(dims);
    let expected = t.to_layout::<D>().unwrap();
    let source = DynTensor::from_bytes(
        T::DATA_TYPE,
        DynLayout::parse(S::NOTATION).unwrap(),
        dims,
        &bytes_of(t.as_slice()),
    )
    .unwrap();
    let converted = source.to_layout(DynLayout::parse(D::NOTATION).unwrap()).unwrap();
    assert_eq!(converted.try_into_tensor::<T, D>().unwrap(), expected, "{} → {}", S::NOTATION, D::NOTATION);
}

#[test]
fn conversions_between_runtime_layouts_equal_the_typed_ones() {
    macro_rules! pairs {
        ($t:ty; $dims:expr; $($s:ty => $d:ty),*) => {$(
            runtime_conversion::<$t, $s, $d>($dims);
        )*};
    }
    pairs!(f32; &[2, 8, 3, 5]; Nchw => Nhwc, Nhwc => Nchw, Nchw => Chwn, Nchw => NcxHwx<4>, NcxHwx<4> => Nhwc, Chwn => NcxHwx<8>);
    pairs!(u8; &[1, 64, 3, 5]; Nchw => NcxHwx<32>, NcxHwx<32> => Nhwc, Nhwc => NcxHwx<4>);
    pairs!(f16; &[2, 3, 2, 4, 5]; Ncdhw => Ndhwc, Ndhwc => Cdhwn, Cdhwn => Ncdhw);
    pairs!(i64; &[3, 5, 7]; Bmn<RowMajor> => Bmn<ColMajor>, Bmn<ColMajor> => Bmn<RowMajor>);
    pairs!(bf16; &[8, 4, 3, 3]; Kcrs => Krsc, Krsc => KcxRsx<4>, KcxRsx<4> => Kcrs);
    pairs!(i8; &[4, 3, 2, 3, 3]; Kcdrs => Kdrsc, Kdrsc => Kcdrs);
}

layout! {
    /// Clips: volumes over time, in this logical order (a user family).
    pub family Clip = "NTCDHW";
    /// Clips stored channels-last.
    pub struct Ntdhwc: Clip = "NTDHWC";
    /// Clips stored channels-second.
    pub struct Ntcdhw: Clip = "NTCDHW";
}

#[test]
fn a_vector_width_and_a_family_known_only_at_run_time() {
    // x read from a config: NC/8HW8 equals the typed NcxHwx<8>.
    let x = "8";
    let layout = DynLayout::parse(&format!("NC/{x}HW{x}")).unwrap();
    let t = logical::<f32, Nchw>(&[2, 16, 3, 3]);
    let converted = DynTensor::from(t.clone()).to_layout(layout).unwrap();
    assert_eq!(converted.try_into_tensor::<f32, NcxHwx<8>>().unwrap(), t.to_layout::<NcxHwx<8>>().unwrap());
    // A user family parsed at run time: the same bytes as its typed declaration.
    let clip = logical::<i32, Ntcdhw>(&[2, 3, 4, 2, 3, 5]);
    let runtime =
        DynTensor::from(clip.clone()).to_layout(DynLayout::parse_in("NTDHWC", "NTCDHW").unwrap()).unwrap();
    assert_eq!(runtime.layout(), DynLayout::of::<Ntdhwc>());
    assert_eq!(runtime.try_into_tensor::<i32, Ntdhwc>().unwrap(), clip.to_layout::<Ntdhwc>().unwrap());
}

#[test]
fn mismatches_are_refused_naming_what_differs() {
    let nchw = DynLayout::parse("NCHW").unwrap();
    let t = DynTensor::zeros(DataType::Float, nchw, &[1, 3, 4, 4]).unwrap();
    // Another layout of the family, asked for typed.
    let e = t.view::<f32, Nhwc>().unwrap_err();
    assert_eq!(e.to_string(), "the tensor is in layout NCHW but NHWC was asked for: a typed tensor keeps the layout its bytes are in (convert it instead)");
    // Another family.
    let e = t.to_layout(DynLayout::parse("NCDHW").unwrap()).unwrap_err();
    assert!(matches!(e, LayoutError::FamilyMismatch { .. }), "{e}");
    let mut volume =
        DynTensor::zeros(DataType::Float, DynLayout::parse("NCDHW").unwrap(), &[1, 3, 1, 4, 4]).unwrap();
    assert!(matches!(t.convert_into(&mut volume).unwrap_err(), LayoutError::FamilyMismatch { .. }));
    // Another data type.
    let mut halves =
        DynTensor::zeros(DataType::Half, DynLayout::parse("NHWC").unwrap(), &[1, 3, 4, 4]).unwrap();
    assert_eq!(
        t.convert_into(&mut halves).unwrap_err(),
        LayoutError::DataTypeMismatch { expected: DataType::Half, found: DataType::Float }
    );
    // Other dims.
    let mut other =
        DynTensor::zeros(DataType::Float, DynLayout::parse("NHWC").unwrap(), &[1, 3, 4, 5]).unwrap();
    assert!(matches!(t.convert_into(&mut other).unwrap_err(), LayoutError::ShapeMismatch { .. }));
    assert!(other.as_bytes().iter().all(|&b| b == 0), "a refused conversion wrote");
    // Bad dims and bytes.
    assert!(matches!(
        DynTensor::zeros(DataType::Int8, nchw, &[1, 3, 4]).unwrap_err(),
        LayoutError::DimCount { expected: 4, found: 3 }
    ));
    assert!(matches!(
        DynTensor::zeros(DataType::Int8, nchw, &[1, 0, 4, 4]).unwrap_err(),
        LayoutError::ZeroDim { .. }
    ));
    assert_eq!(
        DynTensor::from_bytes(DataType::Int32, nchw, &[1, 1, 2, 2], &[0; 15]).unwrap_err(),
        LayoutError::ByteLength { expected: 16, found: 15 }
    );
    // Typed slices check the type too.
    assert_eq!(t.as_slice::<f32>().unwrap().len(), 48);
    assert!(matches!(t.as_slice::<i32>().unwrap_err(), LayoutError::DataTypeMismatch { .. }));
}

#[test]
fn writes_through_a_mutable_view_land_in_the_tensor() {
    let mut t = DynTensor::zeros(DataType::Int32, DynLayout::parse("NHWC").unwrap(), &[1, 2, 1, 2]).unwrap();
    t.view_mut::<i32, Nhwc>().unwrap()[[0, 1, 0, 1]] = 7;
    // NHWC: offset of (c = 1, w = 1) is w·C + c = 3.
    assert_eq!(t.as_slice::<i32>().unwrap(), &[0, 0, 0, 7]);
    assert_eq!(&t.as_bytes()[12..], &7i32.to_ne_bytes());
}

#[test]
fn the_fused_pass_at_run_time_equals_the_typed_one() {
    use typed_layout::cast::{relayout_cast_pad, ChannelPadded, PerChannel, Scale, Unscaled};
    let x =
        Tensor::<f32, Nchw>::from_fn([2, 3, 4, 5], |[n, c, h, w]| (n + 3 * c + 5 * h + 7 * w) as f32 / 7.0)
            .unwrap();
    let d = DynTensor::from(x.clone());
    // f32 NCHW, C = 3 → f16 NHWC, C padded to 8.
    let typed: ChannelPadded<f16, Nhwc> = relayout_cast_pad(&x, 8, Unscaled).unwrap();
    let runtime =
        d.relayout_cast_pad(DataType::Half, DynLayout::parse("NHWC").unwrap(), 8, Unscaled).unwrap();
    assert_eq!(runtime.try_into_tensor::<f16, Nhwc>().unwrap(), *typed.tensor());
    // → i8 NC/32HW32 with a scale (cuDNN's INT8x32 input).
    let typed: ChannelPadded<i8, NcxHwx<32>> = relayout_cast_pad(&x, 1, Scale(20.0)).unwrap();
    let runtime =
        d.relayout_cast_pad(DataType::Int8, DynLayout::parse("NC/32HW32").unwrap(), 1, Scale(20.0)).unwrap();
    assert_eq!(runtime.dims(), &[2, 32, 4, 5]);
    assert_eq!(runtime.try_into_tensor::<i8, NcxHwx<32>>().unwrap(), *typed.tensor());
    // u8 → f32 with per-channel normalization.
    let rgb = Tensor::<u8, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (60 * c + 2 * h + w) as u8).unwrap();
    let (scale, shift) = ([1.0 / 255.0, 2.0 / 255.0, 4.0 / 255.0], [-0.5, -1.0, 0.0]);
    let per_channel = PerChannel { scale: &scale, shift: &shift };
    let typed: ChannelPadded<f32, Nhwc> = relayout_cast_pad(&rgb, 4, per_channel).unwrap();
    let runtime = DynTensor::from(rgb.clone())
        .relayout_cast_pad(DataType::Float, DynLayout::parse("NHWC").unwrap(), 4, per_channel)
        .unwrap();
    assert_eq!(runtime.try_into_tensor::<f32, Nhwc>().unwrap(), *typed.tensor());
    // Refusals: another family, parameters for another channel count.
    let e = d.relayout_cast_pad(DataType::Half, DynLayout::parse("NDHWC").unwrap(), 8, Unscaled).unwrap_err();
    assert!(matches!(e, LayoutError::FamilyMismatch { .. }), "{e}");
    let two = PerChannel { scale: &scale[..2], shift: &shift[..2] };
    let e = DynTensor::from(rgb)
        .relayout_cast_pad(DataType::Float, DynLayout::parse("NHWC").unwrap(), 4, two)
        .unwrap_err();
    assert!(matches!(e, LayoutError::ChannelParameters { channels: 3, .. }), "{e}");
}

#[test]
fn strided_bytes_compare_and_print_like_typed_tensors() {
    let nchw = DynLayout::parse("NCHW").unwrap();
    // A 2 × 3 × 2 × 2 NHWC array read through its strides into NCHW.
    let typed = logical::<i32, Nhwc>(&[2, 3, 2, 2]);
    let bytes: Vec<u8> = typed.as_slice().iter().flat_map(|v| v.to_ne_bytes()).collect();
    let t =
        DynTensor::from_strided_bytes(DataType::Int32, nchw, &[2, 3, 2, 2], &[12, 1, 6, 3], &bytes).unwrap();
    assert_eq!(t, DynTensor::from(typed.to_layout::<Nchw>().unwrap()));
    assert_ne!(t, DynTensor::from(typed.clone()), "another layout is another tensor");
    // It prints as the typed tensor does, in logical order, whatever the layout.
    assert_eq!(t.to_string(), typed.to_string());
    assert_eq!(DynTensor::from(typed.clone()).to_string(), typed.to_string());
    // Refusals: a stride count other than the rank, bytes that end before the last element.
    let e =
        DynTensor::from_strided_bytes(DataType::Int32, nchw, &[2, 3, 2, 2], &[12, 1, 6], &bytes).unwrap_err();
    assert_eq!(e, LayoutError::StrideCount { dims: 4, strides: 3 });
    let e = DynTensor::from_strided_bytes(DataType::Int32, nchw, &[2, 3, 2, 2], &[12, 1, 6, 3], &bytes[..90])
        .unwrap_err();
    assert_eq!(e, LayoutError::OutOfBounds { lowest: 0, highest: 23, len: 22 });
    // Longer buffers, ragged lengths and misaligned starts are fine: it is a copy.
    let mut shifted = vec![0u8; bytes.len() + 3];
    shifted[1..1 + bytes.len()].copy_from_slice(&bytes);
    let from_shifted =
        DynTensor::from_strided_bytes(DataType::Int32, nchw, &[2, 3, 2, 2], &[12, 1, 6, 3], &shifted[1..])
            .unwrap();
    assert_eq!(from_shifted, t);
    let e = DynTensor::from_strided_bytes(
        DataType::Int32,
        nchw,
        &[2, 3, 2, 2],
        &[usize::MAX / 2, 1, 6, 3],
        &bytes,
    );
    assert!(matches!(e.unwrap_err(), LayoutError::SizeOverflow { .. }));
    // A physical shape whose groups overflow is refused, not wrapped.
    let e = DynLayout::parse("NC/32HW32").unwrap().from_physical(&[1, usize::MAX, 1, 1, 32]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { .. }), "{e}");
    // A wide vector is read back (the axes' structure is learned from one vector, not x^rank).
    let wide = DynLayout::parse("NC/65536HW65536").unwrap();
    assert_eq!(wide.from_physical(&[1, 1, 1, 1, 65536]).unwrap().dims(), &[1, 65536, 1, 1]);
}

#[test]
fn errors_and_layouts_debug_print_as_text() {
    let nhwc = DynLayout::parse("NHWC").unwrap();
    assert_eq!(format!("{nhwc:?}"), r#"DynLayout { notation: "NHWC", letters: "NCHW" }"#);
    let t = DynTensor::zeros(DataType::Float, nhwc, &[1, 2, 2, 2]).unwrap();
    // Another layout of the family: convert it; another family: no conversion reaches it.
    let e = t.clone().try_into_tensor::<f32, Nchw>().unwrap_err();
    assert_eq!(format!("{:?}", e.error()), r#"LayoutMismatch { expected: "NCHW", found: "NHWC" }"#);
    let e = t.try_into_tensor::<f32, Ncdhw>().unwrap_err();
    assert_eq!(format!("{:?}", e.error()), r#"FamilyMismatch { source: "NCHW", destination: "NCDHW" }"#);
    assert!(e.to_string().starts_with("cannot convert a tensor of the family NCHW into one of NCDHW"), "{e}");
}

#[test]
fn to_tensor_converts_into_the_layout_asked_for() {
    let t = logical::<f16, NcxHwx<8>>(&[2, 16, 3, 3]);
    let d = DynTensor::from(t.clone());
    assert_eq!(d.to_tensor::<f16, Nhwc>().unwrap(), t.to_layout::<Nhwc>().unwrap());
    assert_eq!(d.to_tensor::<f16, NcxHwx<8>>().unwrap(), t);
    assert!(matches!(d.to_tensor::<f32, Nhwc>().unwrap_err(), LayoutError::DataTypeMismatch { .. }));
    assert!(matches!(d.to_tensor::<f16, Ncdhw>().unwrap_err(), LayoutError::FamilyMismatch { .. }));
}

#[test]
fn strided_bytes_ignore_the_stride_of_a_dim_of_one() {
    // A dim of extent 1 with a stride past isize::MAX (producers give such dims any stride).
    let bytes = [1u8, 2, 3, 4];
    let nchw = DynLayout::parse("NCHW").unwrap();
    let t =
        DynTensor::from_strided_bytes(DataType::Uint8, nchw, &[1, 1, 2, 2], &[usize::MAX, 7, 2, 1], &bytes)
            .unwrap();
    assert_eq!(t.as_bytes(), &bytes);
    // Zero dims are refused before any stride arithmetic.
    let e = DynTensor::from_strided_bytes(DataType::Uint8, nchw, &[1, 0, 2, 2], &[4, 4, 2, 1], &bytes)
        .unwrap_err();
    assert!(matches!(e, LayoutError::ZeroDim { .. }), "{e}");
}
