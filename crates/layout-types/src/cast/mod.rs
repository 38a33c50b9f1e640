//! Relayout, cast and channel padding fused into one pass over the source: an f32 NCHW image
//! with C = 3 becomes an f16 NHWC tensor with C padded to 8 (what Tensor Cores want), an f32
//! NCHW tensor becomes NC/32HW32 i8 with a scale (cuDNN's INT8x32 input preparation), an
//! NC/xHWx destination gets C padded up to a multiple of x.
//!
//! The padding is never silent: the result is a [`ChannelPadded`] tensor, whose dims (and so its
//! descriptor) carry the padded C and which says how many channels are data.
//!
//! ```
//! use typed_layout::cast::{relayout_cast_pad, ChannelPadded, Unscaled};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! use half::f16;
//!
//! let rgb = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as f32)?;
//! let padded: ChannelPadded<f16, Nhwc> = relayout_cast_pad(&rgb, 8, Unscaled)?;
//! assert_eq!((padded.channels(), padded.padded_channels()), (3, 8));
//! assert_eq!(padded.tensor().dims(), [1, 8, 2, 2]);
//! // Pixel (0, 0): the three channels, then five zeros.
//! let first: Vec<f32> = padded.tensor().as_slice()[..8].iter().map(|v| v.to_f32()).collect();
//! assert_eq!(first, [0.0, 100.0, 200.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::{DataType, Element};
use crate::error::{DimName, LayoutError};
use crate::family::SameFamily;
use crate::layout::{InLayout, Layout, Shape};
use crate::placement::Placement;
use crate::platform::out::Out;
use crate::tensor::{Owned, Storage, StorageMut, TensorBase};

mod every;
mod nest;
mod padded;
mod pixels;
mod quantize;
mod steps;
mod tables;

pub use every::EveryCast;
pub use nest::CastNest;
pub use padded::ChannelPadded;
pub use quantize::{quantize, Quantize, Quantized, Scales};
pub use steps::{CastLoop, ChannelMap};

/// How a source element becomes a destination element.
///
/// A cast is a pure function of the value and its channel: a pass may call it any number of
/// times for one value, in any order and from several threads (a byte source calls
/// [`cast_at`](Cast::cast_at) once for each of the 256 values a channel can hold, then looks
/// the results up), or not at all where [`known`](Cast::known) names it.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, Cast, ChannelPadded};
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// /// Image bytes to [0, 1] floats (CPU only: the GPU kernels know Unscaled and Scale).
/// #[derive(Clone, Copy)]
/// struct Normalize;
/// impl Cast<u8, f32> for Normalize {
///     fn cast(&self, v: u8) -> f32 { v as f32 / 255.0 }
/// }
/// let rgb = Tensor::<u8, Nchw>::filled([1, 3, 2, 2], 255)?;
/// let x: ChannelPadded<f32, Nhwc> = relayout_cast_pad(&rgb, 4, Normalize)?;
/// assert_eq!(&x.tensor().as_slice()[..4], &[1.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub trait Cast<T: Element, U: Element>: Copy + Send + Sync {
    /// The destination value of `value`.
    fn cast(&self, value: T) -> U;
    /// The destination value of `value` in logical channel `channel` (what the fused pass
    /// calls): [`cast`](Cast::cast) unless the cast depends on the channel ([`PerChannel`]).
    #[inline]
    fn cast_at(&self, value: T, channel: usize) -> U {
        let _ = channel;
        self.cast(value)
    }
    /// `values`, all in logical channel `channel`, cast into `out` (of equal length): what the
    /// blocked pass calls on each channel's run of pixels. [`cast_at`](Cast::cast_at) per
    /// element unless a cast converts whole runs faster (with the same bits).
    #[inline]
    fn cast_run(&self, values: &[T], out: &mut [U], channel: usize) {
        for (o, &v) in out.iter_mut().zip(values) {
            *o = self.cast_at(v, channel);
        }
    }
    /// This cast as one the fused pass knows, else `None` (the default): the pass may then
    /// compute it its own way, with the same bits, instead of calling it ([`Unscaled`]'s f32
    /// into f16 pixels with F16C, into bf16 pixels with AVX2). Answer `Some(k)` only where
    /// [`cast_at`](Cast::cast_at) equals `k`'s value for every value and channel: otherwise
    /// which elements get which of the two values is unspecified (never undefined behaviour).
    #[inline]
    fn known(&self) -> Option<KnownCast> {
        None
    }
    /// Checked once before a pass over a source of `channels` channels: a cast with
    /// per-channel parameters refuses a count it has no parameters for.
    fn check_channels(&self, channels: usize) -> Result<(), LayoutError> {
        let _ = channels;
        Ok(())
    }
}

