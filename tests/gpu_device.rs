//! The GPU backend on a real device: every pair of named layouts × every data type against the
//! CPU backend (random bits, poisoned destinations, odd shapes), fused relayout + cast + pad
//! against the CPU's, the kernel cache, a tensor over
//! 2^31 elements where memory allows, and cuDNN's `cudnnTransformTensor` on the same descriptors.
//!
//! Without a device each test prints `SKIPPED: <reason>` and checks only what it can (that the
//! missing driver or device is an error value). They never pass silently on a GPU machine:
//! `TL_REQUIRE_GPU=1` turns a missing device into a failure.

mod support;
use support::gpu_or_skip;

use half::{bf16, f16};
use layout_gpu::kernels::{self, ImageKind};
use layout_gpu::{driver_available, DeviceChannelPadded, DeviceElement, DeviceTensor, Gpu, GpuError};
use support::{bytes_of, every_pair, mix, Bits, Visit};
use typed_layout::cast::{relayout_cast_pad, Cast, Scale, Unscaled};
use typed_layout::{Chwn, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, SameFamily, Shape, Tensor};

#[test]
fn the_handle_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Gpu>();
    check::<DeviceTensor<f32, Nchw>>();
}

#[test]
fn a_missing_driver_or_device_is_an_error_value() {
    if !driver_available() {
        let e = Gpu::new(0).unwrap_err();
        assert_eq!(e, GpuError::NoDriver);
        assert!(e.to_string().contains("libcuda.so"), "{e}");
        println!("SKIPPED: no CUDA driver here; checked that Gpu::new says so");
        return;
    }
    match Gpu::new(4096) {
        Err(GpuError::NoDevice { ordinal: 4096, .. }) => {}
        other => panic!("expected NoDevice, got {other:?}"),
    }
}

/// Converts on the device and on the CPU, for every element type.
struct Check<'a> {
    gpu: &'a Gpu,
    seed: u64,
    conversions: usize,
}

impl Check<'_> {
    fn one<T: Bits + DeviceElement, S: Layout, D: Layout>(&mut self, a: &Shape<S>, b: &Shape<D>)
    where
        D::Family: SameFamily<S::Family>,
    {
        self.seed += 1;
        let seed = self.seed;
        let host =
            Tensor::<T, S>::from_vec_in(*a, (0..a.len()).map(|i| T::from_bits64(mix(seed, i))).collect())
                .unwrap();
        let want: Tensor<T, D> = host.to_layout().unwrap();
        let poison = Tensor::<T, D>::filled_in(*b, T::from_bits64(0xA5A5_A5A5_A5A5_A5A5)).unwrap();
        let x = self.gpu.upload(&host).unwrap();
        let mut y = self.gpu.upload(&poison).unwrap();
        self.gpu.convert(&x, &mut y).unwrap();
        let got = self.gpu.download(&y).unwrap();
        assert!(
            bytes_of(got.as_slice()) == bytes_of(want.as_slice()), // bits: NaNs included
            "{} -> {} {:?} {}: device result differs from the CPU backend",
            S::NOTATION,
            D::NOTATION,
            a.placement().dims(),
            core::any::type_name::<T>()
        );
        self.conversions += 1;
    }
}

impl Visit for Check<'_> {
    fn pair<S: Layout, D: Layout>(&mut self, dims: &[usize])
    where
        D::Family: SameFamily<S::Family>,
    {
        let (Ok(a), Ok(b)) = (Shape::<S>::from_slice(dims), Shape::<D>::from_slice(dims)) else { return };
        self.one::<f32, S, D>(&a, &b);
        self.one::<f64, S, D>(&a, &b);
        self.one::<f16, S, D>(&a, &b);
        self.one::<bf16, S, D>(&a, &b);
        self.one::<i8, S, D>(&a, &b);
        self.one::<u8, S, D>(&a, &b);
        self.one::<i32, S, D>(&a, &b);
        self.one::<i64, S, D>(&a, &b);
    }
}

#[test]
fn every_pair_and_data_type_matches_the_cpu_backend() {
    let Some(gpu) = gpu_or_skip("device conversions") else { return };
    let mut check = Check { gpu: &gpu, seed: 0, conversions: 0 };
    every_pair(&mut check);
    let compiled = gpu.compiled_kernels();
    // The same conversions again: every kernel comes from the cache.
    every_pair(&mut check);
    assert_eq!(gpu.compiled_kernels(), compiled, "a second round compiled again");
    println!("{} device conversions matched the CPU backend; {compiled} kernels compiled", check.conversions);
}

