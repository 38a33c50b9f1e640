//! Serde for the vocabulary an engine stores in its configs and model files (feature `serde`):
//!
//! * a [`DataType`] is its cuDNN name, `"CUDNN_DATA_HALF"`;
//! * a [`DynLayout`] is its cuDNN notation, `"NC/32HW32"`, or, for a family the notation does not
//!   name by itself (`layout!`'s user families), `{"notation": "NTDHWC", "letters": "NTCDHW"}`
//!   (reading one back takes a self-describing format: JSON, TOML, YAML, CBOR);
//! * a [`TensorDesc`] is `{"version": 1, "data_type", "dims", "strides", "letters"}`: `letters`
//!   are the family's dimension letters in logical order (`"NCHW"` for every rank-4 descriptor,
//!   whatever its strides; a filter's `"KCRS"` after [`TensorDesc::with_letters`]), `null` for
//!   ranks 6 to 8 without them, and may be left out when reading;
//! * a [`Shape<L>`](Shape) is `{"version": 1, "layout", "dims"}`, its layout's notation beside the
//!   logical dims (a padded shape is refused);
//! * a [`DynTensor`] is `{"version": 1, "data_type", "layout", "letters", "dims", "data"}`, the
//!   elements' bytes last (a byte string where the format has one).
//!
//! Descriptors, shapes and runtime tensors read back from binary formats too: their fields are
//! plain strings, numbers and bytes, and a sequence of the fields reads as the map does (tested
//! through JSON arrays). A standalone `DynLayout` of a user family needs a self-describing format.
//!
//! **Versions.** Stored forms carry [`FORMAT_VERSION`] as their first field, and `version` is
//! required. Readers of version 1 refuse any other version and any field they do not know, so a
//! later typed-layout that adds a field writes version 2, which this one refuses as such: the
//! version is checked the moment it is read, and a field unknown to this version, or given
//! twice, is refused only once the version is known to be ours. In a sequence (what binary
//! formats write) the version is the first element and every field follows in order. In a map,
//! fields that come *before* `version` are parsed first: a later version that changed such a
//! field's type fails with that field's type error, not the version's. Every writer here puts
//! `version` first; keep it first (`serde_json::Value` without its `preserve_order` feature,
//! Python's `json.dumps(sort_keys=True)` and `jq -S` move it last). Bare `DataType` and
//! `DynLayout` values carry no version. Reading checks everything a constructor checks (a bad
//! notation, dims that break the layout's rules, another layout than the one asked for), and
//! each refusal is an error naming the rule, never a panic.
//!
//! ```
//! use typed_layout::{DataType, DynLayout, Nhwc, Shape, TensorDesc};
//! let layout = DynLayout::parse("NC/32HW32")?;
//! assert_eq!(serde_json::to_string(&layout)?, r#""NC/32HW32""#);
//! let shape = Shape::<Nhwc>::new([1, 64, 5, 4])?;
//! let json = serde_json::to_string(&shape)?;
//! assert_eq!(json, r#"{"version":1,"layout":"NHWC","dims":[1,64,5,4]}"#);
//! assert_eq!(serde_json::from_str::<Shape<Nhwc>>(&json)?, shape);
//! // Another layout's shape is refused, naming both.
//! let err = serde_json::from_str::<Shape<typed_layout::Nchw>>(&json).unwrap_err();
//! assert!(err.to_string().contains("NHWC"), "{err}");
//! let desc = TensorDesc::new(DataType::Half, &[1, 64, 5, 4], &[1280, 1, 256, 64])?;
//! assert_eq!(serde_json::from_str::<TensorDesc>(&serde_json::to_string(&desc)?)?, desc);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::desc::{DynLayout, TensorDesc};
use crate::dtype::DataType;
use crate::dynamic::DynTensor;
use crate::layout::{Layout, Shape};

/// The version of the stored forms ([`TensorDesc`], [`Shape`], [`DynTensor`]) this crate writes
/// and reads.
pub const FORMAT_VERSION: u32 = 1;

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.cudnn_name())
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        DataType::ALL.into_iter().find(|t| t.cudnn_name() == name).ok_or_else(|| {
            let known: Vec<&str> = DataType::ALL.iter().map(|t| t.cudnn_name()).collect();
            de::Error::custom(format_args!("unknown data type {name:?}: one of {}", known.join(", ")))
        })
    }
}

