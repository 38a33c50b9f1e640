// Rule: a foreign device pointer is never silently trusted: reading a CUDA DLPack tensor for an
// import takes an `unsafe` block, whose author vouches that the memory is that device's,
// complete, and unwritten while it is borrowed.
use typed_layout::gpu::dlpack::{self, DeviceDlpackRef, Dlpack};
use typed_layout::gpu::{DeviceTensor, Gpu};
use typed_layout::Nhwc;

fn import(gpu: &Gpu, foreign: &Dlpack) -> Result<DeviceTensor<f32, Nhwc>, Box<dyn std::error::Error>> {
    let r = DeviceDlpackRef::new(foreign)?;
    Ok(dlpack::import(gpu, &r)?)
}

fn main() {
    let _ = import;
}
