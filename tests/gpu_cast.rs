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
use layout_gpu::kernels::{cast_launch, DeviceCast};
use support::emulator::{Emulator, Job, Signature};
use support::images;
use support::{bytes_of, sample, Bits};
use typed_layout::cast::{padded_shape, relayout_cast_pad, Cast, CastNest, Scale, Unscaled};
use typed_layout::{Chwn, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, SameFamily, Shape, Tensor};

#[derive(Default)]
struct Cases {
    emulator: Emulator,
    sources: BTreeMap<String, String>,
    expected: Vec<(Vec<u8>, String)>,
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
        let factor = scale.map_or(Unscaled.scale(), |k| Scale(k).scale());
        let launch = cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, shape.len(), factor);
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
        self.expected.push((bytes_of(want.tensor().as_slice()), what));
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
    c
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
    for (got, (want, what)) in outputs.iter().zip(&c.expected) {
        if got != want {
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