/// `value × scale[c] + shift[c]` in channel `c`, then as [`Unscaled`]: per-channel
/// normalization fused into the relayout, cast and pad (one rounding). The pass refuses a
/// source whose channel count is not the parameters' ([`LayoutError::NotApplicable`]). CPU
/// only: the GPU kernels know [`Unscaled`] and [`Scale`].
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, ChannelPadded, PerChannel};
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// let rgb = Tensor::<u8, Nchw>::filled([1, 3, 1, 1], 255)?;
/// // (v / 255 − mean) / std, as v · scale + shift.
/// let (mean, std) = ([0.5, 0.25, 0.0], [0.5, 0.25, 1.0]);
/// let scale: Vec<f64> = std.iter().map(|s| 1.0 / (255.0 * s)).collect();
/// let shift: Vec<f64> = mean.iter().zip(&std).map(|(m, s)| -m / s).collect();
/// let x: ChannelPadded<f32, Nhwc> = relayout_cast_pad(&rgb, 4, PerChannel { scale: &scale, shift: &shift })?;
/// assert_eq!(&x.tensor().as_slice()[..4], &[1.0, 3.0, 1.0, 0.0]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerChannel<'a> {
    /// The factor of each channel.
    pub scale: &'a [f64],
    /// The offset of each channel, added after the factor.
    pub shift: &'a [f64],
}

impl<T: Element, U: Element> Cast<T, U> for PerChannel<'_> {
    /// Channel 0's (the pass calls [`cast_at`](Cast::cast_at)).
    fn cast(&self, value: T) -> U {
        self.cast_at(value, 0)
    }
    #[inline]
    fn cast_at(&self, value: T, channel: usize) -> U {
        // Within the parameters: `check_channels` ran before the pass.
        let (scale, shift) =
            (self.scale.get(channel).unwrap_or(&1.0), self.shift.get(channel).unwrap_or(&0.0));
        U::from_f64(value.to_f64() * scale + shift)
    }
    fn check_channels(&self, channels: usize) -> Result<(), LayoutError> {
        match (self.scale.len() == channels, self.shift.len() == channels) {
            (true, true) => Ok(()),
            _ => Err(LayoutError::ChannelParameters {
                scales: self.scale.len(),
                shifts: self.shift.len(),
                channels,
            }),
        }
    }
}

/// A cast the fused pass knows by name ([`Cast::known`]), so it may compute it its own way.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum KnownCast {
    /// [`Unscaled`]: `U::from_f64(value.to_f64())` in every channel.
    Unscaled,
    /// [`Quantize`]`(scale)`: `U::from_f64(((value.to_f64() as f32) / scale).round_ties_even()
    /// as f64)` in every channel (for integer destinations: saturated, NaN to 0).
    Quantize(f32),
}

/// The value in the destination type: floats rounded to nearest, integers rounded half away from
/// zero and saturated (NaN becomes 0).
///
/// ```
/// use typed_layout::cast::{Cast, Unscaled};
/// let h: half::f16 = Unscaled.cast(1.0f32 / 3.0);
/// assert_eq!(h, half::f16::from_f32(1.0 / 3.0));
/// assert_eq!(<Unscaled as Cast<f32, i8>>::cast(&Unscaled, 2.5), 3); // half away from zero
/// assert_eq!(<Unscaled as Cast<f32, u8>>::cast(&Unscaled, -7.0), 0); // saturated
/// assert_eq!(<Unscaled as Cast<f64, i32>>::cast(&Unscaled, f64::NAN), 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unscaled;

