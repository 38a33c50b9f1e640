//! The efficiency model's runner: generated kernels built with `tracer.hpp` (their loads and
//! stores recorded, global memory never touched), each launch run on a sample of its blocks at
//! its real grid, and each warp's accesses counted in lockstep (see `tracer.hpp`).

use super::emulator::{run_runner, Kernels, Signature};

/// Blocks sampled per launch: the first, the last and this many from inside, spread
/// pseudo-randomly.
pub(crate) const INTERIOR_SAMPLES: u64 = 6;

/// One launch to model.
pub(crate) struct TraceJob {
    pub(crate) kernel: usize,
    pub(crate) grid: u32,
    pub(crate) block: (u32, u32, u32),
    pub(crate) params: Vec<u8>,
    pub(crate) src_bytes: u64,
    pub(crate) dst_bytes: u64,
}

/// What the sampled warps of one launch did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Counts {
    pub(crate) ld_requests: u64,
    pub(crate) ld_sectors: u64,
    pub(crate) ld_bytes: u64,
    pub(crate) ld_lanes: u64,
    pub(crate) st_requests: u64,
    pub(crate) st_sectors: u64,
    pub(crate) st_bytes: u64,
    pub(crate) st_lanes: u64,
    pub(crate) sh_requests: u64,
    pub(crate) sh_wavefronts: u64,
    pub(crate) sh_ideal: u64,
    /// The worst bank-conflict degree of any shared-memory instruction (1: none).
    pub(crate) sh_worst: u64,
}

impl Counts {
    /// Bytes used over bytes moved in sectors, for loads, stores and both.
    pub(crate) fn sector_efficiency(&self) -> (f64, f64, f64) {
        let eff =
            |bytes: u64, sectors: u64| if sectors == 0 { 1.0 } else { bytes as f64 / (32 * sectors) as f64 };
        (
            eff(self.ld_bytes, self.ld_sectors),
            eff(self.st_bytes, self.st_sectors),
            eff(self.ld_bytes + self.st_bytes, self.ld_sectors + self.st_sectors),
        )
    }

    /// Shared-memory wavefronts over the ideal (1: no bank conflicts).
    pub(crate) fn conflict_degree(&self) -> f64 {
        if self.sh_ideal == 0 {
            1.0
        } else {
            self.sh_wavefronts as f64 / self.sh_ideal as f64
        }
    }

    /// Active lanes per global instruction, of 32.
    pub(crate) fn lanes(&self) -> f64 {
        let requests = self.ld_requests + self.st_requests;
        if requests == 0 {
            0.0
        } else {
            (self.ld_lanes + self.st_lanes) as f64 / requests as f64
        }
    }

    pub(crate) fn add(&mut self, o: &Counts) {
        self.ld_requests += o.ld_requests;
        self.ld_sectors += o.ld_sectors;
        self.ld_bytes += o.ld_bytes;
        self.ld_lanes += o.ld_lanes;
        self.st_requests += o.st_requests;
        self.st_sectors += o.st_sectors;
        self.st_bytes += o.st_bytes;
        self.st_lanes += o.st_lanes;
        self.sh_requests += o.sh_requests;
        self.sh_wavefronts += o.sh_wavefronts;
        self.sh_ideal += o.sh_ideal;
        self.sh_worst = self.sh_worst.max(o.sh_worst);
    }
}

#[derive(Default)]
pub(crate) struct Tracer {
    kernels: Kernels,
    jobs: Vec<TraceJob>,
}

impl Tracer {
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

    /// Adds a launch; its index in [`Tracer::run`]'s result.
    pub(crate) fn job(&mut self, job: TraceJob) -> usize {
        self.jobs.push(job);
        self.jobs.len() - 1
    }

    /// The blocks sampled of a grid: all of a small one; else the first, the last and
    /// [`INTERIOR_SAMPLES`] from inside (a fixed pseudo-random draw).
    pub(crate) fn sample(grid: u32) -> Vec<u64> {
        let grid = u64::from(grid);
        if grid <= INTERIOR_SAMPLES + 2 {
            return (0..grid).collect();
        }
        let mut blocks = vec![0, grid - 1];
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ grid;
        while blocks.len() < (INTERIOR_SAMPLES + 2) as usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = 1 + x % (grid - 2);
            if !blocks.contains(&b) {
                blocks.push(b);
            }
        }
        blocks
    }

    /// Builds the tracer in `CARGO_TARGET_TMPDIR/<dir>` and models every launch, or `Err(why)`
    /// when there is no C++20 compiler.
    pub(crate) fn run(&self, dir: &str) -> Result<Vec<Counts>, String> {
        let dir = self.kernels.build(dir, "tracer.hpp", "tl_trace_main")?;
        run_runner(&dir, ("trace.bin", &self.job_file()), "counts.txt");
        let text = std::fs::read_to_string(dir.join("counts.txt")).unwrap();
        let counts: Vec<Counts> = text
            .lines()
            .map(|line| {
                let v: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
                Counts {
                    ld_requests: v[0],
                    ld_sectors: v[1],
                    ld_bytes: v[2],
                    ld_lanes: v[3],
                    st_requests: v[4],
                    st_sectors: v[5],
                    st_bytes: v[6],
                    st_lanes: v[7],
                    sh_requests: v[8],
                    sh_wavefronts: v[9],
                    sh_ideal: v[10],
                    sh_worst: v[11],
                }
            })
            .collect();
        assert_eq!(
            counts.len(),
            self.jobs.len(),
            "the tracer answered {} of {} launches",
            counts.len(),
            self.jobs.len()
        );
        Ok(counts)
    }

    fn job_file(&self) -> Vec<u8> {
        let mut f = Vec::new();
        let put = |f: &mut Vec<u8>, v: u64| f.extend_from_slice(&v.to_le_bytes());
        put(&mut f, self.jobs.len() as u64);
        for j in &self.jobs {
            let (bx, by, bz) = j.block;
            for v in [j.kernel as u64, u64::from(j.grid), u64::from(bx), u64::from(by), u64::from(bz)] {
                put(&mut f, v);
            }
            put(&mut f, j.params.len() as u64);
            f.extend_from_slice(&j.params);
            put(&mut f, j.src_bytes);
            put(&mut f, j.dst_bytes);
            let blocks = Self::sample(j.grid);
            put(&mut f, blocks.len() as u64);
            for b in blocks {
                put(&mut f, b);
            }
        }
        f
    }
}
