//! The guide's Tensor Core rules: the run-time check against the rules restated here, the
//! compile-time constant equal to it, the math modes' cuDNN values, and the 1024-bit alignment of
//! every buffer typed-layout allocates.

use half::{bf16, f16};
use typed_layout::conv::Conv;
use typed_layout::tensor_core::{
    DefaultMath, MathMode, TensorCoreExtension, TensorCoreRule, TensorCoreShape, TensorOpMath,
};
use typed_layout::{
    Bmn, Chwn, ColMajor, DataType, Element, FilterDims, ImageDims, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout,
    MatmulDims, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape, StaticShape, Tensor, VolumeDims,
};

/// The rules as the guide words them, for an image or volume shape.
fn expected(channels_last: bool, n: usize, c: usize, data_type: DataType) -> Vec<TensorCoreRule> {
    let mut out = Vec::new();
    if !channels_last {
        out.push(TensorCoreRule::ChannelsLast);
    }
    if !c.is_multiple_of(8) {
        out.push(TensorCoreRule::ChannelsMultipleOf8);
    }
    if !n.is_multiple_of(8) {
        out.push(TensorCoreRule::BatchMultipleOf8);
    }
    if !matches!(data_type, DataType::Half | DataType::Float | DataType::Int32) {
        out.push(TensorCoreRule::DataType);
    }
    out
}

fn check_layout<L: Layout>(channels_last: bool, dims: &[usize]) {
    let shape = Shape::<L>::from_slice(dims).unwrap();
    for data_type in DataType::ALL {
        let broken: Vec<_> = shape.tensor_core(data_type).broken().collect();
        assert_eq!(
            broken,
            expected(channels_last, dims[0], dims[1], data_type),
            "{} {dims:?} {data_type}",
            L::NOTATION
        );
    }
}

#[test]
fn runtime_check_follows_the_guide() {
    for dims in [[8, 64, 7, 7], [1, 3, 224, 224], [16, 32, 1, 1], [8, 12, 5, 5], [24, 8, 3, 3]] {
        check_layout::<Nhwc>(true, &dims);
        check_layout::<Nchw>(false, &dims);
        check_layout::<Chwn>(false, &dims);
        if dims[1] % 4 == 0 {
            check_layout::<NcxHwx<4>>(false, &dims);
        }
    }
    for dims in [[8, 16, 2, 3, 4], [3, 5, 2, 2, 2]] {
        check_layout::<Ndhwc>(true, &dims);
        check_layout::<Ncdhw>(false, &dims);
    }
}

/// The rules as the guide words them for a filter: KRSC, C and K multiples of 8.
fn expected_filter(channels_last: bool, k: usize, c: usize, data_type: DataType) -> Vec<TensorCoreRule> {
    let mut out = Vec::new();
    if !channels_last {
        out.push(TensorCoreRule::ChannelsLast);
    }
    if !c.is_multiple_of(8) {
        out.push(TensorCoreRule::ChannelsMultipleOf8);
    }
    if !k.is_multiple_of(8) {
        out.push(TensorCoreRule::OutputChannelsMultipleOf8);
    }
    if !matches!(data_type, DataType::Half | DataType::Float | DataType::Int32) {
        out.push(TensorCoreRule::DataType);
    }
    out
}

fn check_filter<L: Layout>(channels_last: bool, dims: &[usize]) {
    let shape = Shape::<L>::from_slice(dims).unwrap();
    for data_type in DataType::ALL {
        let broken: Vec<_> = shape.tensor_core(data_type).broken().collect();
        let want = expected_filter(channels_last, dims[0], dims[1], data_type);
        assert_eq!(broken, want, "{} {dims:?} {data_type}", L::NOTATION);
    }
}

/// A filter is judged as a filter (its K is not a batch), a matrix operand by the dims the
/// product tiles (its N is not a batch, it has no channels).
#[test]
fn each_role_has_its_rules() {
    for dims in [[64, 32, 3, 3], [64, 3, 7, 7], [12, 16, 1, 1], [3, 5, 3, 3], [32, 64, 5, 5]] {
        check_filter::<Krsc>(true, &dims);
        check_filter::<Kcrs>(false, &dims);
        if dims[1] % 32 == 0 {
            check_filter::<KcxRsx<32>>(false, &dims);
        }
    }
    for dims in [[16, 8, 3, 3, 3], [5, 12, 1, 3, 3]] {
        check_filter::<Kdrsc>(true, &dims);
        check_filter::<Kcdrs>(false, &dims);
    }
    for (b, m, n) in [(1, 64, 64), (3, 64, 8), (8, 12, 64), (2, 64, 20), (5, 7, 9)] {
        for data_type in DataType::ALL {
            let mut want = Vec::new();
            if !(m % 8 == 0 && n % 8 == 0) {
                want.push(TensorCoreRule::MatrixMultipleOf8);
            }
            if !matches!(data_type, DataType::Half | DataType::Float | DataType::Int32) {
                want.push(TensorCoreRule::DataType);
            }
            for check in [
                Shape::<Bmn<RowMajor>>::new([b, m, n]).unwrap().tensor_core(data_type),
                Shape::<Bmn<ColMajor>>::new([b, m, n]).unwrap().tensor_core(data_type),
            ] {
                assert_eq!(check.broken().collect::<Vec<_>>(), want, "[{b}, {m}, {n}] {data_type}");
            }
        }
    }
}

