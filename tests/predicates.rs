//! The guide's predicates on its own examples and on random descriptors, each checked against a
//! brute-force evaluation of the definition: addresses enumerated for overlap and full packing,
//! the three partially-packed rules restated letter by letter.

use std::collections::HashSet;

mod support;

use proptest::prelude::*;
use support::mix;
use typed_layout::{DataType, NamedLayout, Overlap, TensorDesc};

/// Every address the descriptor reaches, with multiplicity.
fn addresses(dims: &[usize], strides: &[isize]) -> Vec<i128> {
    let mut out = vec![0i128];
    for (&d, &s) in dims.iter().zip(strides) {
        out = out.iter().flat_map(|&a| (0..d as i128).map(move |k| a + k * s as i128)).collect();
    }
    out
}

fn brute_overlapping(dims: &[usize], strides: &[isize]) -> bool {
    let all = addresses(dims, strides);
    all.iter().collect::<HashSet<_>>().len() != all.len()
}

/// Fully packed, by enumeration: strides positive, and walking the indices in format order
/// (last letter fastest) visits addresses 0, 1, 2, … in turn.
fn brute_fully_packed(dims: &[usize], strides: &[isize], letters: &str, format: &str) -> bool {
    if format.len() != dims.len() || strides.iter().any(|&s| s <= 0) {
        return false;
    }
    let perm: Vec<usize> = format.chars().map(|c| letters.find(c).unwrap()).collect();
    let d: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let s: Vec<isize> = perm.iter().map(|&p| strides[p]).collect();
    addresses(&d, &s).into_iter().enumerate().all(|(k, a)| a == k as i128)
}

/// The three partially-packed rules, letter by letter, as the guide states them.
fn brute_partially_packed(
    dims: &[usize],
    strides: &[isize],
    letters: &str,
    format: &str,
    packed: &str,
) -> bool {
    if strides.iter().any(|&s| s <= 0) {
        return false;
    }
    let letter = |c: char| letters.find(c).unwrap();
    let f: Vec<char> = format.chars().collect();
    for (i, &l) in f.iter().enumerate() {
        let stride = strides[letter(l)] as i128;
        let in_suffix = packed.contains(l);
        if i + 1 == f.len() {
            // "if the last tensor's dimension is present in the -packed suffix, its stride is 1"
            if in_suffix && stride != 1 {
                return false;
            }
        } else {
            let next = letter(f[i + 1]);
            let product = dims[next] as i128 * strides[next] as i128;
            if in_suffix && stride != product {
                return false; // "equal to the product of the (i+1)-st dimension by the (i+1)-st stride"
            }
            if !in_suffix && stride < product {
                return false; // "greater or equal to the product of the next dimension by the next stride"
            }
        }
    }
    true
}

fn permutations(letters: &str) -> Vec<String> {
    if letters.len() <= 1 {
        return vec![letters.to_string()];
    }
    let mut out = Vec::new();
    for (i, c) in letters.char_indices() {
        let rest: String = letters.chars().enumerate().filter(|&(j, _)| j != i).map(|(_, c)| c).collect();
        out.extend(permutations(&rest).into_iter().map(|p| format!("{c}{p}")));
    }
    out
}

/// Suffixes of `format` in its order: every subsequence.
fn subsequences(format: &str) -> Vec<String> {
    let chars: Vec<char> = format.chars().collect();
    (1u32..1 << chars.len())
        .map(|mask| chars.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, c)| *c).collect())
        .collect()
}

/// Random descriptors of ranks 3–8 whose strides are often packed or nearly packed (so the
/// predicates are true often enough to matter), sometimes arbitrary, zero or negative.
fn descriptor() -> impl Strategy<Value = (Vec<usize>, Vec<isize>)> {
    (3usize..=8)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(1usize..=if rank <= 5 { 4 } else { 3 }, rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                proptest::collection::vec((0usize..3, -3isize..=6), rank),
            )
        })
        .prop_map(|(dims, order, tweaks)| {
            // Packed strides in a random order, then some of them padded or replaced.
            let mut strides = vec![0isize; dims.len()];
            let mut s = 1isize;
            for (k, &d) in order.iter().rev().enumerate() {
                let (mode, v) = tweaks[k];
                strides[d] = match mode {
                    0 => s,
                    1 => s + v.max(0),
                    _ => v,
                };
                s = strides[d].abs().max(1) * dims[d] as isize;
            }
            (dims, strides)
        })
}

/// Family letters of each rank, 3 to 8 (6 to 8 as `layout!` families would name them).
fn letters_of(rank: usize) -> &'static str {
    ["BMN", "NCHW", "NCDHW", "NTCDHW", "GNTCDHW", "GNTCDHWS"][rank - 3]
}

/// A descriptor with its family's letters.
fn described(data_type: DataType, dims: &[usize], strides: &[isize]) -> TensorDesc {
    TensorDesc::new(data_type, dims, strides).unwrap().with_letters(letters_of(dims.len())).unwrap()
}

