//! Element access and traversal against brute force over every logical index: indexing, `get`,
//! `iter`, `indexed_iter`, `for_each_indexed(_mut)`, `from_fn`, `map`, `fill` and `zip_mut_with`,
//! on every named layout and on `layout!`-declared layouts of ranks 3 to 8 (vectorized ones
//! included), on padded shapes, and on strided views with negative strides. Offsets come from
//! the model in `support/model.rs`, written from the guide's definitions.

mod support;

use proptest::prelude::*;
use support::mix;
use support::model::*;
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, Image, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape,
    StridedView, StridedViewMut, Tensor,
};

/// Every accessor of a packed tensor of layout `L` against the model.
fn check_layout<L: Layout>(seed: u64) {
    let dims = dims_for::<L>(seed);
    let spec = Spec::of::<L>();
    let d = arr::<L>(&dims);
    let t = Tensor::<i64, L>::from_fn(d, |i| value_of(i.as_ref())).unwrap();
    let what = format!("{} {dims:?}", L::NOTATION);

    // Every index lands at the model's offset, through every accessor.
    let mut by_offset = vec![None; t.as_slice().len()];
    for index in indices(&dims) {
        let i = arr::<L>(&index);
        let offset = spec.offset(&dims, &index);
        assert_eq!(t.as_slice()[offset], value_of(&index), "from_fn {what} {index:?}");
        assert_eq!(t[i], value_of(&index), "Index {what}");
        assert_eq!(t.get(i), Some(&value_of(&index)), "get {what}");
        by_offset[offset] = Some(index);
    }
    // Out of range, in each dimension.
    for k in 0..dims.len() {
        let mut index = vec![0; dims.len()];
        index[k] = dims[k];
        assert_eq!(t.get(arr::<L>(&index)), None, "{what}");
    }

    // Iteration visits storage in order, each element once, with its index.
    let expected: Vec<(Vec<usize>, i64)> =
        by_offset.iter().flatten().map(|index| (index.clone(), value_of(index))).collect();
    let plain: Vec<i64> = t.iter().copied().collect();
    assert_eq!(plain, expected.iter().map(|(_, v)| *v).collect::<Vec<_>>(), "iter {what}");
    assert_eq!(t.iter().len(), expected.len());
    let indexed: Vec<(Vec<usize>, i64)> = t.indexed_iter().map(|(i, &v)| (i.as_ref().to_vec(), v)).collect();
    assert_eq!(indexed, expected, "indexed_iter {what}");
    // The same through `next` alone (the iterators' `fold` is a separate path).
    let mut stepped = Vec::new();
    for (i, &v) in t.indexed_iter() {
        stepped.push((i.as_ref().to_vec(), v));
    }
    assert_eq!(stepped, expected, "indexed_iter next {what}");
    let mut it = t.iter();
    let first = it.next().copied();
    assert_eq!(first.into_iter().chain(it.copied()).collect::<Vec<_>>(), plain, "iter after next {what}");
    let mut visited = Vec::new();
    t.for_each_indexed(|i, &v| visited.push((i.as_ref().to_vec(), v)));
    assert_eq!(visited, expected, "for_each_indexed {what}");

    // Writes: through IndexMut, for_each_indexed_mut, map, fill and zip.
    let mut u = Tensor::<i64, L>::zeros(d).unwrap();
    u.for_each_indexed_mut(|i, v| *v = value_of(i.as_ref()));
    assert_eq!(u.as_slice(), t.as_slice(), "for_each_indexed_mut {what}");
    let doubled = t.map(|&v| 2 * v).unwrap();
    for index in indices(&dims) {
        assert_eq!(doubled.as_slice()[spec.offset(&dims, &index)], 2 * value_of(&index), "map {what}");
    }
    u.fill(7);
    assert!(u.as_slice().iter().all(|&v| v == 7), "fill {what}");
    assert_eq!(u.iter_mut().len(), t.iter().len());
    u.iter_mut().zip(t.iter()).for_each(|(a, &b)| *a = b);
    assert_eq!(u.as_slice(), t.as_slice(), "iter_mut {what}");
    u.fill(7);
    u.zip_mut_with(&t, |a, &b| *a += b).unwrap();
    for index in indices(&dims) {
        let i = arr::<L>(&index);
        u[i] -= 7;
    }
    assert_eq!(u.as_slice(), t.as_slice(), "zip_mut_with, IndexMut {what}");
}

