//! The macro and the runtime parser agree: for every spec in a table, `layout!` rejects it
//! exactly when `DynLayout` does, with the same rule marked at the same bytes, and accepts it
//! with the same family.

use layout_types::{DynLayout, NotationError};
use quote::quote;

use crate::crate_path::facade;
use crate::layout_impl;

/// (spec, family): `None` lets the macro infer a built-in family; `Some(letters)` states one,
/// declared in the same invocation (built-in letters are spelled through their type).
const TABLE: &[(&str, Option<&str>)] = &[
    // Accepted: plain formats of every built-in family.
    ("NCHW", None),
    ("NHWC", None),
    ("CHWN", None),
    ("CNHW", None),
    ("HWNC", None),
    ("NCDHW", None),
    ("NDHWC", None),
    ("CDHWN", None),
    ("BMN", None),
    ("BNM", None),
    ("MBN", None),
    // Accepted: vectorized C.
    ("NC/4HW4", None),
    ("NC/32HW32", None),
    ("NC/1HW1", None),
    ("NC/16HW16", None),
    ("NC/32DHW32", None),
    ("C/4NHW4", None),
    // Accepted: partially packed.
    ("NHWC, WC-packed", None),
    ("NCHW, N-packed", None),
    ("NCHW, HW-packed", None),
    ("NCDHW,DHW-packed", None),
    ("NC/4HW4, HW-packed", None),
    ("BMN, N-packed", None),
    ("NHWC, NHWC-packed", None),
    // Accepted: user families of ranks 3 to 8.
    ("NTDHWC", Some("NTCDHW")),
    ("NTCDHW, DHW-packed", Some("NTCDHW")),
    ("NC/8THW8", Some("NCTHW")),
    ("XYZ", Some("XYZ")),
    ("ABCDEFGH", Some("HGFEDCBA")),
    // Rejected: letters.
    ("", None),
    ("NCHX", None),
    ("NcHW", None),
    ("NCHWW", None),
    ("NCH", None),
    ("NTHWC", None),
    ("N-CHW", None),
    ("NHWC", Some("NCDHW")),
    ("NCDHW", Some("NCHW")),
    // Rejected: vectors.
    ("NC/0HW0", None),
    ("NC/32HW4", None),
    ("NC/32HW", None),
    ("NCH/4W4", None),
    ("NC/4H/4W4", None),
    ("/4NCHW4", None),
    ("NC/HW", None),
    ("N4CHW", None),
    ("NC/4HW4N", None),
    ("NC/99999999999999999999999HW1", None),
    ("BM/4N4", None),
    // Rejected: packing clauses.
    ("NHWC, DC-packed", None),
    ("NHWC, CW-packed", None),
    ("NHWC, WWC-packed", None),
    ("NHWC, -packed", None),
    ("NHWC, WC", None),
    ("NHWC, WC-padded", None),
    ("NHWC, wC-packed", None),
    ("NTDHWC, TX-packed", Some("NTCDHW")),
    // Rejected: family letters.
    ("AB", Some("AB")),
    ("NCHN", Some("NCHN")),
    ("ABCDEFGHI", Some("ABCDEFGHI")),
    ("NcHW", Some("NcHW")),
];

fn expand(spec: &str, family: Option<&str>) -> proc_macro2::TokenStream {
    let tokens = match family {
        None => quote!(pub struct X = #spec;),
        Some(letters) => quote! {
            pub family F = #letters;
            pub struct X: F = #spec;
        },
    };
    layout_impl(tokens, &facade)
}

/// The messages of the `compile_error!`s in an expansion, unescaped.
fn compile_errors(out: proc_macro2::TokenStream) -> Vec<String> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = out.into_iter().collect();
    tokens
        .windows(3)
        .filter_map(|w| match w {
            [TokenTree::Ident(i), TokenTree::Punct(p), TokenTree::Group(g)]
                if i == "compile_error" && p.as_char() == '!' =>
            {
                syn::parse2::<syn::LitStr>(g.stream()).ok().map(|l| l.value())
            }
            _ => None,
        })
        .collect()
}

