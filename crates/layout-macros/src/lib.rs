//! `layout!`: declare tensor layouts in cuDNN's notation, checked when the crate compiles.
//!
//! Use it through the facade, as `typed_layout::layout!`, or directly, as
//! `layout_macros::layout!` beside layout-types: the expansion names the crate the caller
//! depends on, or the one it passes ([the crate path](macro@layout#the-crate-path)). Each
//! declaration makes a zero-sized type that implements `Layout`, usable wherever a named layout
//! is: `Shape`, `Tensor`, conversions, `DynLayout::of`. An illegal spec is a compile error (reported by `cargo check`)
//! that names the broken rule, marks the offending letter or number, and names the guide's
//! section.
//!
//! The grammar, with accepted and rejected examples, is on [`layout!`](macro@layout).

#![forbid(unsafe_code)]

#[cfg(test)]
mod agreement;
mod crate_path;
mod expand;
mod parse;
#[cfg(test)]
mod snapshots;
mod validate;

use proc_macro::TokenStream;

/// Declares layouts (and families) in cuDNN notation, checked when the crate compiles.
///
/// # Grammar
///
/// ```text
/// layout! { item* }
///
/// item     := attrs vis 'struct' Name [':' Family] '=' "notation" ';'   a layout
///           | attrs vis 'family' Name '=' "LETTERS" ';'                a family
///
/// notation := format [', ' packed '-packed']     "NHWC", "NHWC, WC-packed"
/// format   := letters in decreasing-stride order, each letter of the family once;
///             C may be vectorized as C/x … x     "NC/4HW4", "NC/32DHW32"
/// packed   := letters of the format, in its order: these have exactly the packed stride,
///             the others may be padded (the guide's partially packed tensors)
/// LETTERS  := 3 to 8 distinct uppercase letters: the family's dimensions in logical order
/// ```
///
/// Without `: Family`, the layout belongs to the built-in family its letters name: `Image`
/// (`NCHW`), `Volume` (`NCDHW`) or `Matmul` (`BMN`). Attributes, doc comments included, go on
/// the declared type; visibility is yours.
///
/// # Accepted
///
/// ```
/// use typed_layout::{layout, Layout, Shape, Tensor, Nchw};
///
/// layout! {
///     /// int8x4 images: channels in groups of four.
///     pub struct Nc4hw4 = "NC/4HW4";
///     /// Channels-first, batch-second images.
///     pub struct Cnhw = "CNHW";
///     /// Volumes in groups of 32 channels.
///     pub struct Nc32dhw32 = "NC/32DHW32";
///     /// NHWC whose images (N) and rows (H) may be padded.
///     pub struct NhwcRows = "NHWC, WC-packed";
///     /// NCHW in which only N is packed: channels may be padded apart.
///     pub struct NchwNPacked = "NCHW, N-packed";
///
///     /// Clips: a batch of volumes over time, in this logical order.
///     pub family Clip = "NTCDHW";
///     /// Clips stored channels-last.
///     pub struct ClipNdhwc: Clip = "NTDHWC";
/// }
///
/// assert_eq!(Nc4hw4::NOTATION, "NC/4HW4");
/// assert_eq!(NhwcRows::NOTATION, "NHWC, WC-packed");
/// assert_eq!(Shape::<Cnhw>::new([2, 3, 4, 5])?.strides(), [20, 40, 5, 1]);
/// assert_eq!(Shape::<ClipNdhwc>::new([1, 2, 3, 4, 5, 6])?.strides(), [720, 360, 1, 90, 18, 3]);
///
/// let x = Tensor::<f32, Nchw>::from_fn([1, 8, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
/// let y: Tensor<f32, Nc4hw4> = x.to_layout()?;
/// assert_eq!(&y.as_slice()[..5], &[0.0, 4.0, 8.0, 12.0, 1.0]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// # Rejected
///
/// Every rule of the notation has a compile-fail case in the repository's `ui-tests/`, with the
/// message a user sees. For example, a vector suffix that does not repeat its width:
///
/// ```compile_fail
/// typed_layout::layout! {
///     pub struct Bad = "NC/32HW4";
/// }
/// ```
///
/// reports
///
/// ```text
/// error: invalid layout "NC/32HW4": the vector suffix repeats the width after `/` (NC/32HW32, not NC/32HW4)
///          | NC/32HW4
///          |        ^ here
///          = guide: NC/32HW32 Memory Layout
///          = family `Image` (N, C, H, W in logical order), inferred from the letters; …
/// ```
///
/// A packed letter that is not in the format, and letters that do not match the stated family:
///
/// ```compile_fail
/// typed_layout::layout! {
///     pub struct Rows = "NHWC, DC-packed";
/// }
/// ```
///
/// ```compile_fail
/// use typed_layout::Volume;
/// typed_layout::layout! {
///     pub struct NotAVolume: Volume = "NHWC";
/// }
/// ```
///
/// All errors of one invocation are reported together, and each rejected declaration still
/// declares its type (in its family's logical order), so code that uses it reports nothing
/// further.
///
/// The rules themselves live in `layout_types::notation` and `layout_types::family`; the macro
/// calls them, so `DynLayout::parse` gives the same verdict at run time.
///
/// # The crate path
///
/// The expansion names items at the root of one crate: `Family`, `Layout`, `Format` and the
/// built-in families `Image`, `Volume`, `Matmul`, which `typed_layout` and `layout_types` both
/// have. It takes the crate from the caller's Cargo.toml: `typed-layout` under the name the
/// caller gave it (`tl = { package = "typed-layout", … }` gives `::tl`), else `layout-types`.
/// With neither, it names `::typed_layout`, and the compiler's "unresolved" error names that
/// path.
///
/// Pass the path instead, in an inner attribute at the very start of the invocation, where the
/// lookup cannot see it: a re-export (`crate = "crate::reexported"`), or a crate that has
/// layout-types as a dependency but typed-layout only as a dev-dependency (the lookup does not
/// tell the two apart).
///
/// ```
/// use layout_types::{Layout, Nchw, Tensor};
///
/// layout_macros::layout! {
///     #![layout(crate = "::layout_types")]
///     /// int8x4 images.
///     pub struct Nc4hw4 = "NC/4HW4";
/// }
///
/// assert_eq!(Nc4hw4::NOTATION, "NC/4HW4");
/// let y: Tensor<u8, Nc4hw4> = Tensor::<u8, Nchw>::zeros([1, 8, 2, 2])?.to_layout()?;
/// assert_eq!(y.as_slice().len(), 32);
/// # Ok::<(), layout_types::LayoutError>(())
/// ```
///
/// `crate` is the only key, and its value is a path in quotes; anything else is a compile
/// error, and the declarations still expand, naming the crate found in Cargo.toml:
///
/// ```compile_fail
/// layout_macros::layout! {
///     #![layout(crate = "layout types")]
///     pub struct Nc4hw4 = "NC/4HW4";
/// }
/// ```
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    layout_impl(input.into(), &crate_path::cargo_toml).into()
}

/// parse → validate → expand; every error (in the crate attribute, in the specs) is emitted
/// beside the expansion, whose rejected declarations are placeholders. `lookup` finds the crate
/// path when the invocation does not pass one.
fn layout_impl(input: proc_macro2::TokenStream, lookup: crate_path::Lookup<'_>) -> proc_macro2::TokenStream {
    let input: parse::Input = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let (ctx, attr_errors) = crate_path::Ctx::new(&input.attrs, lookup);
    let (checked, spec_errors) = validate::validate(&input);
    let mut out = expand::expand(&ctx, &checked);
    for e in [attr_errors, spec_errors].into_iter().flatten() {
        out.extend(e.to_compile_error());
    }
    out
}