/// `zip_mut_with` between two layouts of one family: every element meets its own index.
fn check_zip<A: Layout, B: Layout>(seed: u64)
where
    A::Family: typed_layout::SameFamily<B::Family>,
{
    // The dims of the wider vector: a multiple of it is a multiple of the other (4 and 32, 1).
    let width = |v: Option<typed_layout::Vector>| v.map_or(1, |v| v.width);
    let dims = match width(A::FORMAT.vector()) >= width(B::FORMAT.vector()) {
        true => dims_for::<A>(seed),
        false => dims_for::<B>(seed),
    };
    let mut a = Tensor::<i64, A>::zeros(arr::<A>(&dims)).unwrap();
    let b = Tensor::<i64, B>::from_fn(arr::<B>(&dims), |i| value_of(i.as_ref())).unwrap();
    a.zip_mut_with(&b, |x, &y| *x = y).unwrap();
    let mut bad = 0;
    a.for_each_indexed(|i, &v| bad += (v != value_of(i.as_ref())) as usize);
    assert_eq!(bad, 0, "{} <- {} {dims:?}", A::NOTATION, B::NOTATION);
}

macro_rules! each_layout {
    ($seed:expr; $($l:ty),*) => {$( check_layout::<$l>($seed); )*};
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_accessor_agrees_with_the_model(seed in any::<u64>()) {
        each_layout!(seed; Nchw, Nhwc, Chwn, NcxHwx<4>, NcxHwx<32>, NcxHwx<1>, Ncdhw, Ndhwc, Cdhwn,
            Bmn<RowMajor>, Bmn<ColMajor>, Mbn, BmnNPacked, C4nhw4, Hwnc, NhwcRows, Nc8dhw8, Dhwnc,
            ClipNcdhw, ClipNdhwc, ClipVec4, ClipCFirst, GClipPlain, GClipReversed, GClipVec8, GClipLast,
            GsPlain, GsReversed, GsVec2, GsLast);
    }

    #[test]
    fn zip_walks_two_layouts_together(seed in any::<u64>()) {
        check_zip::<Nchw, Nhwc>(seed);
        check_zip::<Nhwc, NcxHwx<4>>(seed);
        check_zip::<NcxHwx<32>, Chwn>(seed);
        check_zip::<NcxHwx<4>, NcxHwx<32>>(seed);
        check_zip::<Ndhwc, Cdhwn>(seed);
        check_zip::<Bmn<ColMajor>, Bmn<RowMajor>>(seed);
        check_zip::<GsVec2, GsReversed>(seed);
    }

    /// Strided views (negative strides, padding, a base offset) against offsets computed here.
    #[test]
    fn strided_views_agree_with_their_strides(seed in any::<u64>()) {
        let dims: [usize; 4] = core::array::from_fn(|d| 1 + (mix(seed, d) % 5) as usize);
        // Nested strides in a random order, each padded a little, some negated.
        let mut order = [0usize, 1, 2, 3];
        for k in (1..4).rev() {
            order.swap(k, (mix(seed, 10 + k) % (k as u64 + 1)) as usize);
        }
        let mut strides = [0isize; 4];
        let mut next = 1isize;
        for &d in order.iter().rev() {
            strides[d] = next + (mix(seed, 20 + d) % 2) as isize;
            next = strides[d] * dims[d] as isize;
        }
        let mut base = 0isize;
        for d in 0..4 {
            if mix(seed, 30 + d).is_multiple_of(3) {
                base += (dims[d] as isize - 1) * strides[d];
                strides[d] = -strides[d];
            }
        }
        let len = next as usize + 3;
        let data: Vec<i64> = (0..len as i64).map(|v| -v).collect();
        let v = StridedView::<i64, Image>::new(dims, strides, base as usize, &data).unwrap();
        let at = |i: &[usize]| (base + (0..4).map(|d| i[d] as isize * strides[d]).sum::<isize>()) as usize;
        let mut all: Vec<(Vec<usize>, i64)> = indices(&dims).map(|i| { let o = at(&i); (i, data[o]) }).collect();
        for (i, value) in &all {
            let index = [i[0], i[1], i[2], i[3]];
            prop_assert_eq!(v[index], *value);
            prop_assert_eq!(v.get(index), Some(value));
        }
        // Iteration: each element once, with its index; memory order is by decreasing |stride|.
        let mut seen: Vec<(Vec<usize>, i64)> = v.indexed_iter().map(|(i, &x)| (i.to_vec(), x)).collect();
        prop_assert_eq!(v.iter().len(), all.len());
        let mut plain: Vec<i64> = v.iter().copied().collect();
        plain.sort_unstable();
        seen.sort();
        all.sort();
        prop_assert_eq!(&seen, &all);
        let mut values: Vec<i64> = all.iter().map(|(_, x)| *x).collect();
        values.sort_unstable();
        prop_assert_eq!(plain, values);

        // A mutable strided view: writes reach exactly the view's elements.
        let mut buf = vec![0i64; len];
        let mut w = StridedViewMut::<i64, Image>::new(dims, strides, base as usize, &mut buf).unwrap();
        w.for_each_indexed_mut(|i, x| *x = i.iter().fold(1, |a, &k| a * 10 + k as i64));
        w.map_inplace(|x| *x = -*x);
        let mut expected = vec![0i64; len];
        for i in indices(&dims) {
            expected[at(&i)] = -i.iter().fold(1, |a, &k| a * 10 + k as i64);
        }
        prop_assert_eq!(buf, expected);
    }
}

