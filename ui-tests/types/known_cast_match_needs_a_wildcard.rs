// Rule: the casts the fused pass knows by name grow with the passes that compute them their own
// way, so a match on one (`Cast::known`) outside typed-layout keeps an arm for those to come.
use typed_layout::cast::{Cast, KnownCast, Unscaled};

fn main() {
    match <Unscaled as Cast<f32, half::f16>>::known(&Unscaled) {
        Some(KnownCast::Unscaled) => {}
        None => {}
    }
}
