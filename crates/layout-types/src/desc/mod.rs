//! The runtime tensor descriptor: the guide's "generic n-D tensor descriptor".
//!
//! ```
//! use typed_layout::{DataType, TensorDesc};
//! // The guide's example tensor in NHWC: N, C, H, W = 1, 64, 5, 4, strides in n, c, h, w order.
//! let d = TensorDesc::new(DataType::Float, &[1, 64, 5, 4], &[1280, 1, 256, 64])?;
//! assert!(d.fully_packed("NHWC")? && !d.fully_packed("NCHW")?);
//! assert!(!d.overlap().may_overlap());
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::dtype::DataType;
use crate::error::LayoutError;
use crate::family::BuiltinFamily;
use crate::layout::{Layout, NamedLayout, Shape};
use crate::notation::{check_family_letters, NotationError, NotationErrorKind, MAX_RANK};
use crate::overlap::{self, Overlap};
use crate::placement;
use crate::predicates::{self, validate};

mod cudnn;
mod cudnn_format;
mod dyn_layout;

pub use cudnn::{NdArgs, TensorFormat, MAX_ELEMENTS, MAX_INT};
pub use cudnn_format::{DescriptorKind, DescriptorType, FormatArgs};
pub use dyn_layout::DynLayout;

/// A data type, 3 to 8 dims and one signed stride per dim, validated: the guide's tensor
/// descriptor.
///
/// Dims and strides are in logical order. Descriptors of rank 3, 4 and 5 carry the letters
/// `BMN`, `NCHW` and `NCDHW`; other ranks get letters from [`TensorDesc::with_letters`].
///
/// ```
/// use typed_layout::{DataType, NamedLayout, TensorDesc};
/// let d = TensorDesc::new(DataType::Float, &[1, 64, 5, 4], &[1280, 1, 256, 64])?;
/// assert!(d.fully_packed("NHWC")?);
/// assert!(d.partially_packed("NHWC", "WC")?);
/// assert!(!d.overlap().may_overlap());
/// assert_eq!(d.named_layouts(), [NamedLayout::Nhwc]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TensorDesc {
    data_type: DataType,
    rank: usize,
    dims: [usize; MAX_RANK],
    strides: [isize; MAX_RANK],
    letters: [u8; MAX_RANK],
    has_letters: bool,
}

impl TensorDesc {
    /// Validates and builds a descriptor.
    ///
    /// ```
    /// use typed_layout::{DataType, LayoutError, TensorDesc};
    /// let e = TensorDesc::new(DataType::Half, &[2, 3], &[3, 1]).unwrap_err();
    /// assert_eq!(e, LayoutError::RankOutOfRange { rank: 2 });
    /// let e = TensorDesc::new(DataType::Half, &[2, 0, 4, 4], &[16, 16, 4, 1]).unwrap_err();
    /// assert!(e.to_string().starts_with("dimension C"));
    /// ```
    pub fn new(data_type: DataType, dims: &[usize], strides: &[isize]) -> Result<Self, LayoutError> {
        let letters = BuiltinFamily::of_rank(dims.len()).map_or("", BuiltinFamily::letters).as_bytes();
        validate(dims, strides, letters)?;
        let mut desc = TensorDesc {
            data_type,
            rank: dims.len(),
            dims: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            letters: [0; MAX_RANK],
            has_letters: !letters.is_empty(),
        };
        desc.dims[..dims.len()].copy_from_slice(dims);
        desc.strides[..dims.len()].copy_from_slice(strides);
        desc.letters[..letters.len()].copy_from_slice(letters);
        Ok(desc)
    }

