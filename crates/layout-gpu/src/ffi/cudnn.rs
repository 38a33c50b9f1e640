//! cuDNN (feature `cudnn`). Safety argument: a cuDNN handle and a tensor descriptor are owned
//! here by [`Handle`] and [`Descriptor`]: created by cuDNN, never copied, destroyed once on
//! drop, so every call made through one gets a live object. Arrays go to cuDNN as slices with
//! their own length and come back into arrays of the length asked for; the handle keeps the
//! stream it was set to alive. cudarc's `result` layer makes the calls it has (create, destroy,
//! set stream, `cudnnSetTensorNdDescriptor`); the others are wrapped here once.

use std::ffi::CStr;
use std::sync::{Arc, OnceLock};

use cudarc::cudnn::result::{self, CudnnError};
use cudarc::cudnn::sys::{self, cudnnDataType_t, cudnnTensorFormat_t};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};
use layout_types::{DataType, Element, MAX_RANK};

use crate::error::GpuError;

/// Whether the cuDNN library can be loaded, looked up once per process (cudarc panics when it
/// first calls into a library that is absent).
pub(crate) fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names; it calls
    // no symbol from it.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// `call`'s failure, in cuDNN's words.
fn failed(call: &'static str, e: CudnnError) -> GpuError {
    // SAFETY: cuDNN returns a static NUL-terminated string for every status.
    let text = unsafe { CStr::from_ptr(sys::cudnnGetErrorString(e.0)) };
    GpuError::Cudnn { call, status: text.to_string_lossy().into_owned() }
}

/// A cuDNN handle (`cudnnHandle_t`) whose work is ordered on one stream.
#[derive(Debug)]
pub(crate) struct Handle {
    raw: sys::cudnnHandle_t,
    /// The stream cuDNN was told to use, kept alive as long as the handle.
    _stream: Arc<CudaStream>,
}

// SAFETY: a cuDNN handle may be used from any thread, one call at a time (`Handle` is not
// `Sync`); cuDNN orders its work on the handle's stream.
unsafe impl Send for Handle {}

impl Handle {
    /// `cudnnCreate`, then `cudnnSetStream(stream)`. The caller has made the stream's context
    /// current (and checked that cuDNN is present).
    pub(crate) fn new(stream: &Arc<CudaStream>) -> Result<Handle, GpuError> {
        let raw = result::create_handle().map_err(|e| failed("cudnnCreate", e))?;
        let handle = Handle { raw, _stream: stream.clone() };
        // SAFETY: the handle is live (just created); the stream is live (the handle holds it).
        unsafe { result::set_stream(handle.raw, stream.cu_stream() as _) }
            .map_err(|e| failed("cudnnSetStream", e))?;
        Ok(handle)
    }

