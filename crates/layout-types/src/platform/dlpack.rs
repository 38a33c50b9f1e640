//! DLPack's managed tensors (feature `dlpack`, through dlpark): ours handed out, theirs read.
//!
//! Export: the elements stay where they are; the managed tensor owns the storage (a boxed
//! value whose heap buffer holds them) until its deleter runs. Import: a foreign tensor's data
//! is a raw pointer no check can vouch for, so reading it is [`DlpackRef::new`], an `unsafe fn`
//! whose caller states the pointer's contract; everything else about it (device, data type,
//! shape, strides, byte offset, alignment, the span its strides reach) is checked here or by
//! the code that reads the `DlpackRef`.

use core::ffi::c_void;

use dlpark::ffi::{DLDataType, DLDevice};
use dlpark::metadata::Dynamic;

use crate::dtype::DataType;
use crate::error::{DlpackError, LayoutError};

/// A DLPack tensor of the current (versioned) ABI: what [`crate::interop::dlpack`] exports and
/// reads, and what dlpark's Python bindings and other Rust tensor crates exchange.
pub type Dlpack = dlpark::versioned::Dlpack;

/// DLPack's data type of each of ours (one lane each).
pub fn dl_data_type(data_type: DataType) -> DLDataType {
    match data_type {
        DataType::Float => DLDataType::F32,
        DataType::Double => DLDataType::F64,
        DataType::Half => DLDataType::F16,
        DataType::BFloat16 => DLDataType::BF16,
        DataType::Int8 => DLDataType::I8,
        DataType::Uint8 => DLDataType::U8,
        DataType::Int32 => DLDataType::I32,
        DataType::Int64 => DLDataType::I64,
    }
}

fn dlpack_error(e: impl std::error::Error + Send + Sync + 'static) -> DlpackError {
    DlpackError::Dlpack(Box::new(e))
}

/// A managed tensor over the elements `data` points to inside `owner`'s heap storage (which
/// moving the box does not move), of `shape` and `strides` in elements; `owner` is dropped by
/// the tensor's deleter, on whichever thread the consumer calls it.
pub(crate) fn export<O: Send + 'static>(
    mut owner: Box<O>,
    data: fn(&mut O) -> *mut u8,
    data_type: DataType,
    shape: &[usize],
    strides: &[usize],
) -> Result<Dlpack, DlpackError> {
    let as_i64 = |v: &[usize]| -> Result<Vec<i64>, DlpackError> {
        v.iter()
            .map(|&x| {
                i64::try_from(x).map_err(|_| DlpackError::Strides { reason: "a dim or stride past i64" })
            })
            .collect()
    };
    let (shape, strides) = (as_i64(shape)?, as_i64(strides)?);
    let pointer = data(&mut owner).cast::<c_void>();
    let mut tensor = Dynamic::new(shape, strides).initialize(owner).map_err(dlpack_error)?;
    tensor.set_data(pointer).set_device(DLDevice::CPU).set_dtype(dl_data_type(data_type));
    // SAFETY: `pointer` points into the heap storage of `owner`, which the tensor's context now
    // owns (the box moved, its heap buffer did not) and drops only in the deleter; the caller's
    // shape and strides (copied into the tensor's own allocation) address elements of that
    // storage only (they are the tensor's placement); no flags are set, which claims nothing:
    // the storage is writable and not a copy made for the consumer.
    Ok(unsafe { tensor.finish() })
}

/// What a DLPack tensor says about itself, checked: its device, data type, shape, strides and
/// the bytes its strides span. Reading it touches no element, so it is safe; a host tensor's
/// elements are then borrowed with [`DlpackRef::new`], a device tensor's copied by the GPU
/// backend (`gpu::dlpack`, features `gpu` and `dlpack`).
///
/// ```
/// use typed_layout::interop::dlpack::{self, DlpackInfo};
/// use typed_layout::{DataType, Nhwc, Tensor};
/// let exported = dlpack::export(Tensor::<half::f16, Nhwc>::filled([2, 3, 4, 5], half::f16::ONE)?)?;
/// let info = DlpackInfo::read(&exported)?;
/// assert_eq!((info.device_type(), info.device_id()), (1, 0)); // kDLCPU
/// assert_eq!((info.data_type(), info.shape()), (DataType::Half, &[2, 3, 4, 5][..]));
/// assert_eq!((info.strides(), info.byte_len()), (&[60, 1, 15, 3][..], 240));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlpackInfo {
    device_type: u32,
    device_id: i32,
    data_type: DataType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    address: usize,
    byte_len: usize,
}

