// Rule: cuDNN's INT8x32 filter reorder is done once: a reordered filter is its own type, which
// is neither a KC/32RS32 tensor to reorder again nor interchangeable with one.
use typed_layout::conv::reorder::{reorder_int8x32, ReorderedFilter};
use typed_layout::{KcxRsx, Tensor};

fn convolve(_weights: &ReorderedFilter<i8>) {}

fn main() -> Result<(), typed_layout::LayoutError> {
    let w = Tensor::<i8, KcxRsx<32>>::zeros([32, 32, 3, 3])?;
    let once = reorder_int8x32(&w)?;
    let _twice = reorder_int8x32(&once)?;
    convolve(&w);
    Ok(())
}