/// The runtime verdict, and the text the macro must then contain.
fn runtime(spec: &str, family: Option<&str>) -> Result<DynLayout, (NotationError, String)> {
    let parsed = match family {
        None => DynLayout::parse(spec),
        Some(letters) => DynLayout::parse_in(spec, letters),
    };
    parsed.map_err(|e| {
        // A bad family is reported on the family's letters, everything else on the spec.
        let text = match family {
            Some(letters) if layout_types::check_family_letters(letters).is_err() => letters,
            _ => spec,
        };
        (e, e.explain(text))
    })
}

/// Expands `spec` and checks the macro against the runtime; returns whether it was accepted.
fn agree(spec: &str, family: Option<&str>) -> Result<bool, String> {
    let tokens = expand(spec, family);
    let out = tokens.to_string();
    let errors = compile_errors(tokens);
    match runtime(spec, family) {
        Ok(layout) => {
            if !errors.is_empty() {
                return Err(format!("{spec:?}: runtime accepts, macro rejects:\n{out}"));
            }
            // The inferred family is the runtime's.
            if family.is_none() {
                let builtin = layout_types::BuiltinFamily::for_spec(spec);
                if layout.letters() != builtin.letters() || !out.contains(&format!(":: {}", builtin.name())) {
                    return Err(format!("{spec:?}: family {} not in\n{out}", builtin.name()));
                }
            }
            Ok(true)
        }
        Err((e, explanation)) => {
            // One error, whose message holds the runtime's explanation.
            if errors.len() != 1 || !errors[0].contains(&explanation) {
                return Err(format!("{spec:?}: runtime says {e}, macro (one error expected):\n{out}"));
            }
            Ok(false)
        }
    }
}

#[test]
fn macro_and_runtime_agree_on_every_spec() {
    assert!(TABLE.len() >= 40);
    let (mut accepted, mut rejected) = (0, 0);
    for &(spec, family) in TABLE {
        match agree(spec, family) {
            Ok(true) => accepted += 1,
            Ok(false) => rejected += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(accepted >= 20 && rejected >= 20, "{accepted} accepted, {rejected} rejected");
}

mod fuzz {
    use proptest::prelude::*;

    use super::{agree, TABLE};

    /// One edit of a table spec: a character deleted, replaced or inserted (any character,
    /// usually one of the notation's).
    fn edited() -> impl Strategy<Value = (String, Option<&'static str>)> {
        let ch = prop_oneof![3 => proptest::sample::select("NCHWDBM/0123456789, -packedX".chars().collect::<Vec<_>>()), 1 => any::<char>()];
        (proptest::sample::select(TABLE), 0usize..3, any::<usize>(), ch).prop_map(
            |((spec, family), kind, at, ch)| {
                let mut chars: Vec<char> = spec.chars().collect();
                let at = at % (chars.len() + 1);
                match kind {
                    0 if at < chars.len() => drop(chars.remove(at)),
                    1 if at < chars.len() => chars[at] = ch,
                    _ => chars.insert(at, ch),
                }
                (chars.into_iter().collect(), family)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("TL_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// The macro never panics on an edited spec, and its verdict is the runtime's.
        #[test]
        fn macro_and_runtime_agree_on_edited_specs((spec, family) in edited()) {
            agree(&spec, family).map_err(TestCaseError::fail)?;
        }
    }
}

#[test]
fn all_errors_of_one_invocation_are_reported_with_placeholders() {
    let out = layout_impl(
        quote! {
            pub struct A = "NC/32HW4";
            pub struct B = "NHWC";
            pub struct C = "NHWC, DC-packed";
        },
        &facade,
    )
    .to_string();
    assert_eq!(out.matches("compile_error").count(), 2, "{out}");
    // Every declared type exists, rejected ones as placeholders.
    for name in ["struct A", "struct B", "struct C"] {
        assert!(out.contains(name), "{name} missing:\n{out}");
    }
    assert_eq!(out.matches("Placeholder for a rejected declaration").count(), 2, "{out}");
}

#[test]
fn syntax_errors_name_what_was_expected() {
    let out = layout_impl(quote!(pub struct A "NCHW";), &facade).to_string();
    assert!(out.contains("compile_error") && out.contains("expected `=`"), "{out}");
    let out = layout_impl(quote!(pub enum A = "NCHW";), &facade).to_string();
    assert!(out.contains("expected `family` or `struct`"), "{out}");
}
