//! The steps of a fused pass's plan: one loop ([`CastLoop`]) and where a channel sits in the
//! source ([`ChannelMap`]); [`CastNest`](super::CastNest) builds them, the passes run them.

/// One loop of a [`CastNest`](super::CastNest): a run of the destination's storage, and how far the source
/// offset and the logical channel move per step.
///
/// ```
/// use typed_layout::cast::{CastLoop, CastNest};
/// use typed_layout::{Nchw, NcxHwx, Shape};
/// // Into NC/4HW4: the channel groups and the lanes are separate loops of C.
/// let plan = CastNest::new(&Shape::<Nchw>::new([1, 6, 1, 5])?, &Shape::<NcxHwx<4>>::new([1, 8, 1, 5])?)?;
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
/// use typed_layout::cast::{CastNest, ChannelMap};
/// use typed_layout::{Nhwc, NcxHwx, Shape};
/// let plan = CastNest::new(&Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?, &Shape::<Nhwc>::new([1, 8, 2, 2])?)?;
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
