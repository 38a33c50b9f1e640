//! DLPack (feature `dlpack`): every named layout and data type exported without a copy and read
//! back (as the layout, as strides, as a copy whose layout the strides show); our export read by
//! another consumer (dlpark's ndarray adapter) and a foreign producer's tensors (ndarray through
//! dlpark, transposed and sliced) read by us; the size-1 rule; each refusal naming the rule.

mod support;
use support::samples::{every_named_layout_and_type, logical, Sample};

use dlpark::allocation::dynamic;
use dlpark::ffi::DLManagedTensorVersioned;
use dlpark::TryFromDlpack;
use ndarray::{Array4, ArrayD, ArrayViewD, Axis, Dimension, IxDyn, Slice};
use typed_layout::interop::dlpack::{self, Dlpack, DlpackError, DlpackRef};
use typed_layout::{
    Bmn, Chwn, ColMajor, DataType, DimArray, DimsOf, DynLayout, Image, Krsc, Layout, LayoutError, Ncdhw,
    Nchw, NcxHwx, Ndhwc, Nhwc, Tensor,
};

/// Reads a tensor we exported through dlpark's ndarray consumer: another library's reading
/// of the same DLPack fields.
fn through_dlpark<T: Sample + dlpark::DlpackElement>(exported: &Dlpack) -> ArrayD<T> {
    // SAFETY: the tensor is ours, alive for the view, and nothing writes it.
    let view = unsafe { ArrayViewD::<T>::try_from_dlpack(exported, ()) }.unwrap();
    view.to_owned()
}

fn round_trip<T: Sample + dlpark::DlpackElement, L: Layout>(dims: &[usize]) {
    let t = logical::<T, L>(dims);
    let what = format!("{} {}", L::NOTATION, T::DATA_TYPE);
    let storage = t.as_slice().as_ptr();
    let expected = t.clone();
    let exported = dlpack::export(t).unwrap();
    // SAFETY: the tensor is ours, alive while `r` borrows it, and nothing writes it.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    assert_eq!(r.data_type(), T::DATA_TYPE, "{what}");
    let view = dlpack::tensor_view::<T, L>(&r).unwrap();
    assert_eq!(view.as_slice().as_ptr(), storage, "{what}: a copy");
    assert_eq!(view.to_layout::<L>().unwrap(), expected, "{what}");
    // Another consumer reads the logical array the strides describe (vectorized layouts: their
    // physical array, the element of each lane where the layout stores it).
    let array = through_dlpark::<T>(&exported);
    if L::FORMAT.vector().is_none() {
        assert_eq!(array.shape(), dims, "{what}");
        for (i, v) in array.indexed_iter() {
            assert_eq!(*v, expected[DimsOf::<L>::from_fn(|k| i[k])], "{what} at {:?}", i.slice());
        }
    } else {
        let physical: Vec<usize> = expected.shape().placement().axes().iter().map(|a| a.extent).collect();
        assert_eq!(array.shape(), &physical[..], "{what}");
        assert_eq!(array.as_slice().unwrap(), expected.as_slice(), "{what}");
    }
    // As strides, for a layout that has one per dimension.
    if L::FORMAT.vector().is_none() {
        let strided = dlpack::strided_view::<T, L::Family>(&r).unwrap();
        assert_eq!(strided.to_layout::<L>().unwrap(), expected, "{what}");
    }
}

#[test]
fn every_named_layout_and_type_goes_out_without_a_copy_and_comes_back() {
    every_named_layout_and_type!(round_trip);
}

