//! Which arrangements have one stride per logical dimension: a marker trait, so asking a
//! vectorized layout for per-dimension strides is a compile error.

/// Arrangements in which every logical dimension has one stride: every layout without a
/// vectorized dimension, and [`Strided<F>`](crate::Strided). Per-dimension strides
/// ([`TensorBase::strides`](crate::TensorBase::strides), [`Shape::strides`](crate::Shape::strides)) exist only for
/// these, so generic code that takes a dot product of an index with the strides cannot be handed
/// NC/xHWx, whose C reaches storage through a group stride *and* a lane (its
/// [`group_strides`](crate::Shape::group_strides) are a different thing, under a different name).
///
/// Implemented for the guide's non-vectorized layouts, for [`Strided<F>`](crate::Strided), and by
/// `layout!` for every declared layout without a `/`.
///
/// ```
/// use typed_layout::{Image, Layout, Nhwc, PerDimStrides, Tensor};
/// /// Generic code may take the dot product: every dimension has one stride.
/// fn offset_by_strides<L: Layout<Family = Image> + PerDimStrides>(t: &Tensor<f32, L>, [n, c, h, w]: [usize; 4]) -> isize {
///     let [sn, sc, sh, sw] = t.strides();
///     n as isize * sn + c as isize * sc + h as isize * sh + w as isize * sw
/// }
/// let t = Tensor::<f32, Nhwc>::zeros([1, 8, 2, 2])?;
/// assert_eq!(offset_by_strides(&t, [0, 5, 1, 1]), 16 + 8 + 5);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// ```compile_fail,E0277
/// use typed_layout::{NcxHwx, Tensor};
/// let t = Tensor::<f32, NcxHwx<4>>::zeros([1, 8, 2, 2])?;
/// let _ = t.strides(); // error: NC/4HW4 has no per-dimension strides
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no per-dimension strides",
    label = "a vectorized dimension reaches storage through a group stride and a lane",
    note = "use `get` / indexing for offsets, or `group_strides()` for the distance between vector groups"
)]
// No supertrait: a bound `L: Layout + PerDimStrides` then keeps `L`'s dims and strides the
// family's arrays (a supertrait `Arrangement` would hide the blanket impl behind the bound).
pub trait PerDimStrides {}
