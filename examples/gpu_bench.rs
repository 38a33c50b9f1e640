//! GPU conversion benchmark: `cargo run --release --example gpu_bench` (or `run.sh` of the GPU
//! kit, `bench/gpu-kit.sh`).
//!
//! Rows, at 256 MiB: f32, f16 and i8 NCHW→NHWC, NHWC→NCHW, NCDHW→NDHWC, Bmn<RowMajor>→
//! Bmn<ColMajor> and C = 3 NCHW→NHWC; i8 NCHW→NC/32HW32; and the fused f32 NCHW C = 3 → f16
//! NHWC C padded to 8 (`Gpu::relayout_cast_pad`). Each row prints GB/s (bytes read + written),
//! its ratio to the device copy of the same source bytes (the faster of the driver's
//! device-to-device memcpy and our 16-byte vectorized copy kernel, measured in the same run), the
//! speed-up over cuDNN's `cudnnTransformTensor` on the same tensors (when cuDNN loads and has an
//! N-d descriptor for both), the first use's wall time (NVRTC compile, module load, run) and the
//! host time of a cached call (route, cache hit, launch; the device idle).
//!
//! Device times come from CUDA events around one call on the handle's stream, after warm-up, with
//! L2 flushed (a buffer larger than L2 written) before each timed call: the median of `RUNS`
//! (the best beside it). A row that fails prints its error in the table; the run then exits
//! non-zero. Without a GPU it prints `SKIPPED: <reason>` and exits 0.

use std::time::Instant;

use half::f16;
use layout_gpu::cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use layout_gpu::cudarc::driver::{CudaEvent, CudaSlice};
use layout_gpu::cudnn::Cudnn;
use layout_gpu::kernels::{self, ImageKind};
use layout_gpu::{DeviceChannelPadded, DeviceElement, DeviceTensor, Gpu, GpuError};
use typed_layout::cast::{padded_shape, Cast, Unscaled};
use typed_layout::{
    Bmn, ColMajor, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Shape, Tensor,
};

const BYTES: usize = 256 << 20;
const WARMUP: usize = 3;
/// Timed calls per measurement (odd, so the median is one of them).
const RUNS: usize = 15;

fn driver(during: &'static str) -> impl Fn(layout_gpu::cudarc::driver::DriverError) -> GpuError {
    move |e| GpuError::Driver { during, error: format!("{e:?}") }
}

/// Median and best of `RUNS` timed calls, in seconds.
#[derive(Clone, Copy)]
struct Stats {
    median: f64,
    best: f64,
}

impl Stats {
    fn of(mut seconds: Vec<f64>) -> Stats {
        seconds.sort_by(f64::total_cmp);
        Stats { median: seconds[seconds.len() / 2], best: seconds[0] }
    }
}

/// Times device work with CUDA events on the handle's stream, flushing L2 before each call.
struct Timer<'a> {
    gpu: &'a Gpu,
    flush: CudaSlice<u8>,
    start: CudaEvent,
    end: CudaEvent,
}

impl<'a> Timer<'a> {
    fn new(gpu: &'a Gpu, flush_bytes: usize) -> Result<Timer<'a>, GpuError> {
        let ctx = gpu.stream().context();
        let event = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("timing"));
        let flush = gpu.stream().alloc_zeros::<u8>(flush_bytes).map_err(driver("allocating the flush"))?;
        Ok(Timer { gpu, flush, start: event()?, end: event()? })
    }

    fn device(&mut self, mut f: impl FnMut() -> Result<(), GpuError>) -> Result<Stats, GpuError> {
        let stream = self.gpu.stream();
        for _ in 0..WARMUP {
            f()?;
        }
        let mut seconds = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            stream.memset_zeros(&mut self.flush).map_err(driver("flushing L2"))?;
            self.start.record(stream).map_err(driver("timing"))?;
            f()?;
            self.end.record(stream).map_err(driver("timing"))?;
            self.end.synchronize().map_err(driver("timing"))?;
            seconds.push(self.start.elapsed_ms(&self.end).map_err(driver("timing"))? as f64 / 1e3);
        }
        Ok(Stats::of(seconds))
    }

    /// Host time of one call with the device idle: what a cached kernel costs to launch.
    fn host(&self, mut f: impl FnMut() -> Result<(), GpuError>) -> Result<Stats, GpuError> {
        let mut seconds = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            self.gpu.synchronize()?;
            let t = Instant::now();
            f()?;
            seconds.push(t.elapsed().as_secs_f64());
        }
        self.gpu.synchronize()?;
        Ok(Stats::of(seconds))
    }
}

