//! ndarray (feature `ndarray`) on every named layout with one stride per dimension: the
//! zero-copy view in logical axis order addresses the tensor's elements, the view back is the
//! same memory, a view of another layout's strides is refused naming the dimension, and the owned
//! conversions both ways keep every element.

use ndarray::{ArrayD, Dimension, IxDyn};
use typed_layout::interop::ndarray::{
    array_view, array_view_mut, tensor, tensor_view, tensor_view_mut, to_array,
};
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, DimArray, DimsOf, Kcdrs, Kcrs, Kdrsc, Krsc, Layout, LayoutError, Ncdhw, Nchw,
    Ndhwc, Nhwc, PerDimStrides, RowMajor, Tensor,
};

fn value(i: &[usize]) -> i32 {
    i.iter().fold(0, |a, &k| a * 31 + k as i32 + 1)
}

fn check<L: Layout + PerDimStrides>(dims: &[usize]) -> usize {
    let d: DimsOf<L> = DimsOf::<L>::from_fn(|k| dims[k]);
    let t = Tensor::<i32, L>::from_fn(d, |i| value(i.as_ref())).unwrap();
    // Zero copy out: the same memory, logical axes, every element at its index.
    let a = array_view(&t).unwrap();
    assert_eq!(a.shape(), dims, "{}", L::NOTATION);
    assert!(std::ptr::eq(a.as_ptr(), t.as_slice().as_ptr()), "{}: a copy", L::NOTATION);
    for (i, v) in a.indexed_iter() {
        assert_eq!(*v, value(i.slice()), "{} at {:?}", L::NOTATION, i.slice());
    }
    // Zero copy back: the same memory, the same tensor.
    let back = tensor_view::<i32, L>(a.view()).unwrap();
    assert_eq!(back.as_slice().as_ptr(), t.as_slice().as_ptr());
    assert_eq!(back.to_layout::<L>().unwrap(), t);
    // Mutable both ways: writes through the array land in the tensor, and back.
    let mut u = t.clone();
    array_view_mut(&mut u).unwrap().iter_mut().for_each(|v| *v = -*v);
    assert!(u.as_slice().iter().zip(t.as_slice()).all(|(a, b)| *a == -*b), "{}", L::NOTATION);
    let mut typed = tensor_view_mut::<i32, L>(array_view_mut(&mut u).unwrap()).unwrap();
    typed.as_mut_slice()[0] = 12345;
    assert_eq!(u.as_slice()[0], 12345);
    // Owned both ways: a standard-order array, and from it a tensor equal to the first.
    let owned: ArrayD<i32> = to_array(&t).unwrap();
    assert!(owned.is_standard_layout());
    assert_eq!(owned.view(), a);
    assert_eq!(tensor::<i32, L>(owned.view()).unwrap(), t);
    // A standard-order (row-major) array is a view of this layout only if its strides agree.
    let standard = tensor_view::<i32, L>(owned.view());
    let row_major = {
        let mut s = vec![1isize; dims.len()];
        for k in (0..dims.len() - 1).rev() {
            s[k] = s[k + 1] * dims[k + 1] as isize;
        }
        s
    };
    match standard {
        Ok(_) => {
            assert_eq!(t.strides().as_ref(), &row_major[..], "{} accepted row-major strides", L::NOTATION)
        }
        Err(LayoutError::StrideMismatch { dim, expected, found }) => {
            assert_eq!((expected, found), (t.strides().as_ref()[dim.index], row_major[dim.index]));
        }
        Err(e) => panic!("{}: {e}", L::NOTATION),
    }
    a.len()
}

#[test]
fn every_named_layout_round_trips_with_and_without_copies() {
    let mut elements = 0;
    elements += check::<Nchw>(&[2, 3, 4, 5]);
    elements += check::<Nhwc>(&[2, 3, 4, 5]);
    elements += check::<Chwn>(&[2, 3, 4, 5]);
    elements += check::<Ncdhw>(&[2, 3, 2, 4, 5]);
    elements += check::<Ndhwc>(&[2, 3, 2, 4, 5]);
    elements += check::<Cdhwn>(&[2, 3, 2, 4, 5]);
    elements += check::<Bmn<RowMajor>>(&[2, 3, 5]);
    elements += check::<Bmn<ColMajor>>(&[2, 3, 5]);
    elements += check::<Kcrs>(&[4, 3, 3, 2]);
    elements += check::<Krsc>(&[4, 3, 3, 2]);
    elements += check::<Kcdrs>(&[4, 3, 2, 3, 2]);
    elements += check::<Kdrsc>(&[4, 3, 2, 3, 2]);
    assert_eq!(elements, 3 * 120 + 2 * 72 + 3 * 240 + 2 * 144 + 2 * 30);
}

#[test]
fn mismatched_arrays_are_errors_naming_the_rule() {
    // An NCHW-strided array as an NHWC view: C's stride differs first.
    let t = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32).unwrap();
    let a = array_view(&t).unwrap();
    let err = tensor_view::<f32, Nhwc>(a.view()).unwrap_err();
    assert!(matches!(err, LayoutError::StrideMismatch { expected: 1, found: 4, .. }), "{err}");
    assert!(err.to_string().contains("C (logical index 1) has stride 4 in the array but 1"), "{err}");
    // Wrong rank, and a layout's rule (NC/32HW32 needs whole vectors): errors, not panics.
    let three = ArrayD::<f32>::zeros(IxDyn(&[2, 3, 4]));
    let err = tensor_view::<f32, Nchw>(three.view()).unwrap_err();
    assert_eq!(err, LayoutError::DimCount { expected: 4, found: 3 });
    assert!(
        tensor::<f32, typed_layout::NcxHwx<32>>(ArrayD::<f32>::zeros(IxDyn(&[1, 48, 2, 2])).view()).is_err()
    );
    // A strided (non-contiguous) array cannot be viewed; it can be copied.
    let big = ArrayD::<f32>::from_shape_fn(IxDyn(&[1, 2, 2, 8]), |i| i[3] as f32);
    let every_other = big.slice_each_axis(|ax| match ax.axis.index() {
        3 => ndarray::Slice::new(0, None, 2),
        _ => ndarray::Slice::from(..),
    });
    assert!(tensor_view::<f32, Nchw>(every_other.view()).is_err());
    let copied = tensor::<f32, Nchw>(every_other.view()).unwrap();
    assert_eq!(copied.get([0, 1, 1, 3]), Some(&6.0));
}
