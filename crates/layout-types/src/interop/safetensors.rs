//! `.safetensors` files (feature `safetensors`): tensors in and out, their layouts recorded.
//!
//! The format stores each tensor as dense row-major data with a shape. typed-layout writes a
//! tensor's bytes as they are in memory, with the **physical** shape as the file's shape (its
//! physical axes outermost first: `[N, H, W, C]` for NHWC, `[N, C/32, H, W, 32]` for NC/32HW32),
//! so a reader that knows nothing of layouts sees a correct dense array of those bytes. The
//! header's metadata records, per tensor, the layout and its family, so that it loads back as
//! itself:
//!
//! * `typed_layout.format`: the version of these keys, [`METADATA_VERSION`];
//! * `typed_layout.layout.<name>`: the layout in cuDNN notation (`"NC/32HW32"`);
//! * `typed_layout.letters.<name>`: its family's letters in logical order (`"NCHW"`).
//!
//! A tensor without these keys (a file from any other writer) is the row-major layout of its
//! family: the family asked for ([`Safetensors::load_as`], [`Safetensors::view`]), or the one of
//! its rank ([`Safetensors::load`]: BMN, NCHW, NCDHW for ranks 3, 4, 5).
//!
//! Reading checks everything: the header (the reference crate's parser), the data type (the
//! eight of [`DataType`]; others are refused by name), the recorded layout and the shape against
//! it. Zero copy ([`Safetensors::view`]) where the data type, the layout and the alignment allow;
//! a copy ([`Safetensors::load`], [`Safetensors::load_as`], converting into the layout asked for)
//! everywhere. Files are little-endian, as is every host these functions compile on.
//!
//! ```
//! use typed_layout::interop::safetensors::{Safetensors, Writer};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! let x = Tensor::<f32, Nhwc>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
//! let bytes = Writer::new().add("x", &x)?.to_bytes()?;
//! let file = Safetensors::new(&bytes)?;
//! assert_eq!(file.shape("x")?, [1, 2, 2, 3]); // N, H, W, C: the bytes as they are
//! assert_eq!(file.view::<f32, Nhwc>("x")?.to_layout::<Nhwc>()?, x); // no copy
//! assert_eq!(file.load_as::<f32, Nchw>("x")?, x.to_layout::<Nchw>()?); // converted
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensorError, SafeTensors, View};

use crate::desc::DynLayout;
use crate::dtype::{DataType, Element};
use crate::dynamic::DynTensor;
use crate::error::LayoutError;
use crate::layout::{Layout, Shape};
use crate::placement::Placement;
use crate::tensor::{Storage, Tensor, TensorBase, TensorView};

pub use crate::platform::mapped::MappedFile;

/// The version of the metadata keys this crate writes and reads.
pub const METADATA_VERSION: &str = "1";

const FORMAT_KEY: &str = "typed_layout.format";
const LAYOUT_KEY: &str = "typed_layout.layout.";
const LETTERS_KEY: &str = "typed_layout.letters.";

/// Why a `.safetensors` file, or a tensor in it, cannot be read or written as asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum SafetensorsError {
    /// The file breaks the format (the reference crate's verdict).
    Format(SafeTensorError),
    /// The file holds no tensor of this name.
    NoSuchTensor {
        /// The name asked for.
        name: String,
    },
    /// Reading or writing the file failed.
    Io(std::io::Error),
    /// A data type typed-layout has no element for (`BOOL`, `U16`, the 8-bit floats, …).
    UnsupportedDtype {
        /// The tensor.
        name: String,
        /// The format's name of its data type.
        dtype: String,
    },
    /// Metadata this version cannot read: another `typed_layout.format`, a layout that does not
    /// parse, or a rank with no row-major family to assume.
    Metadata {
        /// The key, or the tensor's name.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The tensor's shape, data type or layout is not the one asked for, or breaks its layout's
    /// rules (or, from `?` on a layout outside any file, the layout itself).
    Layout {
        /// The tensor, where one is concerned (a boxed `str`, so that the error stays small).
        name: Option<Box<str>>,
        /// The rule.
        error: LayoutError,
    },
    /// A zero-copy view asked of data that does not start on its element's alignment inside
    /// the buffer (load a copy instead).
    Misaligned {
        /// The tensor.
        name: String,
        /// Its element's alignment, in bytes.
        align: usize,
    },
    /// Two tensors of one name, or a tensor whose storage is padded (the format stores dense
    /// arrays only).
    Writer {
        /// The tensor.
        name: String,
        /// Why it cannot be written.
        reason: &'static str,
    },
}

