//! Conversion paths the integration tests cannot single out.

use super::*;
use crate::{Chwn, Image, Nchw, NcxHwx, Nhwc, StridedView, Tensor};

#[test]
fn widths_that_do_not_nest_take_the_per_element_path() {
    let a = Tensor::<i32, NcxHwx<3>>::from_fn([2, 12, 3, 2], |[n, c, h, w]| {
        (n * 1000 + c * 100 + h * 10 + w) as i32
    })
    .unwrap();
    let b: Tensor<i32, NcxHwx<4>> = a.to_layout().unwrap();
    let c: Tensor<i32, Chwn> = b.to_layout().unwrap();
    for n in 0..2 {
        for ch in 0..12 {
            for h in 0..3 {
                for w in 0..2 {
                    let v = (n * 1000 + ch * 100 + h * 10 + w) as i32;
                    assert_eq!(b.get([n, ch, h, w]), Some(&v));
                    assert_eq!(c.get([n, ch, h, w]), Some(&v));
                }
            }
        }
    }
}

#[test]
fn mismatched_dims_are_an_error_and_leave_the_output_alone() {
    let a = Tensor::<u8, Nchw>::filled([1, 2, 3, 4], 7).unwrap();
    let mut b = Tensor::<u8, Nhwc>::filled([1, 2, 4, 3], 9).unwrap();
    assert!(matches!(convert(&a, &mut b), Err(LayoutError::ShapeMismatch { .. })));
    assert!(b.as_slice().iter().all(|&v| v == 9));
}

#[test]
fn negative_strides_mirror() {
    let data: Vec<i8> = (0..6).collect();
    // W mirrored: read each row backwards.
    let v = StridedView::<i8, Image>::new([1, 1, 2, 3], [6, 6, 3, -1], 2, &data).unwrap();
    let t: Tensor<i8, Nchw> = v.to_layout().unwrap();
    assert_eq!(t.as_slice(), &[2, 1, 0, 5, 4, 3]);
}

/// A new tensor from `to_layout` is written by the conversion alone, into room no value was
/// stored in first. In this crate's tests that room starts as a sentinel byte (0xA5 in every
/// byte, `platform::out::sentinel`; under Miri it stays uninitialized, and Miri flags a read of
/// it), which no element below equals: every path (narrow planes,
/// blocks, strips, tall strips, staged tiles and panels, streamed and rayon-split planes, the
/// per-element walk, runtime tensors) must write each element, or the sentinel shows.
mod fresh {
    use crate::cast::{relayout_cast_pad, ChannelPadded, Unscaled};
    #[cfg(not(miri))]
    use crate::platform::out::sentinel;
    use crate::{
        Bmn, ColMajor, DataType, DynLayout, DynTensor, Element, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor,
        Tensor,
    };

    /// An element from a small number (below 100: never the sentinel's bytes for any type).
    fn value<T: Element>(v: usize) -> T {
        T::from_f64((v % 97) as f64)
    }

