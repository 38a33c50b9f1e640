//! CPU conversions between layouts of one family: the backend that runs the loop plan
//! ([`loops`](crate::loops)) on host memory.
//!
//! A conversion copies every element of a [`Source`] to the same logical index of a
//! [`Destination`]. The plan's innermost runs are copied directly when they are contiguous on
//! both sides; otherwise the plane of the destination's and the source's innermost axes is
//! transposed in cache tiles (`kernels`, one file per instruction set). Large conversions are cut
//! along the outermost axis into parts that rayon's workers and the calling thread run side by
//! side (`run`, through `crate::tasks`). Every kernel writes through the platform's
//! write-only `Out`, so a new tensor's storage needs no value before its conversion writes it:
//! [`to_layout`](crate::Tensor::to_layout) writes each byte once, with no zero fill first.
//!
//! The loops are generic over the element type and both sides, so each (source, destination,
//! type) is its own monomorphized function with no per-element dispatch. Vector widths that do
//! not divide each other (NC/3HW3 to NC/4HW4) take a per-element path.
//!
//! ```
//! use typed_layout::{convert, Nchw, Nhwc, Tensor};
//! let a = Tensor::<f32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
//! let mut b = Tensor::<f32, Nhwc>::zeros([1, 2, 2, 2])?;
//! convert(&a, &mut b)?;
//! // NHWC stores the two channels of each pixel side by side.
//! assert_eq!(b.as_slice(), &[0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::loops::{same_dims, Geometry, LoopNest};
use crate::notation::MAX_RANK;
use crate::placement::Placement;
use crate::platform::out::Out;

mod kernels;
mod run;

#[cfg(feature = "parallel")]
pub(crate) use run::threads_for;
#[cfg(test)]
mod tests;

pub(crate) mod sealed {
    use crate::loops::Geometry;

    /// Read access for conversions; not for use outside typed-layout.
    pub trait Readable<T> {
        fn geometry(&self) -> Geometry;
        fn data(&self) -> &[T];
    }
    /// Write access for conversions; not for use outside typed-layout.
    pub trait Writable<T> {
        fn geometry(&self) -> Geometry;
        fn data_mut(&mut self) -> &mut [T];
    }
}

/// Something a conversion can read: [`Tensor`](crate::Tensor), [`TensorView`](crate::TensorView),
/// [`StridedView`](crate::StridedView).
///
/// ```
/// use typed_layout::{convert, Source, Nhwc, Tensor};
/// /// Any readable image (tensor, view, strided view) into a fresh NHWC tensor.
/// fn to_nhwc<S: Source<f32, Family = typed_layout::Image>>(src: &S, dims: [usize; 4]) -> Result<Tensor<f32, Nhwc>, typed_layout::LayoutError> {
///     let mut out = Tensor::zeros(dims)?;
///     convert(src, &mut out)?;
///     Ok(out)
/// }
/// let x = Tensor::<f32, typed_layout::Nchw>::filled([1, 2, 2, 2], 1.0)?;
/// assert_eq!(to_nhwc(&x, [1, 2, 2, 2])?.as_slice(), &[1.0; 8]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of a conversion",
    label = "not a source",
    note = "a conversion reads a `Tensor`, a `TensorView`, a `TensorViewMut` or a `StridedView`"
)]
pub trait Source<T: Element>: sealed::Readable<T> {
    /// The family of the logical dims.
    type Family: Family;
}

/// Something a conversion can write, never overlapping: [`Tensor`](crate::Tensor),
/// [`TensorViewMut`](crate::TensorViewMut), [`StridedViewMut`](crate::StridedViewMut).
///
/// ```
/// use typed_layout::{convert, Destination, Nchw, Tensor};
/// /// Fills any writable image from an NCHW tensor.
/// fn fill<D: Destination<u8, Family = typed_layout::Image>>(dst: &mut D) -> Result<(), typed_layout::LayoutError> {
///     convert(&Tensor::<u8, Nchw>::filled([1, 1, 2, 2], 3)?, dst)
/// }
/// let mut y = Tensor::<u8, typed_layout::Chwn>::zeros([1, 1, 2, 2])?;
/// fill(&mut y)?;
/// assert_eq!(y.as_slice(), &[3; 4]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of a conversion",
    label = "not a destination",
    note = "outputs cannot overlap: write into a `Tensor`, a `TensorViewMut`, or a `StridedViewMut` (which proves its dimensions disjoint); a view of shared storage, `TensorBase<View<…>, …>` (`TensorView`, `StridedView`), is input-only"
)]
pub trait Destination<T: Element>: sealed::Writable<T> {
    /// The family of the logical dims.
    type Family: Family;
}