    /// `cudnnTransformTensor(alpha = 1, x, beta = 0, y)`: `dst` described by `y` becomes `src`
    /// described by `x`, on the handle's own stream (the one cuDNN runs on, so cudarc's
    /// bookkeeping of the buffers' use is on the same stream).
    ///
    /// # Contract
    ///
    /// Safe to call from this crate on these terms, which the types cannot carry: `x` and `y`
    /// describe `src` and `dst` (their dims and strides reach no further than the buffers, their
    /// data type is `T`'s), and both buffers live in the context the handle's stream belongs to,
    /// which is current. `Cudnn::transform`, the one caller, builds both descriptors from the
    /// tensors' own shapes with `T`'s data type, checks both tensors' device against the
    /// handle's, and binds that context first.
    pub(crate) fn transform<T: Element + DeviceRepr>(
        &self,
        x: &Descriptor,
        src: &CudaSlice<T>,
        y: &Descriptor,
        dst: &mut CudaSlice<T>,
    ) -> Result<(), GpuError> {
        let stream: &CudaStream = &self._stream;
        let (xp, _read) = src.device_ptr(stream);
        let (yp, _write) = dst.device_ptr_mut(stream);
        let (one_f, zero_f, one_d, zero_d) = (1f32, 0f32, 1f64, 0f64);
        let (alpha, beta): (*const core::ffi::c_void, *const core::ffi::c_void) = match T::DATA_TYPE {
            DataType::Double => ((&one_d as *const f64).cast(), (&zero_d as *const f64).cast()),
            _ => ((&one_f as *const f32).cast(), (&zero_f as *const f32).cast()),
        };
        // SAFETY: the handle and both descriptors are live (owned); by the contract the
        // descriptors describe exactly these buffers; alpha and beta point at scalars of the type
        // cuDNN reads for T's data type; the pointers are the buffers' device allocations.
        unsafe { sys::cudnnTransformTensor(self.raw, alpha, x.raw, xp as _, beta, y.raw, yp as _) }
            .result()
            .map_err(|e| failed("cudnnTransformTensor", e))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreate`, destroyed once, here.
        let _ = unsafe { result::destroy_handle(self.raw) };
    }
}

/// A cuDNN tensor descriptor (`cudnnTensorDescriptor_t`). Its calls are host code: they need
/// libcudnn but no GPU.
#[derive(Debug)]
pub(crate) struct Descriptor {
    raw: sys::cudnnTensorDescriptor_t,
}

// SAFETY: a descriptor is host memory owned by this value alone; cuDNN reads it on any thread.
unsafe impl Send for Descriptor {}

impl Descriptor {
    /// `cudnnCreateTensorDescriptor`. The caller has checked that cuDNN is present.
    pub(crate) fn new() -> Result<Descriptor, GpuError> {
        let raw = result::create_tensor_descriptor().map_err(|e| failed("cudnnCreateTensorDescriptor", e))?;
        Ok(Descriptor { raw })
    }

    /// `cudnnSetTensorNdDescriptor` with as many dims as `dims` and `strides` both hold (the
    /// caller checks they hold as many).
    pub(crate) fn set_nd(
        &mut self,
        data_type: cudnnDataType_t,
        dims: &[i32],
        strides: &[i32],
    ) -> Result<(), GpuError> {
        let n = dims.len().min(strides.len());
        // SAFETY: the descriptor is live (owned); both arrays hold at least `n` ints. cuDNN
        // checks the count and the values.
        unsafe {
            result::set_tensornd_descriptor(self.raw, data_type, n as i32, dims.as_ptr(), strides.as_ptr())
        }
        .map_err(|e| failed("cudnnSetTensorNdDescriptor", e))
    }

    /// `cudnnSetTensorNdDescriptorEx`: cuDNN derives the strides of `format` for `dims`.
    pub(crate) fn set_nd_ex(
        &mut self,
        format: cudnnTensorFormat_t,
        data_type: cudnnDataType_t,
        dims: &[i32],
    ) -> Result<(), GpuError> {
        // SAFETY: the descriptor is live (owned); `dims` holds `dims.len()` ints. cuDNN checks
        // the count and the values.
        unsafe {
            sys::cudnnSetTensorNdDescriptorEx(self.raw, format, data_type, dims.len() as i32, dims.as_ptr())
        }
        .result()
        .map_err(|e| failed("cudnnSetTensorNdDescriptorEx", e))
    }

    /// `cudnnGetTensorNdDescriptor`: the data type as the C enum's value, the dims and the
    /// strides (at most [`MAX_RANK`] of each).
    pub(crate) fn get_nd(&self) -> Result<(i32, Vec<i32>, Vec<i32>), GpuError> {
        let (mut data_type, mut nb) = (0i32, 0i32);
        let (mut dims, mut strides) = ([0i32; MAX_RANK], [0i32; MAX_RANK]);
        // SAFETY: the descriptor is live (owned); the arrays hold MAX_RANK ints, the count
        // requested; the data type is written as the C enum's int into an i32 (never read as
        // the Rust enum).
        unsafe {
            sys::cudnnGetTensorNdDescriptor(
                self.raw,
                MAX_RANK as i32,
                (&mut data_type as *mut i32).cast(),
                &mut nb,
                dims.as_mut_ptr(),
                strides.as_mut_ptr(),
            )
        }
        .result()
        .map_err(|e| failed("cudnnGetTensorNdDescriptor", e))?;
        let n = (nb.max(0) as usize).min(MAX_RANK);
        Ok((data_type, dims[..n].to_vec(), strides[..n].to_vec()))
    }

    /// `cudnnGetTensorSizeInBytes`.
    pub(crate) fn size_in_bytes(&self) -> Result<usize, GpuError> {
        let mut bytes = 0usize;
        // SAFETY: the descriptor is live (owned); `bytes` is a valid out-pointer.
        unsafe { sys::cudnnGetTensorSizeInBytes(self.raw, &mut bytes) }
            .result()
            .map_err(|e| failed("cudnnGetTensorSizeInBytes", e))?;
        Ok(bytes)
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreateTensorDescriptor`, destroyed once, here.
        let _ = unsafe { result::destroy_tensor_descriptor(self.raw) };
    }
}

/// A cuDNN filter descriptor (`cudnnFilterDescriptor_t`). Host code, like [`Descriptor`].
#[derive(Debug)]
pub(crate) struct FilterDesc {
    raw: sys::cudnnFilterDescriptor_t,
}

