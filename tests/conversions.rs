//! Every conversion within each family, for every data type, on odd shapes, checked against
//! offsets written out by hand from each layout's memory order.

use half::{bf16, f16};
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, Element, Image, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout, Matmul, Ncdhw,
    Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape, StridedView, Tensor, Volume,
};

/// Hand-written storage offsets of each named layout, from the guide's descriptions.
trait HandOffset: Layout {
    fn hand_offset(dims: &[usize], i: &[usize]) -> usize;
}

macro_rules! hand {
    ($l:ty, |$d:ident, $i:ident| $e:expr) => {
        impl HandOffset for $l {
            fn hand_offset($d: &[usize], $i: &[usize]) -> usize {
                $e
            }
        }
    };
}
// Images: d = [N, C, H, W], i = [n, c, h, w].
hand!(Nchw, |d, i| ((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3]);
hand!(Nhwc, |d, i| ((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[1] + i[1]);
hand!(Chwn, |d, i| ((i[1] * d[2] + i[2]) * d[3] + i[3]) * d[0] + i[0]);
hand!(NcxHwx<4>, |d, i| ((((i[0] * (d[1] / 4) + i[1] / 4) * d[2] + i[2]) * d[3] + i[3]) * 4) + i[1] % 4);
hand!(NcxHwx<32>, |d, i| ((((i[0] * (d[1] / 32) + i[1] / 32) * d[2] + i[2]) * d[3] + i[3]) * 32) + i[1] % 32);
// Volumes: d = [N, C, D, H, W].
hand!(Ncdhw, |d, i| (((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]);
hand!(Ndhwc, |d, i| (((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]) * d[1] + i[1]);
hand!(Cdhwn, |d, i| (((i[1] * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]) * d[0] + i[0]);
// Filters: d = [K, C, R, S] (KCRS is NCHW's order, KRSC NHWC's, KC/xRSx NC/xHWx's, written
// out again here rather than borrowed).
hand!(Kcrs, |d, i| ((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3]);
hand!(Krsc, |d, i| ((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[1] + i[1]);
hand!(KcxRsx<4>, |d, i| ((((i[0] * (d[1] / 4) + i[1] / 4) * d[2] + i[2]) * d[3] + i[3]) * 4) + i[1] % 4);
hand!(KcxRsx<32>, |d, i| ((((i[0] * (d[1] / 32) + i[1] / 32) * d[2] + i[2]) * d[3] + i[3]) * 32) + i[1] % 32);
// Volume filters: d = [K, C, D, R, S].
hand!(Kcdrs, |d, i| (((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]);
hand!(Kdrsc, |d, i| (((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]) * d[1] + i[1]);
// Matmul: d = [B, M, N]; row-major [MN, N, 1], column-major [MN, 1, M].
hand!(Bmn<RowMajor>, |d, i| i[0] * d[1] * d[2] + i[1] * d[2] + i[2]);
hand!(Bmn<ColMajor>, |d, i| i[0] * d[1] * d[2] + i[2] * d[1] + i[1]);

/// Every logical index of `dims`, in logical row-major order.
fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out.into_iter().flat_map(|p| (0..d).map(move |k| [p.clone(), vec![k]].concat())).collect();
    }
    out
}

/// A distinct value per logical position (wrapping for narrow types, which is fine: the
/// hand-computed expectation wraps the same way).
trait Sample: Element {
    fn sample(k: usize) -> Self;
}
macro_rules! sample {
    ($($t:ty => |$k:ident| $e:expr),*) => {$(impl Sample for $t { fn sample($k: usize) -> Self { $e } })*};
}
sample!(
    f32 => |k| k as f32, f64 => |k| k as f64, f16 => |k| f16::from_f32((k % 2048) as f32),
    bf16 => |k| bf16::from_f32((k % 256) as f32), i8 => |k| k as i8, u8 => |k| k as u8,
    i32 => |k| k as i32, i64 => |k| k as i64
);

fn check_pair<T: Sample, S: HandOffset, D: HandOffset<Family = S::Family>>(dims: &[usize]) {
    let dims_arr = <typed_layout::DimsOf<S> as typed_layout::DimArray<usize>>::try_from_slice(dims).unwrap();
    let idx = indices(dims);
    let len = idx.len();
    // Source filled through hand offsets, so the library's own offset map is not trusted here.
    let mut data = vec![T::default(); len];
    for (k, i) in idx.iter().enumerate() {
        data[S::hand_offset(dims, i)] = T::sample(k);
    }
    let src = Tensor::<T, S>::from_vec(dims_arr, data).unwrap();
    let dst: Tensor<T, D> = src.to_layout().unwrap();
    for (k, i) in idx.iter().enumerate() {
        assert_eq!(
            dst.as_slice()[D::hand_offset(dims, i)],
            T::sample(k),
            "{} -> {} {:?} at {i:?}",
            S::NOTATION,
            D::NOTATION,
            dims
        );
    }
    let back: Tensor<T, S> = dst.to_layout().unwrap();
    assert_eq!(back.as_slice(), src.as_slice(), "round trip {} -> {}", S::NOTATION, D::NOTATION);
}

macro_rules! all_pairs {
    ($t:ty, $dims:expr; $($l:ty),*) => {{
        all_pairs!(@outer $t, $dims; [$($l),*]; $($l),*);
    }};
    (@outer $t:ty, $dims:expr; $all:tt; $($s:ty),*) => {$(
        all_pairs!(@inner $t, $dims, $s; $all);
    )*};
    (@inner $t:ty, $dims:expr, $s:ty; [$($d:ty),*]) => {$(
        check_pair::<$t, $s, $d>($dims);
    )*};
}

fn image_pairs<T: Sample>() {
    // C = 1, 3, 4, 33 and W = 1 for the plain layouts.
    for dims in [[2, 1, 3, 5], [1, 3, 4, 4], [3, 4, 1, 7], [2, 33, 3, 1], [1, 64, 5, 4]] {
        all_pairs!(T, &dims; Nchw, Nhwc, Chwn);
    }
    // Vectorized layouts need C a multiple of 32 (and so of 4).
    for dims in [[1, 64, 5, 4], [2, 32, 3, 1], [3, 96, 1, 5]] {
        all_pairs!(T, &dims; Nchw, Nhwc, Chwn, NcxHwx<4>, NcxHwx<32>);
    }
}

fn volume_pairs<T: Sample>() {
    for dims in [[2, 3, 2, 3, 4], [1, 1, 4, 3, 2], [2, 33, 1, 2, 1], [1, 4, 3, 3, 3]] {
        all_pairs!(T, &dims; Ncdhw, Ndhwc, Cdhwn);
    }
}

fn filter_pairs<T: Sample>() {
    // K, C, R, S: a 7×7 stem filter, 1×1, 3×3, and C = 1 (depthwise).
    for dims in [[4, 3, 7, 7], [5, 6, 1, 1], [2, 4, 3, 3], [3, 1, 3, 5]] {
        all_pairs!(T, &dims; Kcrs, Krsc);
    }
    for dims in [[2, 64, 3, 3], [3, 32, 1, 1], [1, 96, 2, 3]] {
        all_pairs!(T, &dims; Kcrs, Krsc, KcxRsx<4>, KcxRsx<32>);
    }
    for dims in [[2, 3, 3, 3, 3], [4, 1, 1, 3, 3], [1, 33, 2, 1, 2]] {
        all_pairs!(T, &dims; Kcdrs, Kdrsc);
    }
}

fn matmul_pairs<T: Sample>() {
    for dims in [[1, 1, 1], [2, 3, 5], [3, 33, 1], [1, 64, 65]] {
        all_pairs!(T, &dims; Bmn<RowMajor>, Bmn<ColMajor>);
    }
}

fn every_family<T: Sample>() {
    image_pairs::<T>();
    volume_pairs::<T>();
    filter_pairs::<T>();
    matmul_pairs::<T>();
}

macro_rules! every_type {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() {
            every_family::<$t>();
        }
    )*};
}
every_type!(
    f32_all_pairs: f32, f64_all_pairs: f64, f16_all_pairs: f16, bf16_all_pairs: bf16,
    i8_all_pairs: i8, u8_all_pairs: u8, i32_all_pairs: i32, i64_all_pairs: i64
);

#[test]
fn library_offsets_equal_hand_offsets() {
    fn check<L: HandOffset>(dims: &[usize]) {
        let shape = Shape::<L>::from_slice(dims).unwrap();
        let mut seen = vec![false; shape.len()];
        for i in indices(dims) {
            let o = shape.placement().offset(&i).unwrap();
            assert_eq!(o, L::hand_offset(dims, &i), "{} {dims:?} {i:?}", L::NOTATION);
            assert!(!seen[o], "offset {o} reached twice");
            seen[o] = true;
        }
        assert!(seen.iter().all(|&s| s), "{} is not a bijection onto its storage", L::NOTATION);
    }
    check::<Nchw>(&[2, 3, 4, 5]);
    check::<Nhwc>(&[2, 3, 4, 5]);
    check::<Chwn>(&[2, 3, 4, 5]);
    check::<NcxHwx<4>>(&[2, 8, 3, 5]);
    check::<NcxHwx<32>>(&[2, 64, 3, 2]);
    check::<Ncdhw>(&[2, 3, 2, 4, 5]);
    check::<Ndhwc>(&[2, 3, 2, 4, 5]);
    check::<Cdhwn>(&[2, 3, 2, 4, 5]);
    check::<Kcrs>(&[2, 3, 4, 5]);
    check::<Krsc>(&[2, 3, 4, 5]);
    check::<KcxRsx<4>>(&[2, 8, 3, 5]);
    check::<KcxRsx<32>>(&[2, 64, 3, 2]);
    check::<Kcdrs>(&[2, 3, 2, 4, 5]);
    check::<Kdrsc>(&[2, 3, 2, 4, 5]);
    check::<Bmn<RowMajor>>(&[2, 3, 5]);
    check::<Bmn<ColMajor>>(&[2, 3, 5]);
}

#[test]
fn strided_unpacked_bmn_inputs() {
    // Unpacked 3-D BMN: rows padded, batch padded, and a mirrored column axis.
    let data: Vec<f32> = (0..400).map(|v| v as f32).collect();
    let (dims, strides, base) = ([3, 4, 5], [120isize, 10, -2], 9usize);
    let view = StridedView::<f32, Matmul>::new(dims, strides, base, &data).unwrap();
    let packed: Tensor<f32, Bmn<ColMajor>> = view.to_layout().unwrap();
    for i in indices(&dims) {
        let at = base as isize + i[0] as isize * 120 + i[1] as isize * 10 - 2 * i[2] as isize;
        assert_eq!(packed.as_slice()[<Bmn<ColMajor>>::hand_offset(&dims, &i)], data[at as usize]);
    }
}

#[test]
fn strided_overlapping_image_input() {
    // Broadcast along N and overlapping H/W windows (stride 1 each): allowed for inputs.
    let data: Vec<i32> = (0..64).collect();
    let dims = [2, 2, 3, 3];
    let view = StridedView::<i32, Image>::new(dims, [0, 16, 1, 1], 0, &data).unwrap();
    assert!(view.overlap().may_overlap());
    let nhwc: Tensor<i32, Nhwc> = view.to_layout().unwrap();
    for i in indices(&dims) {
        assert_eq!(nhwc.as_slice()[Nhwc::hand_offset(&dims, &i)], (16 * i[1] + i[2] + i[3]) as i32);
    }
}

#[test]
fn strided_volume_into_ndhwc() {
    let data: Vec<u8> = (0..=255).cycle().take(3000).collect();
    let dims = [2, 3, 2, 3, 4];
    let strides = [1500isize, 7, 300, 60, 15 /* padded pixels */];
    let view = StridedView::<u8, Volume>::new(dims, strides, 0, &data).unwrap();
    let out: Tensor<u8, Ndhwc> = view.to_layout().unwrap();
    for i in indices(&dims) {
        let at: isize = i.iter().zip(strides).map(|(&k, s)| k as isize * s).sum();
        assert_eq!(out.as_slice()[Ndhwc::hand_offset(&dims, &i)], data[at as usize]);
    }
}

mod strided_property {
    use super::indices;
    use proptest::prelude::*;
    use typed_layout::{convert, Image, StridedView, StridedViewMut};

    /// Strides for `dims` in a random order, each padded by 0–2 and possibly negated; the base
    /// offset is chosen so every address is in the buffer. Returns (strides, base, buffer length).
    fn layout_of(
        dims: [usize; 4],
        order: [usize; 4],
        pad: [usize; 4],
        neg: [bool; 4],
    ) -> ([isize; 4], usize, usize) {
        let mut strides = [0isize; 4];
        let mut step = 1usize;
        for &d in order.iter().rev() {
            let s = step + pad[d] * (step > 1) as usize;
            strides[d] = if neg[d] { -(s as isize) } else { s as isize };
            step = s * dims[d] + pad[d];
        }
        let low: isize = dims.iter().zip(strides).map(|(&n, s)| (n as isize - 1) * s.min(0)).sum();
        let high: isize = dims.iter().zip(strides).map(|(&n, s)| (n as isize - 1) * s.max(0)).sum();
        ((strides), (-low) as usize, (high - low + 1) as usize)
    }

    fn order() -> impl Strategy<Value = [usize; 4]> {
        Just([0usize, 1, 2, 3]).prop_shuffle().prop_map(|v| [v[0], v[1], v[2], v[3]])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

        /// Strided source to strided (never overlapping) destination, both with random orders,
        /// padding and mirrored axes, against element-by-element copying.
        #[test]
        fn strided_to_strided(
            dims in proptest::array::uniform4(1usize..=40).prop_filter("small", |d| d.iter().product::<usize>() <= 6000),
            so in order(), sp in proptest::array::uniform4(0usize..=2), sn in proptest::array::uniform4(any::<bool>()),
            dord in order(), dp in proptest::array::uniform4(0usize..=2), dn in proptest::array::uniform4(any::<bool>()),
        ) {
            let (ss, sbase, slen) = layout_of(dims, so, sp, sn);
            let (ds, dbase, dlen) = layout_of(dims, dord, dp, dn);
            let src_data: Vec<i32> = (0..slen as i32).collect();
            let src = StridedView::<i32, Image>::new(dims, ss, sbase, &src_data).unwrap();
            let mut dst_data = vec![i32::MIN; dlen];
            let mut dst = StridedViewMut::<i32, Image>::new(dims, ds, dbase, &mut dst_data).unwrap();
            convert(&src, &mut dst).unwrap();
            let mut written = 0;
            for i in indices(&dims) {
                let at = |strides: [isize; 4], base: usize| {
                    (base as isize + (0..4).map(|k| i[k] as isize * strides[k]).sum::<isize>()) as usize
                };
                prop_assert_eq!(dst_data[at(ds, dbase)], src_data[at(ss, sbase)], "{:?}", i);
                written += 1;
            }
            // Padding is left untouched.
            prop_assert_eq!(dst_data.iter().filter(|&&v| v != i32::MIN).count(), written);
        }
    }
}
