//! Relayout, cast and channel padding fused into one pass over the source: an f32 NCHW image
//! with C = 3 becomes an f16 NHWC tensor with C padded to 8 (what Tensor Cores want), an f32
//! NCHW tensor becomes NC/32HW32 i8 with a scale (cuDNN's INT8x32 input preparation), an
//! NC/xHWx destination gets C padded up to a multiple of x.
//!
//! The padding is never silent: the result is a [`ChannelPadded`] tensor, whose dims (and so its
//! descriptor) carry the padded C and which says how many channels are data.
//!
//! ```
//! use typed_layout::cast::{relayout_cast_pad, Convert};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! use half::f16;
//!
//! let rgb = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as f32)?;
//! let padded = relayout_cast_pad::<f32, f16, Nchw, Nhwc, _>(&rgb, 8, Convert)?;
//! assert_eq!((padded.channels(), padded.padded_channels()), (3, 8));
//! assert_eq!(padded.tensor().dims(), [1, 8, 2, 2]);
//! // Pixel (0, 0): the three channels, then five zeros.
//! let first: Vec<f32> = padded.tensor().as_slice()[..8].iter().map(|v| v.to_f32()).collect();
//! assert_eq!(first, [0.0, 100.0, 200.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{Family, SameFamily};
use crate::layout::{Layout, Shape};
use crate::plan::{DimMap, Part, MAX_AXES};
use crate::tensor::Tensor;

/// How a source element becomes a destination element.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, Cast};
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// /// Image bytes to [0, 1] floats (CPU only: the GPU kernels know Convert and Scale).
/// #[derive(Clone, Copy)]
/// struct Normalize;
/// impl Cast<u8, f32> for Normalize {
///     fn cast(&self, v: u8) -> f32 { v as f32 / 255.0 }
/// }
/// let rgb = Tensor::<u8, Nchw>::filled([1, 3, 2, 2], 255)?;
/// let x = relayout_cast_pad::<u8, f32, Nchw, Nhwc, _>(&rgb, 4, Normalize)?;
/// assert_eq!(&x.tensor().as_slice()[..4], &[1.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub trait Cast<S: Element, D: Element>: Copy + Send + Sync {
    /// The destination value of `value`.
    fn cast(&self, value: S) -> D;
}

/// The value in the destination type: floats rounded to nearest, integers rounded half away from
/// zero and saturated (NaN becomes 0).
///
/// ```
/// use typed_layout::cast::{Cast, Convert};
/// let h: half::f16 = Convert.cast(1.0f32 / 3.0);
/// assert_eq!(h, half::f16::from_f32(1.0 / 3.0));
/// assert_eq!(<Convert as Cast<f32, i8>>::cast(&Convert, 2.5), 3); // half away from zero
/// assert_eq!(<Convert as Cast<f32, u8>>::cast(&Convert, -7.0), 0); // saturated
/// assert_eq!(<Convert as Cast<f64, i32>>::cast(&Convert, f64::NAN), 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Convert;

/// `value × scale`, then as [`Convert`]: saturated to the destination (`Scale(127.0 / max)`
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

impl<S: Element, D: Element> Cast<S, D> for Convert {
    #[inline]
    fn cast(&self, value: S) -> D {
        D::from_f64(value.to_f64())
    }
}

impl<S: Element, D: Element> Cast<S, D> for Scale {
    #[inline]
    fn cast(&self, value: S) -> D {
        D::from_f64(value.to_f64() * self.0)
    }
}

/// A tensor whose channel dimension C holds `channels` channels of data followed by zeros up to
/// its dims' C.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, Convert};
/// use typed_layout::{Nchw, NcxHwx, Tensor};
/// let x = Tensor::<i32, Nchw>::filled([1, 6, 2, 2], 9)?;
/// let p = relayout_cast_pad::<i32, i32, Nchw, NcxHwx<4>, _>(&x, 1, Convert)?;
/// assert_eq!((p.channels(), p.padded_channels()), (6, 8)); // C up to the vector width's multiple
/// assert_eq!(p.tensor().dims(), [1, 8, 2, 2]);
/// let t = p.into_tensor();
/// assert_eq!((t.get([0, 5, 1, 1]), t.get([0, 6, 1, 1])), (Some(&9), Some(&0)));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelPadded<T: Element, L: Layout> {
    tensor: Tensor<T, L>,
    channels: usize,
}

