//! A tour of typed-layout: the guide's example tensor (N = 1, C = 64, H = 5, W = 4, values
//! 0, 1, 2, … in NCHW order) in NCHW, NHWC and NC/32HW32, converted on the CPU, with the strides
//! derived at compile time, the descriptor's answers to the guide's questions, cuDNN's own
//! descriptor arguments, Tensor Core readiness, the fused relayout + cast + pad, and a tensor
//! whose data type and layout are known only at run time.
//!
//! Run with `cargo run --release --example tour`.

use typed_layout::cast::{relayout_cast_pad, ChannelPadded, PerChannel, Unscaled};
#[cfg(feature = "gpu")]
use typed_layout::gpu::{DeviceChannelPadded, DeviceTensor, Gpu};
use typed_layout::{
    layout, DataType, DynLayout, DynTensor, ImageDims, Layout, LayoutError, Nchw, NcxHwx, Nhwc, Shape,
    StaticShape, StridedViewMut, Tensor, TensorDesc,
};

layout! {
    /// The guide's "NHWC tensor WC-packed": rows (H) and images (N) may be padded.
    pub struct NhwcRows = "NHWC, WC-packed";
}

/// Prints the first elements of a tensor's storage, in memory order.
fn show<L: Layout>(t: &Tensor<f32, L>) {
    let head: Vec<String> = t.as_slice().iter().take(8).map(|v| format!("{v}")).collect();
    println!("  {:<10} strides {:?}", L::NOTATION, t.group_strides());
    println!("  {:<10} memory   {}, …", "", head.join(", "));
}

fn main() -> Result<(), LayoutError> {
    println!("typed-layout tour: the cuDNN guide's example tensor, N=1 C=64 H=5 W=4\n");

    // Strides computed by the compiler: this is a `const`.
    const NHWC_STRIDES: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
    println!("compile-time NHWC strides of [1, 64, 5, 4] (n, c, h, w): {NHWC_STRIDES:?}\n");

    println!("memory order (CPU backend):");
    let nchw = Tensor::<f32, Nchw>::from_vec([1, 64, 5, 4], (0..1280).map(|v| v as f32).collect())?;
    show(&nchw);
    let nhwc: Tensor<f32, Nhwc> = nchw.to_layout()?;
    show(&nhwc);
    let vect: Tensor<f32, NcxHwx<32>> = nchw.to_layout()?;
    show(&vect);
    println!(
        "  NC/32HW32: element 31 is {}, and the second group of 32 channels starts at position 640 with {}\n",
        vect.as_slice()[31],
        vect.as_slice()[640]
    );

    println!("descriptor questions:");
    let desc = TensorDesc::from_shape(DataType::Float, nhwc.shape())?;
    println!("  dims {:?} strides {:?}", desc.dims(), desc.strides());
    println!("  fully packed NHWC?          {}", desc.fully_packed("NHWC")?);
    println!("  NHWC, WC-packed?            {}", desc.partially_packed("NHWC", "WC")?);
    println!("  spatially packed?           {}", desc.spatially_packed()?);
    println!("  overlapping?                {:?}", desc.overlap());
    println!("  named layouts it matches:   {:?}", desc.named_layouts());

    // Padded rows: NHWC, WC-packed, with H's stride rounded up to 320 elements.
    let padded = TensorDesc::new(DataType::Float, &[1, 64, 5, 4], &[1600, 1, 320, 64])?;
    println!(
        "  padded NHWC: WC-packed? {}, fully packed? {}",
        padded.partially_packed("NHWC", "WC")?,
        padded.fully_packed("NHWC")?
    );

    // The same padding as a declared layout: a typed tensor with padded rows.
    let rows = Shape::<NhwcRows>::with_strides([1, 64, 5, 4], [1600, 1, 320, 64])?;
    let mut padded_rows = Tensor::<f32, NhwcRows>::filled_in(rows, -1.0)?;
    typed_layout::convert(&nchw, &mut padded_rows)?;
    println!(
        "  layout!-declared {}: {} elements for 1280 values, row 1 starts at 320 with {}, padding holds {}",
        NhwcRows::NOTATION,
        padded_rows.as_slice().len(),
        padded_rows.as_slice()[320],
        padded_rows.as_slice()[256]
    );
    let parsed = DynLayout::parse("NHWC, WC-packed").map_err(LayoutError::from)?;
    println!("  DynLayout::parse gives the same layout: {}", parsed == DynLayout::of::<NhwcRows>());

    println!("\ncuDNN's own arguments (cudnnSetTensorNdDescriptor), checked against its limits:");
    let nd = nhwc.cudnn()?;
    println!(
        "  dataType {} ({}), nbDims {}, dimA {:?}, strideA {:?}, {} bytes",
        nd.data_type() as i32,
        nd.data_type(),
        nd.nb_dims(),
        nd.dims(),
        nd.strides(),
        nd.size_in_bytes()
    );
    let format = typed_layout::cudnn::TensorFormat::of(&DynLayout::of::<NcxHwx<32>>());
    println!("  NC/32HW32 is the legacy format {:?}", format.map(|f| f.cudnn_name()));
    if let Err(e) = Shape::<Nchw>::new([1 << 16, 1, 1, 1 << 15])?.cudnn(DataType::Int8) {
        println!("  2^31 int8 elements: {e}");
    }

    println!("\nTensor Core readiness (the guide's rules):");
    let input = Tensor::<half::f16, Nchw>::zeros([1, 3, 224, 224])?;
    println!("  f16 NCHW [1, 3, 224, 224]: {}", input.tensor_core());
    let ready = Tensor::<half::f16, Nhwc>::zeros([8, 64, 56, 56])?;
    println!("  f16 NHWC [8, 64, 56, 56]:  {}", ready.tensor_core());
    const READY: bool = StaticShape::<Nhwc, ImageDims<8, 64, 56, 56>>::tensor_core(DataType::Half).is_ready();
    println!("  the same as a compile-time constant: {READY}");

    println!("\nfused relayout + cast + channel padding (one pass; on the GPU too, at the end, when there is one):");
    let rgb = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as f32)?;
    let padded: ChannelPadded<half::f16, Nhwc> = relayout_cast_pad(&rgb, 8, Unscaled)?;
    let pixel: Vec<String> = padded.tensor().as_slice()[..8].iter().map(|v| v.to_string()).collect();
    println!(
        "  f32 NCHW C=3 -> f16 NHWC C={} ({} channels of data): pixel (0, 0) = {}",
        padded.padded_channels(),
        padded.channels(),
        pixel.join(", ")
    );
    println!("  its Tensor Core check now: {}", padded.tensor().tensor_core());
    // Image bytes normalized per channel, (v / 255 - mean) / std, in the same one pass.
    let image = Tensor::<u8, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (60 * c + 20 * h + 10 * w) as u8)?;
    let (mean, std) = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
    let scale: Vec<f64> = std.iter().map(|s| 1.0 / (255.0 * s)).collect();
    let shift: Vec<f64> = mean.iter().zip(&std).map(|(m, s)| -m / s).collect();
    let x: ChannelPadded<f32, Nhwc> =
        relayout_cast_pad(&image, 4, PerChannel { scale: &scale, shift: &shift })?;
    println!(
        "  u8 NCHW C=3 -> f32 NHWC C=4, normalized per channel: pixel (0, 0) = {:.3?}",
        &x.tensor().as_slice()[..4]
    );

    println!("\na tensor whose data type and layout are known only at run time (from a model file, say):");
    let (data_type, layout) = (DataType::Half, DynLayout::parse("NC/8HW8")?);
    let weights = DynTensor::zeros(data_type, layout, &[1, 16, 2, 2])?;
    println!("  {weights:?}: {} bytes", weights.as_bytes().len());
    let nhwc = weights.to_layout(DynLayout::parse("NHWC")?)?;
    let typed: Tensor<half::f16, Nhwc> = nhwc.try_into_tensor().map_err(|e| e.error())?;
    println!("  relaid out at run time to NHWC, then typed: {typed:?}");
    if let Err(e) = DynTensor::from(typed).try_into_tensor::<f32, Nhwc>() {
        println!("  asked for as f32: {e}");
    }

    println!("\nbad input gets an error value:");
    let spec = "NC/32HW4";
    if let Err(e) = DynLayout::parse(spec) {
        println!("  layout {spec:?}: {}", e.explain(spec).replace('\n', "\n    "));
    }
    if let Err(e) = Tensor::<i8, NcxHwx<32>>::zeros([1, 48, 5, 4]) {
        println!("  NC/32HW32 with C = 48: {e}");
    }
    let mut buf = vec![0.0f32; 64];
    if let Err(e) = StridedViewMut::<f32, typed_layout::Image>::new([1, 4, 2, 2], [16, 1, 2, 1], 0, &mut buf)
    {
        println!("  overlapping output:     {e}");
    }
    if let Err(e) = TensorDesc::new(DataType::Float, &[4, 4], &[4, 1]) {
        println!("  2-D descriptor:         {e}");
    }

    // The same conversion and the fused path on the GPU when there is one; the CPU results are
    // the reference.
    on_the_gpu(&rgb, &padded)?;
    Ok(())
}

