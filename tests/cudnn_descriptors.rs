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
use typed_layout::conv::{Conv, ConvError, FilterOf};
use typed_layout::cudnn::{CudnnError, DescriptorType, TensorFormat, MAX_ELEMENTS};
use typed_layout::gpu::cudnn::{self, forward_output_dims, FilterDescriptor, TensorDescriptor};
use typed_layout::{
    DataType, DynLayout, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout, LayoutError, NamedLayout, Ncdhw, Nchw,
    NcxHwx, Ndhwc, Nhwc, Shape, TensorDesc,
};

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

/// Layouts for descriptors by format: every one cuDNN names (tensors and filters, 4-D and 5-D,
/// vectors of 4 and 32) and some it does not.
const FORMAT_LAYOUTS: [&str; 20] = [
    "NCHW",
    "NHWC",
    "NCDHW",
    "NDHWC",
    "NC/4HW4",
    "NC/32HW32",
    "NC/4DHW4",
    "NC/32DHW32",
    "CHWN",
    "NHWC, WC-packed",
    "KCRS",
    "KRSC",
    "KCDRS",
    "KDRSC",
    "KC/4RS4",
    "KC/32RS32",
    "KC/4DRS4",
    "KC/32DRS32",
    "RSCK",
    "CKRS",
];

