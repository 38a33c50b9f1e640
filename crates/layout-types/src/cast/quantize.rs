//! Quantization in one pass: relayout, divide by a scale, round half to even, saturate, pad
//! the channels, with one scale for the tensor or one per output channel of a filter; the
//! scales travel with the result ([`Quantized`]).
//!
//! The rule is ONNX `QuantizeLinear`'s (and TensorRT's) with a zero point of 0: `q =
//! saturate(round_half_to_even(x / scale))`, computed in `f32` (a source value is first rounded
//! to `f32`; f16, bf16 and f32 sources are exact). NaN becomes 0. The plain [`Convert`] casts
//! ([`Unscaled`](super::Unscaled), [`Scale`](super::Scale)) keep their own rounding (half away
//! from zero).
//!
//! [`Convert`]: super::Cast

use super::{padded_dims, plan, relayout_cast_pad, Cast, CastNest, ChannelPadded, KnownCast};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::SameFamily;
use crate::layout::Arrangement;
use crate::layout::{InLayout, Layout};
use crate::tensor::{Owned, Storage, TensorBase};

/// `round_half_to_even(value / scale)` in `f32`, then saturated to the destination: ONNX
/// `QuantizeLinear`'s rule (and TensorRT's) with a zero point of 0. A source value is first
/// rounded to `f32` (f16, bf16 and f32 sources are exact); NaN becomes 0. The plain casts
/// ([`Unscaled`](super::Unscaled), [`Scale`](super::Scale)) keep their own rounding (half away
/// from zero).
///
/// ```
/// use typed_layout::cast::{Cast, Quantize};
/// let q = Quantize(0.5);
/// assert_eq!(<Quantize as Cast<f32, i8>>::cast(&q, 1.25), 2); // 2.5 → 2 (half to even)
/// assert_eq!(<Quantize as Cast<f32, i8>>::cast(&q, 1.75), 4); // 3.5 → 4
/// assert_eq!(<Quantize as Cast<f32, i8>>::cast(&q, -100.0), -128); // saturated
/// assert_eq!(<Quantize as Cast<f32, u8>>::cast(&q, f32::NAN), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantize(pub f32);

impl<T: Element, U: Element> Cast<T, U> for Quantize {
    #[inline]
    fn cast(&self, value: T) -> U {
        let q = (value.to_f64() as f32) / self.0;
        // An integer (or NaN, or infinite) from here: the destination's conversion saturates.
        U::from_f64(q.round_ties_even() as f64)
    }
    /// f32 into i8 or u8 with AVX2 where the CPU has it (32 values at a time), the same bits as
    /// [`cast`](Cast::cast); element by element otherwise. f32 NCHW C = 3 into i8 NHWC C = 4,
    /// 256 MiB: element by element 0.10 of a streaming copy.
    #[inline]
    fn cast_run(&self, values: &[T], out: &mut [U], _channel: usize) {
        use crate::dtype::DataType::{Float, Int8, Uint8};
        let done = match (T::DATA_TYPE, U::DATA_TYPE) {
            (Float, Int8 | Uint8) => crate::platform::simd::f32_quantized(
                bytemuck::cast_slice_mut(out),
                bytemuck::cast_slice(values),
                self.0,
                U::DATA_TYPE == Int8,
            ),
            _ => 0,
        };
        for (o, &v) in out[done..].iter_mut().zip(&values[done..]) {
            *o = self.cast(v);
        }
    }
    /// Known by its scale: the fused pass quantizes f32 into pixels of bytes in registers.
    #[inline]
    fn known(&self) -> Option<KnownCast> {
        Some(KnownCast::Quantize(self.0))
    }
}

/// The scales of a quantization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scales<'a> {
    /// One scale for every element.
    PerTensor(f32),
    /// One scale per output channel K of a filter (its first dim; K must be the destination's
    /// outermost axis, as in every named filter layout).
    PerOutputChannel(&'a [f32]),
}

/// A quantized tensor with the scales it was made with: value ≈ `q × scale` (of its output
/// channel, for per-output-channel scales); C padded with zeros as in [`ChannelPadded`].
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized<U: Element, L: Layout> {
    padded: ChannelPadded<U, L>,
    scales: Vec<f32>,
    per_output_channel: bool,
}

