//! The kernels: what the GPU runs, generated per conversion from the host's own loop plans,
//! and their compilation with NVRTC. Nothing here needs a device: sources, shapes, grids and
//! arguments are plain values (the tests snapshot the CUDA, compile every instance and run each
//! on a host emulator against the CPU backend).
//!
//! Two classes of kernel:
//!
//! * **moving** kernels copy elements between two layouts of one element size: [`route`] takes
//!   the conversion's [`LoopNest`](layout_types::loops::LoopNest) (refined, ordered as the
//!   destination stores it, the axes contiguous on both sides fused, so NCHW→NHWC arrives as a
//!   batched 2-D transpose), picks a [`Kernel`] shape and gives its [`Params`]; a
//!   [`KernelSpec`] writes the source;
//! * **cast** kernels relayout, cast and pad C in one pass: [`cast_launch`] takes the
//!   [`CastNest`](layout_types::cast::CastNest) and gives its [`CastParams`]; a [`CastSpec`]
//!   writes the source.
//!
//! [`compile`] turns either's source into a [`Compiled`] kernel for an architecture: for a real
//! one (`sm_90`, the device's compute capability) a CUBIN, machine code the driver loads as is,
//! and its PTX; for a virtual one (`compute_90`) PTX only. The handle's kernel cache compiles
//! each kernel once and loads its CUBIN, which a driver of NVRTC's CUDA major version loads
//! even when it is older than NVRTC (minor-version compatibility). PTX, which the driver
//! compiles itself, is the fallback, tried only when [`ptx_fallback_allowed`] says the driver
//! can read it (its NVRTC is not newer than the driver). [`nvrtc_version`] and
//! [`nvrtc_library`] say which NVRTC was loaded, [`Gpu::driver_version`](crate::Gpu::driver_version)
//! which driver, and [`Gpu::loaded_images`](crate::Gpu::loaded_images) which image kind it took.
//!
//! # Moving elements
//!
//! A [`KernelSpec`] holds everything baked into a kernel as a compile-time constant: its shape
//! (copy, gather or tile), the element size (elements are moved as unsigned integers of that
//! size: dispatch is by size, not by type), the number of loops it decomposes, the elements per
//! memory access, and the index width. Extents and strides arrive at run time in [`Params`], so
//! one compiled kernel serves every tensor size of its (source, destination, element size) pair.
//!
//! The four shapes, chosen by [`route`]:
//!
//! * **copy**: the conversion is one contiguous run; 16-byte vector loads and stores, then the
//!   tail element by element.
//! * **gather**: one thread per `vec` destination elements, in destination order, each reading
//!   from the source offset its loop coordinates give; the innermost axis is contiguous on both
//!   sides and moves in vectors (NHWC→NC/32HW32 moves runs of 32 channels).
//! * **tile**: the source's innermost axis (`a`) against the destination's (`b`) through a
//!   shared-memory tile of `32·pack` × `32·pack` elements; reads coalesce along `a`, writes
//!   along `b`. 1- and 2-byte elements are moved `pack` at a time as 32-bit words when the
//!   extents and strides allow. The tile is 32 words wide and its columns are XOR-swizzled by
//!   row, so both the word stores of the read phase and the column reads of the write phase
//!   fall on 32 different banks.
//! * **narrow**: the same plane when one of the two axes is narrow (fewer than [`NARROW`]
//!   elements: C = 3 into or out of NHWC, a batch of 4 into CHWN) and packed against the other:
//!   each block stages a run of [`NARROW_RUN_BYTES`] of the long axis for every narrow index,
//!   reading `c` contiguous runs and writing one (or the reverse). The staging rows' pitch is
//!   chosen per narrow extent so the interleaved walk spreads over the banks.
//!
//! Before choosing, a run contiguous on both sides of at most 8 bytes (NC/4HW4's four i8
//! lanes) is folded into one wider element, so the loops around it become a tile of whole
//! runs.
//!
//! Every load and store goes through two macros (`TL_LD`, `TL_ST`) that are plain accesses on
//! the device, so a host model can observe them: the tests' efficiency model replays each warp
//! in lockstep and counts the sectors and banks it touches.
//!
//! All loops are grid-stride, so any tensor fits any grid; offsets are 64-bit when either
//! buffer has 2^31 elements or more.
//!
//! ```
//! use layout_gpu::kernels::{route, Kernel, KernelSpec, Route};
//! use typed_layout::{Nchw, Nhwc, Shape};
//! let dims = [8, 64, 56, 56];
//! let Route::Direct(pass) = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)? else { unreachable!() };
//! assert_eq!(pass.launch.spec.kernel, Kernel::Tile { batch: 1 });
//! assert_eq!(pass.kernel_name(), "tl_tile1_p1_NCHW_to_NHWC_e4_i32");
//!
//! let spec = KernelSpec { kernel: Kernel::Gather { loops: 3 }, elem_bytes: 2, vec: 1, wide: false };
//! let cuda = spec.source("NCHW", "NHWC");
//! assert!(cuda.contains("typedef unsigned short elem_t;")); // moved as 2-byte integers
//! assert!(cuda.contains("extern \"C\" __global__ void __launch_bounds__(256) tl_gather3_v1_NCHW_to_NHWC_e2_i32("));
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! # Casting
//!
//! A cast kernel runs one thread per group of consecutive destination elements in the
//! destination's storage order: as many as fill 16 bytes where the innermost loop splits into
//! such groups ([`CastSpec::vector`]; one element otherwise), stored at once.
//! Each thread decomposes its index over the plan's loops (innermost first, as the gather
//! does), which gives its source offset and its logical channel; a data channel reads the
//! source through the plan's [`ChannelMap`](layout_types::cast::ChannelMap), converts it and
//! stores it, a padding channel stores zero. Writes are coalesced; every destination element is
//! written exactly once, so the destination needs no clearing first.
//!
//! Unlike the moving kernels, a cast kernel knows its element *types*: a [`CastSpec`] bakes in
//! the source and destination [`DataType`](layout_types::DataType) and the loop count. Values
//! pass through f64, as on the CPU ([`Element`](layout_types::Element)'s `to_f64` /
//! `from_f64`), with the same rules written out in portable C so the two backends agree bit for
//! bit:
//!
//! * f16 and bf16 are handled as bits: widening builds the f64 exactly, narrowing is
//!   [`narrow`](layout_types::narrow)'s algorithm (nearest, ties to even, from every bit), line
//!   for line; on the device the hardware's conversion from f64 (`cvt.rn`, the same single
//!   rounding; bf16 from sm_90) narrows every value but NaN, which keeps the portable path;
//! * integers round half away from zero and saturate, NaN becomes 0;
//! * f32 and f64 use C's conversions (round to nearest).
//!
//! On a device, NaN payloads may differ (the hardware returns a canonical NaN); NaN stays NaN.
//!
//! ```
//! use layout_gpu::kernels::cast_launch;
//! use typed_layout::{cast::{CastNest, Scale}, DataType, Nchw, NcxHwx, Shape};
//! // f32 NCHW with 40 channels into INT8x32 (NC/32HW32, C padded to 64), scaled.
//! let (src, dst) = (Shape::<Nchw>::new([1, 40, 7, 7])?, Shape::<NcxHwx<32>>::new([1, 64, 7, 7])?);
//! let launch = cast_launch(&CastNest::new(&src, &dst)?, DataType::Float, DataType::Int8, src.len(), Scale(127.0 / 6.0));
//! let cuda = launch.spec.source("NCHW", "NC/32HW32");
//! assert!(cuda.contains("typedef float src_t;") && cuda.contains("typedef signed char dst_t;"));
//! assert_eq!((launch.params.channels, launch.params.work), (40, 64 * 49));
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

mod cast;
mod moving;
mod nvrtc;
mod schedule;

pub use self::cast::{cast_launch, CastLaunch, CastSpec, DeviceCast};
pub use self::moving::{Kernel, KernelSpec, NARROW, NARROW_RUN_BYTES, THREADS, TILE_ROWS, TILE_THREADS_X};
pub use self::nvrtc::{
    compile, nvrtc_available, nvrtc_library, nvrtc_version, ptx_fallback_allowed, Compiled, ImageKind,
};
pub use self::schedule::{route, schedule, Launch, Pass, Route, LOGICAL, MAX_BLOCKS};
// The kernels' by-value arguments live beside their `DeviceRepr` impls, in the FFI module.
pub use crate::ffi::driver::{CastParams, Params};
