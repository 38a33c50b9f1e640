//! Convolutions as cuDNN sets them up: which filter layout goes with which input layout
//! ([`FilterOf`], a compile-time relation), one convolution's shapes checked together
//! ([`Conv`]: groups, padding, stride, dilation, the output's dims), and the guide's Tensor Core
//! advice for all its tensors ([`ConvTensorCore`]).
//!
//! ```
//! use typed_layout::{conv::Conv, Krsc, Nhwc, Shape};
//! let x = Shape::<Nhwc>::new([8, 64, 56, 56])?;
//! let w = Shape::<Krsc>::new([128, 64, 3, 3])?;
//! let conv = Conv::builder(&x, &w).padding(&[1, 1]).stride(&[2, 2]).build()?;
//! assert_eq!(conv.output_dims(), [8, 128, 28, 28]);
//! // Depthwise: one group per channel, one input channel per filter.
//! let dw = Conv::builder(&x, &Shape::<Krsc>::new([64, 1, 3, 3])?).groups(64).build()?;
//! assert_eq!(dw.output_dims(), [8, 64, 54, 54]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! A filter in the wrong layout for the input does not compile:
//!
//! ```compile_fail,E0277
//! use typed_layout::{conv::Conv, Kcrs, Nhwc, Shape};
//! let x = Shape::<Nhwc>::new([8, 64, 56, 56])?;
//! let w = Shape::<Kcrs>::new([128, 64, 3, 3])?;
//! let conv = Conv::new(&x, &w)?; // error: `Kcrs` is not the filter layout of a convolution over `Nhwc`
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

mod readiness;
pub mod reorder;

pub use crate::error::ConvError;
pub use readiness::ConvTensorCore;

use crate::error::{DimName, LayoutError};
use crate::family::{ConvInput, DimArray, Family};
use crate::layout::{
    DimsOf, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, Shape,
};

/// "`Self` is the filter layout of a cuDNN convolution over input layout `I`": KCRS for NCHW,
/// KRSC for NHWC, KC/xRSx for NC/xHWx (the same x), KCDRS for NCDHW and KDRSC for NDHWC.
///
/// Implement it for layouts of your own (`layout!`) to pair them.
///
/// ```
/// use typed_layout::{conv::FilterOf, KcxRsx, NcxHwx};
/// fn paired<I: typed_layout::Layout, F: FilterOf<I>>() where I::Family: typed_layout::ConvInput {}
/// paired::<NcxHwx<32>, KcxRsx<32>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the filter layout of a convolution over `{I}`",
    label = "not the filter layout for `{I}`",
    note = "cuDNN pairs NCHW with KCRS, NHWC with KRSC, NC/xHWx with KC/xRSx (the same x), NCDHW with KCDRS and NDHWC with KDRSC: convert the filter with `to_layout`"
)]
pub trait FilterOf<I: Layout>: Layout<Family = <I::Family as ConvInput>::Filter>
where
    I::Family: ConvInput,
{
}

impl FilterOf<Nchw> for Kcrs {}
impl FilterOf<Nhwc> for Krsc {}
impl<const X: usize> FilterOf<NcxHwx<X>> for KcxRsx<X> {}
impl FilterOf<Ncdhw> for Kcdrs {}
impl FilterOf<Ndhwc> for Kdrsc {}

/// The most spatial dims a convolution has (a volume's D, H, W).
const MAX_SPATIAL: usize = 3;

/// One convolution's input and filter shapes with its group count, padding, stride and
/// dilation ([`Conv::builder`]), checked together: C = G × (C/G), K a multiple of G, strides and dilations at
/// least 1, the dilated filter inside the padded input. The output has the input's layout and
/// dims `[N, K, out…]`, `out = 1 + (in + 2·pad − (dilation·(size − 1) + 1)) / stride` (as
/// `cudnnGetConvolutionNdForwardOutputDim`).
///
/// Padding, stride and dilation are given per spatial dim, in the input's logical order
/// (H, W; D, H, W).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv<I: Layout, F: Layout> {
    input: Shape<I>,
    filter: Shape<F>,
    groups: usize,
    padding: [usize; MAX_SPATIAL],
    stride: [usize; MAX_SPATIAL],
    dilation: [usize; MAX_SPATIAL],
}

