//! The GPU's fused relayout + cast + pad kernels, checked without a GPU:
//!
//! * every kernel instance (all 64 source × destination types, and the loop counts the cases
//!   give) compiles with NVRTC to a CUBIN for sm_80 and sm_90, each an ELF for its
//!   architecture, and to the PTX fallback for compute_90 (a sample; SKIPPED without NVRTC, a failure with
//!   `TL_REQUIRE_NVRTC=1`);
//! * each runs on the host emulator (`support/emulator.hpp`) and its output equals the CPU's
//!   `relayout_cast_pad` byte for byte: the conversions (f16/bf16 bit tricks, rounding half away
//!   from zero, saturation, NaN to 0), the channel map, and the zero padding. Source values mix
//!   arbitrary bits (NaN, infinities, subnormals), moderate values, exact ties and specials.

mod support;

use std::collections::BTreeMap;

use half::{bf16, f16};
use layout_gpu::kernels::cast_launch;
use support::emulator::{Emulator, Job, Signature};
use support::images;
use support::{bytes_of, mix, sample, Bits};
use typed_layout::cast::{
    padded_shape, quantize, relayout_cast_pad, Cast, CastNest, Quantize, Scale, Scales, Unscaled,
};
use typed_layout::{
    Chwn, Kcrs, KcxRsx, Krsc, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, SameFamily, Shape, Tensor,
};

#[derive(Default)]
struct Cases {
    emulator: Emulator,
    sources: BTreeMap<String, String>,
    /// Per job: the bytes its output must hold in a range (all of it, but for one output
    /// channel's pass of a per-output-channel quantization), and what it is.
    expected: Vec<(Vec<u8>, core::ops::Range<usize>, String)>,
    seed: u64,
}

