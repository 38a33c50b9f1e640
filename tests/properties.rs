//! Properties over generated layouts and shapes of ranks 3 to 8, each checked against a model
//! written here from the guide's definitions (not against the library's own derivation):
//!
//! * notation: a layout written in cuDNN notation parses back to the order, vector and packed
//!   letters it was written from, and its printed notation parses to the same layout;
//! * bijection: the offset map of every packed layout is a bijection onto `0..len`, and equals the
//!   mixed-radix model (letters in decreasing-stride order; NC/xHWx's C as a group axis where C
//!   stands and an x-lane axis innermost);
//! * partially packed: strides padded only on letters outside the `-packed` suffix are accepted
//!   by the layout and recognised by the descriptor;
//! * conversions: A → B → A returns the source exactly, every logical element lands at its offset
//!   on both sides, and padding in a destination is never written; on runtime layouts (strided
//!   views, negative source strides included) and on typed ones (named and `layout!`-declared,
//!   NC/xHWx included);
//! * static shapes: `StaticShape`'s constants equal the runtime derivation and the model.
//!
//! The predicates against brute-force enumeration are in `predicates.rs`.
//!
//! Longer than 500 lines: the model of the guide's rules and the properties that use it are
//! read together; split, each half would need the other open beside it.

mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use support::model::*;
use support::{bytes_of, mix, Bits};
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, DataType, DimArray, Dims3, Dims4, Dims5, Dims6, Dims7, Dims8, DynLayout,
    Family, Image, Layout, Matmul, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Shape,
    StaticShape, StridedView, StridedViewMut, Tensor, TensorDesc, Vector, Volume,
};

fn spec_in(letters: &'static str) -> impl Strategy<Value = Spec> {
    let rank = letters.len();
    // Only C may be vectorized.
    let vector = if letters.contains('C') {
        proptest::option::weighted(0.35, proptest::sample::select(vec![1, 2, 3, 4, 8, 32])).boxed()
    } else {
        Just(None).boxed()
    };
    (
        Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
        vector,
        proptest::collection::vec(proptest::bool::weighted(0.7), rank),
    )
        .prop_map(move |(order, vector, mut packed)| {
            // A vectorized C is never the innermost letter (`Format::with_vector` says why), and
            // a suffix names at least one letter.
            let vector = vector.filter(|_| letters.as_bytes()[order[rank - 1]] != b'C');
            if packed.iter().all(|&p| !p) {
                packed.fill(true);
            }
            Spec { letters, order, vector, packed }
        })
}

/// Dims for `spec`: small enough to enumerate, C a multiple of the vector width.
fn dims_for(spec: &Spec) -> impl Strategy<Value = Vec<usize>> {
    let rank = spec.rank();
    let max = [12, 8, 5, 4, 3, 3][rank - 3];
    let (c, width) = (spec.c(), spec.vector);
    proptest::collection::vec(1usize..=max, rank)
        .prop_map(move |mut dims| {
            if let (Some(c), Some(w)) = (c, width) {
                dims[c] = if w >= 8 { dims[c].min(2) * w } else { dims[c] * w };
            }
            dims
        })
        .prop_filter("enumerable", |d| d.iter().product::<usize>() <= 20_000)
}

fn spec_and_dims() -> impl Strategy<Value = (Spec, Vec<usize>)> {
    proptest::sample::select(FAMILIES.to_vec()).prop_flat_map(spec_in).prop_flat_map(|spec| {
        let dims = dims_for(&spec);
        (Just(spec), dims)
    })
}

/// Two layouts of one family without vectors, dims, padding for each, and which source strides
/// to flip negative.
#[allow(clippy::type_complexity)]
fn strided_pair() -> impl Strategy<Value = (Spec, Spec, Vec<usize>, Vec<usize>, Vec<usize>, Vec<bool>)> {
    proptest::sample::select(FAMILIES.to_vec())
        .prop_flat_map(|letters| {
            let plain = |s: Spec| Spec { vector: None, ..s };
            (spec_in(letters).prop_map(plain), spec_in(letters).prop_map(plain))
        })
        .prop_flat_map(|(a, b)| {
            let rank = a.rank();
            let dims = dims_for(&a);
            let pads = proptest::collection::vec(0usize..=2, rank);
            (Just(a), Just(b), dims, pads.clone(), pads, proptest::collection::vec(any::<bool>(), rank))
        })
}

