// Rule: in KC/xRSx the vector width after C and at the end are one number, as in NC/xHWx: the
// checks images get apply to filter notation too.
use typed_layout::layout;

layout! {
    pub struct Bad = "KC/32RS4";
}

fn main() {}