struct Row {
    name: String,
    dims: Vec<usize>,
    result: Result<Measured, GpuError>,
}

struct Measured {
    /// Bytes read + written by one call, and by the copy of its source.
    bytes: f64,
    copy_bytes: f64,
    ours: Stats,
    /// Copy of the source's bytes: memcpy D2D and our copy kernel.
    memcpy: Stats,
    copy_kernel: Stats,
    /// cuDNN's transform, or why there is none.
    cudnn: Result<Stats, String>,
    first_ms: f64,
    first_compiled: bool,
    launch: Stats,
}

fn gbps(bytes: f64, s: f64) -> f64 {
    bytes / s / 1e9
}

/// First use, then the copy baselines on the source's bytes, then `ours` and cuDNN timed.
fn measure<T: DeviceElement, S: Layout>(
    timer: &mut Timer,
    x: &DeviceTensor<T, S>,
    written: usize,
    mut ours: impl FnMut() -> Result<(), GpuError>,
    cudnn: impl FnOnce(&mut Timer) -> Result<Stats, String>,
) -> Result<Measured, GpuError> {
    let gpu = timer.gpu;
    let compiled = gpu.compiled_kernels();
    let t = Instant::now();
    ours()?;
    gpu.synchronize()?;
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    let first_compiled = gpu.compiled_kernels() > compiled;
    let mut same: DeviceTensor<T, S> = gpu.zeros(*x.shape())?;
    let memcpy = timer.device(|| gpu.copy(x, &mut same))?;
    let copy_kernel = timer.device(|| gpu.convert(x, &mut same))?;
    drop(same);
    let timed = timer.device(&mut ours)?;
    let launch = timer.host(&mut ours)?;
    let read = x.len() * core::mem::size_of::<T>();
    Ok(Measured {
        bytes: (read + written) as f64,
        copy_bytes: (2 * read) as f64,
        ours: timed,
        memcpy,
        copy_kernel,
        cudnn: cudnn(timer),
        first_ms,
        first_compiled,
        launch,
    })
}

fn type_name<T>() -> &'static str {
    core::any::type_name::<T>().rsplit("::").next().unwrap_or("?")
}

fn relayout<T: DeviceElement, S: Layout, D: Layout>(
    timer: &mut Timer,
    cudnn: Option<&Cudnn>,
    host: &[T],
    label: &str,
    dims: &[usize],
) -> Row
where
    D::Family: SameFamily<S::Family>,
{
    let run = |timer: &mut Timer| -> Result<Measured, GpuError> {
        let gpu = timer.gpu;
        let (a, b) = (Shape::<S>::from_slice(dims)?, Shape::<D>::from_slice(dims)?);
        let x = gpu.upload(&Tensor::<T, S>::from_vec_in(a, host[..a.len()].to_vec())?)?;
        let mut y: DeviceTensor<T, D> = gpu.zeros(b)?;
        let written = b.len() * core::mem::size_of::<T>();
        let mut theirs: DeviceTensor<T, D> = gpu.zeros(b)?;
        let cudnn = |timer: &mut Timer| {
            let c = cudnn.ok_or("cuDNN not loaded")?;
            c.transform(gpu, &x, &mut theirs).map_err(|e| match e {
                GpuError::Layout(_) => "no N-d descriptor".to_string(),
                e => e.to_string(),
            })?;
            timer.device(|| c.transform(gpu, &x, &mut theirs)).map_err(|e| e.to_string())
        };
        measure(timer, &x, written, || gpu.convert(&x, &mut y), cudnn)
    };
    Row { name: format!("{} {label}", type_name::<T>()), dims: dims.to_vec(), result: run(timer) }
}