impl<T: Element, L: Layout> ChannelPadded<T, L> {
    /// The padded tensor (its dims carry the padded C).
    pub fn tensor(&self) -> &Tensor<T, L> {
        &self.tensor
    }
    /// The padded tensor, owned.
    pub fn into_tensor(self) -> Tensor<T, L> {
        self.tensor
    }
    /// Channels of data.
    pub fn channels(&self) -> usize {
        self.channels
    }
    /// Channels stored, data and padding.
    pub fn padded_channels(&self) -> usize {
        let c = <L::Family as Family>::LETTERS.find('C').unwrap_or(0);
        self.tensor.shape().packing().dims()[c]
    }
}

/// Copies `src` into layout `LD`, casting each element with `cast` and padding C with zeros up to
/// a multiple of `multiple` (and of `LD`'s vector width), in one pass: every destination
/// element is written once, in storage order (see [`CastPlan`]); large tensors run on rayon's
/// pool (feature `parallel`).
///
/// Fails for a family without a C, a `multiple` of 0, or a padded size that does not fit.
///
/// ```
/// use typed_layout::cast::{relayout_cast_pad, Scale};
/// use typed_layout::{Nchw, NcxHwx, Tensor};
/// // cuDNN's INT8x32 input: 40 channels quantized with a scale, padded to 64.
/// let x = Tensor::<f32, Nchw>::from_fn([1, 40, 3, 3], |[_, c, _, _]| c as f32 / 10.0)?;
/// let q = relayout_cast_pad::<f32, i8, Nchw, NcxHwx<32>, _>(&x, 1, Scale(127.0 / 3.9))?;
/// assert_eq!((q.channels(), q.padded_channels()), (40, 64));
/// assert_eq!(q.tensor().get([0, 39, 0, 0]), Some(&127));
/// assert_eq!(q.tensor().get([0, 50, 0, 0]), Some(&0)); // padding
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn relayout_cast_pad<S, D, LS, LD, C>(
    src: &Tensor<S, LS>,
    multiple: usize,
    cast: C,
) -> Result<ChannelPadded<D, LD>, LayoutError>
where
    S: Element,
    D: Element,
    LS: Layout,
    LD: Layout,
    LD::Family: SameFamily<LS::Family>,
    C: Cast<S, D>,
{
    let shape = padded_shape::<LS, LD>(src.shape(), multiple)?;
    let plan = CastPlan::new(src.shape(), &shape)?;
    let mut out = Tensor::<D, LD>::filled_in(shape, D::default())?;
    plan.run(src.as_slice(), out.as_mut_slice(), cast);
    Ok(ChannelPadded { tensor: out, channels: plan.channels() })
}

/// The shape of `src` in layout `LD` with C padded up to a multiple of `multiple` and of `LD`'s
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
pub fn padded_shape<LS: Layout, LD: Layout>(
    src: &Shape<LS>,
    multiple: usize,
) -> Result<Shape<LD>, LayoutError>
where
    LD::Family: SameFamily<LS::Family>,
{
    let letters = <LS::Family as Family>::LETTERS;
    let c = channel_dim(letters)?;
    if multiple == 0 {
        return Err(LayoutError::NotApplicable { reason: "channels are padded to a multiple of at least 1" });
    }
    let overflow = || LayoutError::SizeOverflow { dim: DimName::new(c, letters.as_bytes()) };
    let width = LD::FORMAT.vector().map_or(1, |v| v.width);
    let step = lcm(multiple, width).ok_or_else(overflow)?;
    let mut dims = src.packing().dims().to_vec();
    dims[c] = dims[c].div_ceil(step).checked_mul(step).ok_or_else(overflow)?;
    Shape::<LD>::from_slice(&dims)
}

fn channel_dim(letters: &str) -> Result<usize, LayoutError> {
    letters.find('C').ok_or(LayoutError::NotApplicable {
        reason: "channel padding needs a family with a channel dimension C",
    })
}

/// One loop of a [`CastPlan`]: a run of the destination's storage, and how far the source
/// offset and the logical channel move per step.
///
/// ```
/// use typed_layout::cast::{CastLoop, CastPlan};
/// use typed_layout::{Nchw, NcxHwx, Shape};
/// // Into NC/4HW4: the channel groups and the lanes are separate loops of C.
/// let plan = CastPlan::new(&Shape::<Nchw>::new([1, 6, 1, 5])?, &Shape::<NcxHwx<4>>::new([1, 8, 1, 5])?)?;
/// assert_eq!(plan.loops(), &[
///     CastLoop { extent: 2, src: 0, channel: 4 }, // C / 4
///     CastLoop { extent: 5, src: 1, channel: 0 }, // W (N and H are 1)
///     CastLoop { extent: 4, src: 0, channel: 1 }, // C % 4
/// ]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CastLoop {
    /// Number of positions.
    pub extent: usize,
    /// Source elements per step (0 for loops over C: the channel reaches the source through
    /// the plan's [`ChannelMap`]).
    pub src: usize,
    /// Logical channels per step (0 for loops not over C).
    pub channel: usize,
}

