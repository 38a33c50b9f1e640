// Rule: Every letter must be a dimension of the layout's family: a 4-D image has N, C, H, W.
typed_layout::layout! {
    pub struct Nchx = "NCHX";
}

fn main() {}