/// One fused cast on the device against the CPU: equal bits, but any NaN for a NaN (the
/// hardware's conversions return a canonical NaN).
fn fused<T, U, S, D>(gpu: &Gpu, dims: &[usize], multiple: usize, scale: f64) -> usize
where
    T: Bits + DeviceElement,
    U: Bits + DeviceElement,
    S: Layout,
    D: Layout,
    D::Family: SameFamily<S::Family>,
    Unscaled: Cast<f64, T> + Cast<U, f64>,
{
    let shape = Shape::<S>::from_slice(dims).unwrap();
    let data: Vec<T> = (0..shape.len()).map(|i| support::sample::<T>(dims.len() as u64, i)).collect();
    let host = Tensor::<T, S>::from_vec_in(shape, data).unwrap();
    let want = relayout_cast_pad::<_, S, U, D, _>(&host, multiple, Scale(scale)).unwrap();
    let x = gpu.upload(&host).unwrap();
    let got: DeviceChannelPadded<U, D> = gpu.relayout_cast_pad(&x, multiple, Scale(scale)).unwrap();
    assert_eq!((got.channels(), got.padded_channels()), (want.channels(), want.padded_channels()));
    // The same into a device buffer of the caller's, poisoned first: every element is written.
    let shape = *got.tensor().shape();
    let poison =
        Tensor::<U, D>::from_vec_in(shape, vec![U::from_bits64(0xa5a5_a5a5_a5a5_a5a5); shape.len()]).unwrap();
    let mut into = gpu.upload(&poison).unwrap();
    assert_eq!(gpu.relayout_cast_pad_into(&x, &mut into, Scale(scale)).unwrap(), want.channels());
    let nan = |v: U| <Unscaled as Cast<U, f64>>::cast(&Unscaled, v).is_nan();
    for (how, got) in [("", gpu.download(got.tensor()).unwrap()), (" (into)", gpu.download(&into).unwrap())] {
        for (i, (g, w)) in got.as_slice().iter().zip(want.tensor().as_slice()).enumerate() {
            assert!(
                bytes_of(&[*g]) == bytes_of(&[*w]) || (nan(*g) && nan(*w)),
                "{} -> {} {dims:?}{how}: element {i} is {g:?}, the CPU's {w:?}",
                S::NOTATION,
                D::NOTATION
            );
        }
    }
    shape.len()
}

#[test]
fn fused_relayout_cast_pad_matches_the_cpu() {
    let Some(gpu) = gpu_or_skip("fused casts") else { return };
    let mut n = 0;
    n += fused::<f32, f16, Nchw, Nhwc>(&gpu, &[8, 3, 61, 67], 8, 1.0);
    n += fused::<f32, bf16, Nchw, Nhwc>(&gpu, &[2, 3, 224, 224], 8, 1.0);
    n += fused::<f32, i8, Nchw, NcxHwx<32>>(&gpu, &[2, 40, 17, 9], 1, 127.0 / 20.0);
    n += fused::<f16, f32, NcxHwx<4>, Nhwc>(&gpu, &[2, 12, 5, 7], 16, 1.0);
    n += fused::<i32, bf16, Chwn, NcxHwx<4>>(&gpu, &[5, 6, 7, 3], 1, -0.5);
    n += fused::<f64, u8, Ncdhw, Ndhwc>(&gpu, &[2, 5, 3, 4, 5], 8, 2.0);
    n += fused::<i64, i32, Nchw, Nhwc>(&gpu, &[1, 1, 1, 1], 4, 1.0);
    // H·W = 4087 innermost in the destination (one loop): one element per thread (the others
    // store 2 to 16).
    n += fused::<f32, f16, Nhwc, Nchw>(&gpu, &[2, 3, 61, 67], 1, 1.0);
    // Values that need a single rounding from f64 (a third of each, and i64 beyond f32's 24
    // bits): a hardware path rounding twice (f64 → f32 → f16) would differ here.
    n += fused::<f64, f16, Nchw, Nhwc>(&gpu, &[2, 3, 33, 35], 8, 1.0 / 3.0);
    n += fused::<i64, f16, Nchw, Nhwc>(&gpu, &[2, 3, 33, 35], 8, 1.0 / 3.0);
    n += fused::<f64, bf16, Nchw, Nhwc>(&gpu, &[2, 3, 33, 35], 8, 1.0 / 3.0);
    println!("11 fused casts, {n} destination elements, matched the CPU");
}