impl<U: Element, L: Layout> Quantized<U, L> {
    /// The quantized values, C padded.
    pub fn padded(&self) -> &ChannelPadded<U, L> {
        &self.padded
    }
    /// The quantized tensor (its dims carry the padded C).
    pub fn tensor(&self) -> &crate::tensor::Tensor<U, L> {
        self.padded.tensor()
    }
    /// The scales: one, or one per output channel.
    pub fn scales(&self) -> &[f32] {
        &self.scales
    }
    /// One scale per output channel (else one for the tensor)?
    pub fn per_output_channel(&self) -> bool {
        self.per_output_channel
    }
    /// The scale of output channel `k` (the tensor's, for a per-tensor scale).
    pub fn scale_of(&self, k: usize) -> Option<f32> {
        match self.per_output_channel {
            true => self.scales.get(k).copied(),
            false => self.scales.first().copied(),
        }
    }
    /// The parts: the padded tensor and the scales.
    pub fn into_parts(self) -> (ChannelPadded<U, L>, Vec<f32>) {
        (self.padded, self.scales)
    }
}

/// `src` quantized into layout `D` as `U` in one pass per scale (the rule of [`Quantize`]): C
/// padded with zeros up to a multiple of `multiple` and of `D`'s vector width, as
/// [`relayout_cast_pad`](super::relayout_cast_pad) pads.
///
/// Fails on a scale that is not positive and finite ([`LayoutError::Scale`]), on
/// per-output-channel scales whose count is not K ([`LayoutError::ScaleCount`]) or for a
/// destination whose outermost axis is not K.
///
/// ```
/// use typed_layout::cast::{quantize, Scales};
/// use typed_layout::{Kcrs, KcxRsx, Tensor};
/// // f32 KCRS weights into cuDNN's INT8x32 filter, one scale per output channel.
/// let w = Tensor::<f32, Kcrs>::from_fn([2, 40, 3, 3], |[k, c, _, _]| (k + 1) as f32 * c as f32 / 40.0)?;
/// let scales = [1.0 / 64.0, 1.0 / 32.0];
/// let q = quantize::<_, _, i8, KcxRsx<32>>(&w, 1, Scales::PerOutputChannel(&scales))?;
/// assert_eq!((q.padded().channels(), q.padded().padded_channels()), (40, 64));
/// assert_eq!(q.tensor()[[1, 20, 0, 0]], 32); // 2 · 20/40 = 1.0, / (1/32)
/// assert_eq!(q.tensor()[[0, 39, 2, 2]], 62); // 39/40 · 64 = 62.4
/// assert_eq!(q.tensor()[[0, 50, 0, 0]], 0); // padding
/// assert_eq!(q.scale_of(1), Some(1.0 / 32.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn quantize<R, A, U, D>(
    src: &TensorBase<R, A>,
    multiple: usize,
    scales: Scales<'_>,
) -> Result<Quantized<U, D>, LayoutError>
where
    R: Storage,
    A: InLayout,
    U: Element,
    D: Layout,
    D::Family: SameFamily<A::Family>,
    <A as Arrangement>::Sub: InLayout<Layout = <A as InLayout>::Layout>,
{
    let dims = A::sub_shape(src.shape()).placement().dims().to_vec();
    let shape = padded_dims::<D>(&dims, multiple)?;
    let (list, per_k) = scales.checked::<D>(dims[0])?;
    let padded = match per_k {
        // One pass into new storage, each element written once.
        false => relayout_cast_pad(src, multiple, Quantize(list[0]))?,
        true => {
            // One pass per output channel into new storage, each element written once: K is
            // the destination's outermost axis, so each output channel is a packed part of it,
            // the storage of the same shape with K = 1.
            let mut one = dims.clone();
            one[0] = 1;
            let part = padded_dims::<D>(&one, multiple)?;
            // Every part's plan is made and checked before anything is allocated or written;
            // the parts tile the storage, so running each writes every element (asserted first,
            // as the storage's contract asks).
            let parts = (0..list.len()).map(|k| src.narrow(0, k..k + 1)).collect::<Result<Vec<_>, _>>()?;
            let plans = parts
                .iter()
                .zip(&list)
                .map(|(p, &scale)| plan::<_, _, U, _>(p, part.placement(), &Quantize(scale)))
                .collect::<Result<Vec<_>, _>>()?;
            assert_eq!(part.len() * list.len(), shape.len(), "K parts of equal length");
            let storage = Owned::written(shape.len(), shape.bytes(U::SIZE)?, |out| {
                for (((p, plan), &scale), out) in
                    parts.iter().zip(&plans).zip(&list).zip(out.chunks(part.len()))
                {
                    plan.run(p.as_slice(), out, Quantize(scale));
                }
                Ok(())
            })?;
            let channels = plans.first().map_or(0, CastNest::channels);
            ChannelPadded { tensor: TensorBase::from_parts(shape, storage), channels }
        }
    };
    Ok(Quantized { padded, scales: list, per_output_channel: per_k })
}

