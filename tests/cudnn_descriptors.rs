//! Our cuDNN descriptor arguments against libcudnn's own, with no GPU: cuDNN's descriptor calls
//! run on the host.
//!
//! * For every named layout and generated layouts of ranks 3 to 8, every data type, and many
//!   shapes (up to the 2^31-element limit), cuDNN accepts the descriptor exactly when
//!   `TensorDesc::cudnn` does (it refuses `CUDNN_DATA_INT64`), and then
//!   `cudnnGetTensorNdDescriptor` and `cudnnGetTensorSizeInBytes` give back our data type, dims,
//!   strides and byte size.
//! * `cudnnSetTensorNdDescriptorEx` with NCHW and NHWC derives the strides of our layouts for the
//!   same format ([`TensorFormat::layout`]), for images and volumes.
//! * At cuDNN's limits (2^31 elements spanned, int dims and strides), cuDNN refuses exactly
//!   what `TensorDesc::cudnn` refuses.
//!
//! Without libcudnn (`bash bench/cuda-libs.sh cudnn`, then `eval "$(bash bench/cuda-libs.sh
//! --env)"`) this prints `SKIPPED:`; `TL_REQUIRE_CUDNN=1` (set by CI) makes that a failure.

mod support;

use support::mix;
use typed_layout::cudnn::{TensorFormat, MAX_ELEMENTS};
use typed_layout::gpu::cudnn::{self, TensorDescriptor};
use typed_layout::{DataType, DynLayout, NamedLayout, TensorDesc};

fn cudnn_present() -> bool {
    if cudnn::available() {
        return true;
    }
    let reason =
        "libcudnn.so.9 not found (bash bench/cuda-libs.sh cudnn; eval \"$(bash bench/cuda-libs.sh --env)\")";
    assert!(std::env::var_os("TL_REQUIRE_CUDNN").is_none(), "TL_REQUIRE_CUDNN is set but {reason}");
    println!("SKIPPED: {reason}");
    false
}

/// A deterministic stream of numbers from the tests' shared scrambler.
struct Rng(u64, usize);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.1 += 1;
        (mix(self.0, self.1) % n as u64) as usize
    }
}

/// Shapes of `rank`: small ones, ones with dims of 1, and some near 2^31 elements.
fn shapes(rank: usize, rng: &mut Rng, vector: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for k in 0..24 {
        let max = match k % 3 {
            0 => 4,
            1 => 40,
            _ => 1 << (31 / rank),
        };
        let mut dims: Vec<usize> = (0..rank).map(|_| 1 + rng.below(max)).collect();
        if rank >= 4 {
            dims[1] = dims[1].div_ceil(vector) * vector;
        }
        if dims.iter().product::<usize>() <= MAX_ELEMENTS as usize {
            out.push(dims);
        }
    }
    // Just under the limit (C a multiple of the vector width).
    let mut near_limit = vec![1; rank];
    near_limit[0] = ((1 << 16) - 1) / vector;
    near_limit[rank - 1] = 1 << 15;
    if rank >= 4 {
        near_limit[1] = vector;
    }
    out.push(near_limit);
    out
}

/// Named layouts and generated orders of ranks 3 to 8.
fn layouts(rng: &mut Rng) -> Vec<DynLayout> {
    let mut out: Vec<DynLayout> =
        NamedLayout::ALL.iter().map(|l| DynLayout::parse(l.notation()).unwrap()).collect();
    for letters in ["BMN", "NCHW", "NCDHW", "NTCDHW", "GNTCDHW", "GNTCDHWS"] {
        for _ in 0..3 {
            let mut order: Vec<char> = letters.chars().collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let spec: String = order.into_iter().collect();
            out.push(DynLayout::parse_in(&spec, letters).unwrap());
        }
    }
    out
}

