//! The loop plan of packed layouts.

use super::*;
use crate::{Nchw, Nhwc, Shape};

fn geometry<L: Layout<Family = crate::Image>>(dims: [usize; 4]) -> Geometry {
    Geometry::packed(Shape::<L>::new(dims).unwrap().placement())
}

#[test]
fn plan_fuses_nchw_to_nhwc_into_a_2d_transpose() {
    let src = geometry::<Nchw>([1, 64, 5, 4]);
    let dst = geometry::<Nhwc>([1, 64, 5, 4]);
    let plan = LoopNest::new(&src, &dst).unwrap();
    // N is 1 (dropped); H and W fuse into one axis of 20: a 20×64 transpose.
    assert_eq!(plan.n, 2);
    assert_eq!(plan.axes[0], LoopAxis { extent: 20, src: 1, dst: 64 });
    assert_eq!(plan.axes[1], LoopAxis { extent: 64, src: 20, dst: 1 });
}

#[test]
fn identity_is_one_contiguous_run() {
    let src = geometry::<Nchw>([1, 64, 5, 4]);
    let plan = LoopNest::new(&src, &src).unwrap();
    assert_eq!(plan.n, 1);
    assert_eq!(plan.axes[0], LoopAxis { extent: 1280, src: 1, dst: 1 });
}
