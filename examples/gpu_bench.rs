//! GPU conversion benchmark: `cargo run --release --example gpu_bench`.
//!
//! For f32, f16 and i8 tensors of 256 MiB: NCHW→NHWC, NHWC→NCHW, NCHW→NC/32HW32,
//! NCDHW→NDHWC, Bmn<RowMajor>→Bmn<ColMajor> and C = 3 NCHW→NHWC. Each row prints GB/s
//! (bytes read + written), the ratio to the copy baseline measured in the same run (the faster
//! of a device-to-device memcpy and our 16-byte vectorized copy kernel on the same bytes), the
//! ratio to cuDNN's `cudnnTransformTensor` on the same tensors (when cuDNN loads; NC/32HW32 has
//! no N-d descriptor), and the first use's time (NVRTC compile, load, run).
//!
//! Times come from CUDA events around `ITERS` launches after warm-up; the best of `REPEATS`.
//! Without a GPU it prints `SKIPPED: <reason>` and exits 0.

use std::time::Instant;

use layout_gpu::cudarc::driver::sys::CUevent_flags;
use layout_gpu::cudnn::Cudnn;
use layout_gpu::{DeviceElement, DeviceTensor, Gpu, GpuError};
use typed_layout::{Bmn, ColMajor, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Shape};

const BYTES: usize = 256 << 20;
const ITERS: usize = 20;
const REPEATS: usize = 5;

/// Best time of one call of `f` in seconds, by CUDA events on the handle's stream.
fn time(gpu: &Gpu, mut f: impl FnMut() -> Result<(), GpuError>) -> Result<f64, GpuError> {
    let ctx = gpu.stream().context();
    let event = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
    let driver = |e| GpuError::Driver { during: "timing", error: format!("{e:?}") };
    for _ in 0..3 {
        f()?;
    }
    let mut best = f64::INFINITY;
    for _ in 0..REPEATS {
        let (start, end) = (event().map_err(driver)?, event().map_err(driver)?);
        start.record(gpu.stream()).map_err(driver)?;
        for _ in 0..ITERS {
            f()?;
        }
        end.record(gpu.stream()).map_err(driver)?;
        end.synchronize().map_err(driver)?;
        let ms = start.elapsed_ms(&end).map_err(driver)? as f64;
        best = best.min(ms / 1e3 / ITERS as f64);
    }
    Ok(best)
}

struct Row {
    name: String,
    gbps: f64,
    copy: f64,
    cudnn: Option<f64>,
    first_ms: f64,
}

fn row<T: DeviceElement, S: Layout, D: Layout>(
    gpu: &Gpu,
    cudnn: Option<&Cudnn>,
    label: &str,
    dims: &[usize],
) -> Result<Row, GpuError>
where
    D::Family: SameFamily<S::Family>,
{
    let (a, b) = (Shape::<S>::from_slice(dims)?, Shape::<D>::from_slice(dims)?);
    let x: DeviceTensor<T, S> = gpu.zeros(a)?;
    let mut y: DeviceTensor<T, D> = gpu.zeros(b)?;
    let bytes = (a.len() * core::mem::size_of::<T>()) as f64;
    let t = Instant::now();
    gpu.convert(&x, &mut y)?;
    gpu.synchronize()?;
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    let ours = time(gpu, || gpu.convert(&x, &mut y))?;
    // The copy baseline on the same bytes: the driver's memcpy and our 16-byte copy kernel.
    let mut same: DeviceTensor<T, S> = gpu.zeros(a)?;
    let memcpy = time(gpu, || gpu.copy(&x, &mut same))?;
    let kernel = time(gpu, || gpu.convert(&x, &mut same))?;
    let copy = memcpy.min(kernel);
    let cudnn = match cudnn {
        Some(c) => match c.transform(gpu, &x, &mut y) {
            Ok(()) => Some(time(gpu, || c.transform(gpu, &x, &mut y))?),
            Err(GpuError::Layout(_)) => None, // no N-d descriptor (NC/xHWx)
            Err(e) => return Err(e),
        },
        None => None,
    };
    Ok(Row {
        name: format!("{} {label} {dims:?}", core::any::type_name::<T>().rsplit("::").next().unwrap_or("?")),
        gbps: 2.0 * bytes / ours / 1e9,
        copy: copy / ours,
        cudnn: cudnn.map(|c| c / ours),
        first_ms,
    })
}

fn rows<T: DeviceElement>(gpu: &Gpu, cudnn: Option<&Cudnn>, out: &mut Vec<Row>) -> Result<(), GpuError> {
    let n = BYTES / core::mem::size_of::<T>();
    let image = [n / (64 * 128 * 128), 64, 128, 128];
    let volume = [n / (64 * 16 * 64 * 64), 64, 16, 64, 64];
    let matmul = [n / (4096 * 4096), 4096, 4096];
    let narrow = [n / (3 * 256 * 256), 3, 256, 256];
    out.push(row::<T, Nchw, Nhwc>(gpu, cudnn, "NCHW→NHWC", &image)?);
    out.push(row::<T, Nhwc, Nchw>(gpu, cudnn, "NHWC→NCHW", &image)?);
    out.push(row::<T, Nchw, NcxHwx<32>>(gpu, cudnn, "NCHW→NC/32HW32", &image)?);
    out.push(row::<T, Ncdhw, Ndhwc>(gpu, cudnn, "NCDHW→NDHWC", &volume)?);
    out.push(row::<T, Bmn<RowMajor>, Bmn<ColMajor>>(gpu, cudnn, "BMN row→col", &matmul)?);
    out.push(row::<T, Nchw, Nhwc>(gpu, cudnn, "C=3 NCHW→NHWC", &narrow)?);
    Ok(())
}

fn main() -> Result<(), GpuError> {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("SKIPPED: {e}");
            return Ok(());
        }
    };
    let cudnn = match Cudnn::new(&gpu) {
        Ok(c) => Some(c),
        Err(e) => {
            println!("cuDNN column empty: {e}");
            None
        }
    };
    println!(
        "device: {} ({}), 256 MiB per tensor, best of {REPEATS} × {ITERS} launches",
        gpu.name()?,
        gpu.arch()
    );
    let mut out = Vec::new();
    rows::<f32>(&gpu, cudnn.as_ref(), &mut out)?;
    rows::<half::f16>(&gpu, cudnn.as_ref(), &mut out)?;
    rows::<i8>(&gpu, cudnn.as_ref(), &mut out)?;
    println!(
        "\n| conversion | GB/s (read + write) | ÷ copy baseline | ÷ cudnnTransformTensor | first use (ms) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for r in &out {
        let cudnn = r.cudnn.map_or("n/a".to_string(), |c| format!("{c:.2}×"));
        println!("| {} | {:.0} | {:.2} | {cudnn} | {:.1} |", r.name, r.gbps, r.copy, r.first_ms);
    }
    println!("\n{} kernels compiled", gpu.compiled_kernels());
    Ok(())
}
