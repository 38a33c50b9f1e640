// Rule: cuDNN pairs each input layout with one filter layout (NCHW with KCRS, NHWC with KRSC,
// NC/xHWx with KC/xRSx of the same x): a convolution over NHWC with a KCRS filter, or over
// NC/32HW32 with a KC/4RS4 filter, does not compile.
use typed_layout::{conv::Conv, Kcrs, KcxRsx, NcxHwx, Nhwc, Shape};

fn main() -> Result<(), typed_layout::LayoutError> {
    let x = Shape::<Nhwc>::new([8, 64, 56, 56])?;
    let w = Shape::<Kcrs>::new([128, 64, 3, 3])?;
    let _ = Conv::new(&x, &w)?;
    let q = Shape::<NcxHwx<32>>::new([8, 64, 56, 56])?;
    let v = Shape::<KcxRsx<4>>::new([128, 64, 3, 3])?;
    let _ = Conv::new(&q, &v)?;
    Ok(())
}