impl<I, F> Conv<I, F>
where
    I: Layout,
    I::Family: ConvInput,
    F: FilterOf<I>,
{
    /// A convolution of one group, no padding, stride and dilation 1.
    pub fn new(input: &Shape<I>, filter: &Shape<F>) -> Result<Self, LayoutError> {
        Self::builder(input, filter).build()
    }

    /// A convolution to set up: groups, padding, stride and dilation, then
    /// [`build`](ConvBuilder::build), which checks them together. Takes shapes: pass a tensor's
    /// with `x.shape()`.
    pub fn builder(input: &Shape<I>, filter: &Shape<F>) -> ConvBuilder<I, F> {
        let spatial = <I::Family as ConvInput>::SPATIAL.len();
        ConvBuilder {
            conv: Conv {
                input: *input,
                filter: *filter,
                groups: 1,
                padding: [0; MAX_SPATIAL],
                stride: [1; MAX_SPATIAL],
                dilation: [1; MAX_SPATIAL],
            },
            given: [spatial; 3],
        }
    }

    /// The input's shape.
    pub const fn input(&self) -> &Shape<I> {
        &self.input
    }
    /// The filter's shape.
    pub const fn filter(&self) -> &Shape<F> {
        &self.filter
    }
    /// The group count G.
    pub const fn groups(&self) -> usize {
        self.groups
    }
    /// Padding per spatial dim.
    pub fn padding(&self) -> &[usize] {
        &self.padding[..Self::spatial()]
    }
    /// Stride per spatial dim.
    pub fn stride(&self) -> &[usize] {
        &self.stride[..Self::spatial()]
    }
    /// Dilation per spatial dim.
    pub fn dilation(&self) -> &[usize] {
        &self.dilation[..Self::spatial()]
    }

    /// The output's dims, `[N, K, out…]` in the input's logical order.
    pub fn output_dims(&self) -> DimsOf<I> {
        let (x, w) = (self.input.dims(), self.filter.dims());
        let (x, w) = (x.as_ref(), w.as_ref());
        DimsOf::<I>::from_fn(|d| match d {
            0 => x[0],
            1 => w[0],
            d => {
                let s = d - 2;
                let (padded, extent) = self.window(s, x[d], w[d]);
                // `build` checked extent ≤ padded.
                1 + (padded - extent as usize) / self.stride[s]
            }
        })
    }

    /// The output's shape, in the input's layout.
    pub fn output(&self) -> Result<Shape<I>, LayoutError> {
        Shape::new(self.output_dims())
    }

    /// Along spatial dim `s`: the padded input and the dilated filter. Exact: padding and
    /// dilation are at most `i32::MAX` (checked), dims fit `isize`, so both fit `u128` and the
    /// padded input `usize`.
    fn window(&self, s: usize, input: usize, filter: usize) -> (usize, u128) {
        let padded = input as u128 + 2 * self.padding[s] as u128;
        let extent = self.dilation[s] as u128 * (filter as u128 - 1) + 1;
        (usize::try_from(padded).unwrap_or(usize::MAX), extent)
    }

    fn spatial() -> usize {
        <I::Family as ConvInput>::SPATIAL.len()
    }

    fn checked(self) -> Result<Self, LayoutError> {
        let (x, w) = (self.input.dims(), self.filter.dims());
        let (x, w) = (x.as_ref(), w.as_ref());
        let g = self.groups;
        if g == 0 {
            return Err(ConvError::NoGroups.into());
        }
        let letters = <I::Family as Family>::LETTERS.as_bytes();
        // cuDNN's parameters are C ints.
        let params = (0..Self::spatial()).flat_map(|s| {
            let dim = DimName::new(s + 2, letters);
            [("padding", self.padding[s]), ("stride", self.stride[s]), ("dilation", self.dilation[s])]
                .map(|(what, value)| (Some(dim), what, value))
        });
        for (dim, what, value) in core::iter::once((None, "group count", g)).chain(params) {
            if value > i32::MAX as usize {
                return Err(ConvError::Limit { dim, what, value }.into());
            }
        }
        if g.checked_mul(w[1]) != Some(x[1]) {
            return Err(ConvError::Groups { input: x[1], groups: g, per_group: w[1] }.into());
        }
        if !w[0].is_multiple_of(g) {
            return Err(ConvError::OutputChannels { k: w[0], groups: g }.into());
        }
        for s in 0..Self::spatial() {
            let (d, dim) = (s + 2, DimName::new(s + 2, letters));
            for (what, v) in [("stride", self.stride[s]), ("dilation", self.dilation[s])] {
                if v == 0 {
                    return Err(ConvError::ZeroStep { dim, what }.into());
                }
            }
            let (padded, extent) = self.window(s, x[d], w[d]);
            if extent > padded as u128 {
                return Err(ConvError::Window {
                    dim,
                    padded,
                    extent: usize::try_from(extent).unwrap_or(usize::MAX),
                }
                .into());
            }
        }
        // The output exists in the input's layout (K a multiple of NC/xHWx's x, say).
        self.output()?;
        Ok(self)
    }
}

