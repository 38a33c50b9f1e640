//! Conversion paths the integration tests cannot single out.

use super::*;
use crate::{Chwn, Image, Nchw, NcxHwx, Nhwc, StridedView, Tensor};

#[test]
fn widths_that_do_not_nest_take_the_per_element_path() {
    let a = Tensor::<i32, NcxHwx<3>>::from_fn([2, 12, 3, 2], |[n, c, h, w]| {
        (n * 1000 + c * 100 + h * 10 + w) as i32
    })
    .unwrap();
    let b: Tensor<i32, NcxHwx<4>> = a.to_layout().unwrap();
    let c: Tensor<i32, Chwn> = b.to_layout().unwrap();
    for n in 0..2 {
        for ch in 0..12 {
            for h in 0..3 {
                for w in 0..2 {
                    let v = (n * 1000 + ch * 100 + h * 10 + w) as i32;
                    assert_eq!(b.get([n, ch, h, w]), Some(&v));
                    assert_eq!(c.get([n, ch, h, w]), Some(&v));
                }
            }
        }
    }
}

#[test]
fn mismatched_dims_are_an_error_and_leave_the_output_alone() {
    let a = Tensor::<u8, Nchw>::filled([1, 2, 3, 4], 7).unwrap();
    let mut b = Tensor::<u8, Nhwc>::filled([1, 2, 4, 3], 9).unwrap();
    assert!(matches!(convert(&a, &mut b), Err(LayoutError::ShapeMismatch { .. })));
    assert!(b.as_slice().iter().all(|&v| v == 9));
}

#[test]
fn negative_strides_mirror() {
    let data: Vec<i8> = (0..6).collect();
    // W mirrored: read each row backwards.
    let v = StridedView::<i8, Image>::new([1, 1, 2, 3], [6, 6, 3, -1], 2, &data).unwrap();
    let t: Tensor<i8, Nchw> = v.to_layout().unwrap();
    assert_eq!(t.as_slice(), &[2, 1, 0, 5, 4, 3]);
}