/// Copies `src` into `dst` at the same logical indices.
///
/// ```
/// use typed_layout::{convert, Ncdhw, Ndhwc, Tensor};
/// let a = Tensor::<half::f16, Ncdhw>::from_fn([2, 3, 4, 5, 6], |i| half::f16::from_f32(i[1] as f32))?;
/// let mut b = Tensor::<half::f16, Ndhwc>::zeros([2, 3, 4, 5, 6])?;
/// convert(&a, &mut b)?;
/// assert_eq!(&b.as_slice()[..3], &[0.0, 1.0, 2.0].map(half::f16::from_f32));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// Source and destination must be of one family; dims must be equal
/// ([`LayoutError::ShapeMismatch`] otherwise).
pub fn convert<T, S, D>(src: &S, dst: &mut D) -> Result<(), LayoutError>
where
    T: Element,
    S: Source<T> + ?Sized,
    D: Destination<T> + ?Sized,
    D::Family: SameFamily<S::Family>,
{
    let (sg, dg) = (src.geometry(), dst.geometry());
    convert_geometries(&sg, src.data(), &dg, Out::new(dst.data_mut()), S::Family::LETTERS.as_bytes())
}

/// [`convert`] on each side's geometry over its elements: the one run of every conversion, for
/// typed tensors and runtime ones alike. `letters` names the dimensions in errors.
pub(crate) fn convert_geometries<T: Element>(
    sg: &Geometry,
    src: &[T],
    dg: &Geometry,
    dst: Out<'_, T>,
    letters: &[u8],
) -> Result<(), LayoutError> {
    same_dims(sg, dg, letters)?;
    match LoopNest::new(sg, dg) {
        Some(nest) => run::run_maybe_parallel(&nest, src, dst),
        None => per_element(sg, src, dg, dst),
    }
    Ok(())
}

/// [`convert_geometries`] into `out`, the storage of a new tensor of placement `dst`, writing
/// every element of it (`platform::out::extend_written`'s contract).
///
/// Why every element: a placement maps distinct indices to distinct offsets below its length
/// (its strides nest: `placement::derive` and `derive_strided` check it, `narrowed` only
/// shrinks extents), so one with as many elements as offsets (no padding, checked here) covers
/// each offset once;
/// and a conversion writes every logical index of the dims ([`same_dims`] passed, so the loop
/// nest or the per-element walk spans them all). A placement with padding, or an `out` of
/// another length, is refused before anything is written.
pub(crate) fn convert_all<T: Element>(
    sg: &Geometry,
    src: &[T],
    dst: &Placement,
    out: Out<'_, T>,
    letters: &[u8],
) -> Result<(), LayoutError> {
    if !dst.is_dense() || out.len() != dst.len() {
        return Err(LayoutError::NotApplicable { reason: "a new tensor's storage has no padding" });
    }
    convert_geometries(sg, src, &Geometry::packed(dst), out, letters)
}

/// Conversions moving fewer bytes than this run on the calling thread, without allocating.
///
/// From this size on they run on the calling thread and the current rayon pool's workers
/// (feature `parallel`). Into a caller's buffer (`to_layout_into`, `relayout_cast_pad_into`)
/// that still allocates nothing when the caller is a worker of a pool (inside
/// `ThreadPool::install` or a parallel iterator), but for one buffer a thread keeps: at level
/// `Avx2`, a thread's first pass that stages source runs far apart in memory allocates its
/// 256 KiB panel, lent to its later passes. From any other thread rayon boxes one job per
/// helper thread (a few dozen bytes each), and the process's first such call starts rayon's
/// global pool. An engine that must not allocate per call runs its loop of calls inside one
/// `install` (each `install` from outside queues a job too, and rayon's queue takes a new block
/// every 63 jobs).
///
/// Why 512 KiB: on an AMD EPYC (Zen 5, 2 vCPUs), `bash bench/threshold.sh` (every pass on two
/// threads against the same on one, `to_layout_into` f32 and u8 NCHW ↔ NHWC with C = 64 and
/// the fused u8 C = 3 → f16 C = 4, from outside the pool, three rounds): 1.24–1.68 × at 512 KiB
/// with the fused pass even (0.98–0.99), 1.14–1.88 × at 768 KiB and 1 MiB, but 0.48–1.31 × at
/// 384 KiB and 0.40–0.95 × at 128 KiB (`BENCHMARKS.md`, step 45). On a Zen 4 of the same class
/// a scratch loop gave 1.19–1.75 × at 512 KiB and losses at 256 KiB.
///
/// ```
/// use typed_layout::{PARALLEL_THRESHOLD_BYTES, Nchw, Tensor};
/// // 4 KiB: converted on the calling thread, with no allocation besides the result.
/// let small = Tensor::<f32, Nchw>::zeros([1, 16, 8, 8])?;
/// assert!(small.as_slice().len() * 4 < PARALLEL_THRESHOLD_BYTES);
/// let _ = small.to_layout::<typed_layout::Nhwc>()?;
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const PARALLEL_THRESHOLD_BYTES: usize = 512 << 10;

/// The general path: every logical index, offsets from each side's maps.
fn per_element<T: Copy>(sg: &Geometry, src: &[T], dg: &Geometry, mut dst: Out<'_, T>) {
    let dims = dg.dims();
    let mut index = [0usize; MAX_RANK];
    loop {
        dst.set(dg.offset(&index[..dims.len()]) as usize, src[sg.offset(&index[..dims.len()]) as usize]);
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}
