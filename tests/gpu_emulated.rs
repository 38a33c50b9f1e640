//! The generated CUDA kernels, run on the host: every pair of named layouts × shapes × element
//! sizes, each kernel executed by a small C++ emulator (`support/emulator.hpp`: blocks in
//! turn, a block's threads as real threads with a barrier for `__syncthreads`) and its output
//! compared byte for byte with the CPU backend's conversion. Destinations start poisoned, writes
//! past the end are caught, and grids are cut to at most 5 blocks so the grid-stride loops run.
//!
//! This checks the kernels' index arithmetic, tiling, packing and the launch parameters without
//! a GPU. It needs a C++20 compiler (`c++`); without one it prints SKIPPED.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use half::f16;
use layout_gpu::codegen::{Kernel, Params};
use layout_gpu::schedule::{route, Pass};
use support::{bytes_of, every_pair, mix, Bits, Visit};
use typed_layout::{Layout, SameFamily, Shape, Tensor};

const MAX_GRID: u32 = 5;

struct Job {
    kernel: usize,
    chain: bool,
    pass: Pass,
    src: Vec<u8>,
    dst_len: usize,
    /// The CPU backend's bytes, for the final pass of a conversion.
    expected: Option<Vec<u8>>,
    what: String,
}

#[derive(Default)]
struct Jobs {
    kernels: BTreeMap<String, (usize, String, bool)>,
    jobs: Vec<Job>,
    seed: u64,
}

impl Jobs {
    fn kernel(&mut self, pass: &Pass) -> usize {
        let next = self.kernels.len();
        let sync = matches!(pass.launch.spec.kernel, Kernel::Tile { .. });
        self.kernels.entry(pass.kernel_name()).or_insert_with(|| (next, pass.source(), sync)).0
    }

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
            let kernel = self.kernel(pass);
            let dst_len = if last { b.len() } else { a.packing().dims().iter().product() } * size;
            self.jobs.push(Job {
                kernel,
                chain: i > 0,
                pass: *pass,
                src: if i == 0 { bytes_of(src.as_slice()) } else { Vec::new() },
                dst_len,
                expected: last.then(|| bytes_of(want.as_slice())),
                what: format!(
                    "{} -> {} {:?} {}-byte: {}",
                    S::NOTATION,
                    D::NOTATION,
                    a.packing().dims(),
                    size,
                    pass.kernel_name()
                ),
            });
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

fn runner_source(jobs: &Jobs) -> String {
    let mut s = String::from("#include \"emulator.hpp\"\n");
    let mut by_index: Vec<(&String, &(usize, String, bool))> = jobs.kernels.iter().collect();
    by_index.sort_by_key(|(_, (i, _, _))| *i);
    for (name, (i, source, _)) in &by_index {
        s += &format!("namespace k{i} {{\n{source}\n}} // {name}\n");
    }
    s += "static const tl_entry KERNELS[] = {\n";
    for (name, (i, _, _)) in &by_index {
        s += &format!(
            "  [](const void* s, const void* d0, const unsigned char* p) {{ k{i}::Params q; memcpy(&q, p, sizeof q); \
             k{i}::{name}((const k{i}::elem_t*)s, (k{i}::elem_t*)d0, q); }},\n"
        )
        .replace("const void* d0", "void* d0");
    }
    s += "};\nstatic const bool SYNC[] = {";
    for (_, (_, _, sync)) in &by_index {
        s += if *sync { "true," } else { "false," };
    }
    s += "};\nint main(int argc, char** argv) { return tl_main(argc, argv, KERNELS, SYNC); }\n";
    s
}

fn job_file(jobs: &Jobs) -> Vec<u8> {
    let mut f = Vec::new();
    let put = |f: &mut Vec<u8>, v: u64| f.extend_from_slice(&v.to_le_bytes());
    put(&mut f, jobs.jobs.len() as u64);
    for j in &jobs.jobs {
        let (bx, by, bz) = j.pass.launch.spec.block();
        let params: Vec<u8> = j.pass.launch.params.to_bytes();
        assert_eq!(params.len(), core::mem::size_of::<Params>());
        for v in [
            j.kernel as u64,
            j.chain as u64,
            j.pass.launch.grid.min(MAX_GRID) as u64,
            bx as u64,
            by as u64,
            bz as u64,
        ] {
            put(&mut f, v);
        }
        put(&mut f, params.len() as u64);
        f.extend_from_slice(&params);
        put(&mut f, j.src.len() as u64);
        f.extend_from_slice(&j.src);
        put(&mut f, j.dst_len as u64);
    }
    f
}

#[test]
fn every_generated_kernel_matches_the_cpu_backend_on_the_host_emulator() {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if Command::new(&compiler).arg("--version").output().is_err() {
        println!("SKIPPED: no C++ compiler ({compiler}) to build the kernel emulator");
        return;
    }
    let mut jobs = Jobs::default();
    every_pair(&mut jobs);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu_emulated");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("emulator.hpp"), include_str!("support/emulator.hpp")).unwrap();
    std::fs::write(dir.join("runner.cpp"), runner_source(&jobs)).unwrap();
    std::fs::write(dir.join("jobs.bin"), job_file(&jobs)).unwrap();
    let start = std::time::Instant::now();
    let built = Command::new(&compiler)
        .args(["-std=c++20", "-O1", "-pthread", "-fno-strict-aliasing", "-w", "runner.cpp", "-o", "runner"])
        .current_dir(&dir)
        .output()
        .unwrap();
    if !built.status.success() {
        let log = String::from_utf8_lossy(&built.stderr);
        if log.contains("barrier") && log.contains("No such file") {
            println!("SKIPPED: {compiler} has no C++20 <barrier>");
            return;
        }
        panic!("the emulator did not build:\n{log}");
    }
    let built_in = start.elapsed();
    let ran =
        Command::new(dir.join("runner")).args(["jobs.bin", "out.bin"]).current_dir(&dir).output().unwrap();
    assert!(
        ran.status.success(),
        "the emulator failed ({}): {}",
        ran.status,
        String::from_utf8_lossy(&ran.stderr)
    );
    let out = std::fs::read(dir.join("out.bin")).unwrap();
    let mut at = 0;
    let mut wrong = Vec::new();
    let mut compared = 0;
    for j in &jobs.jobs {
        let got = &out[at..at + j.dst_len];
        at += j.dst_len;
        if let Some(want) = &j.expected {
            compared += 1;
            if got != want.as_slice() {
                let first = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(0);
                wrong.push(format!("{} (first wrong byte {first})", j.what));
            }
        }
    }
    assert_eq!(at, out.len());
    println!(
        "{compared} conversions ({} launches, {} distinct kernels) matched the CPU backend; emulator built in {:.1} s, ran in {:.1} s",
        jobs.jobs.len(),
        jobs.kernels.len(),
        built_in.as_secs_f64(),
        (start.elapsed() - built_in).as_secs_f64()
    );
    assert!(wrong.is_empty(), "{} of {compared} conversions differ:\n{}", wrong.len(), wrong.join("\n"));
}
