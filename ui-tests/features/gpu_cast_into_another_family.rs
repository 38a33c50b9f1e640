// Rule: the fused relayout, cast and pad moves a tensor between layouts of one family: on the
// device as on the CPU, an image (N, C, H, W) cannot be cast into a filter's buffer (K, C, R, S).
use typed_layout::cast::Unscaled;
use typed_layout::gpu::Gpu;
use typed_layout::{Kcrs, Nchw, Shape};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::new(0)?;
    let image = gpu.zeros::<f32, Nchw>(Shape::new([1, 3, 4, 4])?)?;
    let mut filter = gpu.zeros::<half::f16, Kcrs>(Shape::new([1, 8, 4, 4])?)?;
    gpu.relayout_cast_pad_into(&image, &mut filter, Unscaled)?;
    Ok(())
}
