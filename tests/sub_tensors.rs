//! Sub-tensors against brute force: a random box of a random tensor, on every named layout and
//! on `layout!`-declared layouts of ranks 3 to 8 (vectorized ones included, cut at whole
//! vectors), and on strided views with negative strides. Every accessor of the sub-tensor
//! (dims, indexing, `get`, iteration, `to_layout`, writes through `crop_mut`) is compared with
//! the parent at the shifted index.

mod support;

use proptest::prelude::*;
use support::mix;
use support::model::*;
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, DimArray, Image, Layout, LayoutError, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc,
    RowMajor, StridedView, Tensor,
};

/// A random box inside `dims`; a vectorized dimension cut at whole vectors.
fn box_in(dims: &[usize], vector: Option<typed_layout::Vector>, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut start = vec![0; dims.len()];
    let mut len = dims.to_vec();
    for d in 0..dims.len() {
        let unit = vector.filter(|v| v.dim == d).map_or(1, |v| v.width);
        let units = dims[d] / unit;
        let s = (mix(seed, 100 + d) % units as u64) as usize;
        let n = 1 + (mix(seed, 200 + d) % (units - s) as u64) as usize;
        (start[d], len[d]) = (s * unit, n * unit);
    }
    (start, len)
}

fn check_crop<L: Layout>(seed: u64) {
    let dims = dims_for::<L>(seed);
    let spec = Spec::of::<L>();
    let mut t = Tensor::<i64, L>::from_fn(arr::<L>(&dims), |i| value_of(i.as_ref())).unwrap();
    let (start, len) = box_in(&dims, L::FORMAT.vector(), seed);
    let what = format!("{} {dims:?} box {start:?} + {len:?}", L::NOTATION);
    let shifted = |i: &[usize]| i.iter().zip(&start).map(|(a, b)| a + b).collect::<Vec<_>>();

    let sub = t.crop(arr::<L>(&start), arr::<L>(&len)).unwrap();
    assert_eq!(sub.dims().as_ref(), &len[..], "{what}");
    // Each index of the box: the parent's element there.
    let mut expected = Vec::new();
    for i in indices(&len) {
        let p = shifted(&i);
        assert_eq!(sub[arr::<L>(&i)], value_of(&p), "{what} {i:?}");
        assert_eq!(sub.get(arr::<L>(&i)), Some(&value_of(&p)));
        expected.push((spec.offset(&dims, &p), i, value_of(&p)));
    }
    for d in 0..len.len() {
        let mut i = vec![0; len.len()];
        i[d] = len[d];
        assert_eq!(sub.get(arr::<L>(&i)), None, "{what} past {d}");
    }
    // Iteration in the parent's storage order.
    expected.sort();
    let values: Vec<i64> = expected.iter().map(|e| e.2).collect();
    assert_eq!(sub.iter().copied().collect::<Vec<_>>(), values, "iter {what}");
    let indexed: Vec<(Vec<usize>, i64)> =
        sub.indexed_iter().map(|(i, &v)| (i.as_ref().to_vec(), v)).collect();
    assert_eq!(indexed, expected.iter().map(|e| (e.1.clone(), e.2)).collect::<Vec<_>>(), "indexed {what}");
    // A packed copy, in its own layout and through `map`.
    let packed: Tensor<i64, L> = sub.to_layout().unwrap();
    let again = Tensor::<i64, L>::from_fn(arr::<L>(&len), |i| value_of(&shifted(i.as_ref()))).unwrap();
    assert_eq!(packed, again, "to_layout {what}");
    assert_eq!(sub.map(|&v| v).unwrap(), again, "map {what}");
    // A sub-tensor of the sub-tensor: its first position along every axis.
    let ones = vec![1; len.len()];
    let corner = sub.crop(arr::<L>(&vec![0; len.len()]), arr::<L>(&ones));
    if L::FORMAT.vector().is_none() {
        assert_eq!(corner.unwrap()[arr::<L>(&vec![0; len.len()])], value_of(&start), "{what}");
    }
    // Writes reach the box and nothing else, in the parent's storage order.
    let mut written = Vec::new();
    for v in t.crop_mut(arr::<L>(&start), arr::<L>(&len)).unwrap().iter_mut() {
        written.push(*v);
        *v = -1;
    }
    assert_eq!(written, values, "iter_mut {what}");
    for i in indices(&dims) {
        let inside = i.iter().zip(&start).zip(&len).all(|((&x, &s), &n)| x >= s && x < s + n);
        let want = if inside { -1 } else { value_of(&i) };
        assert_eq!(t[arr::<L>(&i)], want, "crop_mut {what} {i:?}");
    }
}