/// The GPU backend's NCHW→NHWC and fused path against the CPU's results (feature `gpu`, on by
/// default; a machine without a GPU says so).
#[cfg(feature = "gpu")]
fn on_the_gpu(rgb: &Tensor<f32, Nchw>, padded: &ChannelPadded<half::f16, Nhwc>) -> Result<(), LayoutError> {
    match Gpu::new(0) {
        Ok(gpu) => {
            let host =
                Tensor::<f32, Nchw>::from_fn([1, 64, 5, 4], |[_, c, h, w]| (c * 20 + h * 4 + w) as f32)?;
            let converted = gpu
                .upload(&host)
                .and_then(|x| gpu.to_layout(&x))
                .and_then(|y: DeviceTensor<f32, Nhwc>| gpu.download(&y));
            let fused = gpu
                .upload(rgb)
                .and_then(|x| gpu.relayout_cast_pad(&x, 8, Unscaled))
                .and_then(|y: DeviceChannelPadded<half::f16, Nhwc>| gpu.download(y.tensor()));
            let verdict = |same: bool| if same { "equals" } else { "DIFFERS FROM" };
            match (converted, fused) {
                (Ok(y), Ok(z)) => println!(
                    "\nbackend: GPU {} ({}): NCHW→NHWC {} the CPU backend; the fused f16 NHWC C=8 {} it",
                    gpu.name().unwrap_or_default(),
                    gpu.arch(),
                    verdict(y == host.to_layout::<Nhwc>()?),
                    verdict(&z == padded.tensor()),
                ),
                (Err(e), _) | (_, Err(e)) => println!("\nbackend: CPU (the GPU conversion failed: {e})"),
            }
        }
        Err(e) => println!("\nbackend: CPU (no GPU: {e})"),
    }
    Ok(())
}

/// Built without the `gpu` feature: the CPU backend only.
#[cfg(not(feature = "gpu"))]
fn on_the_gpu(_: &Tensor<f32, Nchw>, _: &ChannelPadded<half::f16, Nhwc>) -> Result<(), LayoutError> {
    println!("\nbackend: CPU (built without the `gpu` feature)");
    Ok(())
}
