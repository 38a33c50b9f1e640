//! Filters and quantized tensors (issue 22's CPU side): cuDNN's INT8x32 filter and bias reorder
//! against the permutation written out by hand, and its refusals.

mod support;

use support::mix;
use typed_layout::conv::reorder::{reorder_bias_int8x32, reorder_int8x32};
use typed_layout::conv::ConvError;
use typed_layout::{Kcrs, KcxRsx, LayoutError, Tensor, TensorView};

/// Where cuDNN's INT8x32 reorder puts filter element (k, c, r, s), written from the split
/// `k = 8·k₈ + 2·a + b`, `c = 32·c₃₂ + 4·y + z`, order `c₃₂ r s k₈ b y a z`.
fn by_hand([kk, _cc, rr, ss]: [usize; 4], [k, c, r, s]: [usize; 4]) -> usize {
    let (k8, a, b) = (k / 8, (k / 2) % 4, k % 2);
    let (c32, y, z) = (c / 32, (c / 4) % 8, c % 4);
    ((((((c32 * rr + r) * ss + s) * (kk / 8) + k8) * 2 + b) * 8 + y) * 4 + a) * 4 + z
}

#[test]
fn the_reorder_is_the_permutation_by_hand() {
    for dims in [[32, 32, 1, 1], [64, 32, 3, 3], [32, 96, 2, 5], [96, 64, 1, 3]] {
        let value = |[k, c, r, s]: [usize; 4]| mix(5, ((k * 97 + c) * 11 + r) * 13 + s) as i8;
        let filter = Tensor::<i8, Kcrs>::from_fn(dims, value).unwrap();
        let vectorized: Tensor<i8, KcxRsx<32>> = filter.to_layout().unwrap();
        let reordered = reorder_int8x32(&vectorized).unwrap();
        assert_eq!(reordered.dims(), dims);
        let mut seen = vec![false; reordered.as_slice().len()];
        let [kk, cc, rr, ss] = dims;
        for (k, c, r, s) in (0..kk).flat_map(|k| {
            (0..cc).flat_map(move |c| (0..rr).flat_map(move |r| (0..ss).map(move |s| (k, c, r, s))))
        }) {
            let at = by_hand(dims, [k, c, r, s]);
            assert_eq!(reordered.offset([k, c, r, s]), Some(at), "{dims:?} [{k}, {c}, {r}, {s}]");
            assert_eq!(reordered.as_slice()[at], value([k, c, r, s]), "{dims:?} [{k}, {c}, {r}, {s}]");
            assert!(!seen[at]);
            seen[at] = true;
        }
        assert!(seen.iter().all(|&s| s));
        // A view of the same filter reorders the same; the descriptor is the INT8x32 filter's.
        let view = TensorView::<i8, KcxRsx<32>>::new(dims, vectorized.as_slice()).unwrap();
        assert_eq!(reorder_int8x32(&view).unwrap(), reordered);
        assert_eq!(reordered.cudnn_filter().unwrap(), vectorized.cudnn_filter().unwrap());
        assert_eq!(reordered.offset([kk, 0, 0, 0]), None);
    }
}

#[test]
fn the_bias_reorder_is_the_permutation_by_hand() {
    for k in [32usize, 64, 160] {
        let bias: Vec<i32> = (0..k as i32).map(|v| v * 3 - 7).collect();
        let r = reorder_bias_int8x32(&bias).unwrap();
        for (i, &v) in bias.iter().enumerate() {
            let (k32, p, q, t) = (i / 32, (i / 8) % 4, (i / 4) % 2, i % 4);
            assert_eq!(r[((k32 * 2 + q) * 4 + p) * 4 + t], v, "bias {i} of {k}");
        }
    }
}

#[test]
fn the_reorder_refuses_counts_that_are_not_multiples_of_32() {
    let w = Tensor::<i8, KcxRsx<32>>::zeros([16, 32, 3, 3]).unwrap();
    assert_eq!(
        reorder_int8x32(&w).unwrap_err(),
        LayoutError::Conv(ConvError::ReorderChannels { what: "output channels K", count: 16 })
    );
    let e = reorder_bias_int8x32(&[0f32; 40]).unwrap_err();
    assert!(e.to_string().contains("40 bias values"), "{e}");
    assert!(reorder_bias_int8x32::<f32>(&[]).is_err());
}