impl Cases {
    fn add<T, U, S, D>(&mut self, dims: &[usize], multiple: usize, scale: Option<f64>)
    where
        T: Bits,
        U: Bits,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
        Unscaled: Cast<f64, T>,
    {
        self.seed += 1;
        let seed = self.seed;
        let shape = Shape::<S>::from_slice(dims).unwrap();
        let data: Vec<T> = (0..shape.len()).map(|i| sample::<T>(seed, i)).collect();
        let src = Tensor::<T, S>::from_vec_in(shape, data).unwrap();
        let want = match scale {
            Some(k) => relayout_cast_pad::<_, S, U, D, _>(&src, multiple, Scale(k)).unwrap(),
            None => relayout_cast_pad::<_, S, U, D, _>(&src, multiple, Unscaled).unwrap(),
        };
        let padded = padded_shape::<S, D>(&shape, multiple).unwrap();
        let plan = CastNest::new(&shape, &padded).unwrap();
        let launch = match scale {
            Some(k) => cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, shape.len(), Scale(k)),
            None => cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, shape.len(), Unscaled),
        };
        let (a, b) = (S::NOTATION, D::NOTATION);
        let name = launch.spec.name(a, b);
        self.sources.entry(name.clone()).or_insert_with(|| launch.spec.source(a, b));
        let sig = Signature { params: "CastParams", src: "src_t", dst: "dst_t" };
        let kernel = self.emulator.kernel(&name, || launch.spec.source(a, b), false, sig);
        self.emulator.job(Job {
            kernel,
            grid: launch.grid,
            block: launch.spec.block(),
            params: launch.params.to_bytes(),
            src: Some(bytes_of(src.as_slice())),
            dst_len: padded.len() * U::SIZE,
        });
        let what = format!("{a} -> {b} {dims:?} pad {multiple} scale {scale:?}: {name}");
        let want = bytes_of(want.tensor().as_slice());
        self.expected.push((want.clone(), 0..want.len(), what));
    }

    /// A quantization (per tensor: one job; per output channel: one job per K, each checked on
    /// its slab of the destination) against the CPU's `quantize`.
    fn quantized<T, U, S, D>(&mut self, dims: &[usize], multiple: usize, scales: Scales<'_>)
    where
        T: Bits,
        U: Bits,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        self.seed += 1;
        let seed = self.seed;
        let shape = Shape::<S>::from_slice(dims).unwrap();
        // Quarters from -75 to 75 (exact ties for the scales 0.5 and 2 and their like), and the
        // samples' specials (NaN, infinities, huge values that saturate).
        let data: Vec<T> = (0..shape.len())
            .map(|i| match i % 3 {
                0 => sample::<T>(seed, i),
                _ => Unscaled.cast(((mix(seed, i) % 601) as f64 - 300.0) * 0.25),
            })
            .collect();
        let src = Tensor::<T, S>::from_vec_in(shape, data).unwrap();
        let want = quantize::<_, S, U, D>(&src, multiple, scales).unwrap();
        let want = bytes_of(want.tensor().as_slice());
        let padded = padded_shape::<S, D>(&shape, multiple).unwrap();
        let (list, per_k) = scales.checked::<D>(dims[0]).unwrap();
        let (a, b) = (S::NOTATION, D::NOTATION);
        let sig = Signature { params: "CastParams", src: "src_t", dst: "dst_t" };
        let mut job = |plan: &CastNest, scale: f32, bases: (usize, usize), range: core::ops::Range<usize>| {
            let span = shape.len().max(padded.len()); // as Gpu::quantize sizes its offsets
            let mut launch = cast_launch(plan, T::DATA_TYPE, U::DATA_TYPE, span, Quantize(scale));
            (launch.params.src_base, launch.params.dst_base) = (bases.0 as i64, bases.1 as i64);
            let name = launch.spec.name(a, b);
            self.sources.entry(name.clone()).or_insert_with(|| launch.spec.source(a, b));
            let kernel = self.emulator.kernel(&name, || launch.spec.source(a, b), false, sig_copy(&sig));
            self.emulator.job(Job {
                kernel,
                grid: launch.grid,
                block: launch.spec.block(),
                params: launch.params.to_bytes(),
                src: Some(bytes_of(src.as_slice())),
                dst_len: padded.len() * U::SIZE,
            });
            let what = format!("quantize {a} -> {b} {dims:?} scale {scale}, bytes {range:?}: {name}");
            self.expected.push((want[range.clone()].to_vec(), range, what));
        };
        if per_k {
            let mut one = dims.to_vec();
            one[0] = 1;
            let mut one_out = padded.placement().dims().to_vec();
            one_out[0] = 1;
            let (x, y) = (Shape::<S>::from_slice(&one).unwrap(), Shape::<D>::from_slice(&one_out).unwrap());
            let plan = CastNest::new(&x, &y).unwrap();
            let k_src = shape.placement().strides()[0];
            for (k, &scale) in list.iter().enumerate() {
                let bytes = k * y.len() * U::SIZE..(k + 1) * y.len() * U::SIZE;
                job(&plan, scale, (k * k_src, k * y.len()), bytes);
            }
        } else {
            let plan = CastNest::new(&shape, &padded).unwrap();
            job(&plan, list[0], (0, 0), 0..want.len());
        }
    }

    /// Every destination type for source type `T` on one case.
    fn every_destination<T, S, D>(&mut self, dims: &[usize], multiple: usize, scale: Option<f64>)
    where
        T: Bits,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
        Unscaled: Cast<f64, T>,
    {
        self.add::<T, f32, S, D>(dims, multiple, scale);
        self.add::<T, f64, S, D>(dims, multiple, scale);
        self.add::<T, f16, S, D>(dims, multiple, scale);
        self.add::<T, bf16, S, D>(dims, multiple, scale);
        self.add::<T, i8, S, D>(dims, multiple, scale);
        self.add::<T, u8, S, D>(dims, multiple, scale);
        self.add::<T, i32, S, D>(dims, multiple, scale);
        self.add::<T, i64, S, D>(dims, multiple, scale);
    }

    /// All 64 type pairs on one case.
    fn every_type_pair<S, D>(&mut self, dims: &[usize], multiple: usize, scale: Option<f64>)
    where
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        self.every_destination::<f32, S, D>(dims, multiple, scale);
        self.every_destination::<f64, S, D>(dims, multiple, scale);
        self.every_destination::<f16, S, D>(dims, multiple, scale);
        self.every_destination::<bf16, S, D>(dims, multiple, scale);
        self.every_destination::<i8, S, D>(dims, multiple, scale);
        self.every_destination::<u8, S, D>(dims, multiple, scale);
        self.every_destination::<i32, S, D>(dims, multiple, scale);
        self.every_destination::<i64, S, D>(dims, multiple, scale);
    }
}