#[test]
fn a_copy_takes_the_layout_its_strides_show() {
    fn check<L: Layout>(dims: &[usize], shown: &str) {
        let t = logical::<f32, L>(dims);
        let expected = t.clone();
        let exported = dlpack::export(t).unwrap();
        // SAFETY: ours, alive, unwritten.
        let r = unsafe { DlpackRef::new(&exported) }.unwrap();
        let copy = dlpack::dyn_tensor(&r).unwrap();
        assert_eq!(copy.layout(), DynLayout::parse(shown).unwrap(), "{}", L::NOTATION);
        assert_eq!(copy.as_slice::<f32>().unwrap(), expected.as_slice(), "{}", L::NOTATION);
    }
    check::<Nchw>(&[2, 3, 4, 5], "NCHW");
    check::<Nhwc>(&[2, 3, 4, 5], "NHWC");
    check::<Chwn>(&[2, 3, 4, 5], "CHWN");
    check::<Ndhwc>(&[2, 3, 2, 4, 5], "NDHWC");
    check::<Bmn<ColMajor>>(&[2, 3, 7], "BNM");
    // A filter's strides are an image layout's: the exchange carries no family.
    check::<Krsc>(&[4, 3, 3, 5], "NHWC");
}

#[test]
fn size_one_dims_leave_the_layout_to_the_reader() {
    // Two one-pixel images with 3 channels: NCHW and NHWC store them alike (every stride that
    // differs is of an extent-1 dim), so both views read them, and a copy is row-major.
    let t = logical::<u8, Nhwc>(&[2, 3, 1, 1]);
    let exported = dlpack::export(t.clone()).unwrap();
    // SAFETY: ours, alive, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    assert_eq!(dlpack::tensor_view::<u8, Nhwc>(&r).unwrap().as_slice(), t.as_slice());
    let nchw = dlpack::tensor_view::<u8, Nchw>(&r).unwrap();
    assert_eq!(nchw.to_layout::<Nhwc>().unwrap(), t);
    assert_eq!(dlpack::dyn_tensor(&r).unwrap().layout(), DynLayout::parse("NCHW").unwrap());
}

/// A foreign producer's tensor: an ndarray array handed out through dlpark.
fn foreign<T: dlpark::DlpackElement + Send + Clone>(array: ArrayD<T>) -> Dlpack {
    let initialized: dynamic::Initialized<DLManagedTensorVersioned> = Box::new(array).try_into().unwrap();
    // SAFETY: dlpark's ndarray producer set the array's own pointer, shape and strides.
    unsafe { initialized.finish() }
}

/// A producer's tensor that starts `byte_offset` bytes into its buffer (DLPack's byte offset):
/// the reader starts there, and `DlpackInfo` says so.
#[test]
fn a_byte_offset_moves_the_first_element() {
    let buffer: Vec<f32> = (0..40).map(|i| i as f32).collect();
    let base = buffer.as_ptr();
    let mut t = dlpark::metadata::Dynamic::new(vec![1i64, 2, 3, 4], vec![24i64, 12, 4, 1])
        .initialize(Box::new(buffer))
        .unwrap();
    t.set_data(base as *mut core::ffi::c_void)
        .set_byte_offset(4 * 16)
        .set_device(dlpark::ffi::DLDevice::CPU)
        .set_dtype(dlpack::dl_data_type(DataType::Float));
    // SAFETY: the data pointer is the boxed Vec's (which the tensor owns), and 16 + 24 elements
    // are inside its 40.
    let exported: Dlpack = unsafe { t.finish() };
    let info = typed_layout::interop::dlpack::DlpackInfo::read(&exported).unwrap();
    assert_eq!(info.address(), base as usize + 64);
    assert_eq!(info.byte_len(), 24 * 4);
    // SAFETY: ours, alive and unwritten while `r` borrows it.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let view = dlpack::tensor_view::<f32, Nchw>(&r).unwrap();
    assert_eq!(view.as_slice(), &(16..40).map(|i| i as f32).collect::<Vec<_>>()[..]);
}