    /// The descriptor of a packed shape in a layout with per-dimension strides.
    ///
    /// Fails with [`LayoutError::NotApplicable`] for NC/xHWx, whose C spans two axes.
    ///
    /// ```
    /// use typed_layout::{DataType, Nchw, Shape, TensorDesc};
    /// let d = TensorDesc::from_shape(DataType::Float, &Shape::<Nchw>::new([1, 64, 5, 4])?)?;
    /// assert_eq!(d.strides(), &[1280, 20, 4, 1]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_shape<L: Layout>(data_type: DataType, shape: &Shape<L>) -> Result<Self, LayoutError> {
        if L::FORMAT.vector().is_some() {
            return Err(LayoutError::NotApplicable {
                reason: "NC/xHWx splits C across two axes, which per-dimension strides cannot express",
            });
        }
        let strides: Vec<isize> = shape.placement().strides().iter().map(|&s| s as isize).collect();
        let desc = TensorDesc::new(data_type, shape.placement().dims(), &strides)?;
        desc.with_letters(L::LETTERS)
    }

    /// The same descriptor with its dimensions named by `letters` (one uppercase letter per
    /// dimension, in logical order), for formats of ranks 6 to 8 or user families.
    ///
    /// ```
    /// use typed_layout::{DataType, TensorDesc};
    /// let d = TensorDesc::new(DataType::Float, &[2, 3, 4, 5, 6, 7], &[2520, 840, 210, 42, 7, 1])?
    ///     .with_letters("NTCDHW")?;
    /// assert!(d.fully_packed("NTCDHW")?);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn with_letters(mut self, letters: &str) -> Result<Self, LayoutError> {
        check_family_letters(letters)?;
        if letters.len() != self.rank {
            return Err(LayoutError::LetterCount { expected: self.rank, found: letters.len() });
        }
        self.letters = [0; MAX_RANK];
        self.letters[..self.rank].copy_from_slice(letters.as_bytes());
        self.has_letters = true;
        Ok(self)
    }

    /// The data type.
    pub const fn data_type(&self) -> DataType {
        self.data_type
    }
    /// Number of dimensions, 3 to 8.
    pub const fn rank(&self) -> usize {
        self.rank
    }
    /// Dims, in logical order.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }
    /// Strides, in logical order.
    pub fn strides(&self) -> &[isize] {
        &self.strides[..self.rank]
    }
    /// The letters of the dimensions in logical order, if the descriptor has them.
    pub fn letters(&self) -> Option<&str> {
        if !self.has_letters {
            return None;
        }
        core::str::from_utf8(&self.letters[..self.rank]).ok()
    }

    fn require_letters(&self) -> Result<&str, LayoutError> {
        self.letters().ok_or(LayoutError::NotApplicable {
            reason: "the descriptor has no letters: name its dimensions with TensorDesc::with_letters",
        })
    }

    /// Is the tensor `format`-fully-packed (`"NCHW"`)? See [`predicates`](crate::predicates).
    pub fn fully_packed(&self, format: &str) -> Result<bool, LayoutError> {
        predicates::fully_packed(self.dims(), self.strides(), self.require_letters()?, format)
    }

    /// Is the tensor, in `format`, partially packed in the letters of `packed`
    /// (`("NHWC", "WC")`)? See [`predicates`](crate::predicates).
    pub fn partially_packed(&self, format: &str, packed: &str) -> Result<bool, LayoutError> {
        predicates::partially_packed(self.dims(), self.strides(), self.require_letters()?, format, packed)
    }

    /// Is the tensor spatially packed? See [`predicates`](crate::predicates).
    pub fn spatially_packed(&self) -> Result<bool, LayoutError> {
        predicates::spatially_packed(self.dims(), self.strides(), self.require_letters()?)
    }

    /// Does iterating over all indices reach an address twice? See [`predicates::overlap`](crate::predicates::overlap).
    pub fn overlap(&self) -> Overlap {
        overlap::overlap(self.dims(), self.strides())
    }

    /// Does any dimension of size above 1 have a negative stride? (cuDNN routines reject these
    /// unless documented otherwise.)
    pub fn has_negative_strides(&self) -> bool {
        self.dims().iter().zip(self.strides()).any(|(&d, &s)| d > 1 && s < 0)
    }

    /// Does the descriptor have the strides of `layout` packed over its dims? Strides of size-1
    /// dims are ignored: they never move the address.
    ///
    /// ```
    /// use typed_layout::{DataType, NamedLayout, TensorDesc};
    /// // C = 1: NCHW and NHWC store the same bytes, whatever C's stride says.
    /// let d = TensorDesc::new(DataType::Float, &[2, 1, 3, 4], &[12, 99, 4, 1])?;
    /// assert!(d.matches(NamedLayout::Nchw) && d.matches(NamedLayout::Nhwc));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn matches(&self, layout: NamedLayout) -> bool {
        let (format, letters) = layout.format();
        if self.letters() != Some(letters) {
            return false;
        }
        let Ok(packed) = placement::derive(&format, self.dims(), letters.as_bytes()) else {
            return false;
        };
        self.dims()
            .iter()
            .zip(self.strides())
            .zip(packed.strides())
            .all(|((&d, &s), &p)| d == 1 || s == p as isize)
    }

    /// Every named layout the descriptor matches (several when size-1 dims make them coincide).
    pub fn named_layouts(&self) -> Vec<NamedLayout> {
        NamedLayout::ALL.into_iter().filter(|&l| self.matches(l)).collect()
    }
}

