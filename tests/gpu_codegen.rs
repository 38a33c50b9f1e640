//! The GPU backend's CPU-side checks, run everywhere (no device needed):
//!
//! * which kernel shape each kind of conversion gets;
//! * snapshots of the generated CUDA for a few pairs, so a codegen change is a reviewable diff
//!   (`UPDATE_SNAPSHOTS=1 cargo test --test gpu_codegen` rewrites them);
//! * every kernel instance (every pair of named layouts × shapes × element sizes) compiles with
//!   NVRTC to a CUBIN for sm_80 and sm_90, each an ELF for its architecture, and to the PTX
//!   fallback for compute_90 (a sample). Without NVRTC this prints SKIPPED, unless `TL_REQUIRE_NVRTC=1`
//!   (set by `.ci/run`, which installs NVRTC) makes a missing NVRTC a failure.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use layout_gpu::kernels::{self, route, Kernel, Route};
use layout_gpu::GpuError;
use support::images;
use support::{every_pair, reorder_pairs, Visit};
use typed_layout::{
    Bmn, ColMajor, DataType, Kcrs, KcxRsx, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily,
    Shape,
};

fn kernel<S: Layout, D: Layout>(dims: &[usize], elem: usize) -> (Kernel, u8)
where
    D::Family: SameFamily<S::Family>,
{
    let (a, b) = (Shape::<S>::from_slice(dims).unwrap(), Shape::<D>::from_slice(dims).unwrap());
    match route(&a, &b, elem).unwrap() {
        Route::Direct(p) => (p.launch.spec.kernel, p.launch.spec.vec),
        r => panic!("expected one pass, got {r:?}"),
    }
}

#[test]
fn each_conversion_gets_its_kernel_shape() {
    // NCHW→NHWC, big C: N batches a (H·W) × C tile transpose; f32 moves one element per access.
    assert_eq!(kernel::<Nchw, Nhwc>(&[8, 64, 56, 56], 4), (Kernel::Tile { batch: 1 }, 1));
    // i8 packs four elements per 32-bit word; f16 two.
    assert_eq!(kernel::<Nchw, Nhwc>(&[8, 64, 56, 56], 1), (Kernel::Tile { batch: 1 }, 4));
    assert_eq!(kernel::<Nchw, Nhwc>(&[8, 64, 56, 56], 2), (Kernel::Tile { batch: 1 }, 2));
    // An odd H·W cannot keep words aligned: one element per access.
    assert_eq!(kernel::<Nchw, Nhwc>(&[8, 64, 7, 7], 1), (Kernel::Tile { batch: 1 }, 1));
    // N = 1 drops out: a plain 2-D transpose.
    assert_eq!(kernel::<Ncdhw, Ndhwc>(&[1, 32, 8, 8, 8], 4), (Kernel::Tile { batch: 0 }, 1));
    // Narrow planes stage runs of pixels: C = 3 into NHWC (the destination packs the pixels)
    // and out of it (the source does).
    assert_eq!(
        kernel::<Nchw, Nhwc>(&[8, 3, 224, 224], 4),
        (Kernel::Narrow { batch: 1, packed_dst: true }, 1)
    );
    assert_eq!(
        kernel::<Nhwc, Nchw>(&[8, 3, 224, 224], 4),
        (Kernel::Narrow { batch: 1, packed_dst: false }, 1)
    );
    // NCHW→NC/32HW32: H·W (source-inner) against the 32 lanes (destination-inner), batched by
    // N and the channel groups, which fuse into one loop.
    assert_eq!(kernel::<Nchw, NcxHwx<32>>(&[2, 64, 16, 16], 1), (Kernel::Tile { batch: 1 }, 4));
    // NHWC→NC/32HW32 keeps runs of 32 channels: rows over N, the channel groups and H·W,
    // moved in 16-byte vectors of i8.
    assert_eq!(kernel::<Nhwc, NcxHwx<32>>(&[2, 64, 16, 16], 1), (Kernel::Gather { loops: 4 }, 16));
    // C = 1: the conversion is a copy; so is the identity.
    assert_eq!(kernel::<Nchw, Nhwc>(&[4, 1, 30, 30], 4), (Kernel::Copy, 4));
    assert_eq!(kernel::<Bmn<RowMajor>, Bmn<RowMajor>>(&[4, 30, 30], 1), (Kernel::Copy, 16));
    assert_eq!(kernel::<Bmn<RowMajor>, Bmn<ColMajor>>(&[4, 300, 200], 8), (Kernel::Tile { batch: 1 }, 1));
}