/// The sourced extensions: reported beside the guide's rules, never changing `is_ready`.
#[test]
fn extensions_are_reported_beside_the_guide() {
    let int8 = TensorCoreExtension::Int8MultipleOf16;
    let tf32 = TensorCoreExtension::Tf32MultipleOf4;
    let ext =
        |check: typed_layout::tensor_core::TensorCoreCheck| check.extensions_broken().collect::<Vec<_>>();
    let x = |c: usize| Shape::<Nhwc>::new([8, c, 7, 7]).unwrap();
    assert_eq!(ext(x(24).tensor_core(DataType::Int8)), [int8]);
    assert_eq!(ext(x(32).tensor_core(DataType::Uint8)), []);
    assert_eq!(ext(x(12).tensor_core(DataType::Float)), []); // 12 = 3 × 4
    assert_eq!(ext(x(6).tensor_core(DataType::Float)), [tf32]);
    assert_eq!(ext(x(6).tensor_core(DataType::Half)), []);
    // INT8x32 meets the INT8 multiple by its layout; the guide's rules still reject int8 data.
    let q = Shape::<NcxHwx<32>>::new([8, 64, 7, 7]).unwrap().tensor_core(DataType::Int8);
    assert!(ext(q).is_empty() && q.breaks(TensorCoreRule::DataType) && !q.is_ready());
    // A filter: K and C both.
    let w = Shape::<Krsc>::new([24, 32, 3, 3]).unwrap().tensor_core(DataType::Int8);
    assert_eq!(ext(w), [int8]);
    let m = Shape::<Bmn<RowMajor>>::new([1, 64, 40]).unwrap().tensor_core(DataType::Float);
    assert!(m.is_ready() && ext(m).is_empty());
    // An extension alone does not make a tensor unready, and shows in the answer.
    let c24 = x(24).tensor_core(DataType::Float);
    assert!(c24.is_ready());
    let i = x(24).tensor_core(DataType::Int32);
    assert!(i.is_ready() && ext(i).is_empty());
    // int8 in a layout cuDNN's int8 Tensor Core convolutions do not take.
    let layout = TensorCoreExtension::Int8Layout;
    let nchw = Shape::<Nchw>::new([8, 32, 7, 7]).unwrap();
    assert_eq!(ext(nchw.tensor_core(DataType::Int8)), [layout]);
    let x4 = Shape::<NcxHwx<4>>::new([8, 32, 7, 7]).unwrap();
    assert_eq!(ext(x4.tensor_core(DataType::Int8)), [layout]);
    let u8x32 = Shape::<NcxHwx<32>>::new([8, 64, 7, 7]).unwrap();
    assert_eq!(ext(u8x32.tensor_core(DataType::Uint8)), [layout]); // no UINT8x32
    let wq = Shape::<KcxRsx<32>>::new([32, 64, 3, 3]).unwrap().tensor_core(DataType::Int8);
    assert!(ext(wq).is_empty());
    let shown = Shape::<Nhwc>::new([8, 8, 7, 7]).unwrap().tensor_core(DataType::Int8).to_string();
    assert!(shown.contains("extension (NVIDIA Deep Learning Performance Guide)"), "{shown}");
}

/// The batch rule can be set aside, and the answer says so; nothing else changes.
#[test]
fn the_batch_waiver_is_visible() {
    let one = Shape::<Nhwc>::new([1, 64, 7, 7]).unwrap().tensor_core(DataType::Half);
    assert_eq!(one.broken().collect::<Vec<_>>(), [TensorCoreRule::BatchMultipleOf8]);
    let waived = one.waive_batch();
    assert!(waived.is_ready() && waived.batch_waived() && !one.batch_waived());
    assert!(waived.to_string().ends_with("(batch rule waived)"));
    let nchw = Shape::<Nchw>::new([1, 3, 7, 7]).unwrap().tensor_core(DataType::Half).waive_batch();
    assert_eq!(
        nchw.broken().collect::<Vec<_>>(),
        [TensorCoreRule::ChannelsLast, TensorCoreRule::ChannelsMultipleOf8]
    );
    assert!(nchw.to_string().contains("(batch rule waived)"));
    // A filter has no batch rule: nothing to waive, nothing said.
    let w = Shape::<Krsc>::new([12, 8, 3, 3]).unwrap().tensor_core(DataType::Half);
    assert_eq!(w.waive_batch(), w);
    assert!(!w.waive_batch().to_string().contains("waived"));
}

