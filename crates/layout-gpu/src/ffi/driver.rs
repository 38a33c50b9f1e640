//! The CUDA driver. Safety argument, in five parts:
//!
//! * [`present`] only asks whether `libcuda` can be opened, by its candidate names; the handle
//!   asks it before any other driver call, all of which go through cudarc's safe layer but one:
//! * [`version`] passes `cuDriverGetVersion` (which cudarc's safe layer lacks) one live
//!   out-parameter; it needs no context and no `cuInit`.
//! * [`Params`] and [`CastParams`], the kernels' by-value arguments, are defined here beside
//!   their [`DeviceRepr`] impls: `#[repr(C)]` plain data (`i64`, `u64` and `f64` fields, no
//!   padding, no pointers), declared field for field by the CUDA the `kernels` room writes.
//! * [`launch`] is the one kernel launch. Its contract (the kernel's signature, and arguments
//!   that keep every offset inside the buffers) is written on it; its callers, the conversion
//!   and the fused cast, pass a kernel this crate generated and the launch `kernels` derived
//!   from the shapes of exactly the buffers they pass.
//! * [`alloc_for_overwrite`] allocates without initializing, for a destination the next launch
//!   writes whole (its contract, on it); the element types are plain numbers, for which any bits
//!   the memory held are a valid value, so even a broken contract yields wrong numbers, not
//!   undefined behaviour.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig, PushKernelArg,
};
use layout_types::loops::MAX_LOOPS;
use layout_types::placement::MAX_AXES;

/// Whether the CUDA driver library can be loaded, looked up once per process (cudarc panics
/// when it first calls into a library that is absent).
pub(crate) fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names; it calls
    // no symbol from it.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// The CUDA version the driver supports, `(major, minor)` (`(13, 0)` for driver 580). Call only
/// when [`present`].
pub(crate) fn version() -> Result<(u32, u32), DriverError> {
    let mut version: core::ffi::c_int = 0;
    // SAFETY: one live, writable `c_int`; `cuDriverGetVersion` writes it and keeps no pointer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }.result()?;
    let version = version.max(0) as u32; // 1000 × major + 10 × minor
    Ok((version / 1000, version % 1000 / 10))
}

/// The run-time arguments of every moving kernel: the loops (outermost first, at most
/// [`MAX_LOOPS`](layout_types::loops::MAX_LOOPS)) and the work count.
///
/// Layout by kernel shape: copy uses `extent[0]` (elements); gather uses its `loops` axes in
/// destination order; tile puts its batch axes first, then `a` (the source's innermost axis),
/// then `b` (the destination's). `work` is the number of work items the grid strides over.
///
/// ```
/// use layout_gpu::kernels::{route, Params};
/// use typed_layout::{loops::MAX_LOOPS, Nchw, Nhwc, Shape};
/// let dims = [2, 64, 8, 8];
/// let r = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)?;
/// let p: Params = r.passes()[0].launch.params;
/// // The tile kernel: N as a batch loop, then H·W (the source's inner axis), then C.
/// assert_eq!((&p.extent[..3], &p.src[..3], &p.dst[..3]), (&[2, 64, 64][..], &[4096, 1, 64][..], &[4096, 64, 1][..]));
/// assert_eq!(p.to_bytes().len(), core::mem::size_of::<Params>());
/// // Three arrays of MAX_LOOPS i64 and a u64, passed by value to every kernel.
/// assert_eq!(core::mem::size_of::<Params>(), 8 * (3 * MAX_LOOPS + 1));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Extent of each loop.
    pub extent: [i64; MAX_LOOPS],
    /// Source stride of each loop, in elements.
    pub src: [i64; MAX_LOOPS],
    /// Destination stride of each loop, in elements.
    pub dst: [i64; MAX_LOOPS],
    /// Work items: vectors (copy, gather) or tiles (tile).
    pub work: u64,
}

impl Params {
    pub(crate) const ZERO: Params =
        Params { extent: [0; MAX_LOOPS], src: [0; MAX_LOOPS], dst: [0; MAX_LOOPS], work: 0 };

    /// The struct's bytes as the kernel receives them (native endianness, C layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(core::mem::size_of::<Params>());
        for a in [&self.extent, &self.src, &self.dst] {
            for v in a {
                out.extend_from_slice(&v.to_ne_bytes());
            }
        }
        out.extend_from_slice(&self.work.to_ne_bytes());
        out
    }
}