impl fmt::Display for SafetensorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SafetensorsError::Format(e) => write!(f, "not a valid .safetensors file: {e}"),
            SafetensorsError::Io(e) => write!(f, "{e}"),
            SafetensorsError::NoSuchTensor { name } => {
                write!(f, "the file holds no tensor named {name:?} (`names()` lists those it holds)")
            }
            SafetensorsError::UnsupportedDtype { name, dtype } => write!(
                f,
                "tensor {name:?} holds {dtype}, which is not one of cuDNN's data types (F32, F64, F16, BF16, I8, U8, I32, I64)"
            ),
            SafetensorsError::Metadata { key, reason } => write!(f, "metadata {key:?}: {reason}"),
            SafetensorsError::Layout { name: Some(name), error } => write!(f, "tensor {name:?}: {error}"),
            SafetensorsError::Layout { name: None, error } => write!(f, "{error}"),
            SafetensorsError::Misaligned { name, align } => write!(
                f,
                "tensor {name:?} does not start on a multiple of {align} bytes in the buffer: a zero-copy view needs its elements aligned (load a copy instead)"
            ),
            SafetensorsError::Writer { name, reason } => write!(f, "tensor {name:?}: {reason}"),
        }
    }
}

impl std::error::Error for SafetensorsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SafetensorsError::Format(e) => Some(e),
            SafetensorsError::Io(e) => Some(e),
            SafetensorsError::Layout { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<SafeTensorError> for SafetensorsError {
    fn from(e: SafeTensorError) -> Self {
        match e {
            SafeTensorError::TensorNotFound(name) => SafetensorsError::NoSuchTensor { name },
            e => SafetensorsError::Format(e),
        }
    }
}

impl From<LayoutError> for SafetensorsError {
    /// A rule broken outside any tensor of a file (so that `?` works on the layouts a loader
    /// parses and checks itself).
    fn from(error: LayoutError) -> Self {
        SafetensorsError::Layout { name: None, error }
    }
}

impl From<crate::notation::NotationError> for SafetensorsError {
    /// A layout that does not parse (`?` on `DynLayout::parse`).
    fn from(e: crate::notation::NotationError) -> Self {
        LayoutError::from(e).into()
    }
}

impl From<std::io::Error> for SafetensorsError {
    fn from(e: std::io::Error) -> Self {
        SafetensorsError::Io(e)
    }
}

/// The format's name of each of our data types.
fn dtype_of(data_type: DataType) -> Dtype {
    match data_type {
        DataType::Float => Dtype::F32,
        DataType::Double => Dtype::F64,
        DataType::Half => Dtype::F16,
        DataType::BFloat16 => Dtype::BF16,
        DataType::Int8 => Dtype::I8,
        DataType::Uint8 => Dtype::U8,
        DataType::Int32 => Dtype::I32,
        DataType::Int64 => Dtype::I64,
    }
}

/// Our data type of each of the format's that has one.
fn data_type_of(dtype: Dtype) -> Option<DataType> {
    DataType::ALL.into_iter().find(|&d| dtype_of(d) == dtype)
}

/// The tensors of a `.safetensors` file, read from its bytes (a [`MappedFile`]'s, or a
/// [`std::fs::read`]), which they borrow.
#[derive(Debug)]
pub struct Safetensors<'a> {
    file: SafeTensors<'a>,
    metadata: HashMap<String, String>,
}

/// One tensor of the file as typed-layout reads it.
struct Stored<'a> {
    data_type: DataType,
    layout: DynLayout,
    placement: Placement,
    data: &'a [u8],
}

