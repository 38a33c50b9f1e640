//! The efficiency model of the generated kernels (no GPU needed): every kernel class × element
//! size at 256 MiB shapes, each launch modeled on a sample of its blocks at its real grid (the
//! first, the last and six from inside), with its warps replayed in lockstep
//! (`support/tracer.hpp`). Per row: global sector efficiency of loads and stores (bytes used over
//! bytes in the 32-byte sectors touched, as Nsight Compute counts it), the shared-memory
//! bank-conflict degree (wavefronts over the ideal; 1 means none), and active lanes per global
//! instruction.
//!
//! Asserted: copies and tiles move whole sectors (100 %) on aligned shapes, no kernel that stages
//! through shared memory has a bank conflict, every moving kernel uses at least 80 % of the
//! sectors it touches on those shapes, and cast kernels store whole sectors. Printed but not
//! held to 80 %: a shape whose rows start off sector boundaries, and the cast kernels' loads. `cargo test --test gpu_efficiency -- --nocapture` prints the table recorded in
//! BENCHMARKS.md as "predicted". Needs a C++20 compiler (`c++`); without one it prints SKIPPED.

mod support;

use layout_gpu::kernels::{cast_launch, route, Kernel};
use support::emulator::Signature;
use support::tracer::{Counts, TraceJob, Tracer};
use typed_layout::cast::{padded_shape, CastNest};
use typed_layout::{
    Bmn, Chwn, ColMajor, DataType, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Shape,
};

const MIB: usize = 1 << 20;

/// One row of the table: a conversion, its launches, and what the model counted.
struct Row {
    label: String,
    kernels: Vec<String>,
    class: Class,
    /// Every row of the tile and every run of the copy starts on a sector.
    aligned: bool,
    jobs: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Copy,
    Gather,
    Tile,
    Narrow,
    Cast,
}

#[derive(Default)]
struct Model {
    tracer: Tracer,
    rows: Vec<Row>,
}

impl Model {
    /// A moving conversion of `elem` -byte elements over `dims` (logical order).
    fn moving<S: Layout, D: Layout>(&mut self, dims: &[usize], elem: usize, aligned: bool)
    where
        D::Family: SameFamily<S::Family>,
    {
        let (a, b) = (Shape::<S>::from_slice(dims).unwrap(), Shape::<D>::from_slice(dims).unwrap());
        let route = route(&a, &b, elem).unwrap();
        let mut row = Row {
            label: format!("{} → {} {dims:?} e{elem}", S::NOTATION, D::NOTATION),
            kernels: Vec::new(),
            class: Class::Copy,
            aligned,
            jobs: Vec::new(),
        };
        let passes = route.passes();
        for (i, pass) in passes.iter().enumerate() {
            let spec = pass.launch.spec;
            row.class = match spec.kernel {
                Kernel::Copy => Class::Copy,
                Kernel::Gather { .. } => Class::Gather,
                Kernel::Tile { .. } => Class::Tile,
                Kernel::Narrow { .. } => Class::Narrow,
            };
            let sync = matches!(spec.kernel, Kernel::Tile { .. } | Kernel::Narrow { .. });
            let sig = Signature { params: "Params", src: "elem_t", dst: "elem_t" };
            let kernel = self.tracer.kernel(&pass.kernel_name(), || pass.source(), sync, sig);
            let logical: usize = dims.iter().product();
            let src_len = if i == 0 { a.len() } else { logical };
            let dst_len = if i + 1 == passes.len() { b.len() } else { logical };
            row.jobs.push(self.tracer.job(TraceJob {
                kernel,
                grid: pass.launch.grid,
                block: spec.block(),
                params: pass.launch.params.to_bytes(),
                src_bytes: (src_len * elem) as u64,
                dst_bytes: (dst_len * elem) as u64,
            }));
            row.kernels.push(pass.kernel_name());
        }
        self.rows.push(row);
    }

    /// A fused relayout + cast + pad of C to a multiple of `multiple`.
    fn cast<S: Layout, D: Layout>(&mut self, dims: &[usize], from: DataType, to: DataType, multiple: usize)
    where
        D::Family: SameFamily<S::Family>,
    {
        let src = Shape::<S>::from_slice(dims).unwrap();
        let dst = padded_shape::<S, D>(&src, multiple).unwrap();
        let launch = cast_launch(
            &CastNest::new(&src, &dst).unwrap(),
            from,
            to,
            src.len(),
            typed_layout::cast::Unscaled,
        );
        let name = launch.spec.name(S::NOTATION, D::NOTATION);
        let sig = Signature { params: "CastParams", src: "src_t", dst: "dst_t" };
        let kernel = self.tracer.kernel(&name, || launch.spec.source(S::NOTATION, D::NOTATION), false, sig);
        let job = self.tracer.job(TraceJob {
            kernel,
            grid: launch.grid,
            block: launch.spec.block(),
            params: launch.params.to_bytes(),
            src_bytes: (src.len() * from.size()) as u64,
            dst_bytes: (dst.len() * to.size()) as u64,
        });
        self.rows.push(Row {
            label: format!("{} {from} → {} {to}, C to ×{multiple} {dims:?}", S::NOTATION, D::NOTATION),
            kernels: vec![name],
            class: Class::Cast,
            aligned: false,
            jobs: vec![job],
        });
    }
}