#[test]
fn offsets_widen_to_64_bits_above_2_pow_31_elements() {
    let dims = [2, 64, 4096, 4097]; // 2 147 … 936 elements: just over 2^31
    let (a, b) = (Shape::<Nchw>::new(dims).unwrap(), Shape::<Nhwc>::new(dims).unwrap());
    assert!(a.len() > 1 << 31);
    let Route::Direct(p) = route(&a, &b, 1).unwrap() else { panic!("one pass") };
    assert!(p.launch.spec.wide);
    let small = Shape::<Nchw>::new([2, 64, 64, 64]).unwrap();
    let Route::Direct(q) = route(&small, &Shape::<Nhwc>::new([2, 64, 64, 64]).unwrap(), 1).unwrap() else {
        panic!("one pass")
    };
    assert!(!q.launch.spec.wide);
}

#[test]
fn mismatched_dims_are_a_layout_error() {
    let (a, b) = (Shape::<Nchw>::new([1, 2, 3, 4]).unwrap(), Shape::<Nhwc>::new([1, 2, 4, 3]).unwrap());
    let e = route(&a, &b, 4).unwrap_err();
    assert!(matches!(e, typed_layout::LayoutError::ShapeMismatch { .. }), "{e}");
}

/// Every distinct kernel source over every pair, shape and element size: name → source.
struct Collect(BTreeMap<String, String>, usize);

impl Visit for Collect {
    fn pair<S: Layout, D: Layout>(&mut self, dims: &[usize])
    where
        D::Family: SameFamily<S::Family>,
    {
        let (Ok(a), Ok(b)) = (Shape::<S>::from_slice(dims), Shape::<D>::from_slice(dims)) else { return };
        for elem in [1, 2, 4, 8] {
            for pass in route(&a, &b, elem).unwrap().passes() {
                self.1 += 1;
                self.0.insert(pass.kernel_name(), pass.source());
            }
        }
    }
}

fn all_kernels() -> (BTreeMap<String, String>, usize) {
    let mut c = Collect(BTreeMap::new(), 0);
    every_pair(&mut c);
    reorder_pairs(&mut c);
    (c.0, c.1)
}

#[test]
fn every_kernel_instance_compiles_to_cubin_for_sm80_and_sm90() {
    if let Err(why) = support::nvrtc_present() {
        return println!("SKIPPED: {why}");
    }
    let (kernels, passes) = all_kernels();
    let (failures, took) = images::compile_images(&kernels, images::PTX_EVERY);
    println!(
        "{} passes over {} distinct kernels compiled to CUBIN for sm_80 and sm_90 and to PTX for {} (every {}th) in {:.1} s",
        passes,
        kernels.len(),
        images::PTX_ARCH,
        images::PTX_EVERY,
        took.as_secs_f64()
    );
    assert!(failures.is_empty(), "{} compile failures; first: {}", failures.len(), failures[0]);
}

#[test]
fn compile_errors_carry_the_nvrtc_log() {
    if !kernels::nvrtc_available() {
        println!("SKIPPED: NVRTC not found");
        return;
    }
    let e = kernels::compile("extern \"C\" __global__ void k() { undeclared(); }", "k", "sm_90").unwrap_err();
    match &e {
        GpuError::Compile { kernel, arch, log } => {
            assert_eq!((kernel.as_str(), arch.as_str()), ("k", "sm_90"));
            assert!(log.contains("undeclared"), "{log}");
        }
        other => panic!("expected a compile error, got {other}"),
    }
}

#[test]
fn the_loaded_nvrtc_names_its_version_and_file() {
    if let Err(why) = support::nvrtc_present() {
        return println!("SKIPPED: {why}");
    }
    let (major, minor) = kernels::nvrtc_version().unwrap();
    assert!(major >= 12, "NVRTC {major}.{minor}");
    let path = kernels::nvrtc_library().expect("a loaded libnvrtc in /proc/self/maps");
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(file.starts_with("libnvrtc") && !file.contains("builtins"), "{}", path.display());
    println!("NVRTC {major}.{minor} from {}", path.display());
}

