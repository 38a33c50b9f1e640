// Rule: A layout's letters are its family's: a 5-D volume layout has N, C, D, H, W.
use typed_layout::Volume;
typed_layout::layout! {
    pub struct NotAVolume: Volume = "NHWC";
}

fn main() {}