/// A [`Conv`] being set up: each setting is taken as given, and [`build`](ConvBuilder::build)
/// checks them all together (so a padding that makes a large filter fit can come after it).
///
/// ```
/// use typed_layout::{conv::Conv, Kcrs, Nchw, Shape};
/// let x = Shape::<Nchw>::new([1, 32, 7, 7])?;
/// let w = Shape::<Kcrs>::new([32, 8, 9, 9])?; // larger than the input: padding makes it fit
/// let conv = Conv::builder(&x, &w).groups(4).padding(&[1, 1]).build()?;
/// assert_eq!(conv.output_dims(), [1, 32, 1, 1]);
/// assert!(Conv::builder(&x, &w).groups(4).build().is_err()); // 9 > 7
/// assert!(Conv::builder(&x, &w).groups(4).padding(&[1]).build().is_err()); // two spatial dims
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvBuilder<I: Layout, F: Layout> {
    conv: Conv<I, F>,
    /// How many values padding, stride and dilation were given (the spatial count when unset).
    given: [usize; 3],
}

impl<I, F> ConvBuilder<I, F>
where
    I: Layout,
    I::Family: ConvInput,
    F: FilterOf<I>,
{
    /// `groups` groups: the input's C is `groups` times the filter's, each group of C/G input
    /// channels gives K/G output channels (depthwise: as many groups as channels, a filter of
    /// C = 1).
    pub fn groups(mut self, groups: usize) -> Self {
        self.conv.groups = groups;
        self
    }

    /// Zero padding on both sides, per spatial dim.
    pub fn padding(mut self, padding: &[usize]) -> Self {
        self.given[0] = copy(&mut self.conv.padding, padding);
        self
    }

    /// The step between output positions in the input, per spatial dim.
    pub fn stride(mut self, stride: &[usize]) -> Self {
        self.given[1] = copy(&mut self.conv.stride, stride);
        self
    }

    /// The step between filter taps in the input, per spatial dim.
    pub fn dilation(mut self, dilation: &[usize]) -> Self {
        self.given[2] = copy(&mut self.conv.dilation, dilation);
        self
    }

    /// The convolution, or the first rule its settings break ([`ConvError`]).
    pub fn build(self) -> Result<Conv<I, F>, LayoutError> {
        let spatial = <I::Family as ConvInput>::SPATIAL.len();
        if let Some(&given) = self.given.iter().find(|&&g| g != spatial) {
            return Err(ConvError::SpatialCount { given, spatial }.into());
        }
        self.conv.checked()
    }
}

/// Copies `values` into `into` when they fit; returns how many were given.
fn copy(into: &mut [usize; MAX_SPATIAL], values: &[usize]) -> usize {
    if values.len() <= MAX_SPATIAL {
        into[..values.len()].copy_from_slice(values);
    }
    values.len()
}