/// `dims` with its first extent scaled so the tensor holds about 256 MiB of `elem`-byte elements.
fn mib256(dims: &[usize], elem: usize) -> Vec<usize> {
    let rest: usize = dims[1..].iter().product();
    let mut d = dims.to_vec();
    d[0] = (256 * MIB / elem / rest).max(1);
    d
}

fn rows(m: &mut Model) {
    for e in [1, 2, 4, 8] {
        let image = mib256(&[1, 64, 128, 128], e);
        m.moving::<Nchw, Nchw>(&image, e, true);
        m.moving::<Nchw, Nhwc>(&image, e, true);
        m.moving::<Nhwc, Nchw>(&image, e, true);
        m.moving::<Nchw, Chwn>(&image, e, true);
        m.moving::<Ncdhw, Ndhwc>(&mib256(&[1, 64, 16, 32, 32], e), e, true);
        m.moving::<Bmn<RowMajor>, Bmn<ColMajor>>(&mib256(&[1, 4096, 4096], e), e, true);
        m.moving::<Nchw, NcxHwx<32>>(&image, e, true);
        m.moving::<NcxHwx<32>, Nchw>(&image, e, true);
        m.moving::<Nhwc, NcxHwx<32>>(&image, e, true);
        m.moving::<Nchw, NcxHwx<4>>(&image, e, true);
        m.moving::<NcxHwx<4>, Nhwc>(&image, e, true);
        // Narrow planes: C = 3 both ways, and a small batch into CHWN.
        let rgb = mib256(&[1, 3, 512, 512], e);
        m.moving::<Nchw, Nhwc>(&rgb, e, true);
        m.moving::<Nhwc, Nchw>(&rgb, e, true);
        m.moving::<Nchw, Chwn>(&[4, 256 * MIB / e / 4 / 4096, 64, 64], e, true);
        // Rows that start off sector boundaries (H·W = 55²).
        m.moving::<Nchw, Nhwc>(&mib256(&[1, 64, 55, 55], e), e, false);
    }
    m.cast::<Nchw, Nhwc>(&mib256(&[1, 3, 512, 512], 4), DataType::Float, DataType::Half, 8);
    m.cast::<Nchw, NcxHwx<32>>(&mib256(&[1, 64, 128, 128], 4), DataType::Float, DataType::Int8, 32);
    m.cast::<Nhwc, Nchw>(&mib256(&[1, 64, 128, 128], 2), DataType::Half, DataType::Float, 1);
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

#[test]
fn every_kernel_moves_whole_sectors_without_bank_conflicts() {
    let mut model = Model::default();
    rows(&mut model);
    let counts = match model.tracer.run("gpu_efficiency") {
        Ok(c) => c,
        Err(why) => return println!("SKIPPED: {why}"),
    };
    println!("| conversion | kernels | loads | stores | both | bank conflicts (avg / worst) | lanes |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut failures = Vec::new();
    for row in &model.rows {
        let mut c = Counts::default();
        for &j in &row.jobs {
            c.add(&counts[j]);
        }
        assert!(c.ld_requests > 0 && c.st_requests > 0, "{}: the model saw no global access", row.label);
        let (ld, st, both) = c.sector_efficiency();
        let (avg, worst) = (c.conflict_degree(), c.sh_worst.max(1));
        println!(
            "| {} | {} | {} | {} | {} | {avg:.2} / {worst} | {:.1} |",
            row.label,
            row.kernels.join(", "),
            pct(ld),
            pct(st),
            pct(both),
            c.lanes()
        );
        let whole = matches!(row.class, Class::Copy | Class::Tile) && row.aligned;
        if whole && (ld < 1.0 || st < 1.0) {
            failures.push(format!(
                "{}: an aligned {:?} touches unused sector bytes ({} / {})",
                row.label,
                row.class,
                pct(ld),
                pct(st)
            ));
        }
        if matches!(row.class, Class::Tile | Class::Narrow) && worst > 1 {
            failures.push(format!("{}: {worst}-way bank conflicts", row.label));
        }
        // The 80 % floor holds for every moving kernel on the benchmark's shapes; rows off
        // sector boundaries (1-byte elements that cannot pack: 32 bytes over two sectors) and
        // the cast kernels (a thread per group of destination elements: coalesced stores, loads
        // as scattered as the source layout) are printed, and their stores checked whole; the
        // casts out of NCHW planes (consecutive threads read consecutive pixels) use 80 % too.
        if row.class == Class::Cast && st < 1.0 {
            failures.push(format!("{}: cast stores not coalesced ({})", row.label, pct(st)));
        }
        if row.class == Class::Cast && row.label.starts_with("NCHW ") && both < 0.8 {
            failures.push(format!("{}: cast out of NCHW uses {} of its sector bytes", row.label, pct(both)));
        }
        if row.aligned && row.class != Class::Cast && both < 0.8 {
            failures.push(format!(
                "{}: {} of the sector bytes used (at least 80 % asked)",
                row.label,
                pct(both)
            ));
        }
    }
    assert!(failures.is_empty(), "{} rows fall short:\n{}", failures.len(), failures.join("\n"));
}
