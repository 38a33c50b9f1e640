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
        assert_eq!(r.len(), k);
        for (i, &v) in bias.iter().enumerate() {
            let (k32, p, q, t) = (i / 32, (i / 8) % 4, (i / 4) % 2, i % 4);
            assert_eq!(r.as_slice()[((k32 * 2 + q) * 4 + p) * 4 + t], v, "bias {i} of {k}");
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

/// ONNX `QuantizeLinear` with a zero point of 0, written out: x / scale in f32, rounded half to
/// even, saturated to i8.
fn onnx_i8(x: f32, scale: f32) -> i8 {
    let q = (x / scale).round_ties_even();
    if q.is_nan() {
        0
    } else {
        q.clamp(-128.0, 127.0) as i8
    }
}

#[test]
fn quantizing_follows_onnx_quantize_linear() {
    use typed_layout::cast::{quantize, Scales};
    use typed_layout::{Nchw, NcxHwx};
    // ONNX's own example values, scale 2: halves go to even, the ends saturate.
    let x = Tensor::<f32, Nchw>::from_vec(
        [1, 8, 1, 1],
        vec![0.0, 2.0, 3.0, 1000.0, -254.0, -1000.0, 5.0, f32::NAN],
    )
    .unwrap();
    let q = quantize::<_, _, i8, NcxHwx<4>>(&x, 1, Scales::PerTensor(2.0)).unwrap();
    let got: Vec<i8> = (0..8).map(|c| q.tensor()[[0, c, 0, 0]]).collect();
    assert_eq!(got, [0, 1, 2, 127, -127, -128, 2, 0]);
    assert_eq!((q.scales(), q.per_output_channel()), (&[2.0f32][..], false));
}

#[test]
fn per_output_channel_weights_quantize_in_one_pass() {
    use typed_layout::cast::{quantize, Scales};
    use typed_layout::{Krsc, Nchw, NcxHwx};
    for dims in [[4, 40, 3, 3], [2, 32, 1, 1], [3, 64, 1, 2]] {
        let [k, c, r, s] = dims;
        let value = |[k, c, r, s]: [usize; 4]| {
            ((mix(3, ((k * 97 + c) * 11 + r) * 13 + s) % 2001) as f32 - 1000.0) / 64.0
        };
        let w = Tensor::<f32, Kcrs>::from_fn(dims, value).unwrap();
        let scales: Vec<f32> = (0..k).map(|k| 0.0625 * (k + 1) as f32).collect();
        let q = quantize::<_, _, i8, KcxRsx<32>>(&w, 1, Scales::PerOutputChannel(&scales)).unwrap();
        assert_eq!(q.padded().channels(), c);
        let padded = q.padded().padded_channels();
        assert_eq!(padded, c.div_ceil(32) * 32);
        for (kk, cc, rr, ss) in (0..k).flat_map(|a| {
            (0..padded).flat_map(move |b| (0..r).flat_map(move |d| (0..s).map(move |e| (a, b, d, e))))
        }) {
            let want = if cc < c { onnx_i8(value([kk, cc, rr, ss]), scales[kk]) } else { 0 };
            assert_eq!(q.tensor()[[kk, cc, rr, ss]], want, "{dims:?} [{kk}, {cc}, {rr}, {ss}]");
        }
        assert_eq!(q.scale_of(k - 1), Some(scales[k - 1]));
        // From a KRSC source and from a sub-tensor: the same values.
        let krsc: Tensor<f32, Krsc> = w.to_layout().unwrap();
        let again = quantize::<_, _, i8, KcxRsx<32>>(&krsc, 1, Scales::PerOutputChannel(&scales)).unwrap();
        assert_eq!(again, q);
        let first = quantize::<_, _, i8, KcxRsx<32>>(
            &w.narrow('K', 0..1).unwrap(),
            1,
            Scales::PerOutputChannel(&scales[..1]),
        )
        .unwrap();
        assert_eq!(first.tensor().as_slice(), &q.tensor().as_slice()[..first.tensor().as_slice().len()]);
    }
    // Images per tensor into both vector widths.
    let x = Tensor::<f32, Nchw>::from_fn([2, 6, 3, 5], |[n, c, h, w]| {
        (n * 90 + c * 15 + h * 5 + w) as f32 / 8.0 - 20.0
    })
    .unwrap();
    for_vector::<4>(&x);
    for_vector::<32>(&x);
    fn for_vector<const X: usize>(x: &Tensor<f32, Nchw>) {
        let q = quantize::<_, _, i8, NcxHwx<X>>(x, 1, Scales::PerTensor(0.375)).unwrap();
        for (i, &v) in x.indexed_iter() {
            assert_eq!(q.tensor()[i], onnx_i8(v, 0.375), "NC/{X}HW{X} {i:?}");
        }
    }
}

#[test]
fn bad_scales_are_refused_before_anything_is_written() {
    use typed_layout::cast::{quantize, Scales};
    use typed_layout::Nchw;
    let w = Tensor::<f32, Kcrs>::filled([2, 32, 1, 1], 1.0).unwrap();
    let q = |s: Scales<'_>| quantize::<_, _, i8, KcxRsx<32>>(&w, 1, s).map(|_| ());
    assert_eq!(q(Scales::PerTensor(0.0)), Err(LayoutError::Scale { index: 0 }));
    assert_eq!(q(Scales::PerOutputChannel(&[1.0, f32::NAN])), Err(LayoutError::Scale { index: 1 }));
    assert_eq!(q(Scales::PerOutputChannel(&[1.0])), Err(LayoutError::ScaleCount { given: 1, expected: 2 }));
    let x = Tensor::<f32, Nchw>::filled([2, 4, 1, 1], 1.0).unwrap();
    let e = quantize::<_, _, i8, Nchw>(&x, 1, Scales::PerOutputChannel(&[1.0, 1.0])).unwrap_err();
    assert!(matches!(e, LayoutError::NotApplicable { .. }), "{e}");
}

/// `layout!` takes filter notation with the checks images get: a filter family inferred from
/// the letters, vectorized C, and its compile errors (ui-tests/notation/filter_*).
#[test]
fn layout_declares_filter_layouts() {
    use typed_layout::{layout, Filter, Layout, Shape};
    layout! {
        /// Spatial taps outermost, output channels innermost (TensorFlow's HWIO).
        struct Rsck = "RSCK";
        /// Input channels in groups of 4, stated family.
        struct Kc4rs4: Filter = "KC/4RS4";
    }
    assert_eq!((Rsck::LETTERS, Rsck::NOTATION), ("KCRS", "RSCK"));
    assert_eq!(Shape::<Rsck>::new([8, 3, 3, 3]).unwrap().strides(), [1, 8, 72, 24]);
    let w = Tensor::<i8, Kcrs>::from_fn([4, 8, 1, 2], |[k, c, _, s]| (k * 16 + c * 2 + s) as i8).unwrap();
    let v: Tensor<i8, Kc4rs4> = w.to_layout().unwrap();
    let named: Tensor<i8, KcxRsx<4>> = w.to_layout().unwrap();
    assert_eq!(v.as_slice(), named.as_slice());
}

/// Parameters from users never panic and never give a convolution cuDNN would refuse: huge
/// group counts, paddings and dilations, and an output its layout cannot hold.
#[test]
fn convolution_parameters_are_checked_not_trusted() {
    use typed_layout::conv::Conv;
    use typed_layout::{Nchw, NcxHwx, Shape};
    let x = Shape::<Nchw>::new([1, 8, 5, 5]).unwrap();
    let w = Shape::<Kcrs>::new([8, 4, 3, 3]).unwrap();
    let build = |g: usize, p: usize, d: usize| {
        Conv::builder(&x, &w).groups(g).padding(&[p, p]).dilation(&[d, d]).build()
    };
    assert!(matches!(build(usize::MAX / 2 + 2, 0, 1), Err(LayoutError::Conv(ConvError::Limit { .. }))));
    assert!(matches!(build(2, usize::MAX / 2, usize::MAX), Err(LayoutError::Conv(ConvError::Limit { .. }))));
    assert!(build(2, 1000, 1).is_ok()); // padded far past the filter: fine
    assert!(build(2, i32::MAX as usize, 1).is_err()); // an output of 2^64 elements: refused, no panic
    assert!(matches!(build(2, 0, i32::MAX as usize), Err(LayoutError::Conv(ConvError::Window { .. }))));
    let e = build(3, 0, 1).unwrap_err();
    assert_eq!(e, LayoutError::Conv(ConvError::Groups { input: 8, groups: 3, per_group: 4 }));
    // NC/32HW32 with K = 40 output channels: no NC/32HW32 output exists.
    let q = Shape::<NcxHwx<32>>::new([1, 32, 5, 5]).unwrap();
    let k40 = Shape::<KcxRsx<32>>::new([40, 32, 1, 1]).unwrap();
    assert!(matches!(Conv::new(&q, &k40), Err(LayoutError::NotMultipleOfVector { .. })));
}