macro_rules! each_layout {
    ($seed:expr; $($l:ty),*) => {$( check_crop::<$l>($seed); )*};
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn crops_agree_with_their_parent(seed in any::<u64>()) {
        each_layout!(seed; Nchw, Nhwc, Chwn, NcxHwx<4>, NcxHwx<32>, Ncdhw, Ndhwc, Cdhwn, Bmn<RowMajor>,
            Bmn<ColMajor>, Mbn, C4nhw4, Hwnc, NhwcRows, Nc8dhw8, ClipNdhwc, ClipVec4, ClipCFirst,
            GClipReversed, GClipVec8, GsPlain, GsVec2, GsLast);
    }

    /// A crop of a strided view with negative strides: the view's element at the shifted index.
    #[test]
    fn crops_of_strided_views(seed in any::<u64>()) {
        let dims: [usize; 4] = core::array::from_fn(|d| 1 + (mix(seed, d) % 5) as usize);
        let strides = [-(dims[1] as isize * dims[2] as isize * dims[3] as isize), 1, dims[3] as isize * dims[1] as isize, -(dims[1] as isize)];
        let base = (dims[0] - 1) * dims[1] * dims[2] * dims[3] + (dims[3] - 1) * dims[1];
        let data: Vec<i64> = (0..dims.iter().product::<usize>() as i64).collect();
        let v = StridedView::<i64, Image>::new(dims, strides, base, &data).unwrap();
        let (start, len) = box_in(&dims, None, seed);
        let sub = v.crop(arr::<Nchw>(&start), arr::<Nchw>(&len)).unwrap();
        for i in indices(&len) {
            let p: Vec<usize> = i.iter().zip(&start).map(|(a, b)| a + b).collect();
            prop_assert_eq!(sub[arr::<Nchw>(&i)], v[arr::<Nchw>(&p)]);
        }
        prop_assert_eq!(sub.iter().count(), len.iter().product::<usize>());
        prop_assert_eq!(sub.strides(), v.strides());
    }
}

/// Boxes that leave the tensor, cut a vector, or name no axis are errors naming the rule.
#[test]
fn bad_boxes_are_errors() {
    let t = Tensor::<f32, NcxHwx<4>>::zeros([2, 8, 4, 4]).unwrap();
    let e = t.narrow('C', 2..6).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the range 2..6 of dimension C (logical index 1) cuts its vectors of 4: a vectorized dimension narrows only at whole vectors (multiples of x = 4)"
    );
    assert!(matches!(
        t.narrow('H', 3..5),
        Err(LayoutError::RangeOutOfBounds { start: 3, end: 5, size: 4, .. })
    ));
    assert!(matches!(t.narrow('H', 2..2), Err(LayoutError::RangeOutOfBounds { .. })));
    assert!(matches!(t.narrow('X', 0..1), Err(LayoutError::NoSuchLetter { letter: 'X', letters: "NCHW" })));
    assert!(matches!(t.narrow(4, 0..1), Err(LayoutError::NoSuchAxis { index: 4, rank: 4 })));
    assert!(matches!(t.batch(2), Err(LayoutError::RangeOutOfBounds { start: 2, end: 3, size: 2, .. })));
    let m = Tensor::<f32, Bmn<RowMajor>>::zeros([2, 3, 4]).unwrap();
    assert_eq!(m.batch(1).unwrap().dims(), [1, 3, 4]); // B, not the columns N
}

