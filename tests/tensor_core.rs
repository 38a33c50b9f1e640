//! The guide's Tensor Core rules: the run-time check against the rules restated here, the
//! compile-time constant equal to it, the math modes' cuDNN values, and the 1024-bit alignment of
//! every buffer typed-layout allocates.

use half::{bf16, f16};
use typed_layout::tensor_core::{DefaultMath, MathMode, TensorCoreRule, TensorCoreShape, TensorOpMath};
use typed_layout::{
    Bmn, Chwn, DataType, Element, ImageDims, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape,
    StaticShape, Tensor, VolumeDims,
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
    // A family without N and C: never channels last.
    let matmul = Shape::<Bmn<RowMajor>>::new([8, 64, 64]).unwrap().tensor_core(DataType::Half);
    assert!(matmul.breaks(TensorCoreRule::ChannelsLast) && !matmul.is_ready());
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