/// The fused f32 NCHW C = 3 → f16 NHWC C = 8, twice: `relayout_cast_pad` allocates its
/// destination on every call (not zeroed: the kernel writes every byte), so the timed call
/// includes that, and the note gives `gpu.zeros` of the same shape (allocation and memset) for
/// scale; `relayout_cast_pad_into` writes a buffer allocated once.
fn fused(timer: &mut Timer, host: &[f32], dims: &[usize], note: &mut Vec<String>) -> [Row; 2] {
    let run = |timer: &mut Timer, note: &mut Vec<String>, into: bool| -> Result<Measured, GpuError> {
        let gpu = timer.gpu;
        let a = Shape::<Nchw>::from_slice(dims)?;
        let padded = padded_shape::<Nchw, Nhwc>(&a, 8)?;
        let x = gpu.upload(&Tensor::<f32, Nchw>::from_vec_in(a, host[..a.len()].to_vec())?)?;
        let written = padded.len() * core::mem::size_of::<f16>();
        if into {
            let mut y = gpu.zeros::<f16, Nhwc>(padded)?;
            let cast = || gpu.relayout_cast_pad_into(&x, &mut y, Unscaled).map(drop);
            return measure(timer, &x, written, cast, |_| Err("no cast in cudnnTransformTensor".into()));
        }
        let cast = || -> Result<(), GpuError> {
            let _y: DeviceChannelPadded<f16, Nhwc> = gpu.relayout_cast_pad(&x, 8, Unscaled)?;
            Ok(())
        };
        let m = measure(timer, &x, written, cast, |_| Err("no cast in cudnnTransformTensor".into()))?;
        let zeros = timer.device(|| gpu.zeros::<f16, Nhwc>(padded).map(drop))?;
        note.push(format!(
            "The fused row's call allocates its {} MiB destination (not zeroed): `gpu.zeros` of that \
             shape (allocation and memset) takes {:.3} ms (median); the row, {:.3} ms.",
            written >> 20,
            zeros.median * 1e3,
            m.ours.median * 1e3
        ));
        Ok(m)
    };
    [
        Row {
            name: "f32 NCHW C=3 → f16 NHWC C=8 (fused cast + pad)".into(),
            dims: dims.to_vec(),
            result: run(timer, note, false),
        },
        Row {
            name: "f32 NCHW C=3 → f16 NHWC C=8 (fused, into a buffer)".into(),
            dims: dims.to_vec(),
            result: run(timer, note, true),
        },
    ]
}

fn rows<T: DeviceElement>(timer: &mut Timer, cudnn: Option<&Cudnn>, out: &mut Vec<Row>)
where
    Unscaled: Cast<f64, T>,
{
    let n = BYTES / core::mem::size_of::<T>();
    let host: Vec<T> = (0..n).map(|i| Unscaled.cast((i % 251) as f64 - 125.0)).collect();
    let image = [n / (64 * 128 * 128), 64, 128, 128];
    let volume = [n / (64 * 16 * 64 * 64), 64, 16, 64, 64];
    let matmul = [n / (4096 * 4096), 4096, 4096];
    let narrow = [n / (3 * 256 * 256), 3, 256, 256];
    out.push(relayout::<T, Nchw, Nhwc>(timer, cudnn, &host, "NCHW→NHWC", &image));
    out.push(relayout::<T, Nhwc, Nchw>(timer, cudnn, &host, "NHWC→NCHW", &image));
    out.push(relayout::<T, Ncdhw, Ndhwc>(timer, cudnn, &host, "NCDHW→NDHWC", &volume));
    out.push(relayout::<T, Bmn<RowMajor>, Bmn<ColMajor>>(timer, cudnn, &host, "BMN row→col", &matmul));
    if core::mem::size_of::<T>() == 1 {
        out.push(relayout::<T, Nchw, NcxHwx<32>>(timer, cudnn, &host, "NCHW→NC/32HW32", &image));
    }
    out.push(relayout::<T, Nchw, Nhwc>(timer, cudnn, &host, "C=3 NCHW→NHWC", &narrow));
}

/// The CUDA libraries this process has mapped (Linux): which libnvrtc and libcudnn ran.
fn mapped_cuda_libraries() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut libs: Vec<String> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| ["libcuda.", "libnvrtc", "libcudnn"].iter().any(|k| p.contains(k)))
        .map(str::to_string)
        .collect();
    libs.sort();
    libs.dedup();
    libs
}

