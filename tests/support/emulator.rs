//! Runs generated CUDA kernels on the host: every kernel goes into one C++ file with
//! `emulator.hpp` (blocks in turn, a block's threads as real threads when the kernel
//! synchronizes), built with the system's C++20 compiler, then fed a job file. Destinations
//! start poisoned and writes past their end are caught by the runner.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Grids are cut to this many blocks, so every grid-stride loop runs more than once.
pub(crate) const MAX_GRID: u32 = 5;

/// How the runner calls one kernel: the C names of its params struct and pointer types.
pub(crate) struct Signature<'a> {
    pub(crate) params: &'a str,
    pub(crate) src: &'a str,
    pub(crate) dst: &'a str,
}

/// One launch: a kernel, its grid, its arguments, and its source (or the previous job's output).
pub(crate) struct Job {
    pub(crate) kernel: usize,
    pub(crate) grid: u32,
    pub(crate) block: (u32, u32, u32),
    pub(crate) params: Vec<u8>,
    /// `None`: the previous job's output.
    pub(crate) src: Option<Vec<u8>>,
    pub(crate) dst_len: usize,
}

/// One kernel of a runner.
struct Entry {
    index: usize,
    source: String,
    /// Calls `__syncthreads` (its block runs as real threads).
    sync: bool,
    /// The lambda the runner's table holds.
    call: String,
}

/// The kernels of one runner, each with its index in the runner's table.
#[derive(Default)]
pub(crate) struct Kernels {
    map: BTreeMap<String, Entry>,
}

impl Kernels {
    /// The index of kernel `name`, added with its source on first use.
    pub(crate) fn add(
        &mut self,
        name: &str,
        source: impl FnOnce() -> String,
        sync: bool,
        sig: Signature,
    ) -> usize {
        let next = self.map.len();
        let i = self.map.get(name).map_or(next, |k| k.index);
        let call = format!(
            "[](const void* s, void* d, const unsigned char* p) {{ k{i}::{} q; memcpy(&q, p, sizeof q); \
             k{i}::{name}((const k{i}::{}*)s, (k{i}::{}*)d, q); }}",
            sig.params, sig.src, sig.dst
        );
        self.map
            .entry(name.to_string())
            .or_insert_with(|| Entry { index: next, source: source(), sync, call })
            .index
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// A C++ program: `header`, every kernel in its own namespace, the table of entry points, and
    /// `main` calling `entry(argc, argv, KERNELS, SYNC)`.
    fn runner(&self, header: &str, entry: &str) -> String {
        let mut by_index: Vec<(&String, &Entry)> = self.map.iter().collect();
        by_index.sort_by_key(|(_, k)| k.index);
        let mut s = format!("#include \"{header}\"\n");
        for (name, k) in &by_index {
            s += &format!("namespace k{} {{\n{}\n}} // {name}\n", k.index, k.source);
        }
        s += "static const tl_entry KERNELS[] = {\n";
        for (_, k) in &by_index {
            s += &format!("  {},\n", k.call);
        }
        s += "};\nstatic const bool SYNC[] = {";
        for (_, k) in &by_index {
            s += if k.sync { "true," } else { "false," };
        }
        s += &format!(
            "}};\nint main(int argc, char** argv) {{ return {entry}(argc, argv, KERNELS, SYNC); }}\n"
        );
        s
    }

    /// Writes `runner`'s program and the headers into `CARGO_TARGET_TMPDIR/<dir>` and builds it
    /// there: the directory, or `Err(why)` when there is no C++20 compiler. A failed build panics.
    pub(crate) fn build(&self, dir: &str, header: &str, entry: &str) -> Result<PathBuf, String> {
        let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        if Command::new(&compiler).arg("--version").output().is_err() {
            return Err(format!("no C++ compiler ({compiler}) to build the kernel emulator"));
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("emulator.hpp"), include_str!("emulator.hpp")).unwrap();
        std::fs::write(dir.join("tracer.hpp"), include_str!("tracer.hpp")).unwrap();
        std::fs::write(dir.join("runner.cpp"), self.runner(header, entry)).unwrap();
        let built = Command::new(&compiler)
            .args([
                "-std=c++20",
                "-O1",
                "-pthread",
                "-fno-strict-aliasing",
                "-w",
                "runner.cpp",
                "-o",
                "runner",
            ])
            .current_dir(&dir)
            .output()
            .unwrap();
        if !built.status.success() {
            let log = String::from_utf8_lossy(&built.stderr);
            if log.contains("barrier") && log.contains("No such file") {
                return Err(format!("{compiler} has no C++20 <barrier>"));
            }
            panic!("the emulator did not build:\n{log}");
        }
        Ok(dir)
    }
}

/// Runs the runner built in `dir` on a job file (name, bytes), which writes `output` there; a
/// failed run panics with the runner's message.
pub(crate) fn run_runner(dir: &Path, (input, jobs): (&str, &[u8]), output: &str) {
    std::fs::write(dir.join(input), jobs).unwrap();
    let ran = Command::new(dir.join("runner")).args([input, output]).current_dir(dir).output().unwrap();
    assert!(
        ran.status.success(),
        "the runner failed ({}): {}",
        ran.status,
        String::from_utf8_lossy(&ran.stderr)
    );
}

#[derive(Default)]
pub(crate) struct Emulator {
    kernels: Kernels,
    jobs: Vec<Job>,
}

/// What a run took.
pub(crate) struct Timing {
    pub(crate) build: Duration,
    pub(crate) run: Duration,
}

impl Emulator {
    /// The index of kernel `name`, added with its source on first use.
    pub(crate) fn kernel(
        &mut self,
        name: &str,
        source: impl FnOnce() -> String,
        sync: bool,
        sig: Signature,
    ) -> usize {
        self.kernels.add(name, source, sync, sig)
    }

