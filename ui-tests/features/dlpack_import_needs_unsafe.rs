// Rule: importing foreign memory is never silently trusted: reading a DLPack tensor's data
// pointer takes an `unsafe` block, whose author vouches that the memory is live and unwritten.
use typed_layout::interop::dlpack::{self, DlpackRef};
use typed_layout::{Nchw, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exported = dlpack::export(Tensor::<f32, Nchw>::zeros([1, 2, 2, 2])?)?;
    let r = DlpackRef::new(&exported)?;
    let _view = dlpack::tensor_view::<f32, Nchw>(&r)?;
    Ok(())
}