fn print_table(out: &[Row]) -> Option<GpuError> {
    println!(
        "| conversion | dims | GB/s median (best) | ÷ copy | copy GB/s: memcpy / kernel | \
         × faster than cudnnTransformTensor | first use (ms) | cached launch (µs, host) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut first_error = None;
    for r in out {
        let m = match &r.result {
            Ok(m) => m,
            Err(e) => {
                println!("| {} | {:?} | error: {e} | | | | | |", r.name, r.dims);
                first_error.get_or_insert_with(|| e.clone());
                continue;
            }
        };
        // The copy moves the source's bytes, not the row's: compare rates, not times.
        let copy_rate = |s: &Stats| gbps(m.copy_bytes, s.median);
        let copy = copy_rate(&m.memcpy).max(copy_rate(&m.copy_kernel));
        let ours = gbps(m.bytes, m.ours.median);
        let cudnn = match &m.cudnn {
            Ok(c) => format!("{:.2}×", c.median / m.ours.median),
            Err(why) => format!("n/a ({why})"),
        };
        let first = if m.first_compiled {
            format!("{:.1}", m.first_ms)
        } else {
            format!("{:.1} (cached)", m.first_ms)
        };
        println!(
            "| {} | {:?} | {ours:.0} ({:.0}) | {:.2} | {:.0} / {:.0} | {cudnn} | {first} | {:.1} |",
            r.name,
            r.dims,
            gbps(m.bytes, m.ours.best),
            ours / copy,
            copy_rate(&m.memcpy),
            copy_rate(&m.copy_kernel),
            m.launch.median * 1e6,
        );
    }
    first_error
}

fn main() -> Result<(), GpuError> {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("SKIPPED: {e}");
            return Ok(());
        }
    };
    let ctx = gpu.stream().context();
    let attribute = |a| ctx.attribute(a).map_err(driver("reading device attributes"));
    let l2 = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize;
    let sms = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let (_, total) = gpu.memory()?;
    println!("device: {} ({}, {sms} SMs, {} MiB L2, {} GiB)", gpu.name()?, gpu.arch(), l2 >> 20, total >> 30);
    let (major, minor) = gpu.driver_version();
    match (kernels::nvrtc_version(), kernels::nvrtc_library()) {
        (Ok((a, b)), Some(path)) => {
            println!("NVRTC {a}.{b} ({}), driver CUDA {major}.{minor}", path.display())
        }
        (Ok((a, b)), None) => {
            println!("NVRTC {a}.{b} (file not found in the memory map), driver CUDA {major}.{minor}")
        }
        (Err(e), _) => println!("NVRTC: {e}; driver CUDA {major}.{minor}"),
    }
    println!("LD_LIBRARY_PATH:");
    for dir in std::env::var("LD_LIBRARY_PATH").unwrap_or_default().split(':').filter(|d| !d.is_empty()) {
        println!("  {dir}");
    }
    let cudnn = match Cudnn::new(&gpu) {
        Ok(c) => Some(c),
        Err(e) => {
            println!("cuDNN column empty: {e}");
            None
        }
    };
    let flush = (256 << 20).max(4 * l2);
    println!(
        "method: 256 MiB per source tensor; CUDA events around one call after {WARMUP} warm-up calls, \
         L2 flushed (a {} MiB buffer written) before each; median (best) of {RUNS}; GB/s counts bytes \
         read + written; ÷ copy is the row's GB/s over the faster copy of its source's bytes",
        flush >> 20
    );
    let mut timer = Timer::new(&gpu, flush)?;
    let (mut out, mut notes) = (Vec::new(), Vec::new());
    rows::<f32>(&mut timer, cudnn.as_ref(), &mut out);
    rows::<f16>(&mut timer, cudnn.as_ref(), &mut out);
    rows::<i8>(&mut timer, cudnn.as_ref(), &mut out);
    let host: Vec<f32> = (0..BYTES / 4).map(|i| (i % 251) as f32 - 125.0).collect();
    out.extend(fused(&mut timer, &host, &[BYTES / 4 / (3 * 256 * 256), 3, 256, 256], &mut notes));
    println!();
    let error = print_table(&out);
    println!();
    for note in notes {
        println!("{note}");
    }
    println!(
        "{} kernels compiled ({} loaded as CUBIN, {} as PTX); CUDA libraries loaded:",
        gpu.compiled_kernels(),
        gpu.loaded_images(ImageKind::Cubin),
        gpu.loaded_images(ImageKind::Ptx)
    );
    for lib in mapped_cuda_libraries() {
        println!("  {lib}");
    }
    error.map_or(Ok(()), Err)
}