/// Number of generated cases: `default`, or `TL_PROPTEST_CASES` for a longer run.
fn cases(default: u32) -> u32 {
    std::env::var("TL_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn notation_round_trips((spec, _dims) in spec_and_dims()) {
        let text = spec.notation();
        let layout = DynLayout::parse_in(&text, spec.letters).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let format = layout.format();
        prop_assert_eq!(format.order(), &spec.order[..], "{}", text);
        prop_assert_eq!(format.vector(), spec.vector.map(|width| Vector { dim: spec.c().unwrap(), width }));
        for (k, &d) in spec.order.iter().enumerate() {
            // No suffix means every letter is packed.
            prop_assert_eq!(format.packed()[d], spec.packed[k] || spec.packed.iter().all(|&p| p));
        }
        let printed = layout.notation();
        prop_assert_eq!(DynLayout::parse_in(printed.as_str(), spec.letters).ok(), Some(layout), "{}", printed);
    }

    #[test]
    fn packed_offsets_are_a_bijection_equal_to_the_model((spec, dims) in spec_and_dims()) {
        let layout = DynLayout::parse_in(&spec.notation(), spec.letters).unwrap();
        let packing = layout.shape(&dims).unwrap();
        let count: usize = dims.iter().product();
        prop_assert_eq!(packing.len(), count);
        prop_assert_eq!(packing.strides(), &spec.strides(&dims)[..]);
        let mut seen = vec![false; count];
        for index in indices(&dims) {
            let offset = packing.offset(&index).unwrap();
            prop_assert_eq!(offset, spec.offset(&dims, &index), "{} {:?} {:?}", spec.notation(), dims, index);
            prop_assert!(!std::mem::replace(&mut seen[offset], true), "offset {} reached twice", offset);
        }
        prop_assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn padded_strides_are_partially_packed(
        (spec, dims, pad) in spec_and_dims().prop_flat_map(|(s, d)| {
            let rank = s.rank();
            (Just(Spec { vector: None, ..s }), Just(d), proptest::collection::vec(0usize..=3, rank))
        })
    ) {
        let layout = DynLayout::parse_in(&spec.notation(), spec.letters).unwrap();
        let strides = spec.padded_strides(&dims, &pad);
        prop_assert!(layout.shape_with_strides(&dims, &strides).is_ok(), "{} {:?} {:?}", spec.notation(), dims, strides);
        let signed: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
        let desc = TensorDesc::new(DataType::Float, &dims, &signed).unwrap().with_letters(spec.letters).unwrap();
        prop_assert!(layout.describes(&desc).unwrap());
        prop_assert!(desc.partially_packed(&spec.format_letters(), &spec.suffix()).unwrap());
        prop_assert!(!desc.overlap().may_overlap());
    }

    #[test]
    fn strided_conversions_round_trip((a, b, dims, pad_a, pad_b, flip) in strided_pair()) {
        match dims.len() {
            3 => strided_round_trip::<Matmul>(&a, &b, &dims, &pad_a, &pad_b, &flip),
            4 => strided_round_trip::<Image>(&a, &b, &dims, &pad_a, &pad_b, &flip),
            5 => strided_round_trip::<Volume>(&a, &b, &dims, &pad_a, &pad_b, &flip),
            6 => strided_round_trip::<Clip>(&a, &b, &dims, &pad_a, &pad_b, &flip),
            7 => strided_round_trip::<GClip>(&a, &b, &dims, &pad_a, &pad_b, &flip),
            _ => strided_round_trip::<GsClip>(&a, &b, &dims, &pad_a, &pad_b, &flip),
        }?;
    }
}

const POISON: i64 = 0x5ead_beef_dead_beef;

/// A, padded and with some strides negative (inputs may run backwards), into B padded, and back
/// into a fresh A: elements in place on each side, padding untouched, the round trip exact.
fn strided_round_trip<F: Family>(
    a: &Spec,
    b: &Spec,
    dims: &[usize],
    pad_a: &[usize],
    pad_b: &[usize],
    flip: &[bool],
) -> Result<(), TestCaseError> {
    let dims_f = F::Dims::try_from_slice(dims).unwrap();
    let (sa, sb) = (a.padded_strides(dims, pad_a), b.padded_strides(dims, pad_b));
    let span = |s: &[usize]| 1 + dims.iter().zip(s).map(|(&d, &s)| (d - 1) * s).sum::<usize>();
    let (len_a, len_b) = (span(&sa), span(&sb));

    // The source: random values, read through strides of which some run backwards.
    let src: Vec<i64> = (0..len_a).map(|k| mix(7, k) as i64).collect();
    let mut base = 0;
    let signed: Vec<isize> = sa
        .iter()
        .zip(flip)
        .zip(dims)
        .map(|((&s, &f), &d)| {
            if f {
                base += (d - 1) * s;
                -(s as isize)
            } else {
                s as isize
            }
        })
        .collect();
    let src_at = |index: &[usize]| {
        let offset = base as isize + index.iter().zip(&signed).map(|(&i, &s)| i as isize * s).sum::<isize>();
        src[offset as usize]
    };
    let view =
        StridedView::<i64, F>::new(dims_f, F::Strides::try_from_slice(&signed).unwrap(), base, &src).unwrap();

    let at = |s: &[usize], index: &[usize]| index.iter().zip(s).map(|(&i, &s)| i * s).sum::<usize>();
    let to_isize =
        |s: &[usize]| F::Strides::try_from_slice(&s.iter().map(|&s| s as isize).collect::<Vec<_>>()).unwrap();

    let mut mid = vec![POISON; len_b];
    StridedViewMut::<i64, F>::new(dims_f, to_isize(&sb), 0, &mut mid).unwrap().copy_from(&view).unwrap();
    let mut back = vec![POISON; len_a];
    {
        let mid_view = StridedView::<i64, F>::new(dims_f, to_isize(&sb), 0, &mid).unwrap();
        StridedViewMut::<i64, F>::new(dims_f, to_isize(&sa), 0, &mut back)
            .unwrap()
            .copy_from(&mid_view)
            .unwrap();
    }
    for index in indices(dims) {
        let want = src_at(&index);
        prop_assert_eq!(mid[at(&sb, &index)], want, "{} → {} {:?}", a.notation(), b.notation(), index);
        prop_assert_eq!(back[at(&sa, &index)], want);
    }
    let count: usize = dims.iter().product();
    prop_assert_eq!(mid.iter().filter(|&&v| v != POISON).count(), count, "padding of B written");
    prop_assert_eq!(back.iter().filter(|&&v| v != POISON).count(), count, "padding of A written");
    Ok(())
}

/// A (packed, random bits) → B → A on typed layouts: exact, and every logical element in place.
fn typed_round_trip<T: Bits, A: Layout, B: Layout>(dims: &[usize]) -> Result<(), TestCaseError>
where
    B::Family: SameFamily<A::Family>,
    A::Family: SameFamily<B::Family>,
{
    let shape = Shape::<A>::from_slice(dims).unwrap();
    let values = (0..shape.len()).map(|k| T::from_bits64(mix(dims.len() as u64, k))).collect();
    let a = Tensor::<T, A>::from_vec_in(shape, values).unwrap();
    let b: Tensor<T, B> = a.to_layout().unwrap();
    let back: Tensor<T, A> = b.to_layout().unwrap();
    prop_assert!(
        bytes_of(back.as_slice()) == bytes_of(a.as_slice()),
        "{} → {} → back",
        A::NOTATION,
        B::NOTATION
    );
    let (pa, pb) = (a.shape().placement(), b.shape().placement());
    for index in indices(dims) {
        let (x, y) = (a.as_slice()[pa.offset(&index).unwrap()], b.as_slice()[pb.offset(&index).unwrap()]);
        prop_assert!(bytes_of(&[x]) == bytes_of(&[y]), "{} → {} at {:?}", A::NOTATION, B::NOTATION, index);
    }
    Ok(())
}

/// Every ordered pair of the listed layouts.
macro_rules! typed_pairs {
    ($t:ty, $dims:expr, [$($l:ty),*]) => { typed_pairs!(@src $t, $dims, [$($l),*], [$($l),*]) };
    (@src $t:ty, $dims:expr, [$($s:ty),*], $all:tt) => { $( typed_pairs!(@dst $t, $dims, $s, $all); )* };
    (@dst $t:ty, $dims:expr, $s:ty, [$($d:ty),*]) => { $( typed_round_trip::<$t, $s, $d>($dims)?; )* };
}

/// Dims of `rank` (each up to `max`) with C (at `c`) a multiple of `width`.
fn family_dims(rank: usize, max: usize, c: Option<usize>, width: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1usize..=max, rank).prop_map(move |mut d| {
        if let Some(c) = c {
            d[c] = d[c].min(2) * width;
        }
        d
    })
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn typed_matmul_round_trips(dims in family_dims(3, 20, None, 1)) {
        typed_pairs!(half::f16, &dims, [Bmn<RowMajor>, Bmn<ColMajor>, Mbn, BmnNPacked]);
    }

    #[test]
    fn typed_image_round_trips(dims in family_dims(4, 7, Some(1), 32)) {
        typed_pairs!(u8, &dims, [Nchw, Nhwc, Chwn, NcxHwx<4>, NcxHwx<32>, C4nhw4, Hwnc, NhwcRows]);
    }

    #[test]
    fn typed_volume_round_trips(dims in family_dims(5, 5, Some(1), 8)) {
        typed_pairs!(i64, &dims, [Ncdhw, Ndhwc, Cdhwn, Nc8dhw8, Dhwnc]);
    }

    #[test]
    fn typed_rank_6_to_8_round_trips(
        d6 in family_dims(6, 4, Some(2), 4),
        d7 in family_dims(7, 3, Some(3), 8),
        d8 in family_dims(8, 3, Some(3), 2),
    ) {
        typed_pairs!(f32, &d6, [ClipNcdhw, ClipNdhwc, ClipVec4, ClipCFirst]);
        typed_pairs!(i32, &d7, [GClipPlain, GClipReversed, GClipVec8, GClipLast]);
        typed_pairs!(half::bf16, &d8, [GsPlain, GsReversed, GsVec2, GsLast]);
    }
}

