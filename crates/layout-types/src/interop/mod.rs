//! The ways in and out through the crates engines already use, each behind its own feature:
//! `serde` (feature `serde`) for layouts, shapes, descriptors and data types; `ndarray` (feature
//! `ndarray`): zero-copy views both ways and owned conversions; `safetensors` (feature
//! `safetensors`): tensors in and out of `.safetensors` files, their layouts recorded; `dlpack`
//! (feature `dlpack`): host tensors out and in through DLPack, the layout in the strides.

#[cfg(feature = "dlpack")]
pub mod dlpack;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "safetensors")]
pub mod safetensors;

// Safetensors files are little-endian and read in place.
#[cfg(all(feature = "safetensors", target_endian = "big"))]
compile_error!(
    "the `safetensors` feature reads little-endian files in place: big-endian targets are not supported"
);
#[cfg(feature = "serde")]
pub mod serde;

/// `StrideMismatch` at the first dim longer than 1 whose stride in another library's array
/// (`found`) is not the layout's (`expected`), both in elements: a dim of 1 never steps, so its
/// stride says nothing. Both zero-copy readers of foreign arrays (ndarray views, DLPack tensors)
/// check with this.
#[cfg(any(feature = "ndarray", feature = "dlpack"))]
fn same_strides(
    dims: &[usize],
    found: &[isize],
    expected: &[isize],
    letters: &[u8],
) -> Result<(), crate::error::LayoutError> {
    let differs = (0..dims.len()).find(|&k| dims[k] > 1 && found[k] != expected[k]);
    match differs {
        None => Ok(()),
        Some(k) => Err(crate::error::LayoutError::StrideMismatch {
            dim: crate::error::DimName::new(k, letters),
            expected: expected[k],
            found: found[k],
        }),
    }
}