// SAFETY: a descriptor is host memory owned by this value alone; cuDNN reads it on any thread.
unsafe impl Send for FilterDesc {}

impl FilterDesc {
    /// `cudnnCreateFilterDescriptor`. The caller has checked that cuDNN is present.
    pub(crate) fn new() -> Result<FilterDesc, GpuError> {
        let raw = result::create_filter_descriptor().map_err(|e| failed("cudnnCreateFilterDescriptor", e))?;
        Ok(FilterDesc { raw })
    }

    /// `cudnnSetFilterNdDescriptor(dataType, format, nbDims, filterDimA)`.
    pub(crate) fn set_nd(
        &mut self,
        data_type: cudnnDataType_t,
        format: cudnnTensorFormat_t,
        dims: &[i32],
    ) -> Result<(), GpuError> {
        // SAFETY: the descriptor is live (owned); `dims` holds `dims.len()` ints. cuDNN checks
        // the count and the values.
        unsafe {
            result::set_filternd_descriptor(self.raw, data_type, format, dims.len() as i32, dims.as_ptr())
        }
        .map_err(|e| failed("cudnnSetFilterNdDescriptor", e))
    }

    /// `cudnnGetFilterNdDescriptor`: the data type and format as the C enums' values, and the
    /// dims (at most [`MAX_RANK`]).
    pub(crate) fn get_nd(&self) -> Result<(i32, i32, Vec<i32>), GpuError> {
        let (mut data_type, mut format, mut nb) = (0i32, 0i32, 0i32);
        let mut dims = [0i32; MAX_RANK];
        // SAFETY: the descriptor is live (owned); `dims` holds MAX_RANK ints, the count
        // requested; the enums are written as C ints into i32s (never read as the Rust enums).
        unsafe {
            sys::cudnnGetFilterNdDescriptor(
                self.raw,
                MAX_RANK as i32,
                (&mut data_type as *mut i32).cast(),
                (&mut format as *mut i32).cast(),
                &mut nb,
                dims.as_mut_ptr(),
            )
        }
        .result()
        .map_err(|e| failed("cudnnGetFilterNdDescriptor", e))?;
        let n = (nb.max(0) as usize).min(MAX_RANK);
        Ok((data_type, format, dims[..n].to_vec()))
    }

    /// `cudnnGetFilterSizeInBytes`.
    pub(crate) fn size_in_bytes(&self) -> Result<usize, GpuError> {
        let mut bytes = 0usize;
        // SAFETY: the descriptor is live (owned); `bytes` is a valid out-pointer.
        unsafe { sys::cudnnGetFilterSizeInBytes(self.raw, &mut bytes) }
            .result()
            .map_err(|e| failed("cudnnGetFilterSizeInBytes", e))?;
        Ok(bytes)
    }
}

impl Drop for FilterDesc {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreateFilterDescriptor`, destroyed once, here.
        let _ = unsafe { result::destroy_filter_descriptor(self.raw) };
    }
}

/// A cuDNN convolution descriptor (`cudnnConvolutionDescriptor_t`). Host code.
#[derive(Debug)]
pub(crate) struct ConvDesc {
    raw: sys::cudnnConvolutionDescriptor_t,
}

// SAFETY: a descriptor is host memory owned by this value alone; cuDNN reads it on any thread.
unsafe impl Send for ConvDesc {}

impl ConvDesc {
    /// `cudnnCreateConvolutionDescriptor`, `cudnnSetConvolutionNdDescriptor` (cross-correlation,
    /// float compute) and `cudnnSetConvolutionGroupCount`. `padding`, `stride` and `dilation`
    /// hold one value per spatial dim (the caller checks they hold as many).
    pub(crate) fn new(
        padding: &[i32],
        stride: &[i32],
        dilation: &[i32],
        groups: i32,
    ) -> Result<ConvDesc, GpuError> {
        let raw = result::create_convolution_descriptor()
            .map_err(|e| failed("cudnnCreateConvolutionDescriptor", e))?;
        let conv = ConvDesc { raw };
        let n = padding.len().min(stride.len()).min(dilation.len());
        // SAFETY: the descriptor is live (owned); the three arrays hold at least `n` ints. cuDNN
        // checks the count and the values.
        unsafe {
            sys::cudnnSetConvolutionNdDescriptor(
                conv.raw,
                n as i32,
                padding.as_ptr(),
                stride.as_ptr(),
                dilation.as_ptr(),
                sys::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
                cudnnDataType_t::CUDNN_DATA_FLOAT,
            )
        }
        .result()
        .map_err(|e| failed("cudnnSetConvolutionNdDescriptor", e))?;
        // SAFETY: the descriptor is live (owned).
        unsafe { sys::cudnnSetConvolutionGroupCount(conv.raw, groups) }
            .result()
            .map_err(|e| failed("cudnnSetConvolutionGroupCount", e))?;
        Ok(conv)
    }

    /// `cudnnGetConvolutionNdForwardOutputDim` for `nb_dims` dims (at most [`MAX_RANK`]).
    pub(crate) fn forward_output_dims(
        &self,
        input: &Descriptor,
        filter: &FilterDesc,
        nb_dims: usize,
    ) -> Result<Vec<i32>, GpuError> {
        let n = nb_dims.min(MAX_RANK);
        let mut dims = [0i32; MAX_RANK];
        // SAFETY: the three descriptors are live (owned); `dims` holds MAX_RANK ≥ n ints.
        unsafe {
            sys::cudnnGetConvolutionNdForwardOutputDim(
                self.raw,
                input.raw,
                filter.raw,
                n as i32,
                dims.as_mut_ptr(),
            )
        }
        .result()
        .map_err(|e| failed("cudnnGetConvolutionNdForwardOutputDim", e))?;
        Ok(dims[..n].to_vec())
    }
}

impl Drop for ConvDesc {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreateConvolutionDescriptor`, destroyed once, here.
        let _ = unsafe { result::destroy_convolution_descriptor(self.raw) };
    }
}

