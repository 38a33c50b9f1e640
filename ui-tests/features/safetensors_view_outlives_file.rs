// Rule: a zero-copy view of a .safetensors tensor borrows the file's bytes: it cannot outlive
// them (load a copy to keep the tensor after the bytes are gone).
use typed_layout::interop::safetensors::{Safetensors, Writer};
use typed_layout::{Nchw, Tensor, TensorView};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t = Tensor::<f32, Nchw>::zeros([1, 2, 2, 2])?;
    let view: TensorView<'_, f32, Nchw>;
    {
        let bytes = Writer::new().add("t", &t)?.to_bytes()?;
        let file = Safetensors::new(&bytes)?;
        view = file.view::<f32, Nchw>("t")?;
    }
    println!("{:?}", view.as_slice());
    Ok(())
}
