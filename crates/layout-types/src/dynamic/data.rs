//! The elements of a runtime tensor: one owned buffer of its data type's Rust type, so that a
//! typed tensor moves in and out without a copy and every element stays aligned.

use core::any::Any;
use core::fmt;

use half::{bf16, f16};

use crate::cast::{CastNest, EveryCast};
use crate::convert::convert_geometries;
use crate::dtype::{DataType, Element};
use crate::error::LayoutError;
use crate::loops::Geometry;
use crate::placement::Placement;
use crate::platform::out::Out;
use crate::tensor::{nested, Owned, Storage, StorageMut};

/// Declares [`Data`] with one variant per data type (named as [`DataType`]'s) and the
/// operations that dispatch on it.
macro_rules! data {
    ($($variant:ident($t:ty)),* $(,)?) => {
        /// A runtime tensor's storage: the buffer of one data type.
        #[derive(Clone, Debug)]
        pub(super) enum Data {
            $($variant(Owned<$t>),)*
        }

        impl Data {
            pub(super) fn data_type(&self) -> DataType {
                match self {
                    $(Data::$variant(_) => DataType::$variant,)*
                }
            }

            /// `len` zeros of `data_type` (`bytes` of them, checked to fit by the caller).
            pub(super) fn zeroed(data_type: DataType, len: usize, bytes: usize) -> Result<Data, LayoutError> {
                Ok(match data_type {
                    $(DataType::$variant => Data::$variant(Owned::zeroed(len, bytes)?),)*
                })
            }

            /// New storage of `dst` (no padding) holding these elements (placed by `sg`) at
            /// the same logical indices, each written once.
            pub(super) fn converted(&self, sg: &Geometry, dst: &Placement, letters: &[u8]) -> Result<Data, LayoutError> {
                Ok(match self {
                    $(Data::$variant(s) => Data::$variant(Owned::converted(sg, s.slice(), dst, letters)?),)*
                })
            }

            /// The elements' bytes, in memory order.
            pub(super) fn bytes(&self) -> &[u8] {
                match self {
                    $(Data::$variant(o) => bytemuck::cast_slice(o.slice()),)*
                }
            }

            /// The elements' bytes, in memory order, mutably.
            pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
                match self {
                    $(Data::$variant(o) => bytemuck::cast_slice_mut(o.slice_mut()),)*
                }
            }

            /// A typed buffer as the variant of its type.
            pub(super) fn wrap<T: Element>(owned: Owned<T>) -> Data {
                let mut slot = Some(owned);
                let any: &mut dyn Any = &mut slot;
                $(
                    if let Some(o) = any.downcast_mut::<Option<Owned<$t>>>().and_then(Option::take) {
                        return Data::$variant(o);
                    }
                )*
                unreachable!("Element is sealed to the eight data types, each a variant")
            }

            /// The typed buffer, or `self` back when `T` is another type.
            pub(super) fn unwrap<T: Element>(self) -> Result<Owned<T>, Data> {
                match self {
                    $(Data::$variant(o) => {
                        let mut slot = Some(o);
                        let taken = (&mut slot as &mut dyn Any)
                            .downcast_mut::<Option<Owned<T>>>()
                            .and_then(Option::take);
                        match (taken, slot) {
                            (Some(typed), _) => Ok(typed),
                            (None, Some(o)) => Err(Data::$variant(o)),
                            (None, None) => unreachable!("the slot is only emptied by a match"),
                        }
                    })*
                }
            }

            /// Copies every element to the same logical index of `dst`, each side placed by
            /// its geometry (`letters` name the dimensions in errors).
            pub(super) fn convert_into(
                &self,
                sg: &Geometry,
                dst: &mut Data,
                dg: &Geometry,
                letters: &[u8],
            ) -> Result<(), LayoutError> {
                match (self, dst) {
                    $((Data::$variant(s), Data::$variant(d)) => {
                        convert_geometries(sg, s.slice(), dg, Out::new(d.slice_mut()), letters)
                    })*
                    // The destination's type is the one asked for.
                    (s, d) => Err(LayoutError::DataTypeMismatch { expected: d.data_type(), found: s.data_type() }),
                }
            }

            /// New storage of `data_type` holding `bytes` (whole elements in the machine's byte
            /// order, at any alignment), copied once.
            pub(super) fn copied(data_type: DataType, bytes: &[u8]) -> Result<Data, LayoutError> {
                Ok(match data_type {
                    $(DataType::$variant => Data::$variant(Owned::copied(bytes)?),)*
                })
            }

            /// New storage of `dst` (no padding) holding the elements `bytes` holds (of
            /// `data_type`, in the machine's byte order, aligned), placed by `sg`, at the same
            /// logical indices: each written once.
            pub(super) fn converted_from_bytes(
                data_type: DataType,
                sg: &Geometry,
                bytes: &[u8],
                dst: &Placement,
                letters: &[u8],
            ) -> Result<Data, LayoutError> {
                let misaligned = LayoutError::NotApplicable { reason: "elements copied from bytes start on their alignment" };
                Ok(match data_type {
                    $(DataType::$variant => {
                        let s: &[$t] = bytemuck::try_cast_slice(bytes).map_err(|_| misaligned)?;
                        Data::$variant(Owned::converted(sg, s, dst, letters)?)
                    })*
                })
            }

            /// Runs the fused pass `plan` from these elements into new storage of `data_type`
            /// (`bytes` of it) with `cast`, each pair of types its own monomorphized loop.
            pub(super) fn cast_fresh<C: EveryCast>(&self, plan: &CastNest, data_type: DataType, bytes: usize, cast: C) -> Result<Data, LayoutError> {
                match self {
                    $(Data::$variant(s) => Data::cast_fresh_from(plan, s.slice(), data_type, bytes, cast),)*
                }
            }

            /// The second half of [`Data::cast_fresh`]: the destination's type.
            fn cast_fresh_from<T: Element, C: EveryCast>(plan: &CastNest, src: &[T], data_type: DataType, bytes: usize, cast: C) -> Result<Data, LayoutError> {
                Ok(match data_type {
                    $(DataType::$variant => Data::$variant(cast.run_fresh::<T, $t>(plan, src, bytes)?),)*
                })
            }

            /// Whether both hold the same type and equal elements (by the type's `==`).
            pub(super) fn same_elements(&self, other: &Data) -> bool {
                match (self, other) {
                    $((Data::$variant(a), Data::$variant(b)) => a.slice() == b.slice(),)*
                    _ => false,
                }
            }

            /// The values placed by `placement`, as nested brackets in logical order.
            pub(super) fn fmt_values(&self, f: &mut fmt::Formatter<'_>, placement: &Placement) -> fmt::Result {
                match self {
                    $(Data::$variant(o) => {
                        let s = o.slice();
                        nested(f, placement.dims(), &mut |index, f| {
                            // Every logical index is inside the placement.
                            match placement.offset(index).ok().and_then(|k| s.get(k)) {
                                Some(v) => fmt::Display::fmt(v, f),
                                None => f.write_str("?"),
                            }
                        })
                    })*
                }
            }

            /// The elements as `T`, if that is their type.
            pub(super) fn slice<T: Element>(&self) -> Option<&[T]> {
                match self {
                    $(Data::$variant(o) => (o as &dyn Any).downcast_ref::<Owned<T>>().map(|o| o.slice()),)*
                }
            }

            /// The elements as `T`, mutably, if that is their type.
            pub(super) fn slice_mut<T: Element>(&mut self) -> Option<&mut [T]> {
                match self {
                    $(Data::$variant(o) => (o as &mut dyn Any).downcast_mut::<Owned<T>>().map(|o| o.slice_mut()),)*
                }
            }
        }

    };
}

data!(Float(f32), Double(f64), Half(f16), Int8(i8), Int32(i32), Uint8(u8), BFloat16(bf16), Int64(i64),);