    /// A logical index's number, the same for every layout.
    fn id(index: &[usize], dims: &[usize]) -> usize {
        index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i) * 7 + 3
    }

    macro_rules! check {
        ($t:ty, $from:ty => $to:ty, $dims:expr) => {{
            let dims = $dims;
            let x = Tensor::<$t, $from>::from_fn(dims, |i| value(id(&i, &dims))).unwrap();
            let y: Tensor<$t, $to> = x.to_layout().unwrap();
            let expected = Tensor::<$t, $to>::from_fn(dims, |i| value(id(&i, &dims))).unwrap();
            let bytes = |t: &Tensor<$t, $to>| bytemuck::cast_slice::<_, u8>(t.as_slice()).to_vec();
            assert_eq!(bytes(&y), bytes(&expected), "{} {dims:?}", stringify!($t $from => $to));
        }};
    }

    #[test]
    #[cfg(not(miri))] // Miri runs without the sentinel: it sees unwritten elements itself
    fn the_sentinel_is_no_element() {
        for v in 0..97 {
            assert_ne!(value::<u8>(v), sentinel::BYTE);
            assert_ne!(value::<i8>(v), sentinel::BYTE as i8);
            assert_ne!(value::<half::f16>(v).to_bits(), u16::from_ne_bytes([sentinel::BYTE; 2]));
            assert_ne!(value::<f32>(v).to_bits(), u32::from_ne_bytes([sentinel::BYTE; 4]));
            assert_ne!(value::<f64>(v).to_bits(), u64::from_ne_bytes([sentinel::BYTE; 8]));
        }
    }

    #[test]
    fn small_and_odd_planes() {
        check!(f32, Nchw => Nhwc, [2, 5, 3, 7]);
        check!(u8, Nhwc => Nchw, [2, 5, 3, 7]);
        // Pixels of a few channels into planes: blocks of 64 pixels, then the rest.
        check!(u8, Nhwc => Nchw, [2, 3, 17, 19]);
        check!(f32, Nhwc => Nchw, [1, 3, 9, 30]);
        check!(half::f16, Nhwc => Nchw, [1, 7, 10, 13]);
        check!(i8, Nhwc => Nchw, [1, 2, 33, 3]);
        check!(half::f16, Nchw => Nhwc, [1, 3, 17, 19]); // RGB through the byte shuffle
        check!(u8, Nchw => Nhwc, [1, 3, 17, 19]);
        check!(f64, Nchw => Nhwc, [1, 9, 11, 13]);
        check!(i32, NcxHwx<3> => NcxHwx<4>, [2, 12, 3, 2]); // the per-element walk
        check!(i8, Nchw => NcxHwx<32>, [1, 64, 9, 11]);
    }

    #[test]
    fn planes_with_strips_in_cache_and_split_across_threads() {
        check!(f32, Nchw => Nhwc, [1, 64, 64, 64]); // 1 MiB
        check!(f32, Nhwc => Nchw, [1, 64, 64, 65]);
        check!(half::f16, Nchw => Nhwc, [2, 16, 64, 63]);
        check!(i8, Nchw => NcxHwx<32>, [1, 64, 64, 64]); // tall strips
        check!(u8, Bmn<RowMajor> => Bmn<ColMajor>, [1, 1024, 1024]); // whole-row bands
        check!(f32, Bmn<RowMajor> => Bmn<ColMajor>, [1, 520, 512]); // the same, one task a thread
        check!(f32, Nchw => Nhwc, [1, 48, 64, 65]); // whole-row bands of three strips, one call a tile
        check!(u8, Nchw => Nhwc, [1, 96, 64, 63]); // the same, bytes, ragged
        check!(f32, Ncdhw => Ndhwc, [1, 32, 8, 16, 16]);
    }

    #[test]
    fn streamed_planes() {
        check!(f32, Nchw => Nhwc, [1, 64, 128, 129]); // past the streaming threshold
        check!(u8, Nhwc => Nchw, [1, 64, 256, 257]); // staged tiles
        check!(half::f16, Nchw => Nhwc, [1, 32, 256, 257]); // rows of a whole line, streamed strips
        check!(u8, Nchw => Nhwc, [1, 64, 256, 257]); // the same, bytes
        check!(f32, Nchw => Nhwc, [1, 8, 512, 257]); // panels of rows that share lines
        check!(f32, Nchw => Nhwc, [1, 40, 128, 211]); // panels of rows of 2.5 lines
        check!(half::f16, Nchw => Nhwc, [1, 64, 250, 263]); // whole-line rows, a ragged last strip
        check!(f32, Bmn<RowMajor> => Bmn<ColMajor>, [1, 1024, 1031]);
    }

    /// The fused relayout + cast + pad writes its new storage once too, padding included.
    macro_rules! check_fused {
        ($t:ty => $u:ty, $from:ty => $to:ty, $dims:expr, $multiple:expr) => {{
            let dims = $dims;
            let x = Tensor::<$t, $from>::from_fn(dims, |i| value(id(&i, &dims))).unwrap();
            let y: ChannelPadded<$u, $to> = relayout_cast_pad(&x, $multiple, Unscaled).unwrap();
            let padded = y.tensor().dims();
            let expected = Tensor::<$u, $to>::from_fn(padded, |i| match i[1] < dims[1] {
                true => value(id(&i, &dims)),
                false => <$u>::default(),
            })
            .unwrap();
            let bytes = |t: &Tensor<$u, $to>| bytemuck::cast_slice::<_, u8>(t.as_slice()).to_vec();
            let what = stringify!($t => $u, $from => $to);
            assert_eq!(bytes(y.tensor()), bytes(&expected), "{what} {dims:?}");
        }};
    }

    #[test]
    fn fused_passes() {
        check_fused!(f32 => half::f16, Nchw => Nhwc, [2, 3, 9, 11], 8); // blocked pixels
        check_fused!(f32 => half::f16, Nchw => Nhwc, [1, 3, 512, 512], 8); // streamed, split
        check_fused!(u8 => f32, Nchw => Nhwc, [1, 5, 7, 9], 4);
        // Byte images through the tables (4096 pixels and more): words of halves (widened where
        // the CPU has AVX-512) and of floats, looked-up values of other widths.
        check_fused!(u8 => half::f16, Nchw => Nhwc, [1, 3, 65, 129], 4);
        check_fused!(i8 => half::bf16, Nchw => Nhwc, [1, 2, 64, 65], 8);
        check_fused!(u8 => f32, Nchw => Nhwc, [1, 3, 65, 67], 4);
        check_fused!(u8 => f64, Nchw => Nhwc, [1, 4, 65, 64], 5);
        check_fused!(f32 => i8, Nchw => NcxHwx<32>, [1, 40, 5, 7], 1); // the general loop
        check_fused!(f32 => i8, Nchw => NcxHwx<32>, [2, 40, 64, 64], 1); // split across threads
        check_fused!(f32 => f32, Nhwc => Nchw, [1, 3, 5, 6], 2);
    }

    #[test]
    fn runtime_tensors() {
        let (nchw, nhwc) = (DynLayout::parse("NCHW").unwrap(), DynLayout::parse("NHWC").unwrap());
        let typed = Tensor::<f32, Nchw>::from_fn([1, 8, 5, 6], |i| value(id(&i, &[1, 8, 5, 6]))).unwrap();
        let x = DynTensor::from(typed.clone());
        assert_eq!(x.layout(), nchw);
        let y = x.to_layout(nhwc).unwrap();
        assert_eq!(y.data_type(), DataType::Float);
        let expected: Tensor<f32, Nhwc> =
            Tensor::from_fn([1, 8, 5, 6], |i| value(id(&i, &[1, 8, 5, 6]))).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), expected.as_slice());
        // The fused pass of runtime tensors: f32 C = 8 into f16 NC/32HW32, C padded to 32.
        let z =
            x.relayout_cast_pad(DataType::Half, DynLayout::parse("NC/32HW32").unwrap(), 1, Unscaled).unwrap();
        let expected = Tensor::<half::f16, NcxHwx<32>>::from_fn([1, 32, 5, 6], |i| match i[1] < 8 {
            true => value(id(&i, &[1, 8, 5, 6])),
            false => half::f16::ZERO,
        })
        .unwrap();
        assert_eq!(z.as_slice::<half::f16>().unwrap(), expected.as_slice());
        // Runtime tensors from bytes: packed, and every other column of a wider image, at an
        // aligned and an unaligned start.
        let bytes: &[u8] = bytemuck::cast_slice(typed.as_slice());
        assert_eq!(DynTensor::from_bytes(DataType::Float, nchw, &[1, 8, 5, 6], bytes).unwrap(), x);
        let mut odd = vec![0u8; 1]; // the same bytes one past an aligned start
        odd.extend_from_slice(bytes);
        assert_eq!(DynTensor::from_bytes(DataType::Float, nchw, &[1, 8, 5, 6], &odd[1..]).unwrap(), x);
        let wide = Tensor::<f32, Nchw>::from_fn([1, 8, 5, 12], |[n, c, h, w]| match w % 2 {
            0 => value(id(&[n, c, h, w / 2], &[1, 8, 5, 6])),
            _ => -1.0,
        })
        .unwrap();
        let aligned: &[u8] = bytemuck::cast_slice(wide.as_slice());
        let mut shifted = vec![0u8; 1]; // the same bytes one past an aligned start
        shifted.extend_from_slice(aligned);
        for bytes in [aligned, &shifted[1..]] {
            let strides = [480, 60, 12, 2];
            let t =
                DynTensor::from_strided_bytes(DataType::Float, nchw, &[1, 8, 5, 6], &strides, bytes).unwrap();
            assert_eq!(t, x);
        }
    }
}
