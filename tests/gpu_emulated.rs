//! The generated CUDA kernels, run on the host: every pair of named layouts × shapes × element
//! sizes, each kernel executed by a small C++ emulator (`support/emulator.hpp`: blocks in
//! turn, a block's threads as real threads with a barrier for `__syncthreads`) and its output
//! compared byte for byte with the CPU backend's conversion. Destinations start poisoned, writes
//! past the end are caught, and grids are cut to at most 5 blocks so the grid-stride loops run.
//!
//! This checks the kernels' index arithmetic, tiling, packing and the launch parameters without
//! a GPU. It needs a C++20 compiler (`c++`); without one it prints SKIPPED.

mod support;

use half::f16;
use layout_gpu::kernels::{route, Kernel};
use support::emulator::{Emulator, Job, Signature};
use support::{bytes_of, every_pair, mix, reorder_pairs, Bits, Visit};
use typed_layout::{Layout, SameFamily, Shape, Tensor};

#[derive(Default)]
struct Jobs {
    emulator: Emulator,
    /// Per job: the CPU backend's bytes for the final pass of a conversion, and what it is.
    expected: Vec<(Option<Vec<u8>>, String)>,
    seed: u64,
}

impl Jobs {
    fn add<T: Bits, S: Layout, D: Layout>(&mut self, a: &Shape<S>, b: &Shape<D>)
    where
        D::Family: SameFamily<S::Family>,
    {
        self.seed += 1;
        let seed = self.seed;
        let data: Vec<T> = (0..a.len()).map(|i| T::from_bits64(mix(seed, i))).collect();
        let src = Tensor::<T, S>::from_vec_in(*a, data).unwrap();
        let mut want = Tensor::<T, D>::filled_in(*b, T::from_bits64(0)).unwrap();
        typed_layout::convert(&src, &mut want).unwrap();
        let size = core::mem::size_of::<T>();
        let route = route(a, b, size).unwrap();
        let passes = route.passes();
        for (i, pass) in passes.iter().enumerate() {
            let last = i + 1 == passes.len();
            let spec = pass.launch.spec;
            let sync = matches!(spec.kernel, Kernel::Tile { .. } | Kernel::Narrow { .. });
            let sig = Signature { params: "Params", src: "elem_t", dst: "elem_t" };
            let kernel = self.emulator.kernel(&pass.kernel_name(), || pass.source(), sync, sig);
            let dst_len = if last { b.len() } else { a.placement().dims().iter().product() } * size;
            self.emulator.job(Job {
                kernel,
                grid: pass.launch.grid,
                block: spec.block(),
                params: pass.launch.params.to_bytes(),
                src: (i == 0).then(|| bytes_of(src.as_slice())),
                dst_len,
            });
            let what = format!(
                "{} -> {} {:?} {}-byte: {}",
                S::NOTATION,
                D::NOTATION,
                a.placement().dims(),
                size,
                pass.kernel_name()
            );
            self.expected.push((last.then(|| bytes_of(want.as_slice())), what));
        }
    }
}

impl Visit for Jobs {
    fn pair<S: Layout, D: Layout>(&mut self, dims: &[usize])
    where
        D::Family: SameFamily<S::Family>,
    {
        let (Ok(a), Ok(b)) = (Shape::<S>::from_slice(dims), Shape::<D>::from_slice(dims)) else { return };
        self.add::<u8, S, D>(&a, &b);
        self.add::<f16, S, D>(&a, &b);
        self.add::<i32, S, D>(&a, &b);
        self.add::<i64, S, D>(&a, &b);
    }
}

#[test]
fn every_generated_kernel_matches_the_cpu_backend_on_the_host_emulator() {
    let mut jobs = Jobs::default();
    every_pair(&mut jobs);
    reorder_pairs(&mut jobs);
    let (outputs, time) = match jobs.emulator.run("gpu_emulated") {
        Ok(r) => r,
        Err(why) => return println!("SKIPPED: {why}"),
    };
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (got, (want, what)) in outputs.iter().zip(&jobs.expected) {
        if let Some(want) = want {
            compared += 1;
            if got != want {
                let first = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(0);
                wrong.push(format!("{what} (first wrong byte {first})"));
            }
        }
    }
    println!(
        "{compared} conversions ({} launches, {} distinct kernels) matched the CPU backend; emulator built in {:.1} s, ran in {:.1} s",
        jobs.emulator.jobs(),
        jobs.emulator.kernels(),
        time.build.as_secs_f64(),
        time.run.as_secs_f64()
    );
    assert!(wrong.is_empty(), "{} of {compared} conversions differ:\n{}", wrong.len(), wrong.join("\n"));
}