/// `value × scale`, then as [`Unscaled`]: saturated to the destination (`Scale(127.0 / max)`
/// quantizes to i8).
///
/// ```
/// use typed_layout::cast::{Cast, Scale};
/// let quantize = Scale(127.0 / 4.0); // values in [-4, 4] onto i8
/// assert_eq!(<Scale as Cast<f32, i8>>::cast(&quantize, 3.0), 95);
/// assert_eq!(<Scale as Cast<f32, i8>>::cast(&quantize, -9.0), -128);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale(pub f64);

impl<T: Element, U: Element> Cast<T, U> for Unscaled {
    #[inline]
    fn cast(&self, value: T) -> U {
        U::from_f64(value.to_f64())
    }
    #[inline]
    fn known(&self) -> Option<KnownCast> {
        Some(KnownCast::Unscaled)
    }
    /// f32 to f16 with F16C's `vcvtps2ph` (detected at run time), f32 to bf16 through `half`'s
    /// slice conversion: one rounding to nearest even from f32, the same bits as through f64
    /// (f32 to f64 is exact). Bytes (u8, i8) to f16 or bf16 go through f32 the same way: every
    /// byte is exact in f32, f16 and bf16 (integers up to 256 are), so the bits are those of the
    /// per-element cast (image bytes into f16 NHWC, C = 3 → 4, 256 MiB: 0.06 of a streaming copy
    /// element by element through `half`'s f64 conversion).
    #[inline]
    fn cast_run(&self, values: &[T], out: &mut [U], _channel: usize) {
        use half::slice::HalfFloatSliceExt;
        use DataType::{BFloat16, Float, Half, Int8, Uint8};
        match (T::DATA_TYPE, U::DATA_TYPE) {
            (Uint8, Half | BFloat16) => widened(bytemuck::cast_slice::<T, u8>(values), out, f32::from),
            (Int8, Half | BFloat16) => widened(bytemuck::cast_slice::<T, i8>(values), out, f32::from),
            (Float, Half) => {
                crate::platform::simd::f32_to_f16(bytemuck::cast_slice_mut(out), bytemuck::cast_slice(values))
            }
            (Float, BFloat16) => {
                let out: &mut [half::bf16] = bytemuck::cast_slice_mut(out);
                out.convert_from_f32_slice(bytemuck::cast_slice(values));
            }
            _ => {
                for (o, &v) in out.iter_mut().zip(values) {
                    *o = self.cast(v);
                }
            }
        }
    }
}

/// `values` cast into `out` (of equal length) through f32, exactly (`widen` is): widened a chunk
/// at a time, then f32's run cast.
#[inline]
fn widened<B: Copy, U: Element>(values: &[B], out: &mut [U], widen: impl Fn(B) -> f32) {
    debug_assert_eq!(values.len(), out.len(), "a run and its output are equally long");
    const RUN: usize = 256;
    let mut wide = [0f32; RUN];
    for (values, out) in values.chunks(RUN).zip(out.chunks_mut(RUN)) {
        let wide = &mut wide[..values.len()];
        for (w, &v) in wide.iter_mut().zip(values) {
            *w = widen(v);
        }
        <Unscaled as Cast<f32, U>>::cast_run(&Unscaled, wide, out, 0);
    }
}

impl<T: Element, U: Element> Cast<T, U> for Scale {
    #[inline]
    fn cast(&self, value: T) -> U {
        U::from_f64(value.to_f64() * self.0)
    }
}