impl Serialize for DynLayout {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let notation = self.notation();
        // The notation alone where it names its family; the family's letters beside it otherwise.
        if DynLayout::parse(notation.as_str()).ok().as_ref() == Some(self) {
            return s.serialize_str(notation.as_str());
        }
        let mut st = s.serialize_struct("DynLayout", 2)?;
        st.serialize_field("notation", notation.as_str())?;
        st.serialize_field("letters", self.letters())?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for DynLayout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct LayoutVisitor;
        impl<'de> Visitor<'de> for LayoutVisitor {
            type Value = DynLayout;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cuDNN layout notation (\"NC/32HW32\"), or {notation, letters}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DynLayout, E> {
                DynLayout::parse(v).map_err(|e| E::custom(format_args!("layout {v:?}: {e}")))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DynLayout, A::Error> {
                let (mut notation, mut letters): (Option<String>, Option<String>) = (None, None);
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "notation" => notation = Some(map.next_value()?),
                        "letters" => letters = Some(map.next_value()?),
                        other => return Err(de::Error::unknown_field(other, &["notation", "letters"])),
                    }
                }
                let notation = notation.ok_or_else(|| de::Error::missing_field("notation"))?;
                let letters = letters.ok_or_else(|| de::Error::missing_field("letters"))?;
                DynLayout::parse_in(&notation, &letters)
                    .map_err(|e| de::Error::custom(format_args!("layout {notation:?} of {letters:?}: {e}")))
            }
        }
        d.deserialize_any(LayoutVisitor)
    }
}

/// Refuses a stored form of another version.
fn check_version<E: de::Error>(version: u32) -> Result<(), E> {
    match version == FORMAT_VERSION {
        true => Ok(()),
        false => Err(E::custom(format_args!(
            "format version {version}: this typed-layout reads version {FORMAT_VERSION}"
        ))),
    }
}

/// A stored form: a struct whose first field is `version`, written by serde's derive, read
/// version first. In a map (JSON) the version is checked the moment it is read, and a field
/// this version does not know is refused only once the version is known to be ours: a newer
/// version's file says "format version 2", not "unknown field". A field given twice is refused.
/// In a sequence (binary formats) the version is the first element and is checked before the
/// rest is read; every field follows. A field given a default (`= expr`) may be missing from a
/// map.
macro_rules! stored_form {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty $(= $default:expr)?),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Serialize)]
        struct $name {
            version: u32,
            $($field: $ty),*
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &["version", $(stringify!($field)),*];
                struct Fields;
                impl<'de> Visitor<'de> for Fields {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a stored form {{{}}}", FIELDS.join(", "))
                    }
                    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<$name, A::Error> {
                        let version: u32 = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                        check_version(version)?;
                        let mut read = 1;
                        $(
                            let $field: $ty = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(read, &Fields))?;
                            read += 1;
                        )*
                        let _ = read;
                        Ok($name { version, $($field),* })
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut version: Option<u32> = None;
                        $(let mut $field: Option<$ty> = None;)*
                        let mut unknown: Option<String> = None;
                        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                            match key.as_ref() {
                                "version" => {
                                    if version.is_some() {
                                        return Err(de::Error::duplicate_field("version"));
                                    }
                                    let v = map.next_value()?;
                                    check_version(v)?;
                                    version = Some(v);
                                }
                                $(stringify!($field) => {
                                    if $field.is_some() {
                                        return Err(de::Error::duplicate_field(stringify!($field)));
                                    }
                                    $field = Some(map.next_value()?);
                                })*
                                other => {
                                    map.next_value::<de::IgnoredAny>()?;
                                    unknown.get_or_insert_with(|| other.to_owned());
                                }
                            }
                        }
                        let version = version.ok_or_else(|| de::Error::missing_field("version"))?;
                        if let Some(other) = unknown {
                            return Err(de::Error::unknown_field(&other, FIELDS));
                        }
                        $(let $field = match $field {
                            Some(v) => v,
                            None => stored_form!(@missing $field $($default)?),
                        };)*
                        Ok($name { version, $($field),* })
                    }
                }
                d.deserialize_struct(stringify!($name), FIELDS, Fields)
            }
        }
    };
    (@missing $field:ident) => {
        return Err(de::Error::missing_field(stringify!($field)))
    };
    (@missing $field:ident $default:expr) => {
        $default
    };
}

stored_form! {
    /// A descriptor's stored form.
    StoredDesc {
        data_type: DataType,
        dims: Vec<usize>,
        strides: Vec<isize>,
        // Always written (`null` when absent), so formats that count fields read it back too.
        letters: Option<String> = None,
    }
}

impl Serialize for TensorDesc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoredDesc {
            version: FORMAT_VERSION,
            data_type: self.data_type(),
            dims: self.dims().to_vec(),
            strides: self.strides().to_vec(),
            letters: self.letters().map(str::to_owned),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for TensorDesc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let stored = StoredDesc::deserialize(d)?;
        let desc = TensorDesc::new(stored.data_type, &stored.dims, &stored.strides);
        match stored.letters {
            Some(letters) => desc.and_then(|d| d.with_letters(&letters)),
            None => desc,
        }
        .map_err(de::Error::custom)
    }
}

