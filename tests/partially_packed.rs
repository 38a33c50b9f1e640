//! Layouts declared partially packed (`"NHWC, WC-packed"`): padded shapes follow the guide's
//! three rules, conversions fill them without touching the padding, and the shape check agrees
//! with the descriptor predicate on random strides.

use proptest::prelude::*;
use typed_layout::{
    convert, layout, DataType, DimName, DynLayout, LayoutError, Nchw, Nhwc, Shape, Tensor, TensorDesc,
};

layout! {
    /// NHWC whose images and rows may be padded.
    pub struct NhwcRows = "NHWC, WC-packed";
    /// NCHW in which only N is packed.
    pub struct NchwN = "NCHW, N-packed";
    /// int8x4 images whose channel groups may be padded apart.
    pub struct Nc4hw4Planes = "NC/4HW4, HW-packed";
}

const N: DimName = DimName { index: 0, letter: Some('N') };
const C: DimName = DimName { index: 1, letter: Some('C') };
const W: DimName = DimName { index: 3, letter: Some('W') };

#[test]
fn the_three_rules_name_the_letter() {
    let dims = [2, 3, 4, 5];
    // Rule 2: W is packed, so its stride is next_dim * next_stride = C * 1.
    assert_eq!(
        Shape::<NhwcRows>::with_strides(dims, [80, 1, 20, 4]),
        Err(LayoutError::NotPacked { dim: W, stride: 4, required: 3 })
    );
    // Rule 3: C is the last letter and packed, so its stride is 1.
    assert_eq!(
        Shape::<NhwcRows>::with_strides(dims, [80, 2, 20, 6]),
        Err(LayoutError::NotPacked { dim: C, stride: 2, required: 1 })
    );
    // Rule 1: N is not packed, but its stride is still at least H * h_stride.
    assert_eq!(
        Shape::<NhwcRows>::with_strides(dims, [79, 1, 20, 3]),
        Err(LayoutError::StrideTooSmall { dim: N, stride: 79, minimum: 80 })
    );
    assert!(Shape::<NhwcRows>::with_strides(dims, [80, 1, 20, 3]).is_ok());
    // The guide's "NCHW tensor that is only N-packed": N = C * c_stride exactly, C padded.
    assert!(Shape::<NchwN>::with_strides(dims, [3 * 32, 32, 5, 1]).is_ok());
    assert!(matches!(
        Shape::<NchwN>::with_strides(dims, [3 * 32 + 1, 32, 5, 1]),
        Err(LayoutError::NotPacked { dim: N, .. })
    ));
    // A fully packed layout accepts only its own strides.
    assert!(Shape::<Nhwc>::with_strides(dims, [60, 1, 15, 3]).is_ok());
    assert!(matches!(
        Shape::<Nhwc>::with_strides(dims, [61, 1, 15, 3]),
        Err(LayoutError::NotPacked { dim: N, .. })
    ));
    // Overflowing padded strides are an error, not a wrap.
    assert!(matches!(
        Shape::<NhwcRows>::with_strides([2, 3, 4, 5], [usize::MAX / 2, 1, 20, 3]),
        Err(LayoutError::SizeOverflow { dim: N })
    ));
}

#[test]
fn vectorized_groups_may_be_padded_apart() {
    // n, c, h, w = 2, 8, 3, 2: each group of 4 channels holds H·W·4 = 24 elements, padded to 30.
    let s = Shape::<Nc4hw4Planes>::with_strides([2, 8, 3, 2], [70, 30, 8, 4]).unwrap();
    for (n, c, h, w) in (0..2)
        .flat_map(|n| (0..8).flat_map(move |c| (0..3).flat_map(move |h| (0..2).map(move |w| (n, c, h, w)))))
    {
        let hand = n * 70 + (c / 4) * 30 + h * 8 + w * 4 + c % 4;
        assert_eq!(s.offset([n, c, h, w]), Ok(hand));
    }
    assert_eq!(s.len(), 70 + 30 + 2 * 8 + 4 + 3 + 1);
}

#[test]
fn conversions_fill_padded_storage_and_leave_padding_alone() {
    let dims = [3, 5, 4, 7];
    let strides = [4 * 41 + 9, 1, 41, 5]; // rows of W·C = 35 padded to 41, images padded by 9
    let x =
        Tensor::<f32, Nchw>::from_fn(dims, |[n, c, h, w]| (1000 * n + 100 * c + 10 * h + w) as f32).unwrap();
    let shape = Shape::<NhwcRows>::with_strides(dims, strides).unwrap();
    let mut rows = Tensor::<f32, NhwcRows>::filled_in(shape, f32::NAN).unwrap();
    convert(&x, &mut rows).unwrap();
    let mut written = vec![false; rows.as_slice().len()];
    for n in 0..3 {
        for c in 0..5 {
            for h in 0..4 {
                for w in 0..7 {
                    let at = n * strides[0] + c + h * strides[2] + w * strides[3];
                    assert_eq!(rows.as_slice()[at], x.get([n, c, h, w]).copied().unwrap());
                    written[at] = true;
                }
            }
        }
    }
    let mut padding = written.iter().zip(rows.as_slice()).filter(|(w, _)| !**w);
    assert!(padding.clone().count() > 0);
    assert!(padding.all(|(_, v)| v.is_nan()), "padding was written");
    let back: Tensor<f32, Nchw> = rows.to_layout().unwrap();
    assert_eq!(back.as_slice(), x.as_slice());
}

/// Dims, a layout, and strides built inner to outer as the packed stride plus a padding that is
/// zero half of the time (and may be minus one), so both verdicts occur often.
fn arb_case() -> impl Strategy<Value = ([usize; 4], [usize; 4], usize)> {
    let pad = prop_oneof![Just(0isize), -1isize..4];
    (prop::array::uniform4(1usize..5), prop::array::uniform4(pad), 0usize..3).prop_map(
        |(dims, pads, which)| {
            let layout =
                [DynLayout::of::<NhwcRows>(), DynLayout::of::<NchwN>(), DynLayout::of::<Nhwc>()][which];
            let mut strides = [0usize; 4];
            let mut span = 1usize;
            for &d in layout.format().order().iter().rev() {
                strides[d] = (span as isize + pads[d]).max(0) as usize;
                span = strides[d] * dims[d];
            }
            (dims, strides, which)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// A layout's shape check (`Shape::with_strides`) and the descriptor question for the same
    /// layout (`DynLayout::describes` on a `TensorDesc`) agree on every stride set, accepted or
    /// not. Both reach the one implementation of the rules (`placement::derive_strided`); the rules
    /// themselves are checked against a letter-by-letter restatement in `tests/predicates.rs`.
    #[test]
    fn shape_check_agrees_with_the_descriptor_predicate((dims, strides, which) in arb_case()) {
        let (accepted, layout) = match which {
            0 => (Shape::<NhwcRows>::with_strides(dims, strides).is_ok(), DynLayout::of::<NhwcRows>()),
            1 => (Shape::<NchwN>::with_strides(dims, strides).is_ok(), DynLayout::of::<NchwN>()),
            _ => (Shape::<Nhwc>::with_strides(dims, strides).is_ok(), DynLayout::of::<Nhwc>()),
        };
        let signed = strides.map(|s| s as isize);
        let desc = TensorDesc::new(DataType::Float, &dims, &signed).unwrap();
        prop_assert_eq!(accepted, layout.describes(&desc).unwrap(), "{} {:?} {:?}", layout, dims, strides);
    }
}
