//! A tensor's values as text: nested brackets in **logical** order (`[n][c][h][w]` for every
//! image layout, NHWC and NC/32HW32 included), so a tensor prints the same whatever its layout.

use core::fmt;

use super::{Storage, TensorBase};
use crate::family::DimArray;
use crate::layout::{Arrangement, DimsOf};

/// Along an axis longer than this, only the first and last [`EDGE`] positions are printed.
const SUMMARIZE_ABOVE: usize = 6;

/// Positions printed at each end of a summarized axis.
const EDGE: usize = 3;

/// The values in logical order, one bracket per dimension; along a dimension longer than 6 the
/// first three and last three positions with `...` between. The element's own `Display` formats
/// each value, so `{:.2}` applies to every one.
///
/// ```
/// use typed_layout::{Nhwc, Tensor};
/// let t = Tensor::<i32, Nhwc>::from_fn([1, 2, 2, 3], |[_, c, h, w]| (100 * c + 10 * h + w) as i32)?;
/// assert_eq!(t.to_string(), "\
/// [[[[0, 1, 2],
///    [10, 11, 12]],
///
///   [[100, 101, 102],
///    [110, 111, 112]]]]");
/// let wide = Tensor::<f32, Nhwc>::from_fn([1, 1, 1, 10], |[.., w]| w as f32 / 3.0)?;
/// assert_eq!(format!("{wide:.1}"), "[[[[0.0, 0.3, 0.7, ..., 2.3, 2.7, 3.0]]]]");
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
impl<S: Storage, A: Arrangement> fmt::Display for TensorBase<S, A>
where
    S::Elem: fmt::Display,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = self.dims();
        nested(f, dims.as_ref(), &mut |index, f| {
            // Every logical index is inside the tensor.
            match DimsOf::<A>::try_from_slice(index).and_then(|i| self.get(i)) {
                Some(v) => fmt::Display::fmt(v, f),
                None => f.write_str("?"),
            }
        })
    }
}

/// Writes the values of a tensor of `dims` as nested brackets in logical order, `value`
/// writing the one at each index (what every tensor's `Display` runs, runtime ones too).
pub(crate) fn nested(
    f: &mut fmt::Formatter<'_>,
    dims: &[usize],
    value: &mut dyn FnMut(&[usize], &mut fmt::Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    let mut index = vec![0; dims.len()];
    write_axis(f, dims, &mut index, 0, value)
}

/// Axis `k` of the values at `index` (its first `k` entries fixed), bracketed.
fn write_axis(
    f: &mut fmt::Formatter<'_>,
    dims: &[usize],
    index: &mut [usize],
    k: usize,
    value: &mut dyn FnMut(&[usize], &mut fmt::Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    let extent = dims[k];
    let summarized = extent > SUMMARIZE_ABOVE;
    f.write_str("[")?;
    for i in 0..extent {
        if summarized && i == EDGE {
            f.write_str("...")?;
            write_separator(f, dims.len(), k)?;
        }
        if summarized && (EDGE..extent - EDGE).contains(&i) {
            continue;
        }
        index[k] = i;
        if k + 1 == dims.len() {
            value(index, f)?;
        } else {
            write_axis(f, dims, index, k + 1, value)?;
        }
        if i + 1 < extent {
            write_separator(f, dims.len(), k)?;
        }
    }
    f.write_str("]")
}

/// `, ` within the innermost axis; between the blocks of an outer axis a comma, one line break
/// per bracket that closed (a blank line between blocks of blocks, as NumPy prints), and an
/// indent up to the next block's bracket.
fn write_separator(f: &mut fmt::Formatter<'_>, rank: usize, k: usize) -> fmt::Result {
    if k + 1 == rank {
        return f.write_str(", ");
    }
    f.write_str(",")?;
    for _ in 0..rank - k - 1 {
        f.write_str("\n")?;
    }
    write!(f, "{:width$}", "", width = k + 1)
}
