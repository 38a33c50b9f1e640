//! A fuzz harness, driven by proptest, for everything that takes text or integers from a user:
//! the notation parser (`Format::parse`, `DynLayout::parse`/`parse_in`, the descriptor's format
//! arguments), `TensorDesc` construction and its questions, packed and strided shapes, and
//! strided views.
//!
//! Inputs: arbitrary Unicode, strings over the notation's alphabet, near-notations with huge
//! numbers, and integer arrays of any length drawn towards the edges (0, 1, powers of two and
//! their neighbours, `isize`/`usize` limits). The properties: nothing panics (a panic fails the
//! case), nothing overflows (debug builds check arithmetic), every error's span lies inside the
//! text it explains, every accepted layout prints a notation that parses back to it, and every
//! descriptor verdict equals an independent evaluation of the rules in `i128`.
//!
//! `cargo test` runs a bounded number of cases; `TL_FUZZ_CASES=1000000 cargo test --release
//! --test fuzz` runs longer.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use typed_layout::check_family_letters;
use typed_layout::{
    DataType, DimName, DynLayout, Format, Image, LayoutError, NamedLayout, Nchw, Overlap, StridedView,
    StridedViewMut, Tensor, TensorDesc,
};

fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("TL_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    ProptestConfig { cases, failure_persistence: None, max_shrink_iters: 20_000, ..ProptestConfig::default() }
}

/// Text a user might pass as a notation: anything, the notation's alphabet, or near-notations.
fn spec_text() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<String>(),
        1 => "[NCHWDBMTGS]{0,9}",
        1 => "[NCHWDBMTGSXnchw/0-9, -]{0,24}",
        1 => "[NCHWD]{0,4}(/[0-9]{0,25})?[NCHWD]{0,4}[0-9]{0,25}(,? ?[A-Za-zé]{0,6}-?(packed|padded)?)?",
        1 => "[NCHWDBM]{3,5}(, [NCHWDBM]{0,6}-packed)?",
        3 => near_notation(),
    ]
}

/// A well-formed notation of a built-in family (any order, C perhaps vectorized, perhaps a
/// `-packed` suffix), then perhaps an edit: a character deleted, replaced or inserted.
fn near_notation() -> impl Strategy<Value = String> {
    let letters = proptest::sample::select(vec!["BMN", "NCHW", "NCDHW"]);
    (letters, 1usize..=64, any::<u64>(), proptest::option::of((0usize..3, any::<usize>(), "[A-Z0-9/, -]")))
        .prop_map(|(letters, width, bits, edit)| {
            let mut order: Vec<char> = letters.chars().collect();
            let mut k = bits;
            for i in (1..order.len()).rev() {
                order.swap(i, (k % (i as u64 + 1)) as usize);
                k /= i as u64 + 1;
            }
            let vectorized = letters.contains('C') && k % 3 == 0 && *order.last().unwrap() != 'C';
            let mut out = String::new();
            for &c in &order {
                out.push(c);
                if vectorized && c == 'C' {
                    out += &format!("/{width}");
                }
            }
            if vectorized {
                out += &width.to_string();
            }
            if k % 5 < 2 {
                let packed: String = order
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (k >> (8 + i)) & 1 == 1)
                    .map(|(_, c)| *c)
                    .collect();
                out += &format!(", {}-packed", if packed.is_empty() { "C" } else { &packed });
            }
            if let Some((kind, at, ch)) = edit {
                let mut chars: Vec<char> = out.chars().collect();
                let at = at % (chars.len() + 1);
                match kind {
                    0 if at < chars.len() => drop(chars.remove(at)),
                    1 if at < chars.len() => chars[at] = ch.chars().next().unwrap(),
                    _ => chars.insert(at, ch.chars().next().unwrap()),
                }
                out = chars.into_iter().collect();
            }
            out
        })
}

/// Family letters: the built-in ones, plausible ones, or anything.
fn letters_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec!["BMN", "NCHW", "NCDHW", "NTCDHW", "GNTCDHW", "GNTCDHWS"])
            .prop_map(String::from),
        "[A-Za-z]{0,10}",
        any::<String>(),
    ]
}

fn edge_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..=9,
        1 => (0u32..usize::BITS).prop_map(|k| 1usize << k),
        1 => (0u32..usize::BITS).prop_map(|k| (1usize << k) - 1),
        1 => (0u32..usize::BITS).prop_map(|k| (1usize << k) + 1),
        1 => Just(usize::MAX),
        1 => Just(isize::MAX as usize),
        1 => any::<usize>(),
    ]
}

fn edge_isize() -> impl Strategy<Value = isize> {
    (edge_usize(), any::<bool>(), any::<bool>()).prop_map(|(v, negative, min)| match (negative, min) {
        (true, true) => isize::MIN,
        (true, false) => (v as isize).wrapping_neg(),
        _ => v as isize,
    })
}