impl<'a> Scales<'a> {
    /// The scales as a list, and whether they are per output channel, checked for a
    /// destination layout `D` of `k` output channels: every scale positive and finite
    /// ([`LayoutError::Scale`]); per output channel, one per K ([`LayoutError::ScaleCount`]) and
    /// K outermost in `D` (a filter family's first letter).
    ///
    /// ```
    /// use typed_layout::{cast::Scales, Krsc, LayoutError, Nchw};
    /// assert_eq!(Scales::PerTensor(0.5).checked::<Nchw>(4)?, (vec![0.5], false));
    /// assert_eq!(Scales::PerOutputChannel(&[1.0, 2.0]).checked::<Krsc>(3), Err(LayoutError::ScaleCount { given: 2, expected: 3 }));
    /// assert!(Scales::PerOutputChannel(&[1.0]).checked::<Nchw>(1).is_err()); // not a filter
    /// assert_eq!(Scales::PerTensor(-1.0).checked::<Nchw>(1), Err(LayoutError::Scale { index: 0 }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn checked<D: Layout>(self, k: usize) -> Result<(Vec<f32>, bool), LayoutError> {
        let (list, per_k): (&[f32], bool) = match self {
            Scales::PerTensor(ref s) => (core::slice::from_ref(s), false),
            Scales::PerOutputChannel(list) => (list, true),
        };
        if let Some(index) = list.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(LayoutError::Scale { index });
        }
        if per_k {
            if !D::LETTERS.starts_with('K') || D::FORMAT.order()[0] != 0 {
                return Err(LayoutError::NotApplicable {
                    reason: "per-output-channel scales are for filters whose output channels K are the outermost axis (KCRS, KRSC, KC/xRSx, KCDRS, KDRSC)",
                });
            }
            if list.len() != k {
                return Err(LayoutError::ScaleCount { given: list.len(), expected: k });
            }
        }
        Ok((list.to_vec(), per_k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Kcrs, KcxRsx, Krsc};
    use crate::tensor::Tensor;

    /// Per output channel, each output channel's part of new storage is written once, padding
    /// included: the crate's tests fill fresh storage with a sentinel byte (0xA5, -91 as i8)
    /// first, so an element left unwritten shows.
    #[test]
    fn per_output_channel_passes_write_every_element_of_fresh_storage() {
        let w = Tensor::<f32, Kcrs>::from_fn([3, 40, 3, 2], |[k, c, r, s]| {
            (k as f32 - 1.0) * (c * 6 + r * 2 + s) as f32 / 7.0
        })
        .unwrap();
        let scales = [0.5, 0.25, 2.0];
        let from_krsc: Tensor<f32, Krsc> = w.to_layout().unwrap();
        for q in [
            quantize::<_, _, i8, KcxRsx<32>>(&w, 1, Scales::PerOutputChannel(&scales)).unwrap(),
            quantize::<_, _, i8, KcxRsx<32>>(&from_krsc, 1, Scales::PerOutputChannel(&scales)).unwrap(),
        ] {
            assert_eq!((q.padded().channels(), q.padded().padded_channels()), (40, 64));
            for (k, c, r, s) in (0..3).flat_map(|k| {
                (0..64).flat_map(move |c| (0..3).flat_map(move |r| (0..2).map(move |s| (k, c, r, s))))
            }) {
                let want = match c < 40 {
                    true => <Quantize as Cast<f32, i8>>::cast(&Quantize(scales[k]), w[[k, c, r, s]]),
                    false => 0,
                };
                assert_eq!(q.tensor()[[k, c, r, s]], want, "at [{k}, {c}, {r}, {s}]");
            }
        }
    }
}
