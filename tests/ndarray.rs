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

/// An element per logical index, distinct within each test tensor, of each data type.
trait Sample: typed_layout::Element {
    fn at(i: &[usize]) -> Self;
}
macro_rules! sample {
    ($($t:ty => |$p:ident| $e:expr;)*) => {$(
        impl Sample for $t {
            fn at(i: &[usize]) -> Self {
                let $p = i.iter().fold(0usize, |a, &k| a * 31 + k + 1) % 127;
                $e
            }
        }
    )*};
}
sample! {
    f32 => |p| p as f32;
    f64 => |p| p as f64;
    half::f16 => |p| half::f16::from_f32(p as f32);
    half::bf16 => |p| half::bf16::from_f32(p as f32);
    i8 => |p| p as i8;
    u8 => |p| p as u8;
    i32 => |p| p as i32;
    i64 => |p| p as i64;
}

/// Every layout of the test in one element type.
fn every_layout<T: Sample>() -> usize {
    let mut elements = 0;
    elements += check::<T, Nchw>(&[2, 3, 4, 5]);
    elements += check::<T, Nhwc>(&[2, 3, 4, 5]);
    elements += check::<T, Chwn>(&[2, 3, 4, 5]);
    elements += check::<T, Ncdhw>(&[2, 3, 2, 4, 5]);
    elements += check::<T, Ndhwc>(&[2, 3, 2, 4, 5]);
    elements += check::<T, Cdhwn>(&[2, 3, 2, 4, 5]);
    elements += check::<T, Bmn<RowMajor>>(&[2, 3, 5]);
    elements += check::<T, Bmn<ColMajor>>(&[2, 3, 5]);
    elements += check::<T, Kcrs>(&[4, 3, 3, 2]);
    elements += check::<T, Krsc>(&[4, 3, 3, 2]);
    elements += check::<T, Kcdrs>(&[4, 3, 2, 3, 2]);
    elements += check::<T, Kdrsc>(&[4, 3, 2, 3, 2]);
    elements
}

fn check<T: Sample, L: Layout + PerDimStrides>(dims: &[usize]) -> usize {
    let value = T::at;
    let d: DimsOf<L> = DimsOf::<L>::from_fn(|k| dims[k]);
    let t = Tensor::<T, L>::from_fn(d, |i| value(i.as_ref())).unwrap();
    // Zero copy out: the same memory, logical axes, every element at its index.
    let a = array_view(&t).unwrap();
    assert_eq!(a.shape(), dims, "{}", L::NOTATION);
    assert!(std::ptr::eq(a.as_ptr(), t.as_slice().as_ptr()), "{}: a copy", L::NOTATION);
    for (i, v) in a.indexed_iter() {
        assert_eq!(*v, value(i.slice()), "{} at {:?}", L::NOTATION, i.slice());
    }
    // Zero copy back: the same memory, the same tensor.
    let back = tensor_view::<T, L>(a.view()).unwrap();
    assert_eq!(back.as_slice().as_ptr(), t.as_slice().as_ptr());
    assert_eq!(back.to_layout::<L>().unwrap(), t);
    // Mutable both ways: writes through the array land in the tensor, and back.
    let mut u = t.clone();
    let written = T::at(&[5, 5]);
    assert!(t.as_slice().iter().any(|v| *v != written));
    array_view_mut(&mut u).unwrap().iter_mut().for_each(|v| *v = written);
    assert!(u.as_slice().iter().all(|v| *v == written), "{}", L::NOTATION);
    let mut typed = tensor_view_mut::<T, L>(array_view_mut(&mut u).unwrap()).unwrap();
    typed.as_mut_slice()[0] = T::at(&[7, 7]);
    assert_eq!(u.as_slice()[0], T::at(&[7, 7]));
    // Owned both ways: a standard-order array, and from it a tensor equal to the first.
    let owned: ArrayD<T> = to_array(&t).unwrap();
    assert!(owned.is_standard_layout());
    assert_eq!(owned.view(), a);
    assert_eq!(tensor::<T, L>(owned.view()).unwrap(), t);
    // A standard-order (row-major) array is a view of this layout only if its strides agree.
    let standard = tensor_view::<T, L>(owned.view());
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
    // In every data type.
    let per_type = 3 * 120 + 2 * 72 + 3 * 240 + 2 * 144 + 2 * 30;
    assert_eq!(every_layout::<f32>(), per_type);
    assert_eq!(every_layout::<f64>(), per_type);
    assert_eq!(every_layout::<half::f16>(), per_type);
    assert_eq!(every_layout::<half::bf16>(), per_type);
    assert_eq!(every_layout::<i8>(), per_type);
    assert_eq!(every_layout::<u8>(), per_type);
    assert_eq!(every_layout::<i32>(), per_type);
    assert_eq!(every_layout::<i64>(), per_type);
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