#[test]
fn foreign_tensors_are_read_as_their_strides_say() {
    // An image stored pixel after pixel (N, H, W, C), seen in logical axis order: NHWC strides.
    let nhwc = Array4::from_shape_fn((2, 4, 5, 3), |(n, h, w, c)| (((n * 3 + c) * 4 + h) * 5 + w) as f32);
    let logical_order = nhwc.permuted_axes([0, 3, 1, 2]).into_dyn();
    assert!(!logical_order.is_standard_layout());
    let exported = foreign(logical_order.clone());
    // SAFETY: the array is owned by the managed tensor, alive while `r` borrows it, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let view = dlpack::tensor_view::<f32, Nhwc>(&r).unwrap();
    let expected =
        Tensor::<f32, Nchw>::from_fn([2, 3, 4, 5], |[n, c, h, w]| (((n * 3 + c) * 4 + h) * 5 + w) as f32)
            .unwrap();
    assert_eq!(view.to_layout::<Nchw>().unwrap(), expected);
    let e = dlpack::tensor_view::<f32, Nchw>(&r).unwrap_err();
    assert!(
        matches!(e, DlpackError::Layout(LayoutError::StrideMismatch { expected: 20, found: 1, .. })),
        "{e}"
    );
    // A slice with gaps: only strides describe it.
    let big = Array4::from_shape_fn((2, 6, 4, 10), |(n, c, h, w)| (n * 1000 + c * 100 + h * 10 + w) as i32);
    let gaps = {
        let mut a = big.into_dyn();
        a.slice_axis_inplace(Axis(3), Slice::new(0, None, 2));
        a
    };
    assert!(!gaps.is_standard_layout());
    let exported = foreign(gaps);
    // SAFETY: as above.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let strided = dlpack::strided_view::<i32, Image>(&r).unwrap();
    let every_other = Tensor::<i32, Nchw>::from_fn([2, 6, 4, 5], |[n, c, h, w]| {
        (n * 1000 + c * 100 + h * 10 + 2 * w) as i32
    })
    .unwrap();
    assert_eq!(strided.to_layout::<Nchw>().unwrap(), every_other);
    assert!(matches!(
        dlpack::tensor_view::<i32, Nchw>(&r).unwrap_err(),
        DlpackError::Layout(LayoutError::StrideMismatch { .. })
    ));
    // A copy reads it element by element into the row-major layout.
    let copy = dlpack::dyn_tensor(&r).unwrap();
    assert_eq!(copy.layout(), DynLayout::parse("NCHW").unwrap());
    assert_eq!(copy.as_slice::<i32>().unwrap(), every_other.as_slice());
    // A rank no family of the exchange has.
    let exported = foreign(ArrayD::<f32>::zeros(IxDyn(&[2, 3])));
    // SAFETY: as above.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let e = dlpack::dyn_tensor(&r).unwrap_err();
    assert!(e.to_string().starts_with("dyn_tensor reads ranks 3 (BMN), 4 (images) and 5 (volumes)"), "{e}");
}

#[test]
fn refusals_name_the_rule() {
    let t = logical::<f32, Nchw>(&[1, 2, 3, 4]);
    let exported = dlpack::export(t).unwrap();
    // SAFETY: ours, alive, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let e = dlpack::tensor_view::<i32, Nchw>(&r).unwrap_err();
    assert!(
        matches!(
            e,
            DlpackError::Layout(LayoutError::DataTypeMismatch {
                expected: DataType::Int32,
                found: DataType::Float
            })
        ),
        "{e}"
    );
    assert!(matches!(
        dlpack::tensor_view::<f32, Ncdhw>(&r).unwrap_err(),
        DlpackError::Layout(LayoutError::DimCount { .. })
    ));
    assert!(matches!(
        dlpack::tensor_view::<f32, NcxHwx<4>>(&r).unwrap_err(),
        DlpackError::Layout(LayoutError::AxisCount { expected: 5, found: 4 })
    ));
    // A data type with no element here.
    let exported = foreign(ArrayD::<u16>::zeros(IxDyn(&[1, 2, 2, 2])));
    // SAFETY: owned by the managed tensor, alive, unwritten.
    let e = unsafe { DlpackRef::new(&exported) }.unwrap_err();
    assert!(
        e.to_string()
            .starts_with("DLPack data type (code 1, 16 bits, 1 lanes) is not one of cuDNN's data types"),
        "{e}"
    );
    // A mirrored axis.
    let mut mirrored = ArrayD::<f32>::zeros(IxDyn(&[1, 2, 2, 2]));
    mirrored.invert_axis(Axis(3));
    let exported = foreign(mirrored);
    // SAFETY: as above.
    let e = unsafe { DlpackRef::new(&exported) }.unwrap_err();
    assert!(matches!(e, DlpackError::Strides { .. }), "{e}");
    // A negative stride on a dim of extent 1 addresses nothing: accepted.
    let mut one = ArrayD::<f32>::from_shape_fn(IxDyn(&[1, 2, 2, 2]), |i| (i[1] * 4 + i[2] * 2 + i[3]) as f32);
    one.invert_axis(Axis(0));
    let exported = foreign(one);
    // SAFETY: as above.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let values =
        Tensor::<f32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32).unwrap();
    assert_eq!(dlpack::tensor_view::<f32, Nchw>(&r).unwrap().to_layout::<Nchw>().unwrap(), values);
    // A lane axis of another width than the layout's.
    let t = logical::<i8, NcxHwx<32>>(&[1, 32, 2, 2]);
    let exported = dlpack::export(t).unwrap();
    // SAFETY: ours, alive, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    let e = dlpack::tensor_view::<i8, NcxHwx<4>>(&r).unwrap_err();
    assert!(matches!(e, DlpackError::Layout(LayoutError::LaneCount { found: 32, width: 4, .. })), "{e}");
}

