// Rule: every letter must be a dimension of the layout's family. For a family the macro cannot
// see (declared elsewhere, by hand), the same parser runs in `const` evaluation: `cargo check`
// still reports it, at the spec.
use typed_layout::Family;

/// Sequences of images with a time axis, declared by hand.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clip;
impl Family for Clip {
    const LETTERS: &'static str = "NTCHW";
    type Dims = [usize; 5];
    type Strides = [isize; 5];
}

typed_layout::layout! {
    pub struct ClipNdhwc: Clip = "NTDHWC";
}

fn main() {}