fn cases() -> Cases {
    let mut c = Cases::default();
    // RGB into NHWC with C padded to 8 (Tensor Cores), every type pair; then with a scale, and on
    // a tensor big enough that the cut grid strides.
    c.every_type_pair::<Nchw, Nhwc>(&[2, 3, 5, 7], 8, None);
    c.every_type_pair::<Nchw, Nhwc>(&[1, 3, 4, 3], 8, Some(0.37));
    c.add::<f32, f16, Nchw, Nhwc>(&[2, 3, 40, 50], 8, None);
    // Out of NHWC: H·W = 35 innermost in the destination (one loop) gives one element per
    // thread (the cases above store 2 to 8 at once), H·W = 18 two f16 per thread.
    c.every_type_pair::<Nhwc, Nchw>(&[2, 3, 5, 7], 1, None);
    c.add::<f32, f16, Nhwc, Nchw>(&[1, 3, 3, 6], 1, None);
    // cuDNN's INT8x32 preparation: 40 channels padded to 64, with a quantizing scale.
    c.add::<f32, i8, Nchw, NcxHwx<32>>(&[1, 40, 3, 3], 1, Some(127.0 / 20.0));
    c.add::<f16, i8, Nhwc, NcxHwx<32>>(&[2, 33, 2, 3], 1, Some(3.0));
    // A vectorized source; C outermost; a partial last group; a volume; a single element.
    c.add::<i32, f32, NcxHwx<4>, Nhwc>(&[2, 8, 3, 5], 16, None);
    c.add::<bf16, f16, NcxHwx<4>, NcxHwx<32>>(&[1, 8, 2, 2], 1, None);
    c.add::<i32, bf16, Chwn, NcxHwx<4>>(&[3, 5, 2, 4], 1, None);
    c.every_destination::<f64, NcxHwx<2>, NcxHwx<8>>(&[1, 6, 2, 3], 1, None);
    c.add::<f64, u8, Ncdhw, Ndhwc>(&[1, 5, 2, 2, 3], 8, Some(-2.0));
    c.add::<f32, i32, Nchw, Nhwc>(&[1, 1, 1, 1], 4, None);
    // Quantization: f32 KCRS into INT8x32 filters per output channel and per tensor; f32 and
    // f16 NCHW into NC/4HW4 and NC/32HW32; u8; ties of every scale.
    let per_k: Vec<f32> = (0..4).map(|k| 0.5 / (k + 1) as f32).collect();
    c.quantized::<f32, i8, Kcrs, KcxRsx<32>>(&[4, 40, 3, 3], 1, Scales::PerOutputChannel(&per_k));
    c.quantized::<f32, i8, Krsc, KcxRsx<4>>(&[4, 6, 1, 3], 1, Scales::PerOutputChannel(&per_k));
    c.quantized::<f32, i8, Kcrs, KcxRsx<32>>(&[2, 32, 3, 3], 1, Scales::PerTensor(0.25));
    c.quantized::<f32, i8, Nchw, NcxHwx<4>>(&[2, 6, 3, 5], 1, Scales::PerTensor(0.5));
    c.quantized::<f16, i8, Nchw, NcxHwx<32>>(&[1, 40, 2, 3], 1, Scales::PerTensor(1.5));
    c.quantized::<f32, u8, Nhwc, NcxHwx<32>>(&[1, 33, 2, 2], 1, Scales::PerTensor(2.0));
    c
}

/// A copy of a kernel signature (it is `Copy`-like: three names).
fn sig_copy<'a>(s: &Signature<'a>) -> Signature<'a> {
    Signature { params: s.params, src: s.src, dst: s.dst }
}

#[test]
fn every_cast_kernel_instance_compiles_to_cubin_for_sm80_and_sm90() {
    if let Err(why) = support::nvrtc_present() {
        return println!("SKIPPED: {why}");
    }
    let c = cases();
    let (failures, took) = images::compile_images(&c.sources, images::PTX_EVERY);
    println!(
        "{} cast kernels compiled to CUBIN for sm_80 and sm_90 and to PTX for {} (every {}th) in {:.1} s",
        c.sources.len(),
        images::PTX_ARCH,
        images::PTX_EVERY,
        took.as_secs_f64()
    );
    assert!(failures.is_empty(), "{} compile failures; first: {}", failures.len(), failures[0]);
}

#[test]
fn every_cast_kernel_matches_the_cpu_on_the_host_emulator() {
    let c = cases();
    let (outputs, time) = match c.emulator.run("gpu_cast") {
        Ok(r) => r,
        Err(why) => return println!("SKIPPED: {why}"),
    };
    let mut wrong = Vec::new();
    for (got, (want, range, what)) in outputs.iter().zip(&c.expected) {
        let got = &got[range.clone()];
        if got != &want[..] {
            let first = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(0);
            wrong
                .push(format!("{what} (first wrong byte {first}: {:#x} not {:#x})", got[first], want[first]));
        }
    }
    println!(
        "{} fused casts ({} distinct kernels) matched the CPU byte for byte; emulator built in {:.1} s, ran in {:.1} s",
        c.expected.len(),
        c.emulator.kernels(),
        time.build.as_secs_f64(),
        time.run.as_secs_f64()
    );
    assert!(wrong.is_empty(), "{} of {} casts differ:\n{}", wrong.len(), c.expected.len(), wrong.join("\n"));
}
