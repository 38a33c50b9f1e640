//! The path of the crate an expansion names: passed in `#![layout(crate = "…")]`, or found in
//! the caller's Cargo.toml. It travels through the expansion in [`Ctx`], as zerocopy-derive's
//! does.

use proc_macro2::Span;
use proc_macro_crate::FoundCrate;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, Meta, Path, Token};

/// What every declaration of one invocation expands with.
pub(crate) struct Ctx {
    /// The crate whose `Family`, `Layout`, `Format` and built-in families the expansion names;
    /// `typed_layout` and `layout_types` both have them at their root.
    pub(crate) crate_path: Path,
}

/// What the caller calls a package (`"typed-layout"`), or `None` when it does not depend on it.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<FoundCrate>;

/// The caller's Cargo.toml (`CARGO_MANIFEST_DIR`), renames and workspace dependencies included.
pub(crate) fn cargo_toml(package: &str) -> Option<FoundCrate> {
    proc_macro_crate::crate_name(package).ok()
}

/// A caller that depends on the facade under its own name, as most do.
#[cfg(test)]
pub(crate) fn facade(package: &str) -> Option<FoundCrate> {
    (package == "typed-layout").then(|| FoundCrate::Name("typed_layout".to_owned()))
}

impl Ctx {
    /// The path passed in the invocation's inner attributes, else the one `lookup` finds; with
    /// every error in the attributes (the expansion goes on with the path it has).
    pub(crate) fn new(attrs: &[Attribute], lookup: Lookup<'_>) -> (Ctx, Option<syn::Error>) {
        let mut errors: Option<syn::Error> = None;
        let mut report = |e: syn::Error| match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        };
        let crate_path = passed(attrs, &mut report).unwrap_or_else(|| found(lookup));
        (Ctx { crate_path }, errors)
    }
}

/// `#![layout(crate = "::layout_types")]`: the first well-formed `crate` key.
fn passed(attrs: &[Attribute], report: &mut impl FnMut(syn::Error)) -> Option<Path> {
    let mut path = None;
    for attr in attrs {
        if !attr.path().is_ident("layout") {
            report(syn::Error::new_spanned(
                attr,
                format!(
                    "expected `#![layout(crate = \"…\")]`, found `#![{}{}]`",
                    spelled(attr.path()),
                    match attr.meta {
                        Meta::Path(_) => "",
                        Meta::List(_) => "(…)",
                        Meta::NameValue(_) => " = …",
                    }
                ),
            ));
            continue;
        }
        let keys = match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
            Ok(keys) => keys,
            Err(e) => {
                report(e);
                continue;
            }
        };
        for key in keys {
            if !key.path().is_ident("crate") {
                report(syn::Error::new_spanned(
                    key.path(),
                    format!(
                        "expected `crate`, the one key of `#![layout(…)]`, found `{}`",
                        spelled(key.path())
                    ),
                ));
                continue;
            }
            let value = match &key {
                Meta::NameValue(key) => &key.value,
                Meta::Path(_) | Meta::List(_) => {
                    report(syn::Error::new_spanned(
                        &key,
                        format!(
                            "expected `crate = \"…\"` with a path such as \"::layout_types\", found `{}`",
                            spelled(&key)
                        ),
                    ));
                    continue;
                }
            };
            match value {
                Expr::Lit(ExprLit { lit: Lit::Str(lit), .. }) => {
                    match lit.parse_with(Path::parse_mod_style) {
                        Ok(_) if path.is_some() => {
                            report(syn::Error::new_spanned(&key, "expected `crate` once, found it again"))
                        }
                        Ok(p) => path = Some(p),
                        Err(_) => report(syn::Error::new(
                            lit.span(),
                            format!("expected a path such as \"::layout_types\", found {:?}", lit.value()),
                        )),
                    }
                }
                _ => report(syn::Error::new_spanned(
                    value,
                    format!(
                        "expected a path in quotes such as \"::layout_types\", found `{}`",
                        spelled(value)
                    ),
                )),
            }
        }
    }
    path
}

/// Tokens as a message quotes them: `::layout_types`, not `:: layout_types`.
fn spelled(tokens: &impl ToTokens) -> String {
    tokens.to_token_stream().to_string().replace(" :: ", "::").replace(":: ", "::").replace(" (", "(")
}