/// Where logical channel `c` sits in the source: `(c / width) * outer + (c % width) * inner`
/// elements on (a plain C has `width` 1, `outer` its stride and `inner` 0).
///
/// ```
/// use typed_layout::cast::{CastPlan, ChannelMap};
/// use typed_layout::{Nhwc, NcxHwx, Shape};
/// let plan = CastPlan::new(&Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?, &Shape::<Nhwc>::new([1, 8, 2, 2])?)?;
/// let map = plan.channel_map();
/// assert_eq!(map, ChannelMap { width: 4, outer: 16, inner: 1 });
/// assert_eq!(map.offset(5), 16 + 1); // group 1, lane 1
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChannelMap {
    /// The source's vector width in C (1 if C is not vectorized).
    pub width: usize,
    /// Elements between neighbouring vector groups (or channels).
    pub outer: usize,
    /// Elements between neighbouring lanes of a vector.
    pub inner: usize,
}

impl ChannelMap {
    /// The source offset of channel `c`.
    #[inline]
    pub const fn offset(&self, c: usize) -> usize {
        if self.width == 1 {
            c * self.outer
        } else {
            (c / self.width) * self.outer + (c % self.width) * self.inner
        }
    }
}

/// The plan of a fused relayout + cast + pad: loops over the padded destination in its storage
/// order (outermost first, so the destination offset of a position is its rank in the loops),
/// each with its source step and its channel step. A position whose channel is below
/// [`channels`](CastPlan::channels) reads the source at the loops' offset plus the channel's
/// [`ChannelMap`] offset; the others are padding and get zero.
///
/// Axes of extent 1 drop out and neighbours that step both the source and the channel in
/// proportion fuse (H and W of NCHW → NHWC become one loop). The CPU runs this plan; the GPU
/// backend's fused kernel decomposes its thread index over the same loops.
///
/// ```
/// use typed_layout::cast::{CastLoop, CastPlan, ChannelMap};
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let rgb = Shape::<Nchw>::new([2, 3, 4, 5])?;
/// let padded = Shape::<Nhwc>::new([2, 8, 4, 5])?;
/// let plan = CastPlan::new(&rgb, &padded)?;
/// assert_eq!(plan.loops(), &[
///     CastLoop { extent: 2, src: 60, channel: 0 },  // N
///     CastLoop { extent: 20, src: 1, channel: 0 },  // H and W, fused
///     CastLoop { extent: 8, src: 0, channel: 1 },   // C, 3 of data then 5 of padding
/// ]);
/// assert_eq!((plan.channels(), plan.channel_map()), (3, ChannelMap { width: 1, outer: 20, inner: 0 }));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CastPlan {
    loops: [CastLoop; MAX_AXES],
    n: usize,
    channels: usize,
    map: ChannelMap,
    len: usize,
}

impl CastPlan {
    /// The plan writing all of `dst` from `src`: their dims must be equal but in C, where `dst`
    /// may have more (the padding). Fails with [`LayoutError::ShapeMismatch`] otherwise, and
    /// with [`LayoutError::NotApplicable`] for a family without C.
    pub fn new<LS: Layout, LD: Layout>(src: &Shape<LS>, dst: &Shape<LD>) -> Result<CastPlan, LayoutError>
    where
        LD::Family: SameFamily<LS::Family>,
    {
        let letters = <LS::Family as Family>::LETTERS;
        let c = channel_dim(letters)?;
        let (sp, dp) = (src.packing(), dst.packing());
        let (sd, dd) = (sp.dims(), dp.dims());
        if let Some(d) = (0..sd.len()).find(|&d| if d == c { sd[d] > dd[d] } else { sd[d] != dd[d] }) {
            return Err(LayoutError::ShapeMismatch {
                dim: DimName::new(d, letters.as_bytes()),
                source: sd[d],
                destination: dd[d],
            });
        }
        let maps = sp.dim_maps();
        let map = match maps[c] {
            DimMap::Whole { stride } => ChannelMap { width: 1, outer: stride as usize, inner: 0 },
            DimMap::Split { width, outer, inner } => {
                ChannelMap { width, outer: outer as usize, inner: inner as usize }
            }
        };
        let mut plan =
            CastPlan { loops: [CastLoop::default(); MAX_AXES], n: 0, channels: sd[c], map, len: dp.len() };
        for a in dp.axes().iter().filter(|a| a.extent > 1) {
            let step = if a.dim == c {
                let channel = match a.part {
                    Part::Group { width } => width,
                    Part::Whole | Part::Lane { .. } => 1,
                };
                CastLoop { extent: a.extent, src: 0, channel }
            } else {
                let src = match maps[a.dim] {
                    DimMap::Whole { stride } | DimMap::Split { outer: stride, .. } => stride as usize,
                };
                CastLoop { extent: a.extent, src, channel: 0 }
            };
            // Fuse with the outer neighbour when both steps scale by this loop's extent.
            if let Some(outer) = plan.n.checked_sub(1).map(|k| &mut plan.loops[k]) {
                if outer.src == step.src * step.extent && outer.channel == step.channel * step.extent {
                    *outer = CastLoop { extent: outer.extent * step.extent, ..step };
                    continue;
                }
            }
            plan.loops[plan.n] = step;
            plan.n += 1;
        }
        if plan.n == 0 {
            // Every dim is 1: one loop of one position, so every consumer has a loop to run.
            plan.loops[0] = CastLoop { extent: 1, src: 0, channel: 0 };
            plan.n = 1;
        }
        Ok(plan)
    }