/// Copies `src` into layout `D`, casting each element with `cast` and padding C with zeros up to
/// a multiple of `multiple` (and of `D`'s vector width), in one pass: every destination
/// element is written once, in storage order (see [`CastNest`]); large tensors run on rayon's
/// pool, the calling thread among its workers (feature `parallel`). `src` is any tensor or view
/// in a layout, a sub-tensor included; [`relayout_cast_pad_into`] writes into a destination the
/// caller owns.
///
/// Images of bytes (u8, i8) with up to four channels, whose pixels are adjacent in the source
/// (NCHW's planes), into C-innermost layouts (NHWC, NDHWC) are cast through tables once a task
/// holds 4096 pixels or more: each channel's 256 possible results are computed once by `cast`,
/// so a per-channel normalization ([`PerChannel`]) costs about what [`Unscaled`] does, with the
/// same bits as casting element by element.
///
/// Fails for a family without a C, a `multiple` of 0, or a padded size that does not fit.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, ChannelPadded, Scale};
/// use typed_layout::{Nchw, NcxHwx, Tensor};
/// // cuDNN's INT8x32 input: 40 channels quantized with a scale, padded to 64.
/// let x = Tensor::<f32, Nchw>::from_fn([1, 40, 3, 3], |[_, c, _, _]| c as f32 / 10.0)?;
/// let q: ChannelPadded<i8, NcxHwx<32>> = relayout_cast_pad(&x, 1, Scale(127.0 / 3.9))?;
/// assert_eq!((q.channels(), q.padded_channels()), (40, 64));
/// assert_eq!(q.tensor().get([0, 39, 0, 0]), Some(&127));
/// assert_eq!(q.tensor().get([0, 50, 0, 0]), Some(&0)); // padding
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn relayout_cast_pad<R, A, U, D, C>(
    src: &TensorBase<R, A>,
    multiple: usize,
    cast: C,
) -> Result<ChannelPadded<U, D>, LayoutError>
where
    R: Storage,
    A: InLayout,
    U: Element,
    D: Layout,
    D::Family: SameFamily<A::Family>,
    C: Cast<R::Elem, U>,
{
    let shape = padded_dims::<D>(A::sub_shape(src.shape()).placement().dims(), multiple)?;
    let plan = plan(src, shape.placement(), &cast)?;
    // The pass writes every element of the new storage, padding included: no zero fill first.
    let storage = Owned::written(shape.len(), shape.bytes(U::SIZE)?, |out| {
        plan.run(src.as_slice(), out, cast);
        Ok(())
    })?;
    Ok(ChannelPadded { tensor: TensorBase::from_parts(shape, storage), channels: plan.channels() })
}

/// The fused pass of `src` into a packed destination placed as `to`, checked (its shapes and the
/// cast's channel count) before anything is allocated or written: its run writes every
/// element of the destination.
fn plan<R, A, U, C>(src: &TensorBase<R, A>, to: &Placement, cast: &C) -> Result<CastNest, LayoutError>
where
    R: Storage,
    A: InLayout,
    U: Element,
    C: Cast<R::Elem, U>,
{
    let plan = CastNest::between(A::sub_shape(src.shape()).placement(), to, <A::Layout as Layout>::LETTERS)?;
    cast.check_channels(plan.channels())?;
    Ok(plan)
}