impl Handle {
    /// `cudnnReorderFilterAndBias(CUDNN_DEFAULT_REORDER)` of the filter `src` described by
    /// `desc` into `dst`, and of the f32 bias `bias.0` into `bias.1` when given, on the handle's
    /// stream.
    ///
    /// # Contract
    ///
    /// Safe to call from this crate on these terms: `desc` describes `src` (an INT8x32 filter of
    /// `src.len()` bytes), `dst` holds as many, a bias pair holds K values each, all live in the
    /// context of the handle's stream, which is current. `Cudnn::reorder_int8x32`, the one
    /// caller, builds the descriptor from the filter tensor's own shape, allocates the outputs
    /// of the inputs' lengths and checks the devices; the sizes are checked again here.
    pub(crate) fn reorder_filter(
        &self,
        desc: &FilterDesc,
        src: &CudaSlice<i8>,
        dst: &mut CudaSlice<i8>,
        bias: Option<(&CudaSlice<f32>, &mut CudaSlice<f32>)>,
    ) -> Result<(), GpuError> {
        // What the contract promises, checked here too, so the call below is sound on its own.
        if src.len() != dst.len() || desc.size_in_bytes()? != src.len() {
            return Err(GpuError::Cudnn {
                call: "cudnnReorderFilterAndBias",
                status: "the filter descriptor, the filter and the output disagree in size".into(),
            });
        }
        let k = desc.get_nd()?.2.first().map_or(0, |&k| k.max(0) as usize);
        if let Some((b, rb)) = &bias {
            if b.len() != k || rb.len() != k {
                return Err(GpuError::Cudnn {
                    call: "cudnnReorderFilterAndBias",
                    status: "a bias holds one value per output channel K".into(),
                });
            }
        }
        let stream: &CudaStream = &self._stream;
        let (sp, _read) = src.device_ptr(stream);
        let (dp, _write) = dst.device_ptr_mut(stream);
        let (reorder_bias, bp, rbp, _guards) = match bias {
            Some((b, rb)) => {
                let (bp, gb) = b.device_ptr(stream);
                let (rbp, grb) = rb.device_ptr_mut(stream);
                (1, bp as *const core::ffi::c_void, rbp as *mut core::ffi::c_void, Some((gb, grb)))
            }
            None => (0, core::ptr::null(), core::ptr::null_mut(), None),
        };
        // SAFETY: the handle and the descriptor are live (owned); by the contract (and the
        // checks above) the descriptor describes `src`, `dst` holds as many bytes, and a bias
        // pair holds K f32 values each (else the pointers are null with `reorderBias` 0, which
        // cuDNN then does not read or write); the guards keep the buffers' stream bookkeeping.
        unsafe {
            sys::cudnnReorderFilterAndBias(
                self.raw,
                desc.raw,
                sys::cudnnReorderType_t::CUDNN_DEFAULT_REORDER,
                sp as *const core::ffi::c_void,
                dp as *mut core::ffi::c_void,
                reorder_bias,
                bp,
                rbp,
            )
        }
        .result()
        .map_err(|e| failed("cudnnReorderFilterAndBias", e))
    }
}