/// The facade under whatever name the caller gave it, else layout-types, else `::typed_layout`
/// (whose "unresolved" error then names what is missing).
fn found(lookup: Lookup<'_>) -> Path {
    let name = match lookup("typed-layout") {
        // The facade's own tests, doctests and examples.
        Some(FoundCrate::Itself) => "typed_layout".to_owned(),
        Some(FoundCrate::Name(name)) => name,
        None => match lookup("layout-types") {
            Some(FoundCrate::Itself) => "layout_types".to_owned(),
            Some(FoundCrate::Name(name)) => name,
            None => "typed_layout".to_owned(),
        },
    };
    // Cargo's dependency names are identifiers; anything else falls back rather than panics.
    let ident =
        syn::parse_str::<Ident>(&name).unwrap_or_else(|_| Ident::new("typed_layout", Span::call_site()));
    let mut path = Path::from(ident);
    path.leading_colon = Some(Default::default());
    path
}

#[cfg(test)]
mod tests {
    use proc_macro_crate::FoundCrate;
    use quote::ToTokens;

    use super::{found, Ctx};

    fn path(lookup: &dyn Fn(&str) -> Option<FoundCrate>) -> String {
        found(lookup).to_token_stream().to_string().replace(' ', "")
    }

    fn name(package: &str, found: &str) -> impl Fn(&str) -> Option<FoundCrate> {
        let (package, found) = (package.to_owned(), found.to_owned());
        move |p| (p == package).then(|| FoundCrate::Name(found.clone()))
    }

    #[test]
    fn the_facade_first_then_layout_types_then_the_facade_by_default() {
        assert_eq!(path(&name("typed-layout", "typed_layout")), "::typed_layout");
        assert_eq!(path(&name("typed-layout", "tl")), "::tl");
        assert_eq!(path(&|p| (p == "typed-layout").then_some(FoundCrate::Itself)), "::typed_layout");
        assert_eq!(
            path(&|p| (p != "absent").then(|| FoundCrate::Name(p.replace('-', "_")))),
            "::typed_layout"
        );
        assert_eq!(path(&name("layout-types", "layout_types")), "::layout_types");
        assert_eq!(path(&name("layout-types", "lt")), "::lt");
        assert_eq!(path(&|p| (p == "layout-types").then_some(FoundCrate::Itself)), "::layout_types");
        assert_eq!(path(&|_| None), "::typed_layout");
        // Not an identifier (a malformed manifest): the default, no panic.
        assert_eq!(path(&name("typed-layout", "not an ident")), "::typed_layout");
    }

    #[test]
    fn this_crate_finds_the_facade_in_its_own_cargo_toml() {
        // layout-macros has typed-layout as a dev-dependency.
        assert_eq!(path(&super::cargo_toml), "::typed_layout");
    }

    fn ctx(attrs: proc_macro2::TokenStream) -> (String, Vec<String>) {
        let input: crate::parse::Input = syn::parse2(attrs).unwrap();
        let (ctx, errors) = Ctx::new(&input.attrs, &|_| None);
        let errors = errors.map(|e| e.into_iter().map(|e| e.to_string()).collect()).unwrap_or_default();
        (ctx.crate_path.to_token_stream().to_string().replace(' ', ""), errors)
    }

    #[test]
    fn a_passed_path_wins_and_every_mistake_is_reported() {
        assert_eq!(
            ctx(quote::quote!(#![layout(crate = "::layout_types")])),
            ("::layout_types".into(), vec![])
        );
        assert_eq!(ctx(quote::quote!(#![layout(crate = "my::reexport")])), ("my::reexport".into(), vec![]));
        assert_eq!(ctx(quote::quote!(#![layout()])), ("::typed_layout".into(), vec![]));
        let (path, errors) = ctx(quote::quote! {
            #![layout(crate = "not a path", krate = "::x", crate = ::layout_types, crate)]
            #![layout(crate = "::lt", crate = "::again")]
            #![allow(unused)]
        });
        assert_eq!(path, "::lt");
        assert_eq!(
            errors,
            [
                "expected a path such as \"::layout_types\", found \"not a path\"",
                "expected `crate`, the one key of `#![layout(…)]`, found `krate`",
                "expected a path in quotes such as \"::layout_types\", found `::layout_types`",
                "expected `crate = \"…\"` with a path such as \"::layout_types\", found `crate`",
                "expected `crate` once, found it again",
                "expected `#![layout(crate = \"…\")]`, found `#![allow(…)]`",
            ]
        );
        let (_, errors) = ctx(quote::quote!(#![layout(crate = "")]));
        assert_eq!(errors, ["expected a path such as \"::layout_types\", found \"\""]);
        let (_, errors) = ctx(quote::quote!(#![layout]));
        assert_eq!(errors.len(), 1);
    }
}