/// The guide's questions on sub-tensors: a batch of NCHW is packed, a crop is not; descriptors
/// carry the parent's strides; the overlap verdict stays disjoint.
#[test]
fn descriptors_of_sub_tensors() {
    let t = Tensor::<f32, Nchw>::zeros([4, 3, 8, 8]).unwrap();
    let b = t.batch(2).unwrap();
    assert!(b.shape().is_packed());
    assert_eq!(b.cudnn().unwrap().strides(), &[192, 64, 8, 1]);
    let c = t.crop([0, 0, 2, 2], [4, 3, 4, 4]).unwrap();
    assert!(!c.shape().is_packed());
    assert_eq!(c.cudnn().unwrap().dims(), &[4, 3, 4, 4]);
    assert_eq!(c.cudnn().unwrap().strides(), &[192, 64, 8, 1]);
    assert!(!c.overlap().may_overlap());
    let v: Tensor<f32, Nhwc> = c.to_layout().unwrap();
    assert_eq!(v.dims(), [4, 3, 4, 4]);
}

/// The fused relayout + cast + pad reads a sub-tensor as it reads its packed copy, writes into a
/// caller's buffer what it allocates itself, and its padding comes off again.
fn check_cast_pad_round_trip<S: Layout<Family = Image>, D: Layout<Family = Image>>(seed: u64) {
    let dims = [
        1 + (mix(seed, 1) % 3) as usize,
        8,
        2 + (mix(seed, 2) % 5) as usize,
        2 + (mix(seed, 3) % 5) as usize,
    ];
    let x = Tensor::<f32, S>::from_fn(dims, |i| value_of(&i) as f32).unwrap();
    let channels = 1 + (mix(seed, 4) % 7) as usize; // 1..=7 of the 8: vectors cut or not
    let (h0, w0) = ((mix(seed, 5) % 2) as usize, (mix(seed, 6) % 2) as usize);
    let start = [0, 0, h0, w0];
    let (width, unit) = (S::FORMAT.vector().map_or(1, |v| v.width), channels);
    let channels = if width > 1 { width.max(unit - unit % width) } else { unit };
    let sub_dims = [dims[0], channels, dims[2] - h0, dims[3] - w0];
    let sub = x.crop(start, sub_dims).unwrap();
    let copy: Tensor<f32, S> = sub.to_layout().unwrap();
    let from_view: typed_layout::cast::ChannelPadded<f32, D> =
        typed_layout::cast::relayout_cast_pad(&sub, 8, typed_layout::cast::Unscaled).unwrap();
    let from_copy: typed_layout::cast::ChannelPadded<f32, D> =
        typed_layout::cast::relayout_cast_pad(&copy, 8, typed_layout::cast::Unscaled).unwrap();
    let what = format!("{} -> {} {dims:?} {sub_dims:?}", S::NOTATION, D::NOTATION);
    assert_eq!(from_view.tensor(), from_copy.tensor(), "{what}");
    assert_eq!(from_view.channels(), from_copy.channels(), "{what}");
    // Into the caller's buffer: the same bytes, and nothing written outside it.
    let padded_dims = from_view.tensor().dims();
    let mut buffer = vec![-1.0f32; from_view.tensor().as_slice().len()];
    let mut dst = typed_layout::TensorViewMut::<f32, D>::new(padded_dims, &mut buffer).unwrap();
    let n = typed_layout::cast::relayout_cast_pad_into(&sub, &mut dst, typed_layout::cast::Unscaled).unwrap();
    assert_eq!(n, channels);
    assert_eq!(&buffer[..], from_view.tensor().as_slice());
    // And back: the data channels, equal to the sub-tensor at every index.
    let mut back = Tensor::<f32, Nchw>::zeros(sub_dims).unwrap();
    from_view.unpad_into(&mut back).unwrap();
    for i in indices(&sub_dims) {
        let p: Vec<usize> = i.iter().zip(&start).map(|(a, b)| a + b).collect();
        assert_eq!(back[arr::<Nchw>(&i)], value_of(&p) as f32, "unpad {i:?}");
    }
    let mut wrong =
        Tensor::<f32, Nchw>::zeros([sub_dims[0], channels + 1, sub_dims[2], sub_dims[3]]).unwrap();
    assert!(matches!(from_view.unpad_into(&mut wrong), Err(LayoutError::ShapeMismatch { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cast_pad_reads_sub_tensors_and_writes_into_buffers(seed in any::<u64>()) {
        check_cast_pad_round_trip::<Nchw, Nhwc>(seed);
        check_cast_pad_round_trip::<Nhwc, NcxHwx<4>>(seed);
        check_cast_pad_round_trip::<Nchw, NcxHwx<32>>(seed);
        check_cast_pad_round_trip::<NcxHwx<4>, Nhwc>(seed);
        check_cast_pad_round_trip::<Chwn, Nchw>(seed);
    }
}

/// Splits against brute force: `split_at_mut` succeeds exactly when every offset of the first
/// part lies below every offset of the second (the model's offsets), and then each part writes
/// its own elements; `axis_chunks_mut` gives each chunk its positions.
fn check_splits<L: Layout>(seed: u64) {
    let dims = dims_for::<L>(seed);
    let spec = Spec::of::<L>();
    let mut t = Tensor::<i64, L>::zeros(arr::<L>(&dims)).unwrap();
    let d = (mix(seed, 7) % dims.len() as u64) as usize;
    let unit = L::FORMAT.vector().filter(|v| v.dim == d).map_or(1, |v| v.width);
    if dims[d] / unit < 2 {
        return;
    }
    let mid = unit * (1 + (mix(seed, 8) % (dims[d] / unit - 1) as u64) as usize);
    let what = format!("{} {dims:?} axis {d} at {mid}", L::NOTATION);
    let (mut below, mut above) = (0, usize::MAX);
    for i in indices(&dims) {
        let o = spec.offset(&dims, &i);
        if i[d] < mid {
            below = below.max(o)
        } else {
            above = above.min(o)
        }
    }
    match t.split_at_mut(d, mid) {
        Ok((mut a, mut b)) => {
            assert!(below < above, "split allowed, but the parts interleave: {what}");
            a.fill(1);
            b.fill(2);
            for i in indices(&dims) {
                assert_eq!(t[arr::<L>(&i)], if i[d] < mid { 1 } else { 2 }, "{what} {i:?}");
            }
            let size = mid;
            for (k, mut chunk) in t.axis_chunks_mut(d, size).unwrap().enumerate() {
                chunk.fill(k as i64);
            }
            for i in indices(&dims) {
                assert_eq!(t[arr::<L>(&i)], (i[d] / size) as i64, "chunks {what} {i:?}");
            }
        }
        Err(LayoutError::SplitInterleaves { .. }) => assert!(below > above, "split refused: {what}"),
        Err(e) => panic!("{what}: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn splits_are_disjoint_exactly_when_storage_allows(seed in any::<u64>()) {
        check_splits::<Nchw>(seed);
        check_splits::<Nhwc>(seed);
        check_splits::<Chwn>(seed);
        check_splits::<NcxHwx<4>>(seed);
        check_splits::<Cdhwn>(seed);
        check_splits::<Bmn<ColMajor>>(seed);
        check_splits::<ClipVec4>(seed);
        check_splits::<GsReversed>(seed);
    }
}

/// Views and their parts cross threads: `Send` and `Sync` as their elements allow.
#[test]
fn tensors_and_parts_are_send_and_sync() {
    fn send_sync<X: Send + Sync>() {}
    send_sync::<Tensor<f32, NcxHwx<4>>>();
    send_sync::<typed_layout::TensorView<'_, f32, Nchw>>();
    send_sync::<typed_layout::SubViewMut<'_, half::f16, Nhwc>>();
    send_sync::<typed_layout::StridedViewMut<'_, u8, Image>>();
    send_sync::<typed_layout::AxisChunksMut<'_, i8, typed_layout::Sub<Ndhwc>>>();
}

/// Reshapes read the same memory in another layout: a batch of NCHW as a row-major matrix per
/// channel; counts that differ and crops that are not one run of memory are refused.
#[test]
fn reshapes_read_the_same_memory() {
    let dims = [3, 4, 5, 6];
    let t = Tensor::<i64, Nchw>::from_fn(dims, |i| value_of(&i)).unwrap();
    for n in 0..dims[0] {
        let image = t.batch(n).unwrap();
        let m = image.reshape::<Bmn<RowMajor>>([1, 4, 30]).unwrap();
        for [c, h, w] in indices(&[4, 5, 6]).map(|i| [i[0], i[1], i[2]]) {
            assert_eq!(m[[0, c, h * 6 + w]], value_of(&[n, c, h, w]));
        }
    }
    assert!(matches!(t.reshape::<Bmn<RowMajor>>([3, 4, 31]), Err(LayoutError::BufferLength { .. })));
    assert!(matches!(
        t.narrow('W', 0..5).unwrap().reshape::<Nchw>([3, 4, 5, 5]),
        Err(LayoutError::NotApplicable { .. })
    ));
    let mut u = t.clone();
    u.reshape_mut::<Nhwc>([1, 360, 1, 1]).unwrap().fill(5);
    assert!(u.iter().all(|&v| v == 5));
}

/// `index_axis` against the parent: every element of the lower-rank view is the parent's at the
/// index with the dropped axis put back.
macro_rules! check_index_axis {
    ($seed:expr; $($l:ty => $($axis:literal),*;)*) => {$($({
        let dims = dims_for::<$l>($seed);
        let t = Tensor::<i64, $l>::from_fn(arr::<$l>(&dims), |i| value_of(i.as_ref())).unwrap();
        let d = <$l as Layout>::LETTERS.find($axis).unwrap();
        let k = (mix($seed, 50) % dims[d] as u64) as usize;
        let view = t.index_axis::<$axis>(k).unwrap();
        let lower: Vec<usize> = dims.iter().enumerate().filter(|&(j, _)| j != d).map(|(_, &n)| n).collect();
        assert_eq!(view.dims().as_ref(), &lower[..]);
        for i in indices(&lower) {
            let mut full = i.clone();
            full.insert(d, k);
            let got = view[DimArray::try_from_slice(&i).unwrap()];
            assert_eq!(got, value_of(&full), "{} axis {} at {k}: {i:?}", <$l as Layout>::NOTATION, $axis);
        }
        assert!(t.index_axis::<$axis>(dims[d]).is_err());
    })*)*};
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn index_axis_drops_one_axis(seed in any::<u64>()) {
        check_index_axis!(seed;
            Nchw => 'N', 'C', 'W';
            Nhwc => 'N', 'H';
            Chwn => 'N', 'C';
            Ndhwc => 'D', 'C';
            ClipNdhwc => 'T', 'N';
            GsReversed => 'S', 'G', 'C';
        );
    }
}

/// `into_reshape` on views: the result outlives the view it came from, writes go to the same
/// memory, and a crop (not packed) is refused.
#[test]
fn views_reshape_into_views_of_the_same_memory() {
    use typed_layout::TensorViewMut;
    let mut data: Vec<i32> = (0..24).collect();
    let matrix = {
        let view = TensorViewMut::<i32, Nchw>::new([1, 2, 3, 4], &mut data).unwrap();
        view.into_reshape::<Bmn<RowMajor>>([2, 3, 4]).unwrap()
    };
    let mut matrix = matrix;
    matrix[[1, 2, 3]] = -1;
    assert_eq!(data[23], -1);
    let t = Tensor::<i32, Nchw>::from_fn([2, 3, 4, 4], |[n, c, h, w]| (n * 48 + c * 16 + h * 4 + w) as i32)
        .unwrap();
    let crop = t.crop([0, 0, 1, 1], [2, 3, 2, 2]).unwrap();
    assert!(matches!(crop.into_reshape::<Bmn<RowMajor>>([2, 3, 4]), Err(LayoutError::NotApplicable { .. })));
    let batch = t.batch(1).unwrap().into_reshape::<Bmn<RowMajor>>([1, 3, 16]).unwrap();
    assert_eq!(batch[[0, 2, 15]], 95);
    assert!(t.view().into_reshape::<Bmn<RowMajor>>([2, 3, 15]).is_err()); // counts differ
}