stored_form! {
    /// A shape's stored form.
    StoredShape {
        // The notation alone: the type says which family it is, and a plain string reads back
        // in every format (a standalone `DynLayout` needs a self-describing one, as JSON is).
        layout: String,
        dims: Vec<usize>,
    }
}

impl<L: Layout> Serialize for Shape<L> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        if self.len() != self.placement().dims().iter().product::<usize>() {
            return Err(S::Error::custom(
                "a padded shape cannot be stored (the stored form holds dims, not strides): store its packed shape, `Shape::new(shape.dims())`",
            ));
        }
        let stored = StoredShape {
            version: FORMAT_VERSION,
            layout: L::NOTATION.to_owned(),
            dims: self.placement().dims().to_vec(),
        };
        stored.serialize(s)
    }
}

impl<'de, L: Layout> Deserialize<'de> for Shape<L> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let stored = StoredShape::deserialize(d)?;
        let ours = DynLayout::of::<L>();
        if DynLayout::parse_in(&stored.layout, ours.letters()).ok() != Some(ours) {
            return Err(de::Error::custom(format_args!(
                "a shape of layout {} where one of {} was asked for",
                stored.layout,
                L::NOTATION
            )));
        }
        Shape::<L>::from_slice(&stored.dims).map_err(de::Error::custom)
    }
}

/// The stored elements are little-endian: a big-endian host refuses to write or read them.
fn check_little_endian() -> Result<(), &'static str> {
    match cfg!(target_endian = "little") {
        true => Ok(()),
        false => Err("a runtime tensor's stored elements are little-endian, and this host is big-endian"),
    }
}

stored_form! {
    /// A runtime tensor's stored form: its elements' bytes (little-endian, in memory order)
    /// beside what they are.
    StoredTensor {
        data_type: DataType,
        // Notation and letters as plain strings, so that every format reads them back.
        layout: String,
        letters: String,
        dims: Vec<usize>,
        data: Bytes,
    }
}

/// Bytes written as a byte string where the format has one (CBOR, bincode, MessagePack) and
/// read back from one or from a sequence of numbers (JSON).
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the elements' bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Bytes(out))
            }
        }
        d.deserialize_bytes(BytesVisitor)
    }
}

/// `{"version": 1, "data_type", "layout", "letters", "dims", "data"}`: the data type's cuDNN
/// name, the layout's notation and its family's letters, the logical dims, and the elements'
/// bytes in memory order, little-endian (a byte string, or numbers in JSON). A padded tensor (a
/// partially packed layout with padding) is refused: store its packed copy. Reading checks
/// the version, the
/// layout and dims as [`DynTensor::from_bytes`] does, and that the bytes are exactly the
/// tensor's.
///
/// ```
/// use typed_layout::{DynTensor, NcxHwx, Tensor};
/// let t = DynTensor::from(Tensor::<i8, NcxHwx<4>>::from_fn([1, 4, 1, 2], |[_, c, _, w]| (10 * w + c) as i8)?);
/// let json = serde_json::to_string(&t)?;
/// assert_eq!(json, r#"{"version":1,"data_type":"CUDNN_DATA_INT8","layout":"NC/4HW4","letters":"NCHW","dims":[1,4,1,2],"data":[0,1,2,3,10,11,12,13]}"#);
/// let back: DynTensor = serde_json::from_str(&json)?;
/// assert_eq!(back.as_bytes(), t.as_bytes());
/// let short = json.replace(",13]", "]");
/// assert!(serde_json::from_str::<DynTensor>(&short).unwrap_err().to_string().starts_with("7 bytes given but the shape needs 8"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Serialize for DynTensor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        check_little_endian().map_err(S::Error::custom)?;
        if self.len() != self.dims().iter().product::<usize>() {
            return Err(S::Error::custom(
                "a padded runtime tensor cannot be stored (the stored form has no room for padding): store its packed copy, `tensor.to_layout(tensor.layout())`",
            ));
        }
        StoredTensor {
            version: FORMAT_VERSION,
            data_type: self.data_type(),
            layout: self.layout().notation().as_str().to_owned(),
            letters: self.layout().letters().to_owned(),
            dims: self.dims().to_vec(),
            data: Bytes(self.as_bytes().to_vec()),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for DynTensor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let stored = StoredTensor::deserialize(d)?;
        check_little_endian().map_err(de::Error::custom)?;
        let layout = DynLayout::parse_in(&stored.layout, &stored.letters).map_err(de::Error::custom)?;
        DynTensor::from_bytes(stored.data_type, layout, &stored.dims, &stored.data.0)
            .map_err(de::Error::custom)
    }
}