/// Dims and strides, usually of one length and usually of ranks 2 to 9, small or at the edges.
fn dims_and_strides() -> impl Strategy<Value = (Vec<usize>, Vec<isize>)> {
    let small = (2usize..=9).prop_flat_map(|r| {
        (proptest::collection::vec(0usize..=6, r), proptest::collection::vec(-40isize..=400, r))
    });
    prop_oneof![
        4 => small,
        2 => (2usize..=9).prop_flat_map(|r| {
            (proptest::collection::vec(edge_usize(), r), proptest::collection::vec(edge_isize(), r))
        }),
        1 => (proptest::collection::vec(edge_usize(), 0..=11), proptest::collection::vec(edge_isize(), 0..=11)),
    ]
}

/// A parse result checked: an accepted layout prints a notation that parses back to it; an
/// error's span lies in the text it is about, and explaining it does not panic.
fn check_parse(
    spec: &str,
    letters: &str,
    parsed: Result<DynLayout, typed_layout::NotationError>,
) -> Result<(), TestCaseError> {
    match parsed {
        Ok(layout) => {
            prop_assert_eq!(layout.letters(), letters);
            prop_assert_eq!(Format::parse(spec, letters), Ok(layout.format()));
            let printed = layout.notation();
            prop_assert_eq!(
                DynLayout::parse_in(printed.as_str(), letters),
                Ok(layout),
                "{:?} printed {}",
                spec,
                printed
            );
        }
        Err(e) => {
            let text = if check_family_letters(letters).is_err() { letters } else { spec };
            let (start, end) = e.span();
            prop_assert!(
                start <= end && end <= text.len(),
                "{:?}: span {:?} outside {:?}",
                spec,
                e.span(),
                text
            );
            prop_assert!(!e.explain(text).is_empty());
            prop_assert!(!e.to_string().is_empty() && !e.kind().rule().is_empty());
        }
    }
    Ok(())
}

/// The descriptor's verdict, evaluated independently in `i128`: the first rule broken, in the
/// order rank, stride count, then per dimension zero, element count, reach.
fn expected_desc(dims: &[usize], strides: &[isize]) -> Result<(), LayoutError> {
    let rank = dims.len();
    if !(3..=8).contains(&rank) {
        return Err(LayoutError::RankOutOfRange { rank });
    }
    if strides.len() != rank {
        return Err(LayoutError::StrideCount { dims: rank, strides: strides.len() });
    }
    let letters = ["BMN", "NCHW", "NCDHW"].get(rank - 3).map(|l| l.as_bytes());
    let name = |d: usize| DimName { index: d, letter: letters.map(|l| l[d] as char) };
    let max = isize::MAX as i128;
    let (mut count, mut low, mut high) = (1i128, 0i128, 0i128);
    for (d, (&dim, &stride)) in dims.iter().zip(strides).enumerate() {
        if dim == 0 {
            return Err(LayoutError::ZeroDim { dim: name(d) });
        }
        count = count.saturating_mul(dim as i128);
        let reach = (dim as i128 - 1) * stride as i128;
        if reach < 0 {
            low += reach;
        } else {
            high += reach;
        }
        if count > max || reach > max || reach < isize::MIN as i128 || low < isize::MIN as i128 || high > max
        {
            return Err(LayoutError::SizeOverflow { dim: name(d) });
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(20_000))]

    #[test]
    fn notation_parser_never_panics(spec in spec_text(), letters in letters_text()) {
        check_parse(&spec, &letters, DynLayout::parse_in(&spec, &letters))?;
        check_parse(&spec, typed_layout::BuiltinFamily::for_spec(&spec).letters(), DynLayout::parse(&spec))?;
    }
}