#[test]
fn first_use_compiles_and_later_uses_hit_the_cache() {
    let Some(gpu) = gpu_or_skip("kernel cache") else { return };
    let host = Tensor::<f32, Nchw>::filled([2, 40, 9, 11], 1.0).unwrap();
    let x = gpu.upload(&host).unwrap();
    let before = gpu.compiled_kernels();
    let t = std::time::Instant::now();
    let _y: DeviceTensor<f32, Nhwc> = gpu.to_layout(&x).unwrap();
    gpu.synchronize().unwrap();
    let first = t.elapsed();
    assert_eq!(gpu.compiled_kernels(), before + 1);
    let _z: DeviceTensor<f32, Nhwc> = gpu.to_layout(&x).unwrap();
    assert_eq!(gpu.compiled_kernels(), before + 1);
    println!("first use (NVRTC compile + load + run): {:.1} ms", first.as_secs_f64() * 1e3);
    // Every kernel compiled was loaded from one image kind; the CUBIN is preferred.
    let (cubins, ptxs) = (gpu.loaded_images(ImageKind::Cubin), gpu.loaded_images(ImageKind::Ptx));
    assert_eq!(cubins + ptxs, gpu.compiled_kernels());
    let (nvrtc, driver) = (kernels::nvrtc_version().unwrap(), gpu.driver_version());
    println!(
        "{} ({}): driver CUDA {}.{}, NVRTC {}.{} from {:?}; kernels loaded: {cubins} {}, {ptxs} {}",
        gpu.name().unwrap(),
        gpu.arch(),
        driver.0,
        driver.1,
        nvrtc.0,
        nvrtc.1,
        kernels::nvrtc_library(),
        ImageKind::Cubin,
        ImageKind::Ptx
    );
    if !kernels::ptx_fallback_allowed(nvrtc, driver) {
        assert_eq!(ptxs, 0, "PTX from an NVRTC newer than the driver was loaded");
    }
}

#[test]
fn mismatched_shapes_are_an_error_and_leave_the_destination_alone() {
    let Some(gpu) = gpu_or_skip("shape mismatch") else { return };
    let x = gpu.upload(&Tensor::<u8, Nchw>::filled([1, 2, 3, 4], 7).unwrap()).unwrap();
    let mut y = gpu.upload(&Tensor::<u8, Nhwc>::filled([1, 2, 4, 3], 9).unwrap()).unwrap();
    assert!(matches!(gpu.convert(&x, &mut y), Err(GpuError::Layout(_))));
    assert!(gpu.download(&y).unwrap().as_slice().iter().all(|&v| v == 9));
    // The fused cast into a buffer of fewer channels than the source: named, untouched.
    let mut narrow = gpu.upload(&Tensor::<f32, Nhwc>::filled([1, 1, 3, 4], 9.0).unwrap()).unwrap();
    let err = gpu.relayout_cast_pad_into(&x, &mut narrow, Unscaled).unwrap_err();
    assert!(
        matches!(err, GpuError::Layout(typed_layout::LayoutError::ShapeMismatch { dim, source: 2, destination: 1 }) if dim.letter == Some('C')),
        "{err:?}"
    );
    assert!(gpu.download(&narrow).unwrap().as_slice().iter().all(|&v| v == 9.0));
}

#[test]
fn a_tensor_over_2_pow_31_elements_converts_with_64_bit_offsets() {
    let Some(gpu) = gpu_or_skip("2^31 elements") else { return };
    let dims = [2, 64, 4096, 4097];
    let shape = Shape::<Nchw>::new(dims).unwrap();
    let (free, _) = gpu.memory().unwrap();
    if free < 2 * shape.len() + (1 << 30) {
        println!("SKIPPED: 2^31 elements: {free} bytes free on the device, {} needed", 2 * shape.len());
        return;
    }
    let host =
        Tensor::<i8, Nchw>::from_vec(dims, (0..shape.len()).map(|i| mix(7, i) as i8).collect()).unwrap();
    let want: Tensor<i8, Nhwc> = host.to_layout().unwrap();
    let x = gpu.upload(&host).unwrap();
    drop(host);
    let y: DeviceTensor<i8, Nhwc> = gpu.to_layout(&x).unwrap();
    assert!(gpu.download(&y).unwrap().as_slice() == want.as_slice());
}

/// cuDNN's own transform on the same descriptors, for the layouts it can describe.
struct AgainstCudnn<'a> {
    gpu: &'a Gpu,
    cudnn: &'a layout_gpu::cudnn::Cudnn,
    compared: usize,
}

