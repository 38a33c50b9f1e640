//! The grammar of a `layout!` invocation, parsed with syn into plain declarations. Nothing here
//! knows the guide's rules; [`crate::validate`] applies them.

use proc_macro2::Ident;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, LitStr, Path, Token, Visibility};

/// Everything inside `layout! { … }`.
pub(crate) struct Input {
    /// Inner attributes first: `#![layout(crate = "::layout_types")]` ([`crate::crate_path`]).
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) items: Vec<Item>,
}

/// One declaration.
pub(crate) enum Item {
    /// `pub family Clip = "NTCDHW";`
    Family(FamilyDecl),
    /// `pub struct Rows: Image = "NHWC, WC-packed";` (the family is optional).
    Layout(LayoutDecl),
}

pub(crate) struct FamilyDecl {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) name: Ident,
    pub(crate) letters: LitStr,
}

pub(crate) struct LayoutDecl {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) name: Ident,
    pub(crate) family: Option<Path>,
    pub(crate) spec: LitStr,
}

mod kw {
    syn::custom_keyword!(family);
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_inner)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(Input { attrs, items })
    }
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let lookahead = input.lookahead1();
        if lookahead.peek(kw::family) {
            input.parse::<kw::family>()?;
            let name = input.parse()?;
            input.parse::<Token![=]>()?;
            let letters = input.parse()?;
            input.parse::<Token![;]>()?;
            Ok(Item::Family(FamilyDecl { attrs, vis, name, letters }))
        } else if lookahead.peek(Token![struct]) {
            input.parse::<Token![struct]>()?;
            let name = input.parse()?;
            let family = if input.peek(Token![:]) {
                input.parse::<Token![:]>()?;
                Some(input.parse()?)
            } else {
                None
            };
            input.parse::<Token![=]>()?;
            let spec = input.parse()?;
            input.parse::<Token![;]>()?;
            Ok(Item::Layout(LayoutDecl { attrs, vis, name, family, spec }))
        } else {
            Err(lookahead.error())
        }
    }
}