/// A padded shape: iteration, `map` and `fill` skip the padding, which keeps its value.
#[test]
fn padding_is_skipped_and_kept() {
    let shape = Shape::<NhwcRows>::with_strides([2, 3, 2, 2], [16, 1, 7, 3]).unwrap();
    let mut t = Tensor::<i32, NhwcRows>::filled_in(shape, -1).unwrap();
    t.for_each_indexed_mut(|[n, c, h, w], v| *v = (1000 * n + 100 * c + 10 * h + w) as i32);
    assert_eq!(t.iter().filter(|&&v| v == -1).count(), 0);
    assert_eq!(t.iter().count(), 24);
    assert_eq!(t.as_slice().iter().filter(|&&v| v == -1).count(), t.as_slice().len() - 24);
    let m = t.map(|&v| v + 1).unwrap();
    assert_eq!(m.shape().len(), 24); // packed
    assert_eq!(m[[1, 2, 1, 1]], 1212);
    t.fill(5);
    assert_eq!(t.as_slice().iter().filter(|&&v| v == -1).count(), t.as_slice().len() - 24);
}

/// `zip_mut_with` with other dims is an error naming the dimension, and writes nothing.
#[test]
fn zip_of_other_dims_is_an_error() {
    let mut a = Tensor::<f32, Nchw>::zeros([1, 3, 4, 4]).unwrap();
    let b = Tensor::<f32, Nhwc>::filled([1, 3, 4, 5], 1.0).unwrap();
    let e = a.zip_mut_with(&b, |x, &y| *x = y).unwrap_err();
    assert_eq!(e.to_string(), "dimension W (logical index 3) is 5 in the source but 4 in the destination: a conversion keeps the logical shape");
    assert!(a.iter().all(|&v| v == 0.0));
}

/// Indexing outside the tensor panics with the dims named by their letters, like a slice.
#[test]
fn index_out_of_range_names_the_dims() {
    let t = Tensor::<u8, Nhwc>::zeros([1, 3, 2, 2]).unwrap();
    let e = std::panic::catch_unwind(|| t[[0, 3, 0, 0]]).unwrap_err();
    let message = e.downcast_ref::<String>().unwrap();
    assert_eq!(message, "index N=0 C=3 H=0 W=0 is outside the tensor's dims N=1 C=3 H=2 W=2");
}

