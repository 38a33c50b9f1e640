//! # typed-layout
//!
//! NVIDIA cuDNN's tensor-layout concepts as Rust types. Layouts are zero-sized types whose
//! strides are derived at compile time for static shapes and by the same code at run time;
//! descriptors answer the guide's packing and overlap questions; typed tensors convert between
//! layouts on the CPU and, through [`gpu`], on an NVIDIA GPU.
//!
//! | The guide says | typed-layout has |
//! |---|---|
//! | WXYZ format, letters in decreasing-stride order (`"NHWC"`) | [`Format`], parsed by a `const fn` |
//! | 3-D BMN, 4-D NCHW, 5-D NCDHW tensors | the families [`Matmul`], [`Image`], [`Volume`]; dims always in their logical order |
//! | NCHW, NHWC, CHWN, NCDHW, NDHWC, CDHWN | zero-sized [`Nchw`], [`Nhwc`], [`Chwn`], [`Ncdhw`], [`Ndhwc`], [`Cdhwn`] |
//! | NC/xHWx (`CUDNN_TENSOR_NCHW_VECT_C`) | [`NcxHwx<X>`](NcxHwx) |
//! | packed row-major / column-major matmul | [`Bmn<RowMajor>`](Bmn), [`Bmn<ColMajor>`](Bmn) |
//! | strides of a fully packed tensor | [`Shape`] at run time, [`StaticShape`] at compile time, one derivation ([`placement`]) |
//! | generic n-D tensor descriptor | [`TensorDesc`] |
//! | fully, partially, spatially packed | [`TensorDesc::fully_packed`], [`TensorDesc::partially_packed`], [`TensorDesc::spatially_packed`] ([`predicates`]) |
//! | overlapping tensors | [`TensorDesc::overlap`] ([`predicates::overlap`]) |
//! | `cudnnDataType_t` | [`DataType`], and the sealed [`Element`] for f32, f64, f16, bf16, i8, u8, i32, i64 |
//! | "outputs cannot overlap" | [`TensorViewMut`] (packed) and [`StridedViewMut`] (checked); [`StridedView`] is input-only |
//! | a transform between layouts | [`convert()`], [`Tensor::to_layout`]; on the device [`gpu::Gpu::convert`], [`gpu::Gpu::to_layout`] |
//! | `cudnnHandle_t`: one device, one stream | [`gpu::Gpu`] (a stream and a kernel cache), with device tensors [`gpu::DeviceTensor`]; the kernels it generates: [`gpu::kernels`] |
//! | `cudnnSetTensorNdDescriptor(desc, dataType, nbDims, dimA, strideA)` | [`TensorDesc::cudnn`], [`Shape::cudnn`], [`Tensor::cudnn`] → [`cudnn::NdArgs`], within cuDNN's limits; back with [`TensorDesc::from_cudnn`]; a real descriptor: `gpu::cudnn::TensorDescriptor` (feature `cudnn`) |
//! | `cudnnTensorFormat_t` (NCHW, NHWC, NCHW_VECT_C) | [`cudnn::TensorFormat`], to and from layouts |
//! | filters (K, C, R, S) and `cudnnSetFilterNdDescriptor(dataType, format, nbDims, dimA)` | the families [`Filter`], [`VolumeFilter`]; [`Kcrs`], [`Krsc`], [`KcxRsx`], [`Kcdrs`], [`Kdrsc`]; `filter.cudnn_filter()` → [`cudnn::FormatArgs`]; the input layout each goes with: [`conv::FilterOf`]; a convolution's shapes (groups, padding, stride, dilation, output dims): [`conv::Conv`] |
//! | `CUDNN_DATA_INT8x4` / `INT8x32` with `NCHW_VECT_C` (`cudnnSetTensorNdDescriptorEx`) | `x.cudnn_format()` on NC/4HW4 and NC/32HW32 `i8` tensors → [`cudnn::FormatArgs`] with a [`cudnn::DescriptorType`] |
//! | "convert inputs to NHWC, pad the channel count to multiples of 8"; INT8x32 input preparation | [`cast::relayout_cast_pad`]: relayout + cast ([`cast::Unscaled`], [`cast::Scale`]) + zero channel padding in one pass, into a [`cast::ChannelPadded`] tensor; on the GPU [`gpu::Gpu::relayout_cast_pad`] into a [`gpu::DeviceChannelPadded`], one kernel running the same [`cast::CastNest`] |
//! | `cudnnMathType_t`, the Tensor Core guidelines (inputs and filters in NHWC, C and N multiples of 8, 128-bit alignment) | [`tensor_core::DefaultMath`], [`tensor_core::TensorOpMath`]; [`Shape::tensor_core`], [`Tensor::tensor_core`] name every rule broken, for the tensor's role (input / output, filter, matrix operand), with sourced [`tensor_core::TensorCoreExtension`]s and a visible batch waiver; a whole convolution: [`conv::Conv::tensor_core`]; [`tensor_core::TensorCoreShape`] exists only for a static shape that qualifies; host storage is 1024-bit aligned |
//! | any other format: `"CNHW"`, `"NC/4HW4"`, an NHWC tensor WC-packed, 6-D with a T axis | [`layout!`], checked at compile time; [`DynLayout`] at run time, same parser |
//! | a partially packed tensor's padded strides | [`Shape::with_strides`], [`Tensor::filled_in`] |
//! | a tensor whose data type and layout come from a file or a config | [`DynTensor`]: typed tensors in and out without a copy (checked: [`LayoutError::DataTypeMismatch`], [`LayoutError::LayoutMismatch`]), conversions between runtime layouts ([`DynTensor::to_layout`]) |
//!
//! # Declaring layouts
//!
//! [`layout!`] declares layouts in the guide's notation; an illegal one is a compile error that
//! names the rule, marks the letter and cites the guide's section. The `ui-tests/` folder of the
//! repository has one compile-fail case per rule, with the message a user sees.
//!
//! ```
//! use typed_layout::{layout, Nchw, Shape, Tensor};
//! layout! {
//!     /// int8x4 images.
//!     pub struct Nc4hw4 = "NC/4HW4";
//!     /// NHWC whose images and rows may be padded.
//!     pub struct NhwcRows = "NHWC, WC-packed";
//!     /// Clips of volumes: a family of six letters, in this logical order.
//!     pub family Clip = "NTCDHW";
//!     pub struct ClipLast: Clip = "NTDHWC";
//! }
//! let x = Tensor::<u8, Nchw>::zeros([1, 8, 2, 2])?;
//! let y: Tensor<u8, Nc4hw4> = x.to_layout()?;
//! let rows = Shape::<NhwcRows>::with_strides([1, 8, 2, 2], [40, 1, 20, 8])?; // rows padded to 20
//! assert_eq!(rows.len(), 20 + 8 + 8);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! # The guide's example tensor
//!
//! N = 1, C = 64, H = 5, W = 4, values 0, 1, 2, … in NCHW order:
//!
//! ```
//! use typed_layout::{Nchw, Nhwc, NcxHwx, Tensor};
//! let nchw = Tensor::<f32, Nchw>::from_vec([1, 64, 5, 4], (0..1280).map(|v| v as f32).collect())?;
//!
//! // NHWC: the 64 channels of pixel 0 first: 0, 20, 40, …, 1260, then 1, 21, …
//! let nhwc: Tensor<f32, Nhwc> = nchw.to_layout()?;
//! assert_eq!(&nhwc.as_slice()[..3], &[0.0, 20.0, 40.0]);
//! assert_eq!(nhwc.as_slice()[63], 1260.0);
//! assert_eq!(nhwc.as_slice()[64], 1.0);
//!
//! // NC/32HW32: channels 0–31 of each pixel, then the second group at position 640.
//! let vect: Tensor<f32, NcxHwx<32>> = nchw.to_layout()?;
//! assert_eq!(vect.as_slice()[31], 620.0);
//! assert_eq!(vect.as_slice()[32], 1.0);
//! assert_eq!(vect.as_slice()[640], 640.0);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! # Building an engine
//!
//! Code written once over the layout indexes by logical index (`t[[n, c, h, w]]`), walks
//! storage in memory order ([`TensorBase::iter`], [`TensorBase::for_each_indexed_mut`],
//! [`TensorBase::zip_mut_with`]), takes sub-tensors without copying ([`TensorBase::crop`],
//! [`TensorBase::narrow`], [`TensorBase::batch`]: a [`SubView`] keeps its layout), converts into
//! buffers it owns ([`TensorBase::to_layout_into`], [`cast::relayout_cast_pad_into`]) and hands
//! disjoint parts to threads ([`TensorBase::split_at_mut`], [`TensorBase::axis_chunks_mut`]).
//! `benches/engine.rs` times these against raw slices: indexing per element (below) is the
//! simplest and works on every layout, NC/xHWx included; the fastest convolution written once is
//! nine passes per input channel of [`TensorBase::zip2_mut_with`] over a crop of the input and
//! the weights, each [`broadcast`](TensorBase::broadcast) (within 1.2× of the best raw loops we
//! wrote, on NCHW and on NHWC; the second example below).
//!
//! Generic code names the family (`L: Layout<Family = Image>`): then `let [n, c, h, w] =
//! x.dims();` destructures. With only `L: Layout`, dims are `<L::Family as Family>::Dims`, an
//! array whose length the compiler does not know (`E0529: expected an array or slice`).
//!
//! ```
//! use typed_layout::{Image, Layout, Nchw, NcxHwx, Nhwc, Tensor};
//! /// A valid 3×3 convolution, written once for every image layout.
//! fn conv3x3<L: Layout<Family = Image>, F: Layout<Family = Image>>(
//!     x: &Tensor<f32, L>, f: &Tensor<f32, F>, y: &mut Tensor<f32, L>,
//! ) {
//!     let [_, channels, _, _] = x.dims();
//!     y.for_each_indexed_mut(|[n, k, h, w], out| {
//!         let mut acc = 0.0;
//!         for c in 0..channels {
//!             for r in 0..3 {
//!                 for s in 0..3 {
//!                     acc += x[[n, c, h + r, w + s]] * f[[k, c, r, s]];
//!                 }
//!             }
//!         }
//!         *out = acc;
//!     });
//! }
//! let x = Tensor::<f32, Nchw>::from_fn([2, 4, 6, 6], |[n, c, h, w]| (n + c + h * w) as f32)?;
//! let f = Tensor::<f32, Nchw>::filled([4, 4, 3, 3], 0.5)?;
//! let mut y = Tensor::<f32, Nchw>::zeros([2, 4, 4, 4])?;
//! conv3x3(&x, &f, &mut y);
//! // The same code on NHWC and NC/4HW4 gives the same logical tensor.
//! let mut yh = Tensor::<f32, Nhwc>::zeros([2, 4, 4, 4])?;
//! conv3x3(&x.to_layout::<Nhwc>()?, &f, &mut yh);
//! let mut yv = Tensor::<f32, NcxHwx<4>>::zeros([2, 4, 4, 4])?;
//! conv3x3(&x.to_layout::<NcxHwx<4>>()?, &f, &mut yv);
//! assert_eq!((yh.to_layout::<Nchw>()?, yv.to_layout::<Nchw>()?), (y.clone(), y.clone()));
//!
//! // Each image of the batch on its own thread.
//! std::thread::scope(|s| -> Result<(), typed_layout::LayoutError> {
//!     for mut image in y.axis_chunks_mut('N', 1)? {
//!         s.spawn(move || image.mapv_inplace(|v| v.max(0.0))); // ReLU
//!     }
//!     Ok(())
//! })?;
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! The same convolution at raw-loop speed, for layouts with one stride per dimension: for every
//! (c, r, s), the whole output gains the input channel c shifted by (r, s), broadcast over the
//! output channels, times the weights `f[·, c, r, s]`, broadcast over the pixels. Each pass walks
//! the output in its own storage order, so the inner loop is a row (NCHW) or a pixel's channels
//! (NHWC, with the filter's K innermost as CHWN stores it).
//!
//! ```
//! use typed_layout::{Chwn, Image, Layout, Nchw, Nhwc, PerDimStrides, StridedView, Tensor};
//! fn conv3x3<L, F>(
//!     x: &Tensor<f32, L>, f: &Tensor<f32, F>, y: &mut Tensor<f32, L>,
//! ) -> Result<(), typed_layout::LayoutError>
//! where
//!     L: Layout<Family = Image> + PerDimStrides,
//!     F: Layout<Family = Image> + PerDimStrides,
//! {
//!     let [n, channels, _, _] = x.dims();
//!     let [_, kernels, ho, wo] = y.dims();
//!     let [k_stride, _, _, _] = f.strides();
//!     y.fill(0.0);
//!     for c in 0..channels {
//!         for r in 0..3 {
//!             for s in 0..3 {
//!                 let input = x.crop([0, c, r, s], [n, 1, ho, wo])?.into_broadcast('C', kernels)?;
//!                 // f[k, c, r, s] for every k, as a tensor of y's dims: stride 0 but along C.
//!                 let at = f.shape().offset([0, c, r, s])?;
//!                 let dims = [n, kernels, ho, wo];
//!                 let weights = StridedView::<f32, Image>::new(dims, [0, k_stride, 0, 0], at, f.as_slice())?;
//!                 y.zip2_mut_with(&input, &weights, |y, &x, &w| *y += w * x)?;
//!             }
//!         }
//!     }
//!     Ok(())
//! }
//! let x = Tensor::<f32, Nchw>::from_fn([2, 4, 6, 6], |[n, c, h, w]| (n + c + h * w) as f32)?;
//! let f = Tensor::<f32, Nchw>::from_fn([8, 4, 3, 3], |[k, c, r, s]| (k + c + r * s) as f32)?;
//! let mut y = Tensor::<f32, Nchw>::zeros([2, 8, 4, 4])?;
//! conv3x3(&x, &f, &mut y)?;
//! assert_eq!(y[[1, 2, 3, 0]], (0..4).flat_map(|c| (0..3).flat_map(move |r| (0..3).map(move |s| (c, r, s))))
//!     .map(|(c, r, s)| x[[1, c, 3 + r, s]] * f[[2, c, r, s]]).sum::<f32>());
//! // NHWC input with the filter's K innermost: the same code, the same numbers.
//! let mut yh = Tensor::<f32, Nhwc>::zeros([2, 8, 4, 4])?;
//! conv3x3(&x.to_layout::<Nhwc>()?, &f.to_layout::<Chwn>()?, &mut yh)?;
//! assert_eq!(yh.to_layout::<Nchw>()?, y);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! # Filters, Tensor Cores and int8
//!
//! A convolution's filter is a tensor of its own family ([`Filter`]: dims `[k, c, r, s]`), in
//! the layout that goes with the input's ([`conv::FilterOf`]). [`conv::Conv`] holds one
//! convolution's shapes, and its [`tensor_core`](conv::Conv::tensor_core) answer lists, for the
//! input, the filter and the output, every rule of the guide's Tensor Core advice each breaks.
//! Following the advice — NHWC and KRSC, channel counts padded to multiples of 8 — is a fused
//! relayout + cast + pad per tensor; the batch rule is waived, visibly, for inference with a
//! batch of 1.
//!
//! ```
//! use typed_layout::cast::{relayout_cast_pad, relayout_cast_pad_into, ChannelPadded, Unscaled};
//! use typed_layout::conv::Conv;
//! use typed_layout::{half::f16, DataType, Kcrs, Krsc, Nchw, Nhwc, Tensor};
//! // As a model arrives: f32 NCHW with 3 channels, a KCRS filter of 12 output channels.
//! let x = Tensor::<f32, Nchw>::filled([1, 3, 64, 64], 0.5)?;
//! let w = Tensor::<f32, Kcrs>::filled([12, 3, 3, 3], 0.25)?;
//! let before = Conv::builder(x.shape(), w.shape()).padding(&[1, 1]).build()?.tensor_core(DataType::Float);
//! assert!(!before.is_ready());
//! println!("{before}"); // input: …NHWC…; filter: …KRSC…, K…; output: …
//!
//! // The advice: f16 NHWC with C padded to 8; f16 KRSC with C padded to 8 and K to 16 (the
//! // filter's first 12 output channels written into a zeroed 16-channel one).
//! let x: ChannelPadded<f16, Nhwc> = relayout_cast_pad(&x, 8, Unscaled)?;
//! let mut w16 = Tensor::<f16, Krsc>::zeros([16, 8, 3, 3])?;
//! relayout_cast_pad_into(&w, &mut w16.narrow_mut('K', 0..12)?, Unscaled)?;
//! let conv = Conv::builder(x.tensor().shape(), w16.shape()).padding(&[1, 1]).build()?;
//! let after = conv.tensor_core(DataType::Half).waive_batch(); // inference, batch 1
//! assert!(after.is_ready(), "{after}");
//! assert_eq!(conv.output_dims(), [1, 16, 64, 64]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! For int8 inference, [`cast::quantize`] turns f32 weights into cuDNN's INT8x32 filter
//! (KC/32RS32) with a scale per output channel in one pass (ONNX `QuantizeLinear`'s rounding),
//! and the input into NC/32HW32 with one scale; [`conv::reorder::reorder_int8x32`] reorders the
//! filter as cuDNN's INT8x32 convolutions want (its own type, so it cannot be reordered twice;
//! the permutation follows XLA's reading of cuDNN's and is **not yet verified against libcudnn**,
//! which needs a GPU); `cudnn_filter()` / `cudnn_format()` give the `CUDNN_DATA_INT8x32` +
//! `NCHW_VECT_C` descriptor arguments. The guide's Tensor Core rules always reject int8 data
//! (FP16, FP32 and INT32 only, NHWC): for int8, read the sourced extensions
//! ([`tensor_core::TensorCoreCheck::extensions_broken`]), where NC/32HW32 and KC/32RS32 qualify.
//!
//! ```
//! use typed_layout::cast::{quantize, Quantized, Scales};
//! use typed_layout::conv::{reorder::reorder_int8x32, Conv};
//! use typed_layout::cudnn::{DescriptorType, TensorFormat};
//! use typed_layout::{DataType, Kcrs, KcxRsx, Nchw, NcxHwx, Tensor};
//! let w = Tensor::<f32, Kcrs>::from_fn([32, 3, 3, 3], |[k, c, r, s]| (k + c + r + s) as f32 / 50.0 - 1.0)?;
//! // One scale per output channel: max |w| / 127 (a channel of zeros keeps a scale of 1).
//! let scales: Vec<f32> = (0..32)
//!     .map(|k| w.narrow('K', k..k + 1).map(|f| f.iter().fold(0.0f32, |m, v| m.max(v.abs())) / 127.0))
//!     .map(|s| s.map(|s| if s > 0.0 { s } else { 1.0 }))
//!     .collect::<Result<_, _>>()?;
//! // `1`: C is padded to a multiple of 1 and of the layout's 32 (3 channels → 32).
//! let q: Quantized<i8, KcxRsx<32>> = quantize(&w, 1, Scales::PerOutputChannel(&scales))?;
//! let x = Tensor::<f32, Nchw>::filled([1, 3, 56, 56], 0.5)?;
//! let xq: Quantized<i8, NcxHwx<32>> = quantize(&x, 1, Scales::PerTensor(1.0 / 127.0))?;
//! let conv = Conv::builder(xq.tensor().shape(), q.tensor().shape()).padding(&[1, 1]).build()?;
//! let advice = conv.tensor_core(DataType::Int8).waive_batch();
//! assert!(!advice.is_ready()); // the guide's rules: int8 is not FP16/FP32/INT32
//! assert_eq!(advice.input.extensions_broken().count() + advice.filter.extensions_broken().count(), 0);
//! let reordered = reorder_int8x32(q.tensor())?;
//! let args = reordered.cudnn_filter()?;
//! assert_eq!((args.data_type(), args.format()), (DescriptorType::Int8x32, TensorFormat::NchwVectC));
//! assert_eq!(args.dims(), &[32, 32, 3, 3]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! # Errors, not panics
//!
//! Every constructor validates and returns [`LayoutError`], which names the broken rule and the
//! offending dimension: a rank outside 3..=8, a zero dim, a size that overflows, a buffer of the
//! wrong length, an overlapping output, C not a multiple of x, a shape mismatch in a conversion.
//! Rules that types can carry are compile errors instead (see "Compile-time errors" below).