    pub(crate) fn job(&mut self, mut job: Job) {
        job.grid = job.grid.min(MAX_GRID);
        self.jobs.push(job);
    }

    pub(crate) fn jobs(&self) -> usize {
        self.jobs.len()
    }

    pub(crate) fn kernels(&self) -> usize {
        self.kernels.len()
    }

    /// Builds the runner in `CARGO_TARGET_TMPDIR/<dir>` and runs every job: each job's output,
    /// or `Err(why)` when there is no C++20 compiler (the caller prints SKIPPED). A build or run
    /// failure panics.
    pub(crate) fn run(&self, dir: &str) -> Result<(Vec<Vec<u8>>, Timing), String> {
        let start = Instant::now();
        let dir = self.kernels.build(dir, "emulator.hpp", "tl_main")?;
        let build = start.elapsed();
        run_runner(&dir, ("jobs.bin", &self.job_file()), "out.bin");
        let out = std::fs::read(dir.join("out.bin")).unwrap();
        let mut at = 0;
        let outputs = self
            .jobs
            .iter()
            .map(|j| {
                at += j.dst_len;
                out[at - j.dst_len..at].to_vec()
            })
            .collect();
        assert_eq!(at, out.len(), "the runner wrote {} bytes, the jobs {at}", out.len());
        Ok((outputs, Timing { build, run: start.elapsed() - build }))
    }

    fn job_file(&self) -> Vec<u8> {
        let mut f = Vec::new();
        let put = |f: &mut Vec<u8>, v: u64| f.extend_from_slice(&v.to_le_bytes());
        put(&mut f, self.jobs.len() as u64);
        for j in &self.jobs {
            let (bx, by, bz) = j.block;
            for v in [j.kernel as u64, j.src.is_none() as u64, j.grid as u64, bx as u64, by as u64, bz as u64]
            {
                put(&mut f, v);
            }
            put(&mut f, j.params.len() as u64);
            f.extend_from_slice(&j.params);
            let src = j.src.as_deref().unwrap_or_default();
            put(&mut f, src.len() as u64);
            f.extend_from_slice(src);
            put(&mut f, j.dst_len as u64);
        }
        f
    }
}