impl<'a> Safetensors<'a> {
    /// Parses the header of the file in `bytes` (the reference crate's checks: sizes, offsets,
    /// overlaps) and the metadata version, if the file has ours.
    pub fn new(bytes: &'a [u8]) -> Result<Self, SafetensorsError> {
        let (_, header) = SafeTensors::read_metadata(bytes)?;
        let metadata = header.metadata().clone().unwrap_or_default();
        if let Some(version) = metadata.get(FORMAT_KEY).filter(|v| v.as_str() != METADATA_VERSION) {
            return Err(SafetensorsError::Metadata {
                key: FORMAT_KEY.into(),
                reason: format!(
                    "version {version:?}, but this typed-layout reads version {METADATA_VERSION}"
                ),
            });
        }
        let file = SafeTensors::deserialize(bytes)?;
        Ok(Safetensors { file, metadata })
    }

    /// The names of the file's tensors, in no particular order.
    pub fn names(&self) -> Vec<&str> {
        self.file.names()
    }

    /// The file's shape of tensor `name`: its physical axes, outermost first.
    pub fn shape(&self, name: &str) -> Result<Vec<usize>, SafetensorsError> {
        Ok(self.file.tensor(name)?.shape().to_vec())
    }

    /// The layout the file records for tensor `name`, if it records one.
    pub fn layout(&self, name: &str) -> Result<Option<DynLayout>, SafetensorsError> {
        let Some(notation) = self.metadata.get(&format!("{LAYOUT_KEY}{name}")) else { return Ok(None) };
        let letters = self.metadata.get(&format!("{LETTERS_KEY}{name}"));
        let parsed = match letters {
            Some(letters) => DynLayout::parse_in(notation, letters),
            None => DynLayout::parse(notation),
        };
        parsed.map(Some).map_err(|e| SafetensorsError::Metadata {
            key: format!("{LAYOUT_KEY}{name}"),
            reason: format!("{notation:?} is not a layout: {e}"),
        })
    }