/// `StaticShape`'s constants (evaluated by the compiler) against the runtime derivation and the
/// model, for named and declared layouts of every rank.
macro_rules! static_equals_runtime {
    ($count:ident; $($l:ty => $dims:ident < $f:ty, $($d:literal),* >;)*) => {$({
        let dims = [$($d),*];
        let signed = StaticShape::<$l, $dims<$f, $($d),*>>::GROUP_STRIDES;
        let strides = signed.map(|s| s as usize); // the placement's and the model's are unsigned
        let len = StaticShape::<$l, $dims<$f, $($d),*>>::LEN;
        let runtime = Shape::<$l>::from_slice(&dims).unwrap();
        assert_eq!(runtime.group_strides().as_ref(), &signed[..], "{} {:?}", <$l>::NOTATION, dims);
        assert_eq!(runtime.len(), len);
        assert_eq!(DynLayout::of::<$l>().shape(&dims).unwrap().strides(), &strides[..]);
        assert_eq!(Spec::of::<$l>().strides(&dims), strides, "model, {} {:?}", <$l>::NOTATION, dims);
        assert_eq!(len, dims.iter().product::<usize>());
        $count += 1;
    })*};
}

#[test]
fn static_shapes_equal_the_runtime_derivation() {
    let mut checked = 0;
    static_equals_runtime! { checked;
        Bmn<RowMajor> => Dims3<Matmul, 2, 3, 4>;
        Bmn<ColMajor> => Dims3<Matmul, 2, 3, 4>;
        Bmn<ColMajor> => Dims3<Matmul, 1, 1000, 7>;
        Mbn => Dims3<Matmul, 5, 1, 9>;
        BmnNPacked => Dims3<Matmul, 3, 17, 2>;
        Nchw => Dims4<Image, 1, 64, 5, 4>;
        Nchw => Dims4<Image, 7, 3, 224, 224>;
        Nhwc => Dims4<Image, 1, 64, 5, 4>;
        Nhwc => Dims4<Image, 8, 3, 1, 33>;
        Chwn => Dims4<Image, 2, 5, 6, 7>;
        Chwn => Dims4<Image, 1, 1, 1, 1>;
        NcxHwx<32> => Dims4<Image, 1, 64, 5, 4>;
        NcxHwx<32> => Dims4<Image, 3, 32, 7, 1>;
        NcxHwx<4> => Dims4<Image, 2, 12, 3, 5>;
        NcxHwx<1> => Dims4<Image, 2, 3, 4, 5>;
        C4nhw4 => Dims4<Image, 3, 8, 2, 5>;
        Hwnc => Dims4<Image, 4, 3, 2, 1>;
        NhwcRows => Dims4<Image, 2, 6, 5, 4>;
        Ncdhw => Dims5<Volume, 2, 3, 4, 5, 6>;
        Ndhwc => Dims5<Volume, 2, 3, 4, 5, 6>;
        Ndhwc => Dims5<Volume, 1, 16, 1, 9, 2>;
        Cdhwn => Dims5<Volume, 2, 3, 4, 5, 6>;
        Nc8dhw8 => Dims5<Volume, 2, 16, 3, 4, 5>;
        Dhwnc => Dims5<Volume, 3, 1, 2, 7, 2>;
        ClipNcdhw => Dims6<Clip, 2, 3, 4, 5, 6, 7>;
        ClipNdhwc => Dims6<Clip, 2, 3, 4, 5, 6, 7>;
        ClipVec4 => Dims6<Clip, 2, 3, 8, 5, 6, 1>;
        ClipCFirst => Dims6<Clip, 1, 9, 4, 2, 3, 5>;
        GClipPlain => Dims7<GClip, 2, 3, 4, 5, 6, 7, 8>;
        GClipReversed => Dims7<GClip, 2, 3, 4, 5, 6, 7, 8>;
        GClipVec8 => Dims7<GClip, 1, 2, 3, 16, 2, 3, 4>;
        GClipLast => Dims7<GClip, 3, 1, 2, 5, 1, 4, 2>;
        GsPlain => Dims8<GsClip, 2, 3, 2, 3, 2, 3, 2, 3>;
        GsReversed => Dims8<GsClip, 2, 3, 2, 3, 2, 3, 2, 3>;
        GsVec2 => Dims8<GsClip, 1, 2, 3, 4, 5, 1, 2, 3>;
        GsLast => Dims8<GsClip, 4, 1, 2, 6, 1, 2, 3, 2>;
    }
    assert_eq!(checked, 36);
}
