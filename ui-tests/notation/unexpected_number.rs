// Rule: Numbers appear only as the vector width after `/` and as its suffix.
typed_layout::layout! {
    pub struct Number = "N4CHW";
}

fn main() {}