/// [`relayout_cast_pad`] into `dst`, a packed tensor or view the caller owns (a batch of a larger
/// tensor too; no allocation below [`PARALLEL_THRESHOLD_BYTES`](crate::PARALLEL_THRESHOLD_BYTES)
/// or on a rayon worker):
/// its dims are the source's but C, which may be larger (the padding, written as zeros).
/// Returns the channels of data. Fails with [`LayoutError::ShapeMismatch`] naming the
/// dimension when the dims do not fit, and with [`LayoutError::NotApplicable`] for a padded
/// (partially packed) destination.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad_into, Unscaled};
/// use typed_layout::{Nchw, Nhwc, Tensor, TensorViewMut};
/// let rgb = Tensor::<u8, Nchw>::filled([1, 3, 2, 2], 9)?;
/// let mut buffer = vec![7.0f32; 16]; // the engine's: 2×2 pixels of 4 channels
/// let mut dst = TensorViewMut::<f32, Nhwc>::new([1, 4, 2, 2], &mut buffer)?;
/// assert_eq!(relayout_cast_pad_into(&rgb, &mut dst, Unscaled)?, 3);
/// assert_eq!(&buffer[..4], &[9.0, 9.0, 9.0, 0.0]);
/// let mut small = Tensor::<f32, Nhwc>::zeros([1, 2, 2, 2])?; // fewer channels than the source
/// assert!(relayout_cast_pad_into(&rgb, &mut small, Unscaled).is_err());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn relayout_cast_pad_into<R, A, W, D, C>(
    src: &TensorBase<R, A>,
    dst: &mut TensorBase<W, D>,
    cast: C,
) -> Result<usize, LayoutError>
where
    R: Storage,
    A: InLayout,
    W: StorageMut,
    D: InLayout,
    D::Family: SameFamily<A::Family>,
    C: Cast<R::Elem, W::Elem>,
{
    let out = D::sub_shape(dst.shape());
    let dp = *out.placement();
    if out.packed().is_none() {
        return Err(LayoutError::NotApplicable { reason: PACKED_ONLY });
    }
    let plan = plan(src, &dp, &cast)?;
    plan.run(src.as_slice(), Out::new(dst.as_mut_slice()), cast);
    Ok(plan.channels())
}

/// Why a fused pass refuses a destination with padded strides.
pub(crate) const PACKED_ONLY: &str =
    "the fused relayout, cast and pad writes a packed destination (a whole tensor, or a batch of one), without padded strides";

/// The shape of `src` in layout `D` with C padded up to a multiple of `multiple` and of `D`'s
/// vector width: the destination of [`relayout_cast_pad`] (and of the GPU backend's fused
/// kernel).
///
/// ```
/// use typed_layout::{cast::padded_shape, Nchw, NcxHwx, Shape};
/// let rgb = Shape::<Nchw>::new([1, 3, 224, 224])?;
/// assert_eq!(padded_shape::<_, NcxHwx<4>>(&rgb, 1)?.dims(), [1, 4, 224, 224]); // the vector width
/// assert_eq!(padded_shape::<_, NcxHwx<4>>(&rgb, 6)?.dims(), [1, 12, 224, 224]); // lcm(6, 4)
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn padded_shape<S: Layout, D: Layout>(src: &Shape<S>, multiple: usize) -> Result<Shape<D>, LayoutError>
where
    D::Family: SameFamily<S::Family>,
{
    padded_dims::<D>(src.placement().dims(), multiple)
}

/// [`padded_shape`] of logical `dims`.
fn padded_dims<D: Layout>(dims: &[usize], multiple: usize) -> Result<Shape<D>, LayoutError> {
    let width = D::FORMAT.vector().map_or(1, |v| v.width);
    Shape::<D>::from_slice(&padded(dims, D::LETTERS, width, multiple)?)
}

/// `dims` (of a family with `letters`) with C padded up to a multiple of `multiple` and of the
/// destination's vector `width`.
pub(crate) fn padded(
    dims: &[usize],
    letters: &str,
    width: usize,
    multiple: usize,
) -> Result<Vec<usize>, LayoutError> {
    let c = channel_dim(letters)?;
    if multiple == 0 {
        return Err(LayoutError::NotApplicable { reason: "channels are padded to a multiple of at least 1" });
    }
    let overflow = || LayoutError::SizeOverflow { dim: DimName::new(c, letters.as_bytes()) };
    let step = lcm(multiple, width).ok_or_else(overflow)?;
    let mut dims = dims.to_vec();
    dims[c] = dims[c].div_ceil(step).checked_mul(step).ok_or_else(overflow)?;
    Ok(dims)
}

pub(super) fn channel_dim(letters: &str) -> Result<usize, LayoutError> {
    letters.find('C').ok_or(LayoutError::NotApplicable {
        reason: "channel padding needs a family with a channel dimension C",
    })
}

/// The least common multiple, if it fits (`a`, `b` at least 1).
fn lcm(a: usize, b: usize) -> Option<usize> {
    let l = a as u128 / crate::overlap::gcd(a as u128, b as u128) * b as u128;
    usize::try_from(l).ok()
}