/// Formats to check: all of them up to rank 5; above, a sample (8! orders are too many), each
/// with a sample of its packed suffixes.
fn formats_and_suffixes(letters: &str, seed: u64) -> Vec<(String, Vec<String>)> {
    let mut k = 0;
    let mut next = move || {
        k += 1;
        mix(seed, k)
    };
    let formats = if letters.len() <= 5 {
        permutations(letters)
    } else {
        (0..6)
            .map(|_| {
                let mut f: Vec<char> = letters.chars().collect();
                for i in (1..f.len()).rev() {
                    f.swap(i, next() as usize % (i + 1));
                }
                f.into_iter().collect()
            })
            .collect()
    };
    formats
        .into_iter()
        .map(|f| {
            let mut subs = subsequences(&f);
            if subs.len() > 40 {
                subs = (0..40).map(|_| subs[next() as usize % subs.len()].clone()).collect();
            }
            (f, subs)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn overlap_agrees_with_enumeration((dims, strides) in descriptor()) {
        let desc = described(DataType::Float, &dims, &strides);
        let brute = brute_overlapping(&dims, &strides);
        match desc.overlap() {
            Overlap::Disjoint => prop_assert!(!brute, "{dims:?} {strides:?}"),
            Overlap::Overlapping => prop_assert!(brute, "{dims:?} {strides:?}"),
            Overlap::CannotTell => prop_assert!(false, "small tensors always get an exact answer"),
        }
    }

    #[test]
    fn packing_agrees_with_the_definitions((dims, strides) in descriptor(), seed in 1u64..) {
        let desc = described(DataType::Half, &dims, &strides);
        let letters = letters_of(dims.len());
        for (format, suffixes) in formats_and_suffixes(letters, seed) {
            let fully = desc.fully_packed(&format).unwrap();
            // Literally: every letter packed.
            prop_assert_eq!(fully, brute_partially_packed(&dims, &strides, letters, &format, &format));
            // By enumeration, which is the same thing once no dim is 1 (the literal rules also
            // constrain the strides of size-1 dims, which never move the address).
            if dims.iter().all(|&d| d > 1) {
                prop_assert_eq!(fully, brute_fully_packed(&dims, &strides, letters, &format));
            }
            for packed in suffixes {
                prop_assert_eq!(
                    desc.partially_packed(&format, &packed).unwrap(),
                    brute_partially_packed(&dims, &strides, letters, &format, &packed),
                    "{:?} {:?} {} {}", dims, strides, format, packed
                );
            }
        }
        if dims.len() >= 4 {
            // Spatially packed: NC<spatial> or CN<spatial>, spatial letters packed.
            let spatial: String = letters.chars().filter(|&c| c != 'N' && c != 'C').collect();
            let brute = [format!("NC{spatial}"), format!("CN{spatial}")]
                .iter()
                .any(|f| brute_partially_packed(&dims, &strides, letters, f, &spatial));
            prop_assert_eq!(desc.spatially_packed().unwrap(), brute);
        }
    }

    #[test]
    fn named_layout_matches_agree_with_packing((dims, strides) in descriptor()) {
        let desc = described(DataType::Int8, &dims, &strides);
        for layout in NamedLayout::ALL {
            let (_, letters) = layout.format();
            if desc.letters() != Some(letters) {
                // Another family's layout (a filter layout for an image descriptor, say).
                prop_assert!(!desc.matches(layout));
                continue;
            }
            // A match means: the strides of every dim above 1 equal the layout's packed strides.
            let mut canonical = strides.clone();
            let packed_strides = {
                let order: Vec<usize> = layout.notation().chars().map(|c| letters.find(c).unwrap()).collect();
                let mut s = vec![0isize; dims.len()];
                let mut acc = 1isize;
                for &d in order.iter().rev() { s[d] = acc; acc *= dims[d] as isize; }
                s
            };
            for (k, &d) in dims.iter().enumerate() { if d == 1 { canonical[k] = packed_strides[k]; } }
            prop_assert_eq!(desc.matches(layout), canonical == packed_strides, "{:?}", layout);
        }
    }
}

#[test]
fn guide_examples() {
    // NHWC, WC-packed: c_stride == 1 and w_stride == c_dim * c_stride; N and H padded.
    let d = TensorDesc::new(DataType::Float, &[2, 8, 3, 5], &[1000, 1, 64, 8]).unwrap();
    assert!(d.partially_packed("NHWC", "WC").unwrap());
    assert!(!d.partially_packed("NHWC", "HWC").unwrap());
    assert!(!d.fully_packed("NHWC").unwrap());
    // NCHW only N-packed.
    let d = TensorDesc::new(DataType::Float, &[2, 3, 4, 5], &[3 * 24, 24, 5, 1]).unwrap();
    assert!(d.partially_packed("NCHW", "N").unwrap());
    assert!(d.spatially_packed().unwrap());
    // An overlapping input: stride[i-1] < stride[i] * dim[i].
    let d = TensorDesc::new(DataType::Float, &[1, 3, 4, 4], &[48, 1, 4, 1]).unwrap();
    assert_eq!(d.overlap(), Overlap::Overlapping);
    assert!(!d.partially_packed("NHWC", "C").unwrap());
}