// `DynLayout` sits below `TensorDesc`: the question that needs both is answered here.
impl DynLayout {
    /// Is `desc` stored in this layout: does it satisfy the format's packing (partially packed
    /// in the suffix's letters, or fully packed)? The descriptor must carry this layout's letters.
    ///
    /// ```
    /// use typed_layout::{DataType, DynLayout, TensorDesc};
    /// let rows = DynLayout::parse("NHWC, WC-packed")?;
    /// let padded = TensorDesc::new(DataType::Half, &[2, 3, 4, 5], &[100, 1, 20, 3])?;
    /// assert!(rows.describes(&padded)?);
    /// assert!(!DynLayout::parse("NHWC")?.describes(&padded)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describes(&self, desc: &TensorDesc) -> Result<bool, LayoutError> {
        if desc.letters() != Some(self.letters()) {
            return Err(LayoutError::NotApplicable {
                reason: "the descriptor's letters are not this layout's family",
            });
        }
        if self.format().vector().is_some() {
            return Err(NotationError::new(NotationErrorKind::VectorizedFormat, 0, 0).into());
        }
        Ok(predicates::packed_by_rules(
            desc.dims(),
            desc.strides(),
            self.format().order(),
            self.format().packed(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DimName;

    #[test]
    fn validation_names_rule_and_dim() {
        let e = TensorDesc::new(DataType::Float, &[1, 2, 3, 4, 5, 6, 7, 8, 9], &[1; 9]).unwrap_err();
        assert_eq!(e, LayoutError::RankOutOfRange { rank: 9 });
        let e = TensorDesc::new(DataType::Float, &[2, 3, 4], &[1, 1]).unwrap_err();
        assert_eq!(e, LayoutError::StrideCount { dims: 3, strides: 2 });
        let e = TensorDesc::new(DataType::Float, &[2, 3, 1 << 40, 1 << 30], &[1, 1, 1, 1]).unwrap_err();
        assert_eq!(e.to_string(), "the size or stride product overflows at dimension W (logical index 3): element offsets must fit in isize");
        let e = TensorDesc::new(DataType::Float, &[3, 3, 4], &[isize::MAX, 1, 1]).unwrap_err();
        assert!(matches!(e, LayoutError::SizeOverflow { dim: DimName { index: 0, letter: Some('B') } }));
        let d = TensorDesc::new(DataType::Float, &[2, 3, 4, 5], &[60, 20, 5, 1]).unwrap();
        assert_eq!(d.with_letters("NCDHW").unwrap_err(), LayoutError::LetterCount { expected: 4, found: 5 });
    }

    #[test]
    fn guide_predicates() {
        let nchw = TensorDesc::new(DataType::Float, &[1, 64, 5, 4], &[1280, 20, 4, 1]).unwrap();
        assert!(nchw.fully_packed("NCHW").unwrap());
        assert!(!nchw.fully_packed("NHWC").unwrap());
        assert!(nchw.spatially_packed().unwrap());
        // With N = 1, N's stride never moves the address, so the guide's tensor is CHWN too.
        assert_eq!(nchw.named_layouts(), [NamedLayout::Nchw, NamedLayout::Chwn]);
        let batch2 = TensorDesc::new(DataType::Float, &[2, 64, 5, 4], &[1280, 20, 4, 1]).unwrap();
        assert_eq!(batch2.named_layouts(), [NamedLayout::Nchw]);
        let mirrored = TensorDesc::new(DataType::Float, &[2, 3, 4], &[-12, 4, 1]).unwrap();
        assert!(mirrored.has_negative_strides());
        assert!(!mirrored.fully_packed("BMN").unwrap());
        assert_eq!(mirrored.overlap(), Overlap::Disjoint);
    }

    #[test]
    fn no_letters_above_rank_five_until_named() {
        let d = TensorDesc::new(DataType::Int8, &[2, 2, 2, 2, 2, 2], &[32, 16, 8, 4, 2, 1]).unwrap();
        assert!(matches!(d.fully_packed("ABCDEF"), Err(LayoutError::NotApplicable { .. })));
        let d = d.with_letters("ABCDEF").unwrap();
        assert!(d.fully_packed("ABCDEF").unwrap());
        assert!(d.with_letters("ABCDEE").is_err());
    }
}
