//! Expansion snapshots: each case's parse → validate → expand output, formatted, must equal
//! its file under `tests/snapshots/`, so a change to the expansion shows as a reviewable diff.
//! `UPDATE_SNAPSHOTS=1 cargo test -p layout-macros snapshots` rewrites the stale and missing
//! ones (review the diff); a snapshot whose case is gone fails until it is deleted.

use std::path::{Path, PathBuf};

use proc_macro_crate::FoundCrate;

use crate::layout_impl;

/// One invocation and the caller it expands for.
struct Case {
    /// The snapshot is `tests/snapshots/{name}.expanded.rs`.
    name: &'static str,
    /// The caller's Cargo.toml: (package, the name the caller gives it).
    deps: &'static [(&'static str, &'static str)],
    /// What the user writes inside `layout! { … }`.
    input: &'static str,
}

/// A caller that depends on the facade under its own name, as most do.
const FACADE: &[(&str, &str)] = &[("typed-layout", "typed_layout")];

const CASES: &[Case] = &[
    Case {
        name: "builtin_image",
        deps: FACADE,
        input: r#"
            /// Channels first, then the batch.
            pub struct Cnhw = "CNHW";
        "#,
    },
    Case {
        name: "builtin_volume_and_matmul",
        deps: FACADE,
        input: r#"
            pub(crate) struct Ndhwc = "NDHWC";
            struct Mbn = "MBN";
        "#,
    },
    Case {
        name: "ncxhwx",
        deps: FACADE,
        input: r#"
            /// int8x32 images.
            #[allow(dead_code)]
            pub struct Nc32hw32 = "NC/32HW32";
        "#,
    },
    Case {
        name: "partially_packed",
        deps: FACADE,
        input: r#"
            /// NHWC whose images and rows may be padded.
            pub struct NhwcRows = "NHWC, WC-packed";
        "#,
    },
    Case {
        name: "family_and_layout",
        deps: FACADE,
        input: r#"
            /// Clips: batches of volumes over time.
            pub family Clip = "NTCDHW";
            pub struct ClipLast: Clip = "NTDHWC";
        "#,
    },
    Case {
        name: "builtin_family_stated",
        deps: FACADE,
        input: r#"
            pub struct Hwnc: typed_layout::Image = "HWNC";
        "#,
    },
    Case {
        name: "family_from_elsewhere",
        deps: FACADE,
        input: r#"
            pub struct ClipLast: clips::Clip = "NTDHWC";
        "#,
    },
    Case {
        name: "rejected",
        deps: FACADE,
        input: r#"
            pub struct Int8x32 = "NC/32HW4";
            pub family Bad = "NCHN";
            pub struct BadLast: Bad = "NHNC";
        "#,
    },
    Case {
        name: "crate_passed",
        deps: FACADE,
        input: r#"
            #![layout(crate = "::layout_types")]
            pub struct Nc4hw4 = "NC/4HW4";
        "#,
    },
    Case {
        name: "crate_renamed",
        deps: &[("typed-layout", "tl"), ("layout-types", "layout_types")],
        input: r#"
            pub struct Nc4hw4 = "NC/4HW4";
        "#,
    },
    Case {
        name: "crate_layout_types_only",
        deps: &[("layout-types", "layout_types"), ("layout-macros", "layout_macros")],
        input: r#"
            pub struct Nc4hw4 = "NC/4HW4";
        "#,
    },
    Case {
        name: "crate_not_found",
        deps: &[],
        input: r#"
            pub struct Nc4hw4 = "NC/4HW4";
        "#,
    },
    Case {
        name: "crate_attribute_rejected",
        deps: FACADE,
        input: r#"
            #![layout(crate = "layout types", krate = "::layout_types")]
            pub struct Nc4hw4 = "NC/4HW4";
        "#,
    },
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// The input without the indentation it has in this file.
fn dedented(input: &str) -> Vec<&str> {
    let lines: Vec<&str> = input.trim_end().lines().map(str::trim_end).skip_while(|l| l.is_empty()).collect();
    let indent =
        lines.iter().filter(|l| !l.is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines.iter().map(|l| l.get(indent..).unwrap_or("")).collect()
}

/// The snapshot text: what was expanded, for which caller, then the formatted expansion.
fn snapshot(case: &Case) -> String {
    let lookup = |package: &str| {
        case.deps.iter().find(|(p, _)| *p == package).map(|(_, name)| FoundCrate::Name((*name).to_owned()))
    };
    let input: proc_macro2::TokenStream = case.input.parse().expect("case input tokenizes");
    let out = layout_impl(input, &lookup);
    let file: syn::File = syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{}: {e}\n{out}", case.name));

    let deps = match case.deps {
        [] => "none of typed-layout, layout-types".to_owned(),
        deps => deps.iter().map(|(p, n)| format!("{p} as `{n}`")).collect::<Vec<_>>().join(", "),
    };
    let mut text = String::from("// The expansion of\n//\n// layout! {\n");
    for line in dedented(case.input) {
        text += &format!("//     {line}\n").replace("     \n", "\n");
    }
    text += &format!("// }}\n//\n// for a caller that depends on {deps}.\n\n");
    text + &prettyplease::unparse(&file)
}

#[test]
fn expansions_equal_their_snapshots() {
    let dir = dir();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut problems = Vec::new();
    for case in CASES {
        let path = dir.join(format!("{}.expanded.rs", case.name));
        let now = snapshot(case);
        let committed = std::fs::read_to_string(&path).ok();
        if committed.as_deref() == Some(now.as_str()) {
            continue;
        }
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &now).unwrap();
        } else {
            let state = if committed.is_some() { "stale" } else { "missing" };
            problems.push(format!("{} is {state}; its expansion now:\n{now}", path.display()));
        }
    }
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let case = name.strip_suffix(".expanded.rs");
        if !CASES.iter().any(|c| Some(c.name) == case) {
            problems.push(format!(
                "{} has no case in src/snapshots.rs: delete it or add the case",
                path.display()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\nRerun with UPDATE_SNAPSHOTS=1 and review the diff.",
        problems.join("\n\n")
    );
}

#[test]
fn case_names_are_distinct() {
    for (i, case) in CASES.iter().enumerate() {
        assert!(CASES[..i].iter().all(|c| c.name != case.name), "{} twice", case.name);
    }
}