impl AgainstCudnn<'_> {
    fn one<T: Bits + DeviceElement, S: Layout, D: Layout>(&mut self, a: &Shape<S>, b: &Shape<D>)
    where
        D::Family: SameFamily<S::Family>,
    {
        // cudnnTransformTensor computes alpha·x + beta·y, which need not keep a NaN's payload
        // (a signalling NaN comes back quiet): its input holds every other bit pattern. Our
        // kernels move NaNs bit for bit, which the CPU comparison above checks.
        let value = |i: usize| (3..).map(|seed| T::from_bits64(mix(seed, i))).find(|v| !v.is_nan()).unwrap();
        let host = Tensor::<T, S>::from_vec_in(*a, (0..a.len()).map(value).collect()).unwrap();
        let x = self.gpu.upload(&host).unwrap();
        let mut ours = self.gpu.zeros::<T, D>(*b).unwrap();
        let mut theirs = self.gpu.zeros::<T, D>(*b).unwrap();
        self.gpu.convert(&x, &mut ours).unwrap();
        match self.cudnn.transform(self.gpu, &x, &mut theirs) {
            Ok(()) => {}
            // No N-d descriptor for this tensor (NC/xHWx; or INT64, which cuDNN's legacy
            // descriptors do not take).
            Err(GpuError::Layout(_)) => return,
            Err(e) => panic!("{} -> {}: {e}", S::NOTATION, D::NOTATION),
        }
        let (ours, theirs) = (self.gpu.download(&ours).unwrap(), self.gpu.download(&theirs).unwrap());
        let (ours, theirs) = (bytes_of(ours.as_slice()), bytes_of(theirs.as_slice()));
        if ours != theirs {
            let size = core::mem::size_of::<T>();
            let differ: Vec<_> =
                ours.chunks(size).zip(theirs.chunks(size)).enumerate().filter(|(_, (o, t))| o != t).collect();
            let first: Vec<_> = differ
                .iter()
                .take(4)
                .map(|(i, (o, t))| format!("[{i}] ours {o:02x?} cuDNN {t:02x?}"))
                .collect();
            panic!(
                "{} -> {} {:?} {}: {} of {} elements differ from cudnnTransformTensor; first: {}",
                S::NOTATION,
                D::NOTATION,
                a.placement().dims(),
                core::any::type_name::<T>(),
                differ.len(),
                ours.len() / size,
                first.join(", ")
            );
        }
        self.compared += 1;
    }
}

impl Visit for AgainstCudnn<'_> {
    fn pair<S: Layout, D: Layout>(&mut self, dims: &[usize])
    where
        D::Family: SameFamily<S::Family>,
    {
        let (Ok(a), Ok(b)) = (Shape::<S>::from_slice(dims), Shape::<D>::from_slice(dims)) else { return };
        self.one::<f32, S, D>(&a, &b);
        self.one::<f16, S, D>(&a, &b);
        self.one::<i8, S, D>(&a, &b);
        self.one::<f64, S, D>(&a, &b);
    }
}

#[test]
fn conversions_equal_cudnn_transform_tensor() {
    let Some(gpu) = gpu_or_skip("cuDNN cross-check") else { return };
    let cudnn = match layout_gpu::cudnn::Cudnn::new(&gpu) {
        Ok(c) => c,
        Err(e) => {
            println!("SKIPPED: cuDNN cross-check: {e}");
            return;
        }
    };
    let mut check = AgainstCudnn { gpu: &gpu, cudnn: &cudnn, compared: 0 };
    every_pair(&mut check);
    assert!(check.compared > 0);
    println!("{} conversions equal cudnnTransformTensor", check.compared);
}

