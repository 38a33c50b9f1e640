//! Each class of bad input gets an error value that names its rule; nothing panics and no
//! output is touched.

use typed_layout::cudnn::CudnnError;
use typed_layout::{
    convert, DataType, DimName, Format, Image, LayoutError, Matmul, Nchw, NcxHwx, Nhwc, NotationErrorKind,
    Overlap, Shape, StridedView, StridedViewMut, Tensor, TensorDesc, TensorView, TensorViewMut,
};

#[test]
fn rank_outside_3_to_8() {
    for dims in [&[4usize, 4][..], &[1; 9][..], &[][..]] {
        let strides = vec![1isize; dims.len()];
        let e = TensorDesc::new(DataType::Float, dims, &strides).unwrap_err();
        assert_eq!(e, LayoutError::RankOutOfRange { rank: dims.len() });
        assert!(e.to_string().contains("from 3 to 8 dimensions"));
    }
}

#[test]
fn zero_dim_names_the_letter() {
    let e = Tensor::<f32, Nhwc>::zeros([2, 3, 0, 4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dimension H (logical index 2) is 0: every dimension of a tensor must be at least 1"
    );
    let e = TensorDesc::new(DataType::Float, &[2, 3, 4, 0, 1], &[1, 1, 1, 1, 1]).unwrap_err();
    assert!(e.to_string().starts_with("dimension H (logical index 3) is 0"));
}

#[test]
fn overflowing_sizes() {
    let e = Shape::<Nchw>::new([usize::MAX, 2, 1, 1]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { .. }), "{e}");
    let e = Tensor::<f64, Nchw>::zeros([1 << 20, 1 << 20, 1 << 20, 1]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { .. }), "{e}");
    // Element count fits in isize, bytes do not: the error names the outermost letter reached.
    let e = Tensor::<f64, Nchw>::zeros([1 << 31, 1 << 30, 1, 1]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { dim: DimName { letter: Some('N'), .. } }), "{e}");
    let e = Tensor::<f64, Nhwc>::zeros([1, 1 << 20, 1 << 20, 1 << 20]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { dim: DimName { letter: Some('H'), .. } }), "{e}");
    let e = TensorDesc::new(DataType::Float, &[2, 2, 2], &[isize::MAX, 1, 1]).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { .. }), "{e}");
}

#[test]
fn wrong_buffer_length() {
    let e = Tensor::<u8, Nchw>::from_vec([1, 2, 3, 4], vec![0; 23]).unwrap_err();
    assert_eq!(e, LayoutError::BufferLength { expected: 24, found: 23 });
    assert!(TensorView::<u8, Nchw>::new([1, 2, 3, 4], &[0; 25]).is_err());
    assert!(TensorViewMut::<u8, Nchw>::new([1, 2, 3, 4], &mut [0; 25]).is_err());
    let e = StridedView::<u8, Matmul>::new([2, 2, 2], [4, 2, 1], 4, &[0; 10]).unwrap_err();
    assert!(matches!(e, LayoutError::OutOfBounds { lowest: 4, highest: 11, len: 10 }), "{e}");
    let e = StridedView::<u8, Matmul>::new([2, 2, 2], [-4, 2, 1], 0, &[0; 10]).unwrap_err();
    assert!(matches!(e, LayoutError::OutOfBounds { lowest: -4, .. }), "{e}");
}

#[test]
fn overlapping_output_is_refused() {
    let mut buf = vec![0i32; 32];
    let e = StridedViewMut::<i32, Image>::new([1, 4, 2, 2], [16, 1, 2, 1], 0, &mut buf).unwrap_err();
    assert_eq!(e, LayoutError::OverlappingOutput { verdict: Overlap::Overlapping });
    // Broadcast (stride 0) output.
    let e = StridedViewMut::<i32, Image>::new([2, 4, 2, 2], [0, 4, 2, 1], 0, &mut buf).unwrap_err();
    assert!(matches!(e, LayoutError::OverlappingOutput { .. }));
    assert!(buf.iter().all(|&v| v == 0));
}

#[test]
fn cannot_tell_output_is_refused_too() {
    // Three interleaved axes, 2^21 elements: beyond the overlap analysis until its exact search,
    // which finds the collision 2·10000 - 3·10001 + 1·10003 = 0.
    let mut buf = vec![0u8; 128 * 10003 * 3];
    let e =
        StridedViewMut::<u8, Matmul>::new([128, 128, 128], [10000, 10001, 10003], 0, &mut buf).unwrap_err();
    assert_eq!(e, LayoutError::OverlappingOutput { verdict: Overlap::Overlapping });
    // What the search cannot settle spans more memory than this test can allocate (the
    // `predicates::SEARCH_BUDGET` example spans terabytes); views refuse every verdict but
    // `Disjoint` alike, and this one has its own message.
    assert!(Overlap::CannotTell.may_overlap());
    let e = LayoutError::OverlappingOutput { verdict: Overlap::CannotTell };
    assert!(e.to_string().contains("cannot prove"));
}