/// A padded tensor (a partially packed layout with room between its images) goes out with its
/// padding in the strides: another consumer reads the right elements, a view of the packed
/// layout is refused, and a strided view reads it.
#[test]
fn padded_tensors_keep_their_padding_in_the_strides() {
    typed_layout::layout! {
        /// NHWC images with room between them.
        pub struct NhwcSpaced = "NHWC, HWC-packed";
        /// NC/4HW4 images with room between them.
        pub struct Nc4Spaced = "NC/4HW4, CHW-packed";
    }
    // NHWC, images 20 elements apart (18 of data).
    let shape = typed_layout::Shape::<NhwcSpaced>::with_strides([2, 3, 2, 3], [20, 1, 9, 3]).unwrap();
    let mut t = Tensor::<f32, NhwcSpaced>::filled_in(shape, -1.0).unwrap();
    let values = logical::<f32, Nchw>(&[2, 3, 2, 3]);
    t.copy_from(&values).unwrap();
    let exported = dlpack::export(t).unwrap();
    // SAFETY: ours, alive, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    assert_eq!(r.strides(), &[20, 1, 9, 3]);
    let array = through_dlpark::<f32>(&exported);
    for (i, v) in array.indexed_iter() {
        assert_eq!(*v, values[[i[0], i[1], i[2], i[3]]], "at {:?}", i.slice());
    }
    assert!(dlpack::tensor_view::<f32, Nhwc>(&r).is_err());
    assert_eq!(dlpack::strided_view::<f32, Image>(&r).unwrap().to_layout::<Nchw>().unwrap(), values);
    assert_eq!(dlpack::dyn_tensor(&r).unwrap().as_slice::<f32>().unwrap(), values.as_slice());
    // NC/4HW4, images 40 elements apart (32 of data): the physical axes keep the padding.
    let shape = typed_layout::Shape::<Nc4Spaced>::with_strides([2, 8, 2, 2], [40, 16, 8, 4]).unwrap();
    let mut t = Tensor::<f32, Nc4Spaced>::filled_in(shape, -1.0).unwrap();
    let values = logical::<f32, Nchw>(&[2, 8, 2, 2]);
    t.copy_from(&values).unwrap();
    let exported = dlpack::export(t).unwrap();
    // SAFETY: ours, alive, unwritten.
    let r = unsafe { DlpackRef::new(&exported) }.unwrap();
    assert_eq!((r.shape(), r.strides()), (&[2, 2, 2, 2, 4][..], &[40, 16, 8, 4, 1][..]));
    let array = through_dlpark::<f32>(&exported);
    for (i, v) in array.indexed_iter() {
        let c = i[1] * 4 + i[4];
        assert_eq!(*v, values[[i[0], c, i[2], i[3]]], "at {:?}", i.slice());
    }
}