impl DlpackInfo {
    /// Reads `tensor`'s metadata: dlpark's validation (ABI version, shape and strides), then
    /// one of the eight data types, no negative dim, no negative stride (but on a dim of extent
    /// 1, which never steps: its stride is read as 0), no zero dim, a span of bytes within
    /// `isize::MAX`, and a non-null data pointer that the byte offset and the span keep inside
    /// the address space.
    pub fn read(tensor: &Dlpack) -> Result<DlpackInfo, DlpackError> {
        let t = tensor.validate().map_err(dlpack_error)?;
        let device = t.device();
        let dtype = t.dtype();
        let unknown = DlpackError::DataType { code: dtype.code.0, bits: dtype.bits, lanes: dtype.lanes };
        let data_type = DataType::ALL.into_iter().find(|&d| dl_data_type(d) == dtype).ok_or(unknown)?;
        let usize_of = |v: i64, what: &'static str| {
            usize::try_from(v).map_err(|_| DlpackError::Strides { reason: what })
        };
        let shape =
            t.shape().iter().map(|&d| usize_of(d, "a negative dim")).collect::<Result<Vec<_>, _>>()?;
        let strides = t.strides_or_compact().map_err(dlpack_error)?;
        if let Some(k) = shape.iter().position(|&d| d == 0) {
            return Err(LayoutError::ZeroDim { dim: crate::error::DimName::new(k, b"") }.into());
        }
        // A dim of extent 1 never steps: its stride, whatever its sign, addresses nothing.
        let strides = strides
            .iter()
            .zip(&shape)
            .map(|(&s, &d)| match (s < 0, d) {
                (true, 1) => Ok(0),
                _ => {
                    usize_of(s, "a negative stride (a mirrored axis): typed-layout addresses no such tensor")
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The elements reached: one past the highest offset.
        let span = shape.iter().zip(&strides).try_fold(1usize, |span, (&d, &s)| {
            (d - 1).checked_mul(s).and_then(|reach| span.checked_add(reach))
        });
        let len = span.and_then(|n| n.checked_mul(data_type.size())).filter(|&b| b <= isize::MAX as usize);
        let byte_len =
            len.ok_or(DlpackError::Strides { reason: "the strides reach past the address space" })?;
        let address = match t.data_ptr() as usize {
            0 => return Err(DlpackError::Address { reason: "the tensor's data pointer is null" }),
            data => usize::try_from(t.byte_offset()).ok().and_then(|offset| data.checked_add(offset)),
        };
        let address = address.filter(|a| a.checked_add(byte_len).is_some()).ok_or(DlpackError::Address {
            reason: "the tensor's byte offset and span reach past the address space",
        })?;
        Ok(DlpackInfo {
            device_type: device.device_type.0,
            device_id: device.device_id,
            data_type,
            shape,
            strides,
            address,
            byte_len,
        })
    }

    /// DLPack's device type code: `kDLCPU` 1, `kDLCUDA` 2, `kDLCUDAHost` 3, …
    pub fn device_type(&self) -> u32 {
        self.device_type
    }

    /// The device's id (a CUDA tensor's device ordinal).
    pub fn device_id(&self) -> i32 {
        self.device_id
    }

    /// The elements' data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The dims, as the tensor gives them.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in elements (compact row-major ones where the tensor gives none; 0 for a
    /// dim of extent 1 given a negative one).
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The address of the first element (the data pointer plus the byte offset), in the
    /// tensor's device's address space.
    pub fn address(&self) -> usize {
        self.address
    }

    /// The bytes from the first element to the end of the last one its strides reach.
    pub fn byte_len(&self) -> usize {
        self.byte_len
    }

    /// `Device` unless the tensor is on `device_type`, named `expected` in the error.
    pub fn expect_device(&self, device_type: u32, expected: &'static str) -> Result<(), DlpackError> {
        match self.device_type == device_type {
            true => Ok(()),
            false => Err(DlpackError::Device {
                device_type: self.device_type,
                device_id: self.device_id,
                expected,
            }),
        }
    }
}

/// A foreign host tensor, checked, with the bytes its strides reach: what the safe readers of
/// [`crate::interop::dlpack`] build typed views and copies from.
#[derive(Debug)]
pub struct DlpackRef<'a> {
    info: DlpackInfo,
    bytes: &'a [u8],
}

impl<'a> DlpackRef<'a> {
    /// Reads `tensor`'s metadata ([`DlpackInfo::read`], then: in host memory) and borrows the
    /// bytes its shape and strides reach from its data pointer and byte offset.
    ///
    /// # Safety
    ///
    /// For as long as the borrow `'a` lasts, every byte from the byte-offset data pointer of
    /// `tensor` to the end of the last element its shape and strides address must be
    /// initialized memory of one allocation, and nothing may write any of it (the producer
    /// included, also between the elements of a gapped view: the whole span is borrowed as one
    /// `&[u8]`, which Rust assumes never changes). A tensor from a producer that keeps writing
    /// it must be copied on its side first.
    pub unsafe fn new(tensor: &'a Dlpack) -> Result<DlpackRef<'a>, DlpackError> {
        let info = DlpackInfo::read(tensor)?;
        info.expect_device(DLDevice::CPU.device_type.0, "host memory (kDLCPU, 1)")?;
        // SAFETY: a host tensor: `address` is its non-null data pointer plus the byte offset
        // (checked not to overflow; the pointer keeps the data pointer's provenance), and
        // `byte_len` (within isize::MAX, not past the address space) covers every
        // element the shape and strides address, the highest one last. The caller's contract
        // is that those bytes are initialized, readable and not written for `'a`.
        let bytes = unsafe {
            let data = tensor.validate().map_err(dlpack_error)?.data_ptr().cast::<u8>();
            core::slice::from_raw_parts(data.with_addr(info.address), info.byte_len)
        };
        Ok(DlpackRef { info, bytes })
    }

    /// The elements' data type.
    pub fn data_type(&self) -> DataType {
        self.info.data_type
    }

    /// The dims, as the tensor gives them.
    pub fn shape(&self) -> &[usize] {
        &self.info.shape
    }

    /// The strides, in elements (compact row-major ones where the tensor gives none).
    pub fn strides(&self) -> &[usize] {
        &self.info.strides
    }

    /// The bytes from the first element to the last one the strides reach.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}
