//! Shapes fixed at compile time: their strides are constants, derived by the same code.

use core::marker::PhantomData;

use super::strides::PerDimStrides;
use super::{Layout, Shape};
use crate::dtype::{DataType, Element};
use crate::family::{Family, Filter, Image, Matmul, Volume, VolumeFilter};

/// A compile-time shape: layout `L` with dims fixed by the type `D` ([`ImageDims`],
/// [`VolumeDims`], [`MatmulDims`], [`FilterDims`], [`VolumeFilterDims`], or
/// `DimsR<Family, …>` for other families).
///
/// Its constants are evaluated by the compiler with the same [`placement::derive`](crate::placement::derive) that
/// [`Shape::new`] runs at run time.
///
/// ```
/// use typed_layout::{ImageDims, Nhwc, StaticShape};
/// const S: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
/// assert_eq!(S, [1280, 1, 256, 64]);
/// const LEN: usize = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::LEN;
/// assert_eq!(LEN, 1280);
/// ```
///
/// An impossible shape does not compile:
///
/// ```compile_fail,E0080
/// use typed_layout::{ImageDims, NcxHwx, StaticShape};
/// // error: NC/xHWx groups C into vectors of x channels, so C must be a multiple of x
/// const S: [isize; 4] = StaticShape::<NcxHwx<32>, ImageDims<1, 48, 5, 4>>::GROUP_STRIDES;
/// ```
///
/// Nor do per-dimension strides of a vectorized layout (its C has a group stride and a lane):
///
/// ```compile_fail,E0599
/// use typed_layout::{ImageDims, NcxHwx, StaticShape};
/// const S: [isize; 4] = StaticShape::<NcxHwx<32>, ImageDims<1, 64, 5, 4>>::STRIDES; // GROUP_STRIDES exists
/// ```
///
/// Nor does a shape of another family:
///
/// ```compile_fail,E0599
/// use typed_layout::{MatmulDims, Nhwc, StaticShape};
/// const S: [isize; 3] = StaticShape::<Nhwc, MatmulDims<2, 3, 4>>::STRIDES;
/// ```
pub struct StaticShape<L, D>(PhantomData<(L, D)>);

macro_rules! static_dims {
    ($($name:ident [$r:literal] <$($d:ident),*>;)*) => {$(
        #[doc = concat!("Dims of a rank-", stringify!($r), " family `F` fixed at compile time, in logical order.")]
        ///
        /// The families' aliases ([`ImageDims`], [`VolumeDims`], [`MatmulDims`]) name these:
        ///
        /// ```
        /// use typed_layout::{Dims4, Image, ImageDims, Nhwc, StaticShape};
        /// assert_eq!(
        ///     StaticShape::<Nhwc, Dims4<Image, 1, 64, 5, 4>>::STRIDES,
        ///     StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES,
        /// );
        /// ```
        pub struct $name<F, $(const $d: usize),*>(PhantomData<F>);

        impl<F: Family<Dims = [usize; $r]>, L: Layout<Family = F>, $(const $d: usize),*>
            StaticShape<L, $name<F, $($d),*>>
        {
            /// The dims, in logical order.
            pub const DIMS: [usize; $r] = [$($d),*];
            /// The validated shape; a broken rule is a compile error naming it.
            pub const SHAPE: Shape<L> = match Shape::<L>::from_slice(&Self::DIMS) {
                Ok(s) => s,
                Err(e) => panic!("{}", e.rule()),
            };
            /// Logical strides, in logical order, signed, except that NC/xHWx's C gives the
            /// distance between vector groups ([`Shape::group_strides`]).
            pub const GROUP_STRIDES: [isize; $r] = {
                let s = Self::SHAPE.placement().strides();
                let mut out = [0; $r];
                let mut i = 0;
                while i < $r {
                    out[i] = s[i] as isize; // below isize::MAX: the placement checked
                    i += 1;
                }
                out
            };
            /// Number of elements of storage.
            pub const LEN: usize = Self::SHAPE.placement().len();

            /// The Tensor Core rules a tensor of `data_type` in this shape breaks, as a
            /// constant (see [`crate::tensor_core`]).
            pub const fn tensor_core(data_type: DataType) -> crate::tensor_core::TensorCoreCheck {
                crate::tensor_core::TensorCoreCheck::of_shape(&L::FORMAT, F::LETTERS, &Self::DIMS, data_type)
            }
        }

        impl<F: Family<Dims = [usize; $r]>, L: Layout<Family = F> + PerDimStrides, $(const $d: usize),*>
            StaticShape<L, $name<F, $($d),*>>
        {
            /// Logical strides, in logical order, signed like every stride of the crate: for
            /// layouts in which every dimension has one ([`PerDimStrides`]; NC/xHWx has
            /// [`GROUP_STRIDES`](Self::GROUP_STRIDES)).
            pub const STRIDES: [isize; $r] = Self::GROUP_STRIDES;
        }

        impl<
                T: Element,
                F: Family<Dims = [usize; $r]>,
                L: Layout<Family = F>,
                $(const $d: usize,)*
                const WAIVE_BATCH: bool,
            > crate::tensor_core::TensorCoreShape<T, L, $name<F, $($d),*>, WAIVE_BATCH>
        {
            /// The shape, which qualifies for Tensor Cores (the batch rule set aside when
            /// `WAIVE_BATCH`); naming it when it does not is a compile error that names the
            /// first rule broken.
            pub const SHAPE: Shape<L> = {
                let check = StaticShape::<L, $name<F, $($d),*>>::tensor_core(T::DATA_TYPE);
                let check = if WAIVE_BATCH { check.waive_batch() } else { check };
                match check.first() {
                    None => StaticShape::<L, $name<F, $($d),*>>::SHAPE,
                    Some(rule) => panic!("{}", rule.message()),
                }
            };
        }
    )*};
}