/// Dims in the layout's own letter order map to the logical order through the layout's letters.
#[test]
fn physical_dims_are_the_layouts_letter_order() {
    let s = Shape::<Chwn>::from_physical([3, 4, 5, 2]).unwrap(); // C, H, W, N
    assert_eq!(s.dims(), [2, 3, 4, 5]);
    assert_eq!(s.physical_dims(), [3, 4, 5, 2]);
    let g = Shape::<GsReversed>::from_physical([2, 3, 4, 5, 6, 7, 8, 1]).unwrap(); // S W H D C T N G
    assert_eq!(g.dims(), [1, 8, 7, 6, 5, 4, 3, 2]); // G N T C D H W S
    let t = Tensor::<u8, Nhwc>::from_vec_physical([1, 2, 2, 3], (0..12).collect()).unwrap();
    assert_eq!((t.dims(), t[[0, 2, 1, 0]]), ([1, 3, 2, 2], 8)); // row 1, pixel 0, blue
    assert!(Tensor::<u8, Nhwc>::from_vec_physical([1, 2, 2, 3], vec![0; 11]).is_err());
}

/// `zip2_mut_with` and `broadcast` against brute force: y += a · b over three layouts, `b`
/// broadcast from one value per channel, and through the per-element path when a side is
/// vectorized.
#[test]
fn three_tensors_walk_together() {
    fn check<Y: Layout<Family = Image>, A: Layout<Family = Image>>(dims: [usize; 4]) {
        let a = Tensor::<i64, A>::from_fn(dims, |i| value_of(&i)).unwrap();
        let per_channel =
            Tensor::<i64, Nchw>::from_fn([1, dims[1], 1, 1], |[_, c, _, _]| c as i64 + 2).unwrap();
        let b = per_channel.broadcast('N', dims[0]).unwrap().into_broadcast('H', dims[2]).unwrap();
        let b = b.into_broadcast('W', dims[3]).unwrap();
        let mut y = Tensor::<i64, Y>::filled(dims, 1).unwrap();
        y.zip2_mut_with(&a, &b, |y, &a, &b| *y += a * b).unwrap();
        for i in indices(&dims) {
            let want = 1 + value_of(&i) * (i[1] as i64 + 2);
            assert_eq!(y[[i[0], i[1], i[2], i[3]]], want, "{} <- {} {i:?}", Y::NOTATION, A::NOTATION);
        }
        // The same with the two inputs swapped (a repeated first operand, a walked second).
        let mut z = Tensor::<i64, Y>::filled(dims, 1).unwrap();
        z.zip2_mut_with(&b, &a, |z, &b, &a| *z += a * b).unwrap();
        assert_eq!(z, y, "swapped {} <- {}", Y::NOTATION, A::NOTATION);
        let wrong = Tensor::<i64, A>::zeros([dims[0], dims[1], dims[2], dims[3] + 1]).unwrap();
        assert!(y.zip2_mut_with(&wrong, &b, |_, _, _| ()).is_err());
    }
    check::<Nchw, Nhwc>([2, 3, 4, 5]);
    check::<Nchw, Nchw>([2, 3, 4, 5]); // runs of a slice against a repeated value
    check::<Nhwc, Nhwc>([2, 5, 3, 4]);
    check::<Nhwc, Chwn>([3, 8, 2, 3]);
    check::<NcxHwx<4>, Nhwc>([2, 8, 3, 3]);
    check::<Nhwc, NcxHwx<4>>([2, 8, 3, 3]);
    check::<Chwn, Nchw>([1, 1, 1, 7]);
    // Broadcasting an axis that is not of size 1 is refused.
    let t = Tensor::<f32, Nchw>::zeros([1, 3, 2, 2]).unwrap();
    assert!(t.broadcast('C', 6).is_err());
    assert!(t.broadcast('N', 0).is_err());
}

