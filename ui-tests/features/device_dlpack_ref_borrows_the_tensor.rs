// Rule: a checked foreign tensor borrows the DLPack tensor it was read from: the tensor (and
// its deleter, which frees the memory) cannot go while the reference may still be imported.
use typed_layout::gpu::dlpack::{self, DeviceDlpackRef, Dlpack};
use typed_layout::gpu::{DeviceTensor, Gpu};
use typed_layout::Nhwc;

fn import(gpu: &Gpu, foreign: Dlpack) -> Result<DeviceTensor<f32, Nhwc>, Box<dyn std::error::Error>> {
    // SAFETY: the caller's tensor is complete device memory nothing writes.
    let r = unsafe { DeviceDlpackRef::new(&foreign)? };
    drop(foreign);
    Ok(dlpack::import(gpu, &r)?)
}

fn main() {
    let _ = import;
}