/// The run-time arguments of a cast kernel: the plan's loops (outermost first), the work count,
/// the channel rule and the scale.
///
/// ```
/// use layout_gpu::kernels::{cast_launch, CastParams};
/// use typed_layout::{cast::{CastNest, Unscaled}, DataType, Nchw, NcxHwx, Shape};
/// // NC/4HW4 source: a channel reaches it through its group (16 elements apart) and lane (1).
/// let (src, dst) = (Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?, Shape::<Nchw>::new([1, 8, 2, 2])?);
/// let p: CastParams = cast_launch(&CastNest::new(&src, &dst)?, DataType::Half, DataType::Float, 32, Unscaled).params;
/// assert_eq!((p.c_width, p.c_outer, p.c_inner, p.channels), (4, 16, 1, 8));
/// assert_eq!(p.to_bytes().len(), core::mem::size_of::<CastParams>());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CastParams {
    /// Extent of each loop.
    pub extent: [i64; MAX_AXES],
    /// Source elements per step of each loop.
    pub src: [i64; MAX_AXES],
    /// Logical channels per step of each loop.
    pub channel: [i64; MAX_AXES],
    /// Destination elements (one thread each).
    pub work: u64,
    /// Channels of data; higher channels are padding (zero).
    pub channels: i64,
    /// The source's [`ChannelMap`](layout_types::cast::ChannelMap): vector width, group stride
    /// and lane stride.
    pub c_width: i64,
    /// Source elements between channel groups (or channels, for width 1).
    pub c_outer: i64,
    /// Source elements between lanes.
    pub c_inner: i64,
    /// Every value is multiplied by this before it is converted (1 for [`Unscaled`](layout_types::cast::Unscaled)),
    /// or divided by it in `f32` for a quantizing kernel.
    pub scale: f64,
    /// Where the source's part starts, in elements (0 but for one output channel's pass).
    pub src_base: i64,
    /// Where the destination's part starts, in elements.
    pub dst_base: i64,
}

impl CastParams {
    /// The struct's bytes as the kernel receives them (native endianness, C layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(core::mem::size_of::<CastParams>());
        for a in [&self.extent, &self.src, &self.channel] {
            for v in a {
                out.extend_from_slice(&v.to_ne_bytes());
            }
        }
        out.extend_from_slice(&self.work.to_ne_bytes());
        for v in [self.channels, self.c_width, self.c_outer, self.c_inner] {
            out.extend_from_slice(&v.to_ne_bytes());
        }
        out.extend_from_slice(&self.scale.to_ne_bytes());
        for v in [self.src_base, self.dst_base] {
            out.extend_from_slice(&v.to_ne_bytes());
        }
        out
    }
}

// SAFETY: `#[repr(C)]` plain data (three i64 arrays and a u64: no padding, no pointers), and the
// moving kernels declare the same struct (`KernelSpec::source` writes it from MAX_LOOPS).
unsafe impl DeviceRepr for Params {}

// SAFETY: as `Params`: `#[repr(C)]` plain data (three i64 arrays, a u64, four i64, an f64 and
// two i64: no padding, no pointers), declared identically by the cast kernels (`CastSpec::source`).
unsafe impl DeviceRepr for CastParams {}

// "No padding", checked: each struct is exactly the sum of its 8-byte fields.
const _: () = assert!(core::mem::size_of::<Params>() == 8 * (3 * MAX_LOOPS + 1));
const _: () = assert!(core::mem::size_of::<CastParams>() == 8 * (3 * MAX_AXES + 8));

/// Launches `function` on `stream` with a 1-D grid of `grid` blocks of `block` threads, on the
/// arguments `(src, dst, params)`; returns when the launch is queued.
///
/// # Contract
///
/// Safe to call from this crate on these terms, which the types cannot carry: `function` is a
/// kernel this crate generated taking exactly `(const S*, D*, P)`, and `params` are the ones
/// `kernels` derived for that kernel from the shapes of `src` and `dst`, so every offset it
/// forms lies inside them. (`dst` is borrowed mutably, so the two buffers are distinct.)
pub(crate) fn launch<S: DeviceRepr, D: DeviceRepr, P: DeviceRepr>(
    stream: &CudaStream,
    function: &CudaFunction,
    grid: u32,
    block: (u32, u32, u32),
    src: &CudaSlice<S>,
    dst: &mut CudaSlice<D>,
    params: &P,
) -> Result<(), DriverError> {
    let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: block, shared_mem_bytes: 0 };
    let mut args = stream.launch_builder(function);
    args.arg(src).arg(dst).arg(params);
    // SAFETY: the contract above: the arguments match the kernel's signature and keep its
    // accesses inside the buffers.
    unsafe { args.launch(cfg) }.map(|_| ())
}

/// `len` elements of `T` on `stream`'s device, allocated and not initialized: for a
/// destination that the launches queued next on `stream` write whole, so no memset runs first.
///
/// # Contract
///
/// Safe to call from this crate on these terms: `T` is one of the element types (the crate's
/// `DeviceElement`s: integers and floats, valid for any bits), and the caller queues, before
/// anything reads the buffer, launches that together write every one of its `len` elements (the
/// fused cast's kernels write each destination element, padding channels included; a
/// per-output-channel quantization one slab of K per launch), or drops it unread.
pub(crate) fn alloc_for_overwrite<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>, DriverError> {
    // SAFETY: the contract above: every element is written before it is read, and any bits
    // would be a valid `T` meanwhile.
    unsafe { stream.alloc::<T>(len) }
}
