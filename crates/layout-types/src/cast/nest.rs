//! The loop nest of a fused relayout + cast + pad, and its CPU run.

use super::pixels::Pixels;
use super::steps::{CastLoop, ChannelMap};
use super::{channel_dim, Cast, PACKED_ONLY};
use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::SameFamily;
use crate::layout::{Layout, Shape};
use crate::placement::{DimMap, Part, Placement, MAX_AXES};
use crate::platform::out::Out;

/// The loop nest of a fused relayout + cast + pad: loops over the padded destination in its storage
/// order (outermost first, so the destination offset of a position is its rank in the loops),
/// each with its source step and its channel step. A position whose channel is below
/// [`channels`](CastNest::channels) reads the source at the loops' offset plus the channel's
/// [`ChannelMap`] offset; the others are padding and get zero.
///
/// Axes of extent 1 drop out and neighbours that step both the source and the channel in
/// proportion fuse (H and W of NCHW → NHWC become one loop). The CPU runs this plan; the GPU
/// backend's fused kernel decomposes its thread index over the same loops.
///
/// ```
/// use typed_layout::cast::{CastLoop, CastNest, ChannelMap};
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let rgb = Shape::<Nchw>::new([2, 3, 4, 5])?;
/// let padded = Shape::<Nhwc>::new([2, 8, 4, 5])?;
/// let plan = CastNest::new(&rgb, &padded)?;
/// assert_eq!(plan.loops(), &[
///     CastLoop { extent: 2, src: 60, channel: 0 },  // N
///     CastLoop { extent: 20, src: 1, channel: 0 },  // H and W, fused
///     CastLoop { extent: 8, src: 0, channel: 1 },   // C, 3 of data then 5 of padding
/// ]);
/// assert_eq!((plan.channels(), plan.channel_map()), (3, ChannelMap { width: 1, outer: 20, inner: 0 }));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CastNest {
    loops: [CastLoop; MAX_AXES],
    n: usize,
    channels: usize,
    map: ChannelMap,
    len: usize,
}

impl CastNest {
    /// The plan writing all of `dst` from `src`: their dims must be equal but in C, where `dst`
    /// may have more (the padding). Fails with [`LayoutError::ShapeMismatch`] otherwise, and
    /// with [`LayoutError::NotApplicable`] for a family without C or a destination with padded
    /// strides (the plan writes its storage in order, every element).
    pub fn new<S: Layout, D: Layout>(src: &Shape<S>, dst: &Shape<D>) -> Result<CastNest, LayoutError>
    where
        D::Family: SameFamily<S::Family>,
    {
        CastNest::between(src.placement(), dst.placement(), S::LETTERS)
    }

    /// [`CastNest::new`] on placements: the source's may be a sub-tensor's (any strides that
    /// nest), the destination's is written in storage order, so it must be packed: as many
    /// elements as storage, which makes the loops' extents multiply to its length (checked here).
    /// `letters` names dimensions in errors.
    pub(crate) fn between(sp: &Placement, dp: &Placement, letters: &str) -> Result<CastNest, LayoutError> {
        let c = channel_dim(letters)?;
        if !dp.is_dense() {
            return Err(LayoutError::NotApplicable { reason: PACKED_ONLY });
        }
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
            CastNest { loops: [CastLoop::default(); MAX_AXES], n: 0, channels: sd[c], map, len: dp.len() };
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

    /// Writes every element of `dst` (the destination's storage, [`len`](CastNest::len) long:
    /// checked before anything is written) from `src` (the source's), the padding's zeros
    /// included, whatever `dst` held before.
    pub(crate) fn run<T: Element, U: Element, C: Cast<T, U>>(&self, src: &[T], dst: Out<'_, U>, cast: C) {
        assert_eq!(dst.len(), self.len, "a fused pass writes a destination of its plan's length");
        let loops = self.loops();
        #[cfg(feature = "parallel")]
        {
            use crate::platform::simd::{stores_for, Stores};
            let bytes = dst.len().saturating_mul(U::SIZE.max(T::SIZE));
            let threads = crate::convert::threads_for(bytes);
            if threads > 1 && loops[0].extent > 1 {
                // As the conversions cut (`convert::run`): one task a thread for a pass in the
                // caches, four for one through memory. One 224 × 224 image of f32 NCHW C = 3 into
                // f16 NHWC C = 8 on an AMD EPYC (Zen 4), two threads, the bench's race in turn
                // three times: 83.9 GB/s (8 tasks) → 87.4–87.5 (2).
                let row = dst.len() / loops[0].extent; // elements per position of the outer loop
                let tasks = match stores_for(self.len.saturating_mul(U::SIZE)) {
                    Stores::Ordinary => threads,
                    Stores::Streaming => 4 * threads,
                };
                let rows = loops[0].extent.div_ceil(tasks);
                let parts = dst.chunks(rows * row).enumerate();
                return crate::tasks::for_each(parts, |(task, chunk)| {
                    self.run_rows(loops, task * rows, src, chunk, cast)
                });
            }
        }
        self.run_rows(loops, 0, src, dst, cast)
    }

    /// Writes `dst`, the positions of the outer loop from `first` on (as many as it holds).
    fn run_rows<T: Element, U: Element, C: Cast<T, U>>(
        &self,
        loops: &[CastLoop],
        first: usize,
        src: &[T],
        dst: Out<'_, U>,
        cast: C,
    ) {
        let bytes = self.len.saturating_mul(U::SIZE);
        if let Some(pixels) = Pixels::of(loops, self.map, self.channels, bytes) {
            return pixels.run_part(loops, first, src, dst, cast);
        }
        let Some((&inner, outer)) = loops.split_last() else { unreachable!("a plan has a loop") };
        let (map, channels) = (self.map, self.channels);
        // The outer loops' counters, the first one starting at `first` (an odometer).
        let mut at = [0usize; MAX_AXES];
        at[0] = first;
        // A single loop is itself cut into tasks: `dst` is then one row starting at `first`.
        let o = outer.first().unwrap_or(&inner);
        let (mut s, mut ch) = (first * o.src, first * o.channel);
        for row in dst.chunks(inner.extent) {
            if inner.channel == 0 {
                if ch >= channels {
                    row.slots().for_each(|out| out.set(U::default()));
                } else {
                    let base = s + map.offset(ch);
                    for (j, out) in row.slots().enumerate() {
                        out.set(cast.cast_at(src[base + j * inner.src], ch));
                    }
                }
            } else {
                for (j, out) in row.slots().enumerate() {
                    let c = ch + j * inner.channel;
                    out.set(if c < channels {
                        cast.cast_at(src[s + map.offset(c)], c)
                    } else {
                        U::default()
                    });
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
