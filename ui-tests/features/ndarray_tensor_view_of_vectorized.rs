// Rule: a typed view from an ndarray view takes its strides from the layout, one per dimension,
// which NC/xHWx's vectorized C does not have.
use typed_layout::interop::ndarray::tensor_view;
use typed_layout::NcxHwx;

fn main() -> Result<(), typed_layout::LayoutError> {
    let a = ndarray::ArrayD::<i8>::zeros(ndarray::IxDyn(&[1, 64, 2, 2]));
    let _t = tensor_view::<i8, NcxHwx<32>>(a.view())?;
    Ok(())
}
