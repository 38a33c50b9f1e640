//! Placements against the guide's strides, vectorized axes, and errors naming the dimension.

use super::*;

fn nchw(spec: &str, dims: [usize; 4]) -> Result<Placement, LayoutError> {
    derive(&Format::parse(spec, "NCHW").unwrap(), &dims, b"NCHW")
}

#[test]
fn guide_strides() {
    let p = nchw("NHWC", [1, 64, 5, 4]).unwrap();
    assert_eq!(p.strides(), &[1280, 1, 256, 64]);
    assert_eq!(nchw("NCHW", [1, 64, 5, 4]).unwrap().strides(), &[1280, 20, 4, 1]);
    // N, H, W, C = 1, 2, 3, 4 in NHWC: C = 1, W = 4, H = 12, N = 24.
    assert_eq!(nchw("NHWC", [1, 4, 2, 3]).unwrap().strides(), &[24, 1, 12, 4]);
}

#[test]
fn vectorized_axes() {
    let p = nchw("NC/32HW32", [1, 64, 5, 4]).unwrap();
    let extents: Vec<usize> = p.axes().iter().map(|a| a.extent).collect();
    let strides: Vec<usize> = p.axes().iter().map(|a| a.stride).collect();
    assert_eq!(extents, [1, 2, 5, 4, 32]);
    assert_eq!(strides, [1280, 640, 128, 32, 1]);
    assert_eq!(p.offset(&[0, 32, 0, 0]), Ok(640));
    assert_eq!(p.offset(&[0, 33, 1, 2]), Ok(640 + 128 + 64 + 1));
}

#[test]
fn errors_name_the_dimension() {
    assert_eq!(
        nchw("NC/32HW32", [1, 48, 5, 4]),
        Err(LayoutError::NotMultipleOfVector { dim: DimName::new(1, b"NCHW"), size: 48, width: 32 })
    );
    assert_eq!(nchw("NCHW", [1, 1, 0, 1]), Err(LayoutError::ZeroDim { dim: DimName::new(2, b"NCHW") }));
    assert!(matches!(
        nchw("NCHW", [usize::MAX / 2, 4, 1, 1]),
        Err(LayoutError::SizeOverflow { dim: DimName { index: 0, .. } })
    ));
}

#[test]
fn offset_rejects_out_of_bounds() {
    let p = nchw("NCHW", [2, 3, 4, 5]).unwrap();
    assert_eq!(p.offset(&[1, 2, 3, 4]), Ok(119));
    assert_eq!(p.offset(&[0, 3, 0, 0]), Err(1));
}