/// cuDNN's INT8x32 filter reorder: ours on the device equals ours on the CPU, and both equal
/// libcudnn's own `cudnnReorderFilterAndBias` (the check that verifies the permutation taken
/// from XLA; it first passed on an H200 with cuDNN 9.14, 2026-11-27).
#[test]
fn the_int8x32_reorder_equals_cudnns() {
    use typed_layout::conv::reorder::reorder_int8x32;
    use typed_layout::KcxRsx;
    let Some(gpu) = gpu_or_skip("INT8x32 reorder") else { return };
    let mut compared = 0;
    for dims in [[32, 32, 1, 1], [64, 32, 3, 3], [32, 96, 5, 3], [128, 64, 3, 3]] {
        let host = Tensor::<i8, KcxRsx<32>>::from_fn(dims, |[k, c, r, s]| {
            mix(9, ((k * 131 + c) * 7 + r) * 5 + s) as i8
        })
        .unwrap();
        let cpu = reorder_int8x32(&host).unwrap();
        let filter = gpu.upload(&host).unwrap();
        let ours = gpu.reorder_int8x32(&filter).unwrap();
        assert_eq!(gpu.download(ours.tensor()).unwrap().as_slice(), cpu.as_slice(), "device vs CPU {dims:?}");
        let cudnn = match layout_gpu::cudnn::Cudnn::new(&gpu) {
            Ok(c) => c,
            Err(e) => {
                println!("SKIPPED: cudnnReorderFilterAndBias: {e}");
                return;
            }
        };
        let bias: Vec<f32> = (0..dims[0]).map(|k| k as f32 * 0.5 - 3.0).collect();
        let split = typed_layout::conv::reorder::bias_split(dims[0]).unwrap();
        let bias_host =
            Tensor::<f32, typed_layout::conv::reorder::SplitBias>::from_vec(split, bias.clone()).unwrap();
        let bias_on_device = gpu.upload(&bias_host).unwrap();
        let (theirs, their_bias) = cudnn.reorder_int8x32(&gpu, &filter, Some(bias_on_device.data())).unwrap();
        let theirs = gpu.download(theirs.tensor()).unwrap();
        let differ = theirs.as_slice().iter().zip(cpu.as_slice()).filter(|(a, b)| a != b).count();
        let bytes = cpu.as_slice().len();
        assert_eq!(differ, 0, "{dims:?}: {differ} of {bytes} bytes differ from cudnnReorderFilterAndBias");
        let want_bias = typed_layout::conv::reorder::reorder_bias_int8x32(&bias).unwrap();
        let their_bias = gpu.download(their_bias.unwrap().tensor()).unwrap();
        assert_eq!(their_bias.as_slice(), want_bias.as_slice(), "{dims:?}: the bias differs from cuDNN's");
        let ours = gpu.download(gpu.reorder_bias_int8x32(bias_on_device.data()).unwrap().tensor()).unwrap();
        assert_eq!(
            ours.as_slice(),
            want_bias.as_slice(),
            "{dims:?}: the device's bias differs from the CPU's"
        );
        compared += 1;
    }
    println!("INT8x32 reorder: {compared} filters and biases equal cudnnReorderFilterAndBias byte for byte");
}

/// Quantization on the device equals the CPU's byte for byte: per output channel (one launch
/// per K) and per tensor.
#[test]
fn quantizing_matches_the_cpu() {
    use typed_layout::cast::{quantize, Scales};
    use typed_layout::{Kcrs, KcxRsx};
    let Some(gpu) = gpu_or_skip("quantize") else { return };
    let w = Tensor::<f32, Kcrs>::from_fn([64, 40, 3, 3], |[k, c, r, s]| {
        ((mix(4, ((k * 41 + c) * 3 + r) * 3 + s) % 4001) as f32 - 2000.0) / 128.0
    })
    .unwrap();
    let scales: Vec<f32> = (0..64).map(|k| 0.03125 * (1 + k % 7) as f32).collect();
    let device = gpu.upload(&w).unwrap();
    for s in [Scales::PerOutputChannel(&scales), Scales::PerTensor(0.0625)] {
        let ours = gpu.quantize::<_, i8, _, KcxRsx<32>>(&device, 1, s).unwrap();
        let host = quantize::<_, _, i8, KcxRsx<32>>(&w, 1, s).unwrap();
        assert_eq!(
            gpu.download(ours.padded().tensor()).unwrap().as_slice(),
            host.tensor().as_slice(),
            "{s:?}"
        );
        assert_eq!(ours.scales(), host.scales());
    }
    let x = gpu
        .upload(
            &Tensor::<f32, Nchw>::from_fn([2, 40, 7, 7], |[n, c, h, w]| (n + c + h * w) as f32 / 4.0 - 12.0)
                .unwrap(),
        )
        .unwrap();
    let q = gpu.quantize::<_, i8, _, NcxHwx<32>>(&x, 1, Scales::PerTensor(0.5)).unwrap();
    let host =
        quantize::<_, _, i8, NcxHwx<32>>(&gpu.download(&x).unwrap(), 1, Scales::PerTensor(0.5)).unwrap();
    assert_eq!(gpu.download(q.padded().tensor()).unwrap().as_slice(), host.tensor().as_slice());
    println!("quantize: per output channel, per tensor and NC/32HW32 equal the CPU's");
}