#[test]
fn our_arguments_are_what_cudnn_reads_back() {
    if !cudnn_present() {
        return;
    }
    let mut rng = Rng(1, 0);
    let (mut compared, mut mismatches, mut shapes_seen) = (0, Vec::new(), 0);
    let layouts = layouts(&mut rng);
    for layout in &layouts {
        for dims in shapes(layout.rank(), &mut rng, 1) {
            shapes_seen += 1;
            let packing = layout.shape(&dims).unwrap();
            let strides: Vec<isize> = packing.strides().iter().map(|&s| s as isize).collect();
            for data_type in DataType::ALL {
                let desc = TensorDesc::new(data_type, &dims, &strides).unwrap();
                let dims32: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
                let strides32: Vec<i32> = strides.iter().map(|&s| s as i32).collect();
                compared += 1;
                let (nd, real) =
                    match (desc.cudnn(), TensorDescriptor::set_nd(data_type as i32, &dims32, &strides32)) {
                        (Ok(nd), Ok(real)) => (nd, real),
                        (Err(_), Err(_)) => continue, // both refuse (INT64)
                        (ours, theirs) => {
                            mismatches.push(format!(
                                "{layout} {dims:?} {data_type}: ours {ours:?}, cuDNN {theirs:?}"
                            ));
                            continue;
                        }
                    };
                let (dt, got_dims, got_strides) = real.get_raw().unwrap();
                let bytes = real.size_in_bytes().unwrap();
                if (dt, &got_dims[..], &got_strides[..], bytes)
                    != (data_type as i32, nd.dims(), nd.strides(), nd.size_in_bytes())
                {
                    mismatches.push(format!(
                        "{layout} {dims:?} {data_type}: ours {:?} {:?} {} bytes, cuDNN {dt} {got_dims:?} {got_strides:?} {bytes} bytes",
                        nd.dims(),
                        nd.strides(),
                        nd.size_in_bytes()
                    ));
                }
            }
        }
    }
    println!(
        "cuDNN descriptors: {compared} compared ({} layouts, {shapes_seen} layout-shapes, {} data types), {} mismatches",
        layouts.len(),
        DataType::ALL.len(),
        mismatches.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(compared > 2000);
}

#[test]
fn cudnn_derives_the_strides_of_our_formats() {
    if !cudnn_present() {
        return;
    }
    let mut rng = Rng(2, 0);
    let mut compared = 0;
    for rank in [4, 5] {
        for format in [TensorFormat::Nchw, TensorFormat::Nhwc] {
            let layout = format.layout(rank, None).unwrap();
            assert_eq!(TensorFormat::of(&layout), Some(format));
            for dims in shapes(rank, &mut rng, 1) {
                let ours = layout.shape(&dims).unwrap();
                let dims32: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
                for data_type in [DataType::Float, DataType::Half, DataType::Int8] {
                    let real = match TensorDescriptor::with_format(format, data_type as i32, &dims32) {
                        Ok(r) => r,
                        Err(e) => panic!("{format:?} {dims:?} {data_type}: {e}"),
                    };
                    let (_, got_dims, got_strides) = real.get_raw().unwrap();
                    let want: Vec<i32> = ours.strides().iter().map(|&s| s as i32).collect();
                    assert_eq!(
                        (got_dims, got_strides),
                        (dims32.clone(), want),
                        "{layout} {dims:?} {data_type}"
                    );
                    compared += 1;
                }
            }
        }
    }
    println!("cudnnSetTensorNdDescriptorEx: {compared} format-derived stride sets equal ours");
}

#[test]
fn cudnn_refuses_what_we_refuse_at_its_limits() {
    if !cudnn_present() {
        return;
    }
    let limit = MAX_ELEMENTS as usize;
    // (dims, strides): spans at, just above and far above 2^31 elements; an int stride and dim.
    let cases: Vec<(Vec<usize>, Vec<isize>)> = vec![
        (vec![1 << 16, 1, 1 << 15], vec![1 << 15, 1, 1]),
        (vec![(1 << 16) - 1, 1, 1 << 15], vec![1 << 15, 1, 1]),
        (vec![2, 2, 2], vec![(limit / 2) as isize, 1, 1]),
        (vec![2, 2, 2], vec![(limit / 2) as isize - 1, 1, 1]),
        (vec![2, 2, 2], vec![(limit / 2) as isize - 2, 1, 1]),
        (vec![2, 3, 4], vec![i32::MAX as isize, 4, 1]),
        (vec![2, 3, 4], vec![i32::MAX as isize + 1, 4, 1]),
        (vec![i32::MAX as usize, 1, 1], vec![1, 1, 1]),
        (vec![i32::MAX as usize + 1, 1, 1], vec![1, 1, 1]),
        (vec![3, 1 << 20, 1 << 10], vec![1 << 30, 1 << 10, 1]),
        // Zero strides: refused on a dimension above 1, allowed on one of size 1.
        (vec![2, 4, 5], vec![0, 5, 1]),
        (vec![1, 4, 5], vec![0, 5, 1]),
        (vec![2, 4, 1], vec![20, 5, 0]),
    ];
    for (dims, strides) in cases {
        let ours = TensorDesc::new(DataType::Int8, &dims, &strides).unwrap().cudnn();
        let dims32: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
        let strides32: Vec<i32> = strides.iter().map(|&s| s as i32).collect();
        // Only values that fit in an int can reach cuDNN at all.
        let fits =
            dims.iter().all(|&d| d <= i32::MAX as usize) && strides.iter().all(|&s| s <= i32::MAX as isize);
        if !fits {
            assert!(ours.is_err(), "{dims:?} {strides:?}: does not fit in int, yet accepted");
            continue;
        }
        let theirs = TensorDescriptor::set_nd(DataType::Int8 as i32, &dims32, &strides32);
        println!(
            "{dims:?} {strides:?}: ours {:?}, cuDNN {:?}",
            ours.as_ref().map(|_| "ok"),
            theirs.as_ref().map(|_| "ok")
        );
        assert_eq!(ours.is_ok(), theirs.is_ok(), "{dims:?} {strides:?}: ours {ours:?}, cuDNN {theirs:?}");
    }
    // A negative stride: cuDNN's descriptor holds it, but its routines do not support it (the
    // guide), so typed-layout refuses it.
    let mirrored = TensorDesc::new(DataType::Float, &[2, 4, 5], &[-20, 5, 1]).unwrap();
    assert!(TensorDescriptor::set_nd(0, &[2, 4, 5], &[-20, 5, 1]).is_ok());
    assert!(matches!(
        mirrored.cudnn(),
        Err(typed_layout::LayoutError::Cudnn(typed_layout::cudnn::CudnnError::Stride { stride: -20, .. }))
    ));
}

/// NC/xHWx is cuDNN's NCHW_VECT_C with a vector data type; cuDNN reports its strides in whole
/// vectors (C's stride is the distance between groups), so ours are cuDNN's times x.
#[test]
fn vect_c_strides_are_ours_in_vectors() {
    if !cudnn_present() {
        return;
    }
    let mut rng = Rng(3, 0);
    let mut compared = 0;
    for (x, data_type) in [(4, 5), (32, 8)] {
        let layout = TensorFormat::NchwVectC.layout(4, Some(x)).unwrap();
        assert_eq!(TensorFormat::of(&layout), Some(TensorFormat::NchwVectC));
        for dims in shapes(4, &mut rng, x) {
            let ours = layout.shape(&dims).unwrap();
            let dims32: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
            let real = TensorDescriptor::with_format(TensorFormat::NchwVectC, data_type, &dims32).unwrap();
            let (dt, got_dims, got_strides) = real.get_raw().unwrap();
            let scaled: Vec<usize> = got_strides.iter().map(|&s| s as usize * x).collect();
            assert_eq!((dt, got_dims, &scaled[..]), (data_type, dims32, ours.strides()), "{layout} {dims:?}");
            assert_eq!(real.size_in_bytes().unwrap(), ours.len(), "{layout} {dims:?}");
            compared += 1;
        }
    }
    println!("NCHW_VECT_C: {compared} INT8x4/INT8x32 descriptors match NC/4HW4 and NC/32HW32");
}