/// `DynLayout::cudnn_format` against `cudnnSetTensorNdDescriptorEx` / `cudnnSetFilterNdDescriptor`
/// and their getters, for every layout above, every data type and many shapes (C a multiple of
/// 4, of 32, or anything): both accept and agree on data type, format, dims, strides and bytes,
/// or both refuse. Two documented exceptions, where cuDNN accepts what the guide forbids and we
/// refuse: a scalar data type in NCHW_VECT_C, and a vectorized filter whose C is not a multiple
/// of x (cuDNN truncates C).
#[test]
fn formats_and_filters_agree_with_cudnn() {
    if !cudnn_present() {
        return;
    }
    let mut rng = Rng(4, 0);
    let (mut accepted, mut refused, mut unnamed, mut mismatches) = (0, 0, 0, Vec::new());
    let (mut scalar_vectors, mut truncated) = (0, 0);
    for spec in FORMAT_LAYOUTS {
        let layout = DynLayout::parse(spec).unwrap();
        let filter = layout.letters().starts_with('K');
        let x = layout.format().vector().map_or(1, |v| v.width);
        let Some(format) = TensorFormat::of(&layout) else {
            for data_type in DataType::ALL {
                let ours = layout.cudnn_format(data_type, &vec![2; layout.rank()]);
                assert!(
                    matches!(ours, Err(LayoutError::Cudnn(CudnnError::NoFormat { .. }))),
                    "{spec}: {ours:?}"
                );
                unnamed += 1;
            }
            continue;
        };
        let mut all_shapes = shapes(layout.rank(), &mut rng, x);
        all_shapes.extend(shapes(layout.rank(), &mut rng, 1));
        all_shapes.extend(shapes(layout.rank(), &mut rng, 4));
        for dims in all_shapes {
            let dims32: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
            for data_type in DataType::ALL {
                let ours = layout.cudnn_format(data_type, &dims);
                // The type cuDNN is asked for: ours, or the scalar type when we name none.
                let asked = DescriptorType::for_layout(data_type, x).map_or(data_type as i32, |t| t.value());
                // cuDNN's answer, as (data type, format, dims, strides, bytes); a filter has no
                // strides and a tensor reports no format.
                let theirs = if filter {
                    FilterDescriptor::set_nd(asked, format, &dims32).and_then(|d| {
                        let (dt, f, got) = d.get_raw()?;
                        Ok((dt, f, got, None, d.size_in_bytes()?))
                    })
                } else {
                    TensorDescriptor::with_format(format, asked, &dims32).and_then(|d| {
                        let (dt, got, strides) = d.get_raw()?;
                        Ok((dt, format as i32, got, Some(strides), d.size_in_bytes()?))
                    })
                };
                match (&ours, &theirs) {
                    (Ok(a), Ok(t)) => {
                        let strides = (!filter).then(|| a.strides().to_vec());
                        let want = (
                            a.data_type().value(),
                            a.format() as i32,
                            a.dims().to_vec(),
                            strides,
                            a.size_in_bytes(),
                        );
                        if *t != want {
                            mismatches
                                .push(format!("{spec} {dims:?} {data_type}: ours {want:?}, cuDNN {t:?}"));
                        }
                        accepted += 1;
                    }
                    (Err(_), Err(_)) => refused += 1,
                    (Err(LayoutError::Cudnn(CudnnError::VectorType { .. })), Ok(_)) => scalar_vectors += 1,
                    (Err(LayoutError::NotMultipleOfVector { .. }), Ok(_)) if filter => truncated += 1,
                    _ => mismatches
                        .push(format!("{spec} {dims:?} {data_type}: ours {ours:?}, cuDNN {theirs:?}")),
                }
            }
        }
    }
    println!(
        "descriptors by format: {accepted} accepted by both with equal arguments, {refused} refused by both, \
         {unnamed} layouts × types no format names; cuDNN accepts and the guide forbids: {scalar_vectors} scalar \
         types in NCHW_VECT_C, {truncated} vectorized filters with C not a multiple of x; {} mismatches",
        mismatches.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(accepted > 1000 && refused > 100 && scalar_vectors > 0 && truncated > 0);
}

/// `Conv::output_dims` against `cudnnGetConvolutionNdForwardOutputDim` for random grouped,
/// padded, strided and dilated convolutions over every paired layout; where `Conv` refuses the
/// parameters, cuDNN's answer is printed by kind.
#[test]
fn convolution_output_dims_agree_with_cudnn() {
    if !cudnn_present() {
        return;
    }
    let mut rng = Rng(5, 0);
    let mut seen = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut compared = 0;
    for _ in 0..300 {
        compared += check_conv::<Nchw, Kcrs>(&mut rng, DataType::Float, 1, &mut seen);
        compared += check_conv::<Nhwc, Krsc>(&mut rng, DataType::Half, 1, &mut seen);
        compared += check_conv::<NcxHwx<4>, KcxRsx<4>>(&mut rng, DataType::Int8, 4, &mut seen);
        compared += check_conv::<NcxHwx<32>, KcxRsx<32>>(&mut rng, DataType::Int8, 32, &mut seen);
        compared += check_conv::<Ncdhw, Kcdrs>(&mut rng, DataType::Float, 1, &mut seen);
        compared += check_conv::<Ndhwc, Kdrsc>(&mut rng, DataType::Float, 1, &mut seen);
    }
    println!("convolution output dims: {compared} equal to cuDNN's; refused by Conv (kind: cuDNN refused, accepted): {seen:?}");
    assert!(compared > 600);
    // C ≠ G × (C/G): cuDNN refuses every one too. K not a multiple of G: cuDNN's output-dim
    // query does not check it (its convolutions do), so both verdicts appear.
    assert_eq!(seen.get("Groups").map(|v| v.1), Some(0), "{seen:?}");
}

/// One random convolution over `I`: 1 when its output dims were compared, 0 when `Conv` refused
/// it (then counted in `seen` by error kind and cuDNN's verdict).
fn check_conv<I, F>(
    rng: &mut Rng,
    data_type: DataType,
    x: usize,
    seen: &mut std::collections::BTreeMap<String, (usize, usize)>,
) -> usize
where
    I: Layout,
    I::Family: typed_layout::ConvInput,
    F: FilterOf<I>,
{
    let rank = I::LETTERS.len();
    let groups = [1, 1, 2, 4][rng.below(4)];
    let per_group = x * (1 + rng.below(3));
    let k = groups * (1 + rng.below(4)) + usize::from(rng.below(8) == 0); // sometimes not a multiple of G
    let mut input = vec![1 + rng.below(3), groups * per_group];
    let mut filter = vec![k, per_group + if rng.below(10) == 0 { x } else { 0 }]; // sometimes C ≠ G × C/G
    let (mut pad, mut stride, mut dilation) = (vec![], vec![], vec![]);
    for _ in 2..rank {
        input.push(1 + rng.below(12));
        filter.push(1 + rng.below(5));
        pad.push(rng.below(3));
        stride.push(1 + rng.below(3));
        dilation.push(1 + rng.below(2));
    }
    let (Ok(xs), Ok(ws)) = (Shape::<I>::from_slice(&input), Shape::<F>::from_slice(&filter)) else {
        return 0;
    };
    let conv =
        Conv::builder(&xs, &ws).groups(groups).padding(&pad).stride(&stride).dilation(&dilation).build();
    match conv {
        Ok(conv) => {
            let theirs = forward_output_dims(&conv, data_type).unwrap();
            let ours: Vec<i32> = conv.output_dims().as_ref().iter().map(|&d| d as i32).collect();
            assert_eq!(
                ours,
                theirs,
                "{} {input:?} {filter:?} G {groups} pad {pad:?} stride {stride:?} dilation {dilation:?}",
                I::NOTATION
            );
            1
        }
        Err(e) => {
            let kind = format!("{e:?}").split([' ', '(', '{']).nth(1).unwrap_or("").to_string();
            // cuDNN's verdict on the same parameters, through an unchecked convolution.
            let verdict = typed_layout::gpu::cudnn::forward_output_dims_unchecked::<I, F>(
                &input, &filter, groups, &pad, &stride, &dilation, data_type,
            );
            // Where cuDNN answers a window we refuse, its answer has no output position.
            if let (LayoutError::Conv(ConvError::Window { .. }), Ok(dims)) = (&e, &verdict) {
                assert!(dims[2..].iter().any(|&d| d < 1), "{} {input:?} {filter:?} pad {pad:?} stride {stride:?} dilation {dilation:?}: {e}; cuDNN gives {dims:?}", I::NOTATION);
            }
            let entry = seen.entry(kind).or_default();
            match verdict {
                Ok(_) => entry.1 += 1,
                Err(_) => entry.0 += 1,
            }
            0
        }
    }
}
