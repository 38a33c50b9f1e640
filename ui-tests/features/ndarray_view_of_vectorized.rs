// Rule: an ndarray view has one stride per dimension; NC/xHWx's vectorized C has two (its groups
// and its lanes), so only layouts with per-dimension strides are viewed without a copy.
use typed_layout::interop::ndarray::array_view;
use typed_layout::{NcxHwx, Tensor};

fn main() -> Result<(), typed_layout::LayoutError> {
    let t = Tensor::<i8, NcxHwx<32>>::zeros([1, 64, 2, 2])?;
    let _view = array_view(&t)?;
    Ok(())
}
