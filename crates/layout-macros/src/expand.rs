//! Tokens for each checked declaration: the zero-sized type, its `Family` or `Layout` impl (and
//! `PerDimStrides` where no dimension is vectorized), and for rejected declarations a
//! placeholder that keeps the rest of the crate compiling.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::crate_path::Ctx;
use crate::validate::{Checked, FamilyRef, Letters, Verdict};

/// The doc line of a placeholder type.
const PLACEHOLDER: &str = "Placeholder for a rejected declaration.";

/// The zero-sized type itself: the user's attributes, a generated doc line, the derives.
fn zero_sized(attrs: &[syn::Attribute], vis: &syn::Visibility, name: &syn::Ident, note: &str) -> TokenStream {
    quote! {
        #(#attrs)*
        #[doc = ""]
        #[doc = #note]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        #vis struct #name;
    }
}

pub(crate) fn expand(ctx: &Ctx, checked: &[Checked<'_>]) -> TokenStream {
    checked.iter().map(|item| expand_one(ctx, item)).collect()
}

fn expand_one(ctx: &Ctx, item: &Checked<'_>) -> TokenStream {
    let k = &ctx.crate_path;
    match item {
        Checked::Family { decl, letters } => {
            let name = &decl.name;
            let (letters, note) = match letters {
                Letters::Valid(l) => (l.clone(), format!("Letters, in logical order: `{l}`.")),
                Letters::Placeholder(rank) => ("ABCDEFGH"[..*rank].to_owned(), PLACEHOLDER.to_owned()),
            };
            let rank = letters.len();
            let ty = zero_sized(&decl.attrs, &decl.vis, name, &note);
            quote! {
                #ty

                impl #k::Family for #name {
                    const LETTERS: &'static str = #letters;
                    type Dims = [usize; #rank];
                    type Strides = [isize; #rank];
                }
            }
        }
        Checked::Layout { decl, family, verdict } => {
            let name = &decl.name;
            let family_path = match family {
                FamilyRef::Builtin { path: Some(p), .. }
                | FamilyRef::Local { path: p, .. }
                | FamilyRef::Foreign(p) => {
                    quote!(#p)
                }
                FamilyRef::Builtin { family, path: None } => {
                    let ident = proc_macro2::Ident::new(family.name(), Span::call_site());
                    quote!(#k::#ident)
                }
            };
            let letters = quote!(<#family_path as #k::Family>::LETTERS);
            let spec = &decl.spec;
            let (format, note) = match verdict {
                // A placeholder: the family's logical order, fully packed; the error is reported.
                Verdict::Rejected => {
                    (quote!(#k::Format::parse_const(#letters, #letters)), PLACEHOLDER.to_owned())
                }
                Verdict::Valid | Verdict::Deferred => (
                    quote_spanned!(spec.span()=> #k::Format::parse_const(#spec, #letters)),
                    format!("Layout `{}`, declared with `layout!`.", spec.value()),
                ),
            };
            // Evaluated by `cargo check`: the backstop for families whose letters the macro
            // cannot see (specs it checked itself need none).
            let check = match verdict {
                Verdict::Deferred => quote_spanned! {spec.span()=>
                    const _: #k::Format = <#name as #k::Layout>::FORMAT;
                },
                _ => TokenStream::new(),
            };
            // Every dimension has one stride unless C is vectorized (`C/x…x`); a placeholder is
            // the family's logical order, packed.
            let per_dim = match verdict {
                Verdict::Rejected => true,
                Verdict::Valid | Verdict::Deferred => !spec.value().contains('/'),
            };
            let per_dim = match per_dim {
                true => quote!(impl #k::PerDimStrides for #name {}),
                false => TokenStream::new(),
            };
            let ty = zero_sized(&decl.attrs, &decl.vis, name, &note);
            quote! {
                #ty

                impl #k::Layout for #name {
                    type Family = #family_path;
                    const FORMAT: #k::Format = #format;
                }

                #per_dim

                #check
            }
        }
    }
}