//!
//! # Compile-time errors
//!
//! What the types carry, `cargo check` reports. Converting between families:
//!
//! ```compile_fail,E0277
//! use typed_layout::{Bmn, Nchw, RowMajor, Tensor};
//! let t = Tensor::<f32, Nchw>::zeros([1, 2, 3, 4]).unwrap();
//! let m: Tensor<f32, Bmn<RowMajor>> = t.to_layout().unwrap(); // Image is not Matmul
//! ```
//!
//! Giving an image layout three dims:
//!
//! ```compile_fail,E0308
//! use typed_layout::{Nhwc, Tensor};
//! let t = Tensor::<f32, Nhwc>::zeros([2, 3, 4]); // expected [usize; 4]
//! ```
//!
//! Writing into an input-only strided view (it may overlap):
//!
//! ```compile_fail,E0277
//! use typed_layout::{convert, Image, Nchw, StridedView, Tensor};
//! let src = Tensor::<u8, Nchw>::zeros([1, 1, 2, 2]).unwrap();
//! let data = [0u8; 4];
//! let mut input = StridedView::<u8, Image>::new([1, 1, 2, 2], [4, 4, 2, 1], 0, &data).unwrap();
//! convert(&src, &mut input).unwrap(); // StridedView is not a Destination
//! ```
//!
//! A static shape that breaks a rule fails in `const` evaluation (reported by `cargo check`
//! for `const` items, by `cargo build` inside function bodies):
//!
//! ```compile_fail,E0080
//! use typed_layout::{ImageDims, NcxHwx, StaticShape};
//! const LEN: usize = StaticShape::<NcxHwx<32>, ImageDims<1, 48, 5, 4>>::LEN; // 48 % 32 != 0
//! ```
//!
//! ```compile_fail,E0080
//! use typed_layout::{Layout, NcxHwx};
//! const N: &str = NcxHwx::<0>::NOTATION; // the vector width x is at least 1
//! ```
//!
//! # Crates and paths
//!
//! Every item has one path, here: the core crate's vocabulary at the top level, its
//! specialist namespaces ([`cast`], [`cudnn`], [`tensor_core`], [`predicates`], [`placement`],
//! [`loops`], [`narrow`]) as modules, the [`layout!`] macro, and the GPU backend as [`gpu`].
//! The items are documented once, in the crate that defines them (`layout_types`,
//! `layout_gpu`), where signatures keep their aliases ([`DimsOf<L>`](DimsOf)); this page links
//! to them.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `parallel` | ✓ | conversions of large tensors and the `par_*` iterators on rayon's threads |
//! | `gpu` | ✓ | the GPU backend, [`gpu`]: device tensors and kernels compiled with NVRTC through cudarc, whose CUDA libraries load at run time |
//! | `cudnn` | ✓ | `gpu::cudnn`: real cuDNN descriptors, `cudnnTransformTensor`, the INT8x32 reorder (loaded at run time); implies `gpu` |
//! | `serde` | | serde for layouts (as their cuDNN notation), shapes, descriptors and data types, stored forms versioned: `interop::serde` |
//! | `ndarray` | | `interop::ndarray`: zero-copy views both ways (axes in logical order, strides checked) and owned conversions |
//! | `safetensors` | | `interop::safetensors`: tensors in and out of `.safetensors` files, their layouts recorded in the header (loaded back as themselves; other writers' files as the row-major layout they are), zero-copy views of a memory-mapped file |
//! | `dlpack` | | `interop::dlpack`: host tensors out through DLPack without a copy, the layout in the strides, and foreign host tensors in (an `unsafe` borrow of the foreign memory, then every field checked); with `gpu`, `gpu::dlpack`: device tensors out without a copy (once their writes are done) and CUDA tensors of exactly the layout's strides in by a device-to-device copy; DLPack 1.x (versioned) only |
//!
//! `default-features = false, features = ["parallel"]` is the CPU-only build: neither the GPU
//! backend nor cudarc is compiled. The CPU's SIMD level is detected at run time whatever the
//! features ([`simd::Level::detected`]).

#![doc = include_str!("../docs/layouts.md")]
#![forbid(unsafe_code)]

#[doc(no_inline)]
pub use layout_types::*;

/// The README's examples, compiled and run as doctests so they stay true (with the default
/// features: one of them is the GPU backend's).
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

#[doc(no_inline)]
pub use layout_macros::layout;

/// The GPU backend: device tensors and conversion kernels compiled with NVRTC.
#[doc(no_inline)]
#[cfg(feature = "gpu")]
pub use layout_gpu as gpu;

/// The `half` crate, whose `f16` and `bf16` are element types here: `typed_layout::half::f16`
/// needs no dependency of your own (the same version typed-layout was built with).
#[doc(no_inline)]
pub use half;