#[test]
fn c_not_a_multiple_of_x() {
    let e = Tensor::<i8, NcxHwx<32>>::zeros([1, 48, 5, 4]).unwrap_err();
    assert!(matches!(e, LayoutError::NotMultipleOfVector { size: 48, width: 32, .. }));
    assert!(e.to_string().contains("C must be a multiple of x"));
    // Converting into it fails before anything is written.
    let src = Tensor::<i8, Nchw>::zeros([1, 48, 5, 4]).unwrap();
    assert!(src.to_layout::<NcxHwx<32>>().is_err());
}

#[test]
fn mismatched_shapes_in_a_conversion() {
    let src = Tensor::<f32, Nchw>::filled([1, 2, 3, 4], 1.0).unwrap();
    let mut dst = Tensor::<f32, Nhwc>::filled([1, 2, 4, 3], 5.0).unwrap();
    let e = convert(&src, &mut dst).unwrap_err();
    assert_eq!(e.to_string(), "dimension H (logical index 2) is 3 in the source but 4 in the destination: a conversion keeps the logical shape");
    assert!(dst.as_slice().iter().all(|&v| v == 5.0));
}

#[test]
fn unknown_notation() {
    let cases = [
        ("NCHX", NotationErrorKind::UnknownLetter),
        ("nchw", NotationErrorKind::LowercaseLetter),
        ("NC/32HW4", NotationErrorKind::VectorSuffixMismatch),
        ("NC/0HW0", NotationErrorKind::VectorWidthZero),
        ("NCH/4W4", NotationErrorKind::GroupedNotChannel),
    ];
    for (spec, kind) in cases {
        assert_eq!(Format::parse(spec, "NCHW").unwrap_err().kind(), kind, "{spec}");
    }
    let d = TensorDesc::new(DataType::Float, &[1, 2, 3, 4], &[24, 12, 4, 1]).unwrap();
    assert!(matches!(d.fully_packed("NCHQ"), Err(LayoutError::Format(_))));
}

#[test]
fn out_of_bounds_index_is_none() {
    let t = Tensor::<u8, Nhwc>::zeros([1, 2, 3, 4]).unwrap();
    assert_eq!(t.get([0, 2, 0, 0]), None);
    let e = t.shape().offset([0, 0, 3, 0]).unwrap_err();
    assert_eq!(e.to_string(), "index 3 is out of bounds for dimension H (logical index 2) of size 3");
}

#[test]
fn negative_dims_from_cudnn_arrays() {
    let e = TensorDesc::from_cudnn(0, &[2, 3, -4, 5], &[60, 20, 5, 1]).unwrap_err();
    assert_eq!(
        e,
        LayoutError::Cudnn(CudnnError::NegativeDim {
            dim: DimName { index: 2, letter: Some('H') },
            size: -4
        })
    );
    assert!(e.to_string().contains("must be at least 1"));
    assert_eq!(
        TensorDesc::from_cudnn(99, &[2, 3, 4], &[12, 4, 1]),
        Err(LayoutError::Cudnn(CudnnError::UnknownDataType { id: 99 }))
    );
}

#[test]
fn cudnn_limits_and_strides() {
    // Negative strides: the guide's general tensor allows them, cuDNN's routines do not.
    let mirrored = TensorDesc::new(DataType::Float, &[2, 3, 4], &[-12, 4, 1]).unwrap();
    let e = mirrored.cudnn().unwrap_err();
    assert!(matches!(e, LayoutError::Cudnn(CudnnError::Stride { stride: -12, .. })), "{e}");
    // A broadcast (stride 0) dimension: cudnnSetTensorNdDescriptor refuses it.
    let broadcast = TensorDesc::new(DataType::Float, &[2, 3, 4], &[0, 4, 1]).unwrap();
    assert!(matches!(broadcast.cudnn(), Err(LayoutError::Cudnn(CudnnError::Stride { stride: 0, .. }))));
    // 2^31 elements: fine for typed-layout, over cuDNN's limit; the error names the dimension.
    let big = Shape::<Nchw>::new([1 << 16, 1, 1, 1 << 15]).unwrap();
    let e = big.cudnn(DataType::Int8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2147483648 at dimension N (logical index 0) is above 2147483647: cuDNN descriptors hold int dims and strides and span fewer than 2^31 elements"
    );
    // An int stride.
    let wide = TensorDesc::new(DataType::Int8, &[2, 1, 1, 1], &[1 << 31, 1, 1, 1]).unwrap();
    assert!(matches!(wide.cudnn(), Err(LayoutError::Cudnn(CudnnError::Limit { .. }))));
    // CUDNN_DATA_INT64 has no legacy descriptor.
    let e = Tensor::<i64, Nhwc>::zeros([1, 2, 3, 4]).unwrap().cudnn().unwrap_err();
    assert_eq!(e, LayoutError::Cudnn(CudnnError::DataType { data_type: DataType::Int64 }));
}