    /// The loops, outermost first; at least one.
    pub fn loops(&self) -> &[CastLoop] {
        &self.loops[..self.n]
    }

    /// Channels of data; the rest of the destination's C is padding.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// How a channel reaches the source.
    pub fn channel_map(&self) -> ChannelMap {
        self.map
    }

    /// Elements of the destination (the product of the loops' extents).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes all of `dst` (the destination's storage) from `src` (the source's).
    fn run<S: Element, D: Element, C: Cast<S, D>>(&self, src: &[S], dst: &mut [D], cast: C) {
        let loops = self.loops();
        #[cfg(feature = "parallel")]
        {
            let threads = rayon::current_num_threads();
            let bytes = dst.len().saturating_mul(D::SIZE.max(S::SIZE));
            if threads > 1 && bytes >= crate::convert::PARALLEL_THRESHOLD_BYTES && loops[0].extent > 1 {
                use rayon::prelude::*;
                let row = dst.len() / loops[0].extent; // elements per position of the outer loop
                let rows = loops[0].extent.div_ceil(4 * threads);
                return dst
                    .par_chunks_mut(rows * row)
                    .enumerate()
                    .for_each(|(task, chunk)| self.run_rows(loops, task * rows, src, chunk, cast));
            }
        }
        self.run_rows(loops, 0, src, dst, cast)
    }

    /// Writes `dst`, the positions of the outer loop from `first` on (as many as it holds).
    fn run_rows<S: Element, D: Element, C: Cast<S, D>>(
        &self,
        loops: &[CastLoop],
        first: usize,
        src: &[S],
        dst: &mut [D],
        cast: C,
    ) {
        let Some((&inner, outer)) = loops.split_last() else { return };
        let (map, channels) = (self.map, self.channels);
        // The outer loops' counters, the first one starting at `first` (an odometer).
        let mut at = [0usize; MAX_AXES];
        at[0] = first;
        // A single loop is itself cut into tasks: `dst` is then one row starting at `first`.
        let o = outer.first().unwrap_or(&inner);
        let (mut s, mut ch) = (first * o.src, first * o.channel);
        for row in dst.chunks_mut(inner.extent) {
            if inner.channel == 0 {
                if ch >= channels {
                    row.fill(D::default());
                } else {
                    let base = s + map.offset(ch);
                    for (j, out) in row.iter_mut().enumerate() {
                        *out = cast.cast(src[base + j * inner.src]);
                    }
                }
            } else {
                for (j, out) in row.iter_mut().enumerate() {
                    let c = ch + j * inner.channel;
                    *out = if c < channels { cast.cast(src[s + map.offset(c)]) } else { D::default() };
                }
            }
            // Next row: advance the innermost outer counter, carrying outwards.
            let mut k = outer.len();
            while k > 0 {
                k -= 1;
                at[k] += 1;
                s += outer[k].src;
                ch += outer[k].channel;
                if at[k] < outer[k].extent || k == 0 {
                    break;
                }
                s -= at[k] * outer[k].src;
                ch -= at[k] * outer[k].channel;
                at[k] = 0;
            }
        }
    }
}

/// The least common multiple, if it fits (`a`, `b` at least 1).
fn lcm(a: usize, b: usize) -> Option<usize> {
    let l = a as u128 / crate::overlap::gcd(a as u128, b as u128) * b as u128;
    usize::try_from(l).ok()
}