/// A whole convolution: each tensor's answer is its shape's own check, for its role.
#[test]
fn a_convolution_answers_for_each_tensor() {
    let x = Shape::<Nchw>::new([1, 3, 32, 32]).unwrap();
    let w = Shape::<Kcrs>::new([12, 3, 3, 3]).unwrap();
    let conv = Conv::builder(&x, &w).padding(&[1, 1]).build().unwrap();
    let advice = conv.tensor_core(DataType::Half);
    assert_eq!(advice.input, x.tensor_core(DataType::Half));
    assert_eq!(advice.filter, w.tensor_core(DataType::Half));
    assert_eq!(advice.output, Shape::<Nchw>::new([1, 12, 32, 32]).unwrap().tensor_core(DataType::Half));
    assert!(advice.filter.breaks(TensorCoreRule::OutputChannelsMultipleOf8)); // K = 12
    assert!(!advice.filter.breaks(TensorCoreRule::BatchMultipleOf8));
    let text = advice.to_string();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.starts_with("input: ") && text.contains("\nfilter: ") && text.contains("\noutput: "),
        "{text}"
    );
    // Following the advice: NHWC, KRSC, channels padded to 8, the batch rule waived.
    let x = Shape::<Nhwc>::new([1, 8, 32, 32]).unwrap();
    let w = Shape::<Krsc>::new([16, 8, 3, 3]).unwrap();
    let ready = Conv::new(&x, &w).unwrap().tensor_core(DataType::Half);
    assert!(!ready.is_ready() && ready.waive_batch().is_ready());
}

#[test]
fn static_check_is_the_runtime_check() {
    const NHWC: bool = StaticShape::<Nhwc, ImageDims<8, 64, 7, 7>>::tensor_core(DataType::Half).is_ready();
    const NCHW: bool = StaticShape::<Nchw, ImageDims<8, 64, 7, 7>>::tensor_core(DataType::Half).is_ready();
    const { assert!(NHWC && !NCHW) };
    let runtime = Shape::<Ndhwc>::new([8, 12, 2, 3, 4]).unwrap().tensor_core(DataType::Float);
    assert_eq!(StaticShape::<Ndhwc, VolumeDims<8, 12, 2, 3, 4>>::tensor_core(DataType::Float), runtime);
    assert_eq!(
        TensorCoreShape::<f16, Nhwc, ImageDims<8, 64, 7, 7>>::SHAPE,
        Shape::<Nhwc>::new([8, 64, 7, 7]).unwrap()
    );
    assert_eq!(TensorCoreShape::<i32, Ndhwc, VolumeDims<16, 8, 1, 2, 3>>::SHAPE.dims(), [16, 8, 1, 2, 3]);
    // Filters and matrix operands by their own rules, at compile time too.
    assert_eq!(TensorCoreShape::<f16, Krsc, FilterDims<64, 32, 3, 3>>::SHAPE.dims(), [64, 32, 3, 3]);
    assert_eq!(TensorCoreShape::<f16, Bmn<RowMajor>, MatmulDims<1, 64, 128>>::SHAPE.dims(), [1, 64, 128]);
    const FILTER: bool =
        StaticShape::<Kcrs, FilterDims<64, 32, 3, 3>>::tensor_core(DataType::Half).is_ready();
    const { assert!(!FILTER) };
}

#[test]
fn math_modes_are_cudnn_values() {
    assert_eq!((DefaultMath::CUDNN_VALUE, DefaultMath::TENSOR_CORES), (0, false));
    assert_eq!((TensorOpMath::CUDNN_VALUE, TensorOpMath::TENSOR_CORES), (1, true));
}

fn aligned<T: Element>(dims: [usize; 4]) {
    let t = Tensor::<T, Nhwc>::zeros(dims).unwrap();
    assert_eq!(t.as_slice().as_ptr() as usize % 128, 0, "{:?} {dims:?}", T::DATA_TYPE);
    assert!(!t.tensor_core().breaks(TensorCoreRule::Aligned128));
    let u: Tensor<T, Nchw> = t.to_layout().unwrap();
    assert_eq!(u.as_slice().as_ptr() as usize % 128, 0);
    assert_eq!(u.clone().into_vec().len(), dims.iter().product::<usize>());
}

#[test]
fn allocated_storage_is_1024_bit_aligned() {
    for dims in [[1, 1, 1, 1], [1, 3, 5, 7], [8, 64, 7, 7], [2, 9, 33, 1]] {
        aligned::<u8>(dims);
        aligned::<i8>(dims);
        aligned::<f16>(dims);
        aligned::<bf16>(dims);
        aligned::<f32>(dims);
        aligned::<i32>(dims);
        aligned::<f64>(dims);
        aligned::<i64>(dims);
    }
    // A caller's buffer is kept as it is (aligned by its allocator, or not), and its alignment
    // reported.
    let t = Tensor::<f16, Nhwc>::from_vec([8, 16, 1, 2], vec![f16::ZERO; 8 * 16 * 2]).unwrap();
    let address = t.as_slice().as_ptr();
    assert_eq!(t.tensor_core().breaks(TensorCoreRule::Aligned128), !(address as usize).is_multiple_of(16));
    let back = t.into_vec();
    assert_eq!(back.as_ptr(), address, "from_vec keeps the buffer");
}