    /// Tensor `name` as stored, in the recorded layout or else `fallback` (a row-major layout of
    /// the family asked for, or of its rank's).
    fn stored(&self, name: &str, fallback: Option<DynLayout>) -> Result<Stored<'a>, SafetensorsError> {
        let view = self.file.tensor(name)?;
        let data_type = data_type_of(view.dtype()).ok_or_else(|| SafetensorsError::UnsupportedDtype {
            name: name.into(),
            dtype: format!("{:?}", view.dtype()),
        })?;
        let shape = view.shape();
        let layout = match (self.layout(name)?, fallback) {
            (Some(layout), _) | (None, Some(layout)) => layout,
            (None, None) => row_major(shape.len()).ok_or_else(|| SafetensorsError::Metadata {
                key: name.into(),
                reason: format!(
                    "no layout recorded, and rank {} has no row-major family to assume: load it with load_as or view, which name one",
                    shape.len()
                ),
            })?,
        };
        let placement = layout
            .from_physical(shape)
            .map_err(|error| SafetensorsError::Layout { name: Some(name.into()), error })?;
        Ok(Stored { data_type, layout, placement, data: view.data() })
    }

    /// Tensor `name` as a [`DynTensor`] (a copy), in its recorded layout, or else the row-major
    /// layout of its rank's family (ranks 3, 4, 5: BMN, NCHW, NCDHW).
    pub fn load(&self, name: &str) -> Result<DynTensor, SafetensorsError> {
        let s = self.stored(name, None)?;
        DynTensor::from_bytes(s.data_type, s.layout, s.placement.dims(), s.data)
            .map_err(|error| SafetensorsError::Layout { name: Some(name.into()), error })
    }

    /// Tensor `name` as a [`DynTensor`] (a copy), stored in `stored`: what to say of a tensor the
    /// file records no layout for and that is not row-major (a TensorFlow NHWC image: shape
    /// `[N, H, W, C]`, read with `DynLayout::parse("NHWC")`). A file that records another
    /// layout for it is refused.
    ///
    /// ```
    /// use typed_layout::interop::safetensors::Safetensors;
    /// use typed_layout::{DynLayout, Nchw, Tensor};
    /// # let nchw = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
    /// # let bytes = typed_layout::interop::safetensors::Writer::new().add("x", &nchw)?.to_bytes()?;
    /// # // A file with the NHWC array and no metadata, as TensorFlow writes it:
    /// # let nhwc: Vec<u8> = bytemuck::cast_slice(nchw.to_layout::<typed_layout::Nhwc>()?.as_slice()).to_vec();
    /// # let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1, 2, 2, 3], &nhwc)?;
    /// # let bytes = safetensors::serialize([("x", view)], None)?;
    /// let file = Safetensors::new(&bytes)?;
    /// let x = file.load_in("x", DynLayout::parse("NHWC")?)?;
    /// assert_eq!(x.dims(), &[1, 3, 2, 2]); // N, C, H, W
    /// assert_eq!(x.to_layout(DynLayout::parse("NCHW")?)?.as_slice::<f32>()?, nchw.as_slice());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_in(&self, name: &str, stored: DynLayout) -> Result<DynTensor, SafetensorsError> {
        if let Some(recorded) = self.layout(name)?.filter(|&r| r != stored) {
            return Err(SafetensorsError::Metadata {
                key: format!("{LAYOUT_KEY}{name}"),
                reason: format!("the file records {recorded} for this tensor, not {stored}"),
            });
        }
        let s = self.stored(name, Some(stored))?;
        DynTensor::from_bytes(s.data_type, s.layout, s.placement.dims(), s.data)
            .map_err(|error| SafetensorsError::Layout { name: Some(name.into()), error })
    }

    /// Tensor `name` as a `Tensor<T, L>` (a copy), converted from the layout it is stored in
    /// (recorded, or else the row-major layout of `L`'s family). The data type must be `T`'s:
    /// nothing is cast.
    pub fn load_as<T: Element, L: Layout>(&self, name: &str) -> Result<Tensor<T, L>, SafetensorsError> {
        let s = self.stored(name, Some(row_major_of::<L>()))?;
        let layout_error = |error| SafetensorsError::Layout { name: Some(name.into()), error };
        check_data_type::<T>(s.data_type).map_err(layout_error)?;
        let stored =
            DynTensor::from_bytes(s.data_type, s.layout, s.placement.dims(), s.data).map_err(layout_error)?;
        let converted = match s.layout == DynLayout::of::<L>() {
            true => stored,
            false => stored.to_layout(DynLayout::of::<L>()).map_err(layout_error)?,
        };
        converted.try_into_tensor().map_err(|e| layout_error(e.error()))
    }

    /// Tensor `name` as a `TensorView<T, L>` of the file's bytes, without a copy: it must be
    /// stored as `T`s in layout `L` (recorded, or else `L` is its family's row-major layout),
    /// starting on `T`'s alignment.
    pub fn view<T: Element, L: Layout>(&self, name: &str) -> Result<TensorView<'a, T, L>, SafetensorsError> {
        let s = self.stored(name, Some(row_major_of::<L>()))?;
        let layout_error = |error| SafetensorsError::Layout { name: Some(name.into()), error };
        check_data_type::<T>(s.data_type).map_err(layout_error)?;
        if s.layout != DynLayout::of::<L>() {
            let found = s.layout.notation();
            return Err(layout_error(LayoutError::LayoutMismatch { expected: L::NOTATION, found }));
        }
        let elements: &'a [T] = bytemuck::try_cast_slice(s.data).map_err(|_| {
            SafetensorsError::Misaligned { name: name.into(), align: core::mem::align_of::<T>() }
        })?;
        let shape = Shape::<L>::from_slice(s.placement.dims()).map_err(layout_error)?;
        TensorView::<'a, T, L>::new_in(shape, elements).map_err(layout_error)
    }
}

/// `DataTypeMismatch` unless the file's data type is `T`'s.
fn check_data_type<T: Element>(found: DataType) -> Result<(), LayoutError> {
    match T::DATA_TYPE == found {
        true => Ok(()),
        false => Err(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found }),
    }
}

/// The row-major layout of `L`'s family: its letters in logical order.
fn row_major_of<L: Layout>() -> DynLayout {
    // A family's letters in logical order are a valid, fully packed format of it.
    DynLayout::parse_in(L::LETTERS, L::LETTERS).unwrap_or_else(|_| DynLayout::of::<L>())
}