/// `zip2_mut_with` into a crop of a larger tensor, from a crop of another layout and a view
/// mirrored along W (a negative stride), against brute force: the runs, the plain loop around
/// them and the odometer all move offsets that are not those of a packed tensor, and nothing
/// outside the crop is written.
#[test]
fn three_sub_tensors_walk_together() {
    fn check<Y: Layout<Family = Image>, A: Layout<Family = Image>>(dims: [usize; 4]) {
        let [n, c, h, w] = dims;
        let mut big_y = Tensor::<i64, Y>::filled([n + 1, c + 2, h + 1, w + 3], 1).unwrap();
        let big_a = Tensor::<i64, A>::from_fn([n + 2, c + 2, h + 1, w + 1], |i| value_of(&i)).unwrap();
        let mirrored = Tensor::<i64, Nchw>::from_fn(dims, |i| value_of(&i) % 7 - 3).unwrap();
        let strides = [(c * h * w) as isize, (h * w) as isize, w as isize, -1];
        let b = StridedView::<i64, Image>::new(dims, strides, w - 1, mirrored.as_slice()).unwrap();
        let (a_at, y_at) = ([1, 2, 0, 1], [1, 1, 0, 2]);
        let a = big_a.crop(a_at, dims).unwrap();
        let mut y = big_y.crop_mut(y_at, dims).unwrap();
        y.zip2_mut_with(&a, &b, |y, &a, &b| *y += a * b).unwrap();
        // A first operand repeated along y's innermost axis but not along the next one (the
        // input of a convolution broadcast over the output channels).
        let inner = Y::NOTATION.chars().last().unwrap();
        let axis = "NCHW".find(inner).unwrap();
        let mut one = dims;
        one[axis] = 1;
        let p = Tensor::<i64, Nchw>::from_fn(one, |i| value_of(&i) % 5 + 1).unwrap();
        let q = Tensor::<i64, Y>::from_fn(dims, |i| value_of(&i) % 11).unwrap();
        let p = p.broadcast(inner, dims[axis]).unwrap();
        y.zip2_mut_with(&p, &q, |y, &p, &q| *y += p * q).unwrap();
        y.zip2_mut_with(&q, &p, |y, &q, &p| *y += p * q).unwrap(); // the repeated one second
        for i in indices(&big_y.dims()) {
            let inside = (0..4).all(|d| i[d] >= y_at[d] && i[d] < y_at[d] + dims[d]);
            let want = if inside {
                let j: Vec<usize> = (0..4).map(|d| i[d] - y_at[d]).collect();
                let at_a: Vec<usize> = (0..4).map(|d| j[d] + a_at[d]).collect();
                let mirror = [j[0], j[1], j[2], w - 1 - j[3]];
                let mut at_p = j.clone();
                at_p[axis] = 0;
                1 + value_of(&at_a) * (value_of(&mirror) % 7 - 3)
                    + 2 * (value_of(&at_p) % 5 + 1) * (value_of(&j) % 11)
            } else {
                1
            };
            let got = big_y[[i[0], i[1], i[2], i[3]]];
            assert_eq!(got, want, "{} <- {} {dims:?} at {i:?}", Y::NOTATION, A::NOTATION);
        }
    }
    for seed in 0..6 {
        let d = dims_for::<Nchw>(seed);
        let dims = [d[0], d[1], d[2], d[3]];
        check::<Nchw, Nhwc>(dims);
        check::<Nchw, Nchw>(dims);
        check::<Nhwc, Chwn>(dims);
        check::<Chwn, Nhwc>(dims);
    }
    check::<Nhwc, Nchw>([1, 1, 1, 1]);
    check::<Nchw, Nhwc>([3, 1, 1, 9]);
}

/// Values print in logical order whatever the layout: NCHW, NHWC, NC/4HW4 and a strided view of
/// the same values print the same text, summarized along long axes.
#[test]
fn values_print_in_logical_order_in_every_layout() {
    use typed_layout::{NcxHwx, StridedView};
    let f = |[n, c, h, w]: [usize; 4]| (1000 * n + 100 * c + 10 * h + w) as i32;
    let nchw = typed_layout::Tensor::<i32, typed_layout::Nchw>::from_fn([1, 4, 2, 9], f).unwrap();
    let text = nchw.to_string();
    assert_eq!(text.lines().next(), Some("[[[[0, 1, 2, ..., 6, 7, 8],"));
    assert_eq!(text.lines().count(), 2 * 4 + 3);
    assert_eq!(nchw.to_layout::<typed_layout::Nhwc>().unwrap().to_string(), text);
    assert_eq!(nchw.to_layout::<NcxHwx<4>>().unwrap().to_string(), text);
    let strided =
        StridedView::<i32, typed_layout::Image>::new([1, 4, 2, 9], [72, 18, 9, 1], 0, nchw.as_slice())
            .unwrap();
    assert_eq!(strided.to_string(), text);
}
