//! The guide's example tensor (N = 1, C = 64, H = 5, W = 4, values 0, 1, 2, … in NCHW order) and
//! its worked strides. Expected sequences are computed from the guide's prose, not by the
//! library.

use typed_layout::{ImageDims, Nchw, NcxHwx, Nhwc, Shape, StaticShape, Tensor};

const C: usize = 64;
const H: usize = 5;
const W: usize = 4;

fn example() -> Tensor<i32, Nchw> {
    Tensor::from_vec([1, C, H, W], (0..(C * H * W) as i32).collect()).unwrap()
}

/// Value of the example tensor at channel c, pixel (h, w): its position in NCHW order.
fn value(c: usize, h: usize, w: usize) -> i32 {
    (c * H * W + h * W + w) as i32
}

#[test]
fn nhwc_memory_order() {
    let nhwc: Tensor<i32, Nhwc> = example().to_layout().unwrap();
    // "the corresponding elements in all the C channels are laid out first", pixels row-major.
    let mut expected = Vec::new();
    for h in 0..H {
        for w in 0..W {
            for c in 0..C {
                expected.push(value(c, h, w));
            }
        }
    }
    assert_eq!(nhwc.as_slice(), expected.as_slice());
    // The guide's own figures: 0, 20, 40, …, 1260, 1, 21, …
    assert_eq!(&nhwc.as_slice()[..3], &[0, 20, 40]);
    assert_eq!(nhwc.as_slice()[63], 1260);
    assert_eq!(&nhwc.as_slice()[64..66], &[1, 21]);
}

#[test]
fn nc32hw32_memory_order() {
    let vect: Tensor<i32, NcxHwx<32>> = example().to_layout().unwrap();
    // Two groups of 32 channels, each laid out as NHWC.
    let mut expected = Vec::new();
    for group in 0..C / 32 {
        for h in 0..H {
            for w in 0..W {
                for lane in 0..32 {
                    expected.push(value(group * 32 + lane, h, w));
                }
            }
        }
    }
    assert_eq!(vect.as_slice(), expected.as_slice());
    // The guide's figures: 0, 20, …, 620 (channels 0–31 of pixel 0), then 1, 21, …, 621, and the
    // second group starts at position 640 with the value 640.
    assert_eq!(&vect.as_slice()[..2], &[0, 20]);
    assert_eq!(vect.as_slice()[31], 620);
    assert_eq!(&vect.as_slice()[32..34], &[1, 21]);
    assert_eq!(vect.as_slice()[63], 621);
    assert_eq!(vect.as_slice()[640], 640);
}

#[test]
fn vectorized_extremes_match_nchw_and_nhwc() {
    // "When x = 1 … the same as the NCHW format"; "When x = C, then NC/xHWx is identical to NHWC".
    let x1: Tensor<i32, NcxHwx<1>> = example().to_layout().unwrap();
    assert_eq!(x1.as_slice(), example().as_slice());
    let xc: Tensor<i32, NcxHwx<64>> = example().to_layout().unwrap();
    let nhwc: Tensor<i32, Nhwc> = example().to_layout().unwrap();
    assert_eq!(xc.as_slice(), nhwc.as_slice());
}

#[test]
fn nhwc_strides_of_the_worked_example() {
    // N, H, W, C = 1, 2, 3, 4: strides C = 1, W = 4, H = 12, N = 24 (given as [n, c, h, w]).
    assert_eq!(Shape::<Nhwc>::new([1, 4, 2, 3]).unwrap().strides(), [24, 1, 12, 4]);
    const S: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 4, 2, 3>>::STRIDES;
    assert_eq!(S, [24, 1, 12, 4]);
    // cuDNN's cudnnGetTensorNdDescriptor for NHWC [1, 64, 5, 4]: [1280, 1, 256, 64].
    const G: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
    assert_eq!(G, [1280, 1, 256, 64]);
}