/// The row-major layout assumed for a rank when a file records none.
fn row_major(rank: usize) -> Option<DynLayout> {
    let notation = match rank {
        3 => "BMN",
        4 => "NCHW",
        5 => "NCDHW",
        _ => return None,
    };
    DynLayout::parse(notation).ok()
}

/// Tensors to write into one `.safetensors` file, borrowed until it is written.
///
/// ```
/// use typed_layout::interop::safetensors::{Safetensors, Writer};
/// use typed_layout::{DynTensor, NcxHwx, Tensor};
/// let w = Tensor::<i8, NcxHwx<32>>::from_fn([1, 32, 2, 2], |[_, c, _, _]| c as i8)?;
/// let bytes = Writer::new().add("w", &w)?.to_bytes()?;
/// let file = Safetensors::new(&bytes)?;
/// assert_eq!(file.shape("w")?, [1, 1, 2, 2, 32]); // N, C/32, H, W, and the 32 lanes
/// assert_eq!(file.load("w")?.try_into_tensor::<i8, NcxHwx<32>>()?, w);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct Writer<'t> {
    entries: Vec<Entry<'t>>,
}

/// One tensor to write.
#[derive(Debug)]
struct Entry<'t> {
    name: String,
    dtype: Dtype,
    shape: Vec<usize>,
    layout: DynLayout,
    bytes: &'t [u8],
}

impl View for &Entry<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

impl<'t> Writer<'t> {
    /// No tensors yet.
    pub fn new() -> Self {
        Writer::default()
    }

    /// Adds a typed tensor or view (packed: a padded shape's storage is not a dense array).
    pub fn add<S: Storage, L: Layout>(
        &mut self,
        name: &str,
        tensor: &'t TensorBase<S, L>,
    ) -> Result<&mut Self, SafetensorsError> {
        let bytes: &'t [u8] = bytemuck::cast_slice(tensor.as_slice());
        let placement = *tensor.shape().placement();
        self.push(name, S::Elem::DATA_TYPE, DynLayout::of::<L>(), &placement, bytes)
    }

    /// Adds a runtime tensor (packed: a padded shape's storage is not a dense array).
    pub fn add_dyn(&mut self, name: &str, tensor: &'t DynTensor) -> Result<&mut Self, SafetensorsError> {
        self.push(name, tensor.data_type(), tensor.layout(), tensor.placement(), tensor.as_bytes())
    }

    fn push(
        &mut self,
        name: &str,
        data_type: DataType,
        layout: DynLayout,
        placement: &Placement,
        bytes: &'t [u8],
    ) -> Result<&mut Self, SafetensorsError> {
        let refuse = |reason| Err(SafetensorsError::Writer { name: name.into(), reason });
        if self.entries.iter().any(|e| e.name == name) {
            return refuse("a second tensor of this name: names in a file are unique");
        }
        let shape: Vec<usize> = placement.axes().iter().map(|a| a.extent).collect();
        if !placement.is_dense() {
            return refuse("its storage is padded: the format stores dense arrays only (convert it to a packed shape first)");
        }
        let dtype = dtype_of(data_type);
        self.entries.push(Entry { name: name.into(), dtype, shape, layout, bytes });
        Ok(self)
    }

    /// The header's metadata: the version, and each tensor's layout and family letters.
    fn metadata(&self) -> HashMap<String, String> {
        let mut m = HashMap::from([(FORMAT_KEY.to_string(), METADATA_VERSION.to_string())]);
        for e in &self.entries {
            m.insert(format!("{LAYOUT_KEY}{}", e.name), e.layout.notation().as_str().to_string());
            m.insert(format!("{LETTERS_KEY}{}", e.name), e.layout.letters().to_string());
        }
        m
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SafetensorsError> {
        let tensors = self.entries.iter().map(|e| (e.name.as_str(), e));
        Ok(safetensors::tensor::serialize(tensors, Some(self.metadata()))?)
    }

    /// Writes the file at `path`.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), SafetensorsError> {
        let tensors = self.entries.iter().map(|e| (e.name.as_str(), e));
        Ok(safetensors::tensor::serialize_to_file(tensors, Some(self.metadata()), path.as_ref())?)
    }
}