static_dims! {
    Dims3 [3] <D0, D1, D2>;
    Dims4 [4] <D0, D1, D2, D3>;
    Dims5 [5] <D0, D1, D2, D3, D4>;
    Dims6 [6] <D0, D1, D2, D3, D4, D5>;
    Dims7 [7] <D0, D1, D2, D3, D4, D5, D6>;
    Dims8 [8] <D0, D1, D2, D3, D4, D5, D6, D7>;
}

/// Static image dims `[n, c, h, w]`.
///
/// ```
/// use typed_layout::{ImageDims, Nchw, StaticShape};
/// type Rgb = StaticShape<Nchw, ImageDims<1, 3, 224, 224>>;
/// const LEN: usize = Rgb::LEN;
/// assert_eq!((Rgb::DIMS, LEN), ([1, 3, 224, 224], 3 * 224 * 224));
/// ```
pub type ImageDims<const N: usize, const C: usize, const H: usize, const W: usize> = Dims4<Image, N, C, H, W>;
/// Static volume dims `[n, c, d, h, w]`.
///
/// ```
/// use typed_layout::{Ndhwc, StaticShape, VolumeDims};
/// const STRIDES: [isize; 5] = StaticShape::<Ndhwc, VolumeDims<1, 8, 2, 3, 4>>::STRIDES;
/// assert_eq!(STRIDES, [192, 1, 96, 32, 8]); // n, c, d, h, w
/// ```
pub type VolumeDims<const N: usize, const C: usize, const D: usize, const H: usize, const W: usize> =
    Dims5<Volume, N, C, D, H, W>;
/// Static matmul dims `[b, m, n]`.
///
/// ```
/// use typed_layout::{Bmn, ColMajor, MatmulDims, StaticShape};
/// const STRIDES: [isize; 3] = StaticShape::<Bmn<ColMajor>, MatmulDims<2, 3, 4>>::STRIDES;
/// assert_eq!(STRIDES, [12, 1, 3]); // b, m, n: M is contiguous
/// ```
pub type MatmulDims<const B: usize, const M: usize, const N: usize> = Dims3<Matmul, B, M, N>;

/// Static dims of a [`Filter`]: `[K, C, R, S]`.
///
/// ```
/// use typed_layout::{FilterDims, Krsc, StaticShape};
/// const STRIDES: [isize; 4] = StaticShape::<Krsc, FilterDims<64, 32, 3, 3>>::STRIDES;
/// assert_eq!(STRIDES, [288, 1, 96, 32]);
/// ```
pub type FilterDims<const K: usize, const C: usize, const R: usize, const S: usize> =
    Dims4<Filter, K, C, R, S>;

/// Static dims of a [`VolumeFilter`]: `[K, C, D, R, S]`.
///
/// ```
/// use typed_layout::{Kcdrs, StaticShape, VolumeFilterDims};
/// const STRIDES: [isize; 5] = StaticShape::<Kcdrs, VolumeFilterDims<8, 4, 3, 3, 3>>::STRIDES;
/// assert_eq!(STRIDES, [108, 27, 9, 3, 1]);
/// ```
pub type VolumeFilterDims<const K: usize, const C: usize, const D: usize, const R: usize, const S: usize> =
    Dims5<VolumeFilter, K, C, D, R, S>;