proptest! {
    #![proptest_config(config(10_000))]

    #[test]
    fn descriptors_never_panic_and_name_the_first_broken_rule(
        (dims, strides) in dims_and_strides(),
        format in spec_text(),
        packed in "[NCHWDBM]{0,5}",
        letters in letters_text(),
    ) {
        let built = TensorDesc::new(DataType::Float, &dims, &strides);
        prop_assert_eq!(built.map(|_| ()), expected_desc(&dims, &strides), "{:?} {:?}", dims, strides);
        let Ok(desc) = built else { return Ok(()) };
        prop_assert_eq!(desc.dims(), &dims[..]);
        prop_assert_eq!(desc.strides(), &strides[..]);
        // Every question has an answer or an error; none panics or overflows.
        let _ = desc.overlap();
        let _ = desc.named_layouts();
        let _ = desc.spatially_packed();
        let _ = desc.fully_packed(&format);
        let _ = desc.partially_packed(&format, &packed);
        if let Ok(nd) = desc.cudnn() {
            // What cuDNN would get converts back to this descriptor exactly.
            let back = TensorDesc::from_cudnn(nd.data_type() as i32, nd.dims(), nd.strides());
            prop_assert_eq!(back, Ok(desc));
        }
        if let Ok(named) = desc.with_letters(&letters) {
            prop_assert_eq!(named.letters(), Some(letters.as_str()));
            let _ = named.fully_packed(&format);
            let _ = named.spatially_packed();
        }
    }

    #[test]
    fn cudnn_arrays_never_panic(
        data_type in prop_oneof![0i32..=12, any::<i32>()],
        dims in proptest::collection::vec(prop_oneof![3 => -2i32..=9, 1 => any::<i32>()], 0..=10),
        strides in proptest::collection::vec(prop_oneof![3 => -2i32..=400, 1 => any::<i32>()], 0..=10),
    ) {
        if let Ok(desc) = TensorDesc::from_cudnn(data_type, &dims, &strides) {
            // Accepted: within every cuDNN limit, so it converts back to the same arrays.
            let nd = desc.cudnn().unwrap();
            prop_assert_eq!((nd.data_type() as i32, nd.dims(), nd.strides()), (data_type, &dims[..], &strides[..]));
            prop_assert!(nd.size_in_bytes() <= (typed_layout::cudnn::MAX_ELEMENTS as usize) * 8);
        }
    }

    #[test]
    fn packed_shapes_never_panic(
        which in 0usize..NamedLayout::ALL.len() + 3,
        (dims, strides) in dims_and_strides(),
    ) {
        let layout = match which.checked_sub(NamedLayout::ALL.len()) {
            None => DynLayout::parse(NamedLayout::ALL[which].notation()).unwrap(),
            Some(k) => DynLayout::parse(["NC/32HW32", "NHWC, WC-packed", "C/4NHW4"][k]).unwrap(),
        };
        let format = layout.format();
        match layout.shape(&dims) {
            Ok(p) => {
                // Exactly the element count, and it fits in isize.
                let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                prop_assert_eq!(Some(p.len()), count);
                prop_assert!(p.len() <= isize::MAX as usize);
            }
            Err(e) => {
                let zero = dims.contains(&0);
                let rank_ok = dims.len() == format.rank();
                let product = dims.iter().map(|&d| d as i128).try_fold(1i128, |a, d| a.checked_mul(d));
                let vector_ok = format.vector().is_none_or(|v| !rank_ok || dims[v.dim] % v.width == 0);
                prop_assert!(
                    !rank_ok || zero || !vector_ok || product.is_none_or(|p| p > isize::MAX as i128),
                    "{} refused {:?}: {}", layout, dims, e
                );
            }
        }
        let unsigned: Vec<usize> = strides.iter().map(|&s| s.unsigned_abs()).collect();
        if let Ok(p) = layout.shape_with_strides(&dims, &unsigned) {
            // Accepted strides nest: a descriptor with them exists and never overlaps.
            prop_assert!(p.len() <= isize::MAX as usize);
            if format.vector().is_none() {
                let signed: Vec<isize> = unsigned.iter().map(|&s| s as isize).collect();
                let desc = TensorDesc::new(DataType::Half, &dims, &signed);
                prop_assert!(desc.is_ok(), "{} accepted {:?} {:?}: {:?}", layout, dims, unsigned, desc);
                prop_assert_ne!(desc.unwrap().overlap(), Overlap::Overlapping);
            }
        }
    }

    #[test]
    fn strided_views_never_panic(
        (dims, strides) in (proptest::collection::vec(edge_usize(), 4), proptest::collection::vec(edge_isize(), 4)),
        base in edge_usize(),
        len in 0usize..=96,
    ) {
        let dims: [usize; 4] = dims.try_into().unwrap();
        let strides: [isize; 4] = strides.try_into().unwrap();
        let data: Vec<i32> = (0..len as i32).collect();
        let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).unwrap_or(usize::MAX);
        if let Ok(view) = StridedView::<i32, Image>::new(dims, strides, base, &data) {
            // Accepted: every address lies in the buffer.
            if count <= 1 << 14 {
                let packed: Tensor<i32, Nchw> = view.to_layout().unwrap();
                let [n, c, h, w] = dims;
                for i in [[0, 0, 0, 0], [n - 1, c - 1, h - 1, w - 1], [n / 2, c / 2, h / 2, w / 2]] {
                    prop_assert_eq!(packed.get(i), view.get(i));
                }
            }
        }
        let mut out = data.clone();
        if let Ok(mut view) = StridedViewMut::<i32, Image>::new(dims, strides, base, &mut out) {
            // Accepted: in bounds and proven disjoint, so a conversion may write through it.
            prop_assert!(count <= len);
            let src = Tensor::<i32, Nchw>::from_fn(dims, |[a, b, c, d]| -((a + b + c + d) as i32) - 1).unwrap();
            view.copy_from(&src).unwrap();
            prop_assert_eq!(out.iter().filter(|&&v| v < 0).count(), count);
        } else {
            prop_assert_eq!(&out, &data, "a refused output is left alone");
        }
    }
}