#[test]
fn a_cubin_says_its_architecture_in_its_elf_header() {
    if let Err(why) = support::nvrtc_present() {
        return println!("SKIPPED: {why}");
    }
    let source = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }";
    for (arch, sm) in
        [("sm_75", 75), ("sm_80", 80), ("sm_86", 86), ("sm_90", 90), ("sm_100", 100), ("sm_120", 120)]
    {
        let cubin = kernels::compile(source, "k", arch).unwrap().cubin().unwrap().to_vec();
        assert_eq!(images::cubin_sm(&cubin), Ok(sm), "{arch}");
    }
    // A virtual architecture gives PTX only; and what is not a CUBIN is named as such.
    assert!(kernels::compile(source, "k", "compute_90").unwrap().cubin().is_none());
    assert!(images::cubin_sm(b"\x7fELF").unwrap_err().contains("not an ELF"));
}

/// The generated CUDA of a few pairs, compared with the files in `tests/snapshots/gpu/`.
#[test]
fn generated_cuda_matches_the_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/gpu");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut cases: Vec<(String, String)> = Vec::new();
    let mut add = |r: Route| {
        for p in r.passes() {
            cases.push((p.kernel_name(), p.source()));
        }
    };
    add(route(
        &Shape::<Nchw>::new([8, 64, 56, 56]).unwrap(),
        &Shape::<Nhwc>::new([8, 64, 56, 56]).unwrap(),
        4,
    )
    .unwrap());
    add(route(
        &Shape::<Nchw>::new([8, 64, 56, 56]).unwrap(),
        &Shape::<NcxHwx<32>>::new([8, 64, 56, 56]).unwrap(),
        1,
    )
    .unwrap());
    add(route(
        &Shape::<Nchw>::new([8, 3, 224, 224]).unwrap(),
        &Shape::<Nhwc>::new([8, 3, 224, 224]).unwrap(),
        2,
    )
    .unwrap());
    add(route(
        &Shape::<Nhwc>::new([2, 64, 8, 8]).unwrap(),
        &Shape::<NcxHwx<32>>::new([2, 64, 8, 8]).unwrap(),
        1,
    )
    .unwrap());
    add(route(
        &Shape::<Ncdhw>::new([2, 8, 4, 4, 4]).unwrap(),
        &Shape::<Ncdhw>::new([2, 8, 4, 4, 4]).unwrap(),
        4,
    )
    .unwrap());
    // A fused cast: RGB f32 NCHW into f16 NHWC with C padded to 8.
    let (rgb, padded) =
        (Shape::<Nchw>::new([8, 3, 224, 224]).unwrap(), Shape::<Nhwc>::new([8, 8, 224, 224]).unwrap());
    let plan = typed_layout::cast::CastNest::new(&rgb, &padded).unwrap();
    let cast = layout_gpu::kernels::cast_launch(
        &plan,
        DataType::Float,
        DataType::Half,
        rgb.len(),
        typed_layout::cast::Unscaled,
    )
    .spec;
    cases.push((cast.name("NCHW", "NHWC"), cast.source("NCHW", "NHWC")));
    // A quantizing cast: one output channel of f32 KCRS weights into i8 KC/32RS32.
    let (one, out) =
        (Shape::<Kcrs>::new([1, 40, 3, 3]).unwrap(), Shape::<KcxRsx<32>>::new([1, 64, 3, 3]).unwrap());
    let plan = typed_layout::cast::CastNest::new(&one, &out).unwrap();
    let q = typed_layout::cast::Quantize(0.5);
    let quantize =
        layout_gpu::kernels::cast_launch(&plan, DataType::Float, DataType::Int8, one.len(), q).spec;
    cases.push((quantize.name("KCRS", "KC/32RS32"), quantize.source("KCRS", "KC/32RS32")));
    let mut wrong = Vec::new();
    for (name, source) in &cases {
        let path = dir.join(format!("{name}.cu"));
        if update {
            std::fs::write(&path, source).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(source.as_str()) {
            wrong.push(name.clone());
        }
    }
    // A snapshot whose case is gone is an error too.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let stem = file.trim_end_matches(".cu");
        if !cases.iter().any(|(n, _)| n == stem) {
            if update {
                std::fs::remove_file(dir.join(&file)).unwrap();
            } else {
                wrong.push(format!("{file} (no case)"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "snapshots differ (UPDATE_SNAPSHOTS=1 rewrites them; review the diff): {wrong:?}"
    );
}
