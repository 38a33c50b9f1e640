//! Relayout + cast + channel padding in one pass, checked element by element against the
//! definition: every data channel is the cast source value at the same logical index, every
//! padding channel is zero, and the padded C is the smallest multiple asked for.

use half::f16;
use typed_layout::cast::{relayout_cast_pad, relayout_cast_pad_into, Cast, CastNest, Scale, Unscaled};
use typed_layout::{
    Bmn, Element, Layout, LayoutError, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Shape, Tensor,
};

fn check<S: Element, D: Element, LS: Layout, LD: Layout, C: Cast<S, D>>(
    src: &Tensor<S, LS>,
    multiple: usize,
    cast: C,
    want_c: usize,
) where
    LD::Family: SameFamily<LS::Family>,
{
    let out = relayout_cast_pad::<_, LS, D, LD, C>(src, multiple, cast).unwrap();
    let src_c = src.shape().placement().dims()[1];
    let dims = out.tensor().shape().placement().dims().to_vec();
    assert_eq!((out.channels(), out.padded_channels(), dims[1]), (src_c, want_c, want_c));
    assert_eq!(out.tensor().as_slice().as_ptr() as usize % 128, 0, "aligned");
    expect(src, out.tensor(), cast);
}

/// [`check`] of an NCHW image into NHWC through `relayout_cast_pad_into`, into a destination
/// of C = `padded` whose every element held `sentinel` before: an element the pass leaves
/// unwritten cannot pass for a value.
fn check_into<S: Element, D: Element, C: Cast<S, D>>(
    src: &Tensor<S, Nchw>,
    padded: usize,
    cast: C,
    sentinel: D,
) {
    let [n, _, h, w] = src.shape().dims();
    let mut dst = Tensor::<D, Nhwc>::filled([n, padded, h, w], sentinel).unwrap();
    relayout_cast_pad_into(src, &mut dst, cast).unwrap();
    expect(src, &dst, cast);
}

/// Every element of `t` against the definition: the cast source value at the same logical
/// index in a data channel, zero in a padding channel.
fn expect<S: Element, D: Element, LS: Layout, LD: Layout, C: Cast<S, D>>(
    src: &Tensor<S, LS>,
    t: &Tensor<D, LD>,
    cast: C,
) where
    LD::Family: SameFamily<LS::Family>,
{
    let src_dims = src.shape().placement().dims().to_vec();
    let dims = t.shape().placement().dims().to_vec();
    let count: usize = dims.iter().product();
    let mut index = vec![0; dims.len()];
    for k in 0..count {
        let mut r = k;
        for d in (0..dims.len()).rev() {
            index[d] = r % dims[d];
            r /= dims[d];
        }
        let got = t.as_slice()[t.shape().placement().offset(&index).unwrap()];
        let want = if index[1] < src_dims[1] {
            cast.cast_at(src.as_slice()[src.shape().placement().offset(&index).unwrap()], index[1])
        } else {
            D::default()
        };
        assert_eq!(got.to_word(), want.to_word(), "{} → {} at {index:?}", LS::NOTATION, LD::NOTATION);
    }
}

#[test]
fn rgb_f32_nchw_into_f16_nhwc_padded_to_8() {
    let src = Tensor::<f32, Nchw>::from_fn([2, 3, 5, 7], |[n, c, h, w]| {
        (n * 1000 + c * 100 + h * 10 + w) as f32 / 7.0
    })
    .unwrap();
    check::<f32, f16, Nchw, Nhwc, _>(&src, 8, Unscaled, 8);
    // Spot-check the cast itself: f16's nearest value.
    let out = relayout_cast_pad::<_, Nchw, f16, Nhwc, _>(&src, 8, Unscaled).unwrap();
    assert_eq!(out.tensor().get([1, 2, 4, 6]), Some(&f16::from_f32(1246.0 / 7.0)));
    assert_eq!(out.tensor().get([1, 7, 4, 6]), Some(&f16::ZERO));
}

#[test]
fn f32_nchw_into_int8x32_with_a_scale() {
    let src = Tensor::<f32, Nchw>::from_fn([1, 40, 3, 3], |[_, c, h, w]| {
        c as f32 - 20.0 + (h * 3 + w) as f32 * 0.25
    })
    .unwrap();
    // 40 channels: padded to 64 (a multiple of 32).
    check::<f32, i8, Nchw, NcxHwx<32>, _>(&src, 1, Scale(127.0 / 22.0), 64);
    // Saturation and rounding: 22 × 127/22 = 127; a scale of 10 saturates.
    let out = relayout_cast_pad::<_, Nchw, i8, NcxHwx<32>, _>(&src, 1, Scale(10.0)).unwrap();
    assert_eq!(out.tensor().get([0, 0, 0, 0]), Some(&-128));
    assert_eq!(out.tensor().get([0, 39, 2, 2]), Some(&127));
    assert_eq!(out.tensor().get([0, 20, 0, 1]), Some(&3)); // 0.25 × 10 = 2.5 rounds away from zero
}

#[test]
fn nc4hw4_with_c_not_a_multiple_of_4_is_padded_up() {
    let src =
        Tensor::<i32, Nhwc>::from_fn([2, 6, 2, 3], |[n, c, h, w]| (n * 1000 + c * 100 + h * 10 + w) as i32)
            .unwrap();
    check::<i32, i32, Nhwc, NcxHwx<4>, _>(&src, 1, Unscaled, 8);
    check::<i32, f32, Nhwc, Nchw, _>(&src, 16, Unscaled, 16);
    let vol = Tensor::<f64, Ncdhw>::from_fn([1, 5, 2, 2, 3], |[_, c, d, h, w]| (c + d + h + w) as f64 - 2.5)
        .unwrap();
    check::<f64, half::bf16, Ncdhw, Ndhwc, _>(&vol, 8, Unscaled, 8);
    check::<f64, u8, Ncdhw, Ndhwc, _>(&vol, 1, Unscaled, 5); // negatives saturate to 0
}

#[test]
fn bad_requests_are_errors() {
    let src = Tensor::<f32, Nchw>::zeros([1, 3, 2, 2]).unwrap();
    let e = relayout_cast_pad::<_, Nchw, f16, Nhwc, _>(&src, 0, Unscaled).unwrap_err();
    assert!(matches!(e, LayoutError::NotApplicable { .. }), "{e}");
    let m = Tensor::<f32, Bmn<RowMajor>>::zeros([1, 2, 3]).unwrap();
    let e = relayout_cast_pad::<_, Bmn<RowMajor>, f16, Bmn<RowMajor>, _>(&m, 8, Unscaled).unwrap_err();
    assert!(e.to_string().contains("channel dimension C"), "{e}");
    let e = relayout_cast_pad::<_, Nchw, f16, Nhwc, _>(&src, usize::MAX, Unscaled).unwrap_err();
    assert!(matches!(e, LayoutError::SizeOverflow { .. } | LayoutError::AllocationFailed { .. }), "{e}");
}

/// A plan writes its destination's storage in order, every element: one with padded strides
/// (a partially packed layout) is refused when the plan is made, not only by the passes.
#[test]
fn a_plan_into_padded_strides_is_refused() {
    typed_layout::layout! { pub struct NhwcRows = "NHWC, WC-packed"; }
    let src = Shape::<Nchw>::new([1, 4, 2, 2]).unwrap();
    // Rows of W·C = 8 elements padded to 9: 17 elements of storage for 16.
    let dst = Shape::<NhwcRows>::with_strides([1, 4, 2, 2], [18, 1, 9, 4]).unwrap();
    let e = CastNest::new(&src, &dst).unwrap_err();
    assert!(e.to_string().contains("packed destination"), "{e}");
    assert!(CastNest::new(&src, &Shape::<NhwcRows>::new([1, 4, 2, 2]).unwrap()).is_ok());
}

#[test]
fn vectorized_sources_outer_c_and_single_elements() {
    use typed_layout::{Cdhwn, Chwn};
    let value = |[n, c, h, w]: [usize; 4]| (n * 1000 + c * 100 + h * 10 + w) as i32 - 500;
    // The source's C split into groups and lanes; the destination's too, in another width.
    let v4 = Tensor::<i32, NcxHwx<4>>::from_fn([2, 8, 3, 5], value).unwrap();
    check::<i32, f32, NcxHwx<4>, Nhwc, _>(&v4, 16, Unscaled, 16);
    check::<i32, i8, NcxHwx<4>, NcxHwx<32>, _>(&v4, 1, Scale(0.25), 32);
    let v2 = Tensor::<i32, NcxHwx<2>>::from_fn([1, 6, 2, 3], value).unwrap();
    check::<i32, i64, NcxHwx<2>, NcxHwx<8>, _>(&v2, 1, Unscaled, 8); // a partial last group
                                                                     // C outermost in the source (CHWN), and in a volume (CDHWN).
    let chwn = Tensor::<i32, Chwn>::from_fn([3, 5, 2, 4], value).unwrap();
    check::<i32, half::bf16, Chwn, NcxHwx<4>, _>(&chwn, 1, Unscaled, 8);
    check::<i32, u8, Chwn, Nchw, _>(&chwn, 7, Unscaled, 7);
    let vol =
        Tensor::<f32, Cdhwn>::from_fn([2, 3, 2, 2, 3], |[n, c, d, h, w]| (n + 2 * c + d * h + w) as f32)
            .unwrap();
    check::<f32, f16, Cdhwn, Ndhwc, _>(&vol, 4, Unscaled, 4);
    // Every dim 1: no loop is left, one element is written, then the padding.
    let one = Tensor::<f32, Nchw>::from_fn([1, 1, 1, 1], |_| 2.5).unwrap();
    check::<f32, i32, Nchw, Nhwc, _>(&one, 1, Unscaled, 1);
    check::<f32, i32, Nchw, Nhwc, _>(&one, 4, Unscaled, 4);
}

/// Above `PARALLEL_THRESHOLD_BYTES` the destination is cut into tasks along the outer loop.
#[test]
fn a_large_tensor_runs_in_parallel_and_matches() {
    let src = Tensor::<f32, Nchw>::from_fn([5, 3, 128, 160], |[n, c, h, w]| {
        ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0
    })
    .unwrap();
    assert!(src.as_slice().len() * 4 > typed_layout::PARALLEL_THRESHOLD_BYTES);
    check::<f32, f16, Nchw, Nhwc, _>(&src, 8, Unscaled, 8);
    check::<f32, i8, Nchw, NcxHwx<32>, _>(&src, 1, Scale(3.0), 32);
    // A plan of one loop is cut into tasks along that loop: W alone, then C alone.
    let row = Tensor::<f32, Nchw>::from_fn([1, 1, 1, 300_000], |[_, _, _, w]| w as f32).unwrap();
    check::<f32, f32, Nchw, Nhwc, _>(&row, 1, Unscaled, 1);
    let deep = Tensor::<f32, Nhwc>::from_fn([1, 300_000, 1, 1], |[_, c, _, _]| c as f32).unwrap();
    check::<f32, f64, Nhwc, Nchw, _>(&deep, 1, Unscaled, 300_000);
}

/// The blocked pass (C innermost in the destination, a plain C in the source): a destination
/// past the streaming threshold (4 MiB), pixels that are not adjacent in the source (CHWN), and
/// padded widths with and without a loop of their own.
#[test]
fn the_blocked_pass_streams_gathers_and_pads_like_the_definition() {
    let value = |[n, c, h, w]: [usize; 4]| ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0 - 100.0;
    let big = Tensor::<f32, Nchw>::from_fn([4, 3, 256, 320], value).unwrap();
    // The destination, f16 with C = 8: 5 MiB, past the 4 MiB from which it is streamed.
    check::<f32, f16, Nchw, Nhwc, _>(&big, 8, Unscaled, 8);
    check::<f32, half::bf16, Nchw, Nhwc, _>(&big, 4, Unscaled, 4);
    let chwn = Tensor::<f32, typed_layout::Chwn>::from_fn([5, 3, 17, 33], value).unwrap();
    check::<f32, f16, typed_layout::Chwn, Nhwc, _>(&chwn, 8, Unscaled, 8);
    let odd = Tensor::<f32, Nchw>::from_fn([3, 5, 9, 41], value).unwrap();
    check::<f32, i8, Nchw, Nhwc, _>(&odd, 6, Scale(2.0), 6);
    check::<f32, f16, Nchw, Nhwc, _>(&odd, 16, Unscaled, 16);
    // Up to four channels into 2-byte pixels of 4, 8 and 16: built as words (groups of 8
    // pixels with SSE2 on x86-64, the rest one by one), on odd rows and streamed.
    let odd_rgb = Tensor::<f32, Nchw>::from_fn([3, 3, 9, 41], value).unwrap();
    for padded in [4, 8, 16] {
        check::<f32, f16, Nchw, Nhwc, _>(&odd_rgb, padded, Unscaled, padded);
    }
    check::<f32, half::bf16, Nchw, Nhwc, _>(&big, 16, Unscaled, 16);
    // Image bytes into f16 and bf16 (the runs cast through f32), streamed.
    let rgb =
        Tensor::<u8, Nchw>::from_fn([4, 3, 256, 320], |i| (value(i) as i32).rem_euclid(256) as u8).unwrap();
    check::<u8, f16, Nchw, Nhwc, _>(&rgb, 4, Unscaled, 4);
    check::<u8, half::bf16, Nchw, Nhwc, _>(&rgb, 8, Unscaled, 8);
    let signed = Tensor::<i8, Nchw>::from_fn([3, 5, 9, 41], |i| (value(i) as i32 % 128) as i8).unwrap();
    check::<i8, f16, Nchw, Nhwc, _>(&signed, 8, Unscaled, 8);
    // Streamed straight from registers from the first pixel on a 16-byte boundary (the SIMD
    // widening of bytes, the half runs of floats), the pixels before it through the block:
    // 511 × 151 pixels of 8 bytes, so every other image starts 8 bytes off.
    let odd_images =
        Tensor::<u8, Nchw>::from_fn([8, 3, 511, 151], |i| (value(i) as i32).rem_euclid(256) as u8).unwrap();
    check::<u8, f16, Nchw, Nhwc, _>(&odd_images, 4, Unscaled, 4);
    let odd_floats = Tensor::<f32, Nchw>::from_fn([8, 3, 511, 151], value).unwrap();
    check::<f32, f16, Nchw, Nhwc, _>(&odd_floats, 4, Unscaled, 4);
    // f32 rounded into f16 (and bf16) pixels in registers, into destinations of 4 MiB and more
    // whose every element held a sentinel: pixels of 4 (every other image 8 bytes off), 8 and
    // 16 halves, two to four channels; a cast other than Unscaled (the same values through the
    // block) beside it.
    let sentinel = f16::from_bits(0x7E5A);
    for (dims, padded) in [([4, 2, 511, 257], 4), ([2, 3, 511, 257], 8), ([1, 4, 256, 513], 16)] {
        let floats = Tensor::<f32, Nchw>::from_fn(dims, value).unwrap();
        check_into::<f32, f16, _>(&floats, padded, Unscaled, sentinel);
        if padded == 4 {
            check_into::<f32, half::bf16, _>(&floats, padded, Unscaled, half::bf16::from_bits(0x7FDA));
        }
        if padded == 8 {
            check_into::<f32, f16, _>(&floats, padded, Scale(1.0), sentinel);
        }
    }
    // The same in destinations the cache holds (ordinary stores, no block), odd sizes whose
    // rows end inside a group of 8 pixels.
    for (dims, padded) in [([3, 3, 37, 41], 4), ([2, 1, 9, 13], 8), ([2, 4, 17, 23], 16)] {
        let floats = Tensor::<f32, Nchw>::from_fn(dims, value).unwrap();
        check_into::<f32, f16, _>(&floats, padded, Unscaled, sentinel);
        check_into::<f32, half::bf16, _>(&floats, padded, Unscaled, half::bf16::from_bits(0x7FDA));
    }
}

/// Pixels of 2 to 7 values that are not 2-byte words go through the platform's groups after
/// the padding's runs are zeroed: f32 quantized into i8 with C = 4 (a destination of 4 MiB and
/// more, streamed, every other image 4 bytes off a line, and one the cache holds), f32 and f64
/// into every count from 2 to 7; into destinations whose every element held a sentinel.
#[test]
fn pixels_of_two_to_seven_values_go_through_the_groups_like_the_definition() {
    use typed_layout::cast::Quantize;
    let value = |[n, c, h, w]: [usize; 4]| ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0 - 100.0;
    for dims in [[8, 3, 511, 257], [3, 3, 37, 41]] {
        let floats = Tensor::<f32, Nchw>::from_fn(dims, value).unwrap();
        check_into::<f32, i8, _>(&floats, 4, Quantize(0.7), 0x5A);
        check_into::<f32, u8, _>(&floats, 4, Quantize(0.3), 0xA5);
    }
    for (channels, padded) in [(1, 2), (2, 3), (3, 4), (3, 5), (4, 6), (5, 7)] {
        let floats = Tensor::<f32, Nchw>::from_fn([2, channels, 19, 23], value).unwrap();
        check_into::<f32, f32, _>(&floats, padded, Unscaled, f32::from_bits(0x7FC0_0A5A));
        check_into::<f32, f64, _>(&floats, padded, Scale(0.5), f64::from_bits(0x7FF8_0000_0000_0A5A));
        check_into::<f32, i8, _>(&floats, padded, Quantize(0.25), 0x5A);
    }
}

/// f32 quantized into pixels of i8 or u8 in registers, straight into destinations whose every
/// element held a sentinel: pixels of 8, 16 and 32 bytes (4 is above), one to four channels;
/// destinations of 4 MiB and more, streamed (every other image of the 8-byte pixels 8 bytes off
/// a boundary, its first pixel through the block), and ones the cache holds (ordinary stores),
/// with rows that end inside a group of 8 pixels.
#[test]
fn f32_quantized_into_byte_pixels_in_registers_like_the_definition() {
    use typed_layout::cast::Quantize;
    let value = |[n, c, h, w]: [usize; 4]| ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0 - 160.0;
    let large = [([4, 2, 511, 257], 8), ([2, 4, 256, 513], 16), ([1, 1, 256, 520], 32)];
    let small = [([3, 3, 37, 41], 8), ([2, 1, 9, 13], 16), ([2, 4, 17, 23], 32)];
    for (dims, padded) in large.into_iter().chain(small) {
        let floats = Tensor::<f32, Nchw>::from_fn(dims, value).unwrap();
        check_into::<f32, i8, _>(&floats, padded, Quantize(0.6), 0x5A);
        check_into::<f32, u8, _>(&floats, padded, Quantize(0.4), 0xA5);
    }
}

/// Byte sources of up to four channels go through tables of each channel's 256 results (and,
/// where those are the bytes' exact halves, through SIMD widening): per-channel normalization,
/// signed bytes into bf16, gray and RGBA images, cropped rows, streamed and not.
#[test]
fn byte_images_cast_through_tables_like_the_definition() {
    use typed_layout::cast::PerChannel;
    let byte = |[n, c, h, w]: [usize; 4]| ((n * 7 + c * 5 + h * 3 + w * 11) % 256) as u8;
    let rgb = Tensor::<u8, Nchw>::from_fn([2, 3, 128, 160], byte).unwrap();
    let (scale, shift) = ([1.0 / 58.0, 1.0 / 57.0, 1.0 / 57.5], [-2.1, -2.0, -1.8]);
    let normalize = PerChannel { scale: &scale, shift: &shift };
    // Into f32 with C = 4: 5 MiB, past the 4 MiB from which it is streamed.
    let large = Tensor::<u8, Nchw>::from_fn([4, 3, 256, 320], byte).unwrap();
    check::<u8, f32, Nchw, Nhwc, _>(&large, 4, normalize, 4);
    check::<u8, f16, Nchw, Nhwc, _>(&rgb, 8, normalize, 8);
    // Pixels of 8 bytes streamed straight from the tables from the first pixel on a 16-byte
    // boundary, the one before it through the block: 511 × 151 pixels, every other image.
    let odd_images = Tensor::<u8, Nchw>::from_fn([8, 3, 511, 151], byte).unwrap();
    check::<u8, f16, Nchw, Nhwc, _>(&odd_images, 4, normalize, 4);
    // Every streamed way, into destinations of 4 MiB and more whose every element held a
    // sentinel: bytes widened into halves (pixels of 16), the tables' words into f16 pixels of
    // 4 and 8 and f32 pixels of 8, two and four channels; odd image sizes put pixels of 8
    // bytes on and off the boundary.
    let quad = Tensor::<u8, Nchw>::from_fn([1, 4, 256, 513], byte).unwrap();
    check_into::<u8, f16, _>(&quad, 16, Unscaled, f16::from_bits(0x7E5A));
    let pair = Tensor::<u8, Nchw>::from_fn([4, 2, 511, 257], byte).unwrap();
    let normalize_pair = PerChannel { scale: &scale[..2], shift: &shift[..2] };
    check_into::<u8, f16, _>(&pair, 4, normalize_pair, f16::from_bits(0x7E5A));
    let odd = Tensor::<u8, Nchw>::from_fn([2, 3, 511, 257], byte).unwrap();
    check_into::<u8, f16, _>(&odd, 8, normalize, f16::from_bits(0x7E5A));
    check_into::<u8, f32, _>(&odd, 8, normalize, f32::from_bits(0x7FC0_5A5A));
    // Bytes widened straight into destinations the cache holds (ordinary stores, no block),
    // rows that end inside a group of 8 pixels.
    let small = Tensor::<u8, Nchw>::from_fn([2, 3, 61, 67], byte).unwrap();
    check_into::<u8, f16, _>(&small, 4, Unscaled, f16::from_bits(0x7E5A));
    let small_quad = Tensor::<i8, Nchw>::from_fn([1, 4, 64, 81], |i| byte(i) as i8).unwrap();
    check_into::<i8, half::bf16, _>(&small_quad, 16, Unscaled, half::bf16::from_bits(0x7FDA));
    let rgba = Tensor::<i8, Nchw>::from_fn([2, 4, 128, 160], |i| byte(i) as i8).unwrap();
    check::<i8, half::bf16, Nchw, Nhwc, _>(&rgba, 4, Unscaled, 4);
    check::<i8, f16, Nchw, Nhwc, _>(&rgba, 16, Unscaled, 16);
    let gray = Tensor::<u8, Nchw>::from_fn([4, 1, 256, 320], byte).unwrap();
    check::<u8, f16, Nchw, Nhwc, _>(&gray, 4, Unscaled, 4);
    // A crop: rows of 150 pixels, one table set a task.
    let crop = rgb.narrow('W', 5..155).unwrap();
    let out: typed_layout::cast::ChannelPadded<f16, Nhwc> = relayout_cast_pad(&crop, 4, Unscaled).unwrap();
    for (n, h, w, c) in (0..2).flat_map(|n| {
        (0..128).flat_map(move |h| (0..150).flat_map(move |w| (0..4).map(move |c| (n, h, w, c))))
    }) {
        let want = if c < 3 { f16::from_f32(f32::from(crop[[n, c, h, w]])) } else { f16::ZERO };
        assert_eq!(out.tensor()[[n, c, h, w]].to_bits(), want.to_bits(), "at [{n}, {c}, {h}, {w}]");
    }
}

/// A whole run cast at once gives the bits of the element-by-element cast: f32 to f16 and bf16
/// over a spread of every f32 bit pattern (normals, subnormals, infinities, NaNs, ties).
#[test]
fn casting_a_run_gives_the_bits_of_casting_each_element() {
    let mut values: Vec<f32> = (0..=u32::MAX).step_by(9973).map(f32::from_bits).collect();
    values.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 65504.0, 65520.0, 1.0e-8]);
    values.extend((0..4096u32).map(|k| f32::from_bits(0x3800_0000 + k * 0x1000))); // f16 ties
    let mut run = vec![f16::ZERO; values.len()];
    Cast::<f32, f16>::cast_run(&Unscaled, &values, &mut run, 0);
    for (v, r) in values.iter().zip(&run) {
        assert_eq!(
            r.to_bits(),
            Cast::<f32, f16>::cast(&Unscaled, *v).to_bits(),
            "{v:e} ({:#x})",
            v.to_bits()
        );
    }
    let mut run = vec![half::bf16::ZERO; values.len()];
    Cast::<f32, half::bf16>::cast_run(&Unscaled, &values, &mut run, 0);
    for (v, r) in values.iter().zip(&run) {
        let one = Cast::<f32, half::bf16>::cast(&Unscaled, *v);
        assert_eq!(r.to_bits(), one.to_bits(), "{v:e} ({:#x})", v.to_bits());
    }
}

/// Bytes cast a run at a time (through f32) give the bits of the element-by-element cast, into
/// f16 and bf16, for every u8 and i8 value, in runs longer and shorter than the inner chunk.
#[test]
fn casting_a_run_of_bytes_gives_the_bits_of_casting_each_element() {
    fn check<T: Element + Exact>(values: &[T])
    where
        Unscaled: Cast<T, f16> + Cast<T, half::bf16>,
    {
        let mut halves = vec![f16::ZERO; values.len()];
        Cast::<T, f16>::cast_run(&Unscaled, values, &mut halves, 0);
        let mut bf16s = vec![half::bf16::ZERO; values.len()];
        Cast::<T, half::bf16>::cast_run(&Unscaled, values, &mut bf16s, 0);
        for ((v, h), b) in values.iter().zip(&halves).zip(&bf16s) {
            assert_eq!(h.to_bits(), Cast::<T, f16>::cast(&Unscaled, *v).to_bits(), "{v:?} to f16");
            assert_eq!(b.to_bits(), Cast::<T, half::bf16>::cast(&Unscaled, *v).to_bits(), "{v:?} to bf16");
            assert_eq!(h.to_f64(), v.to_f64_exact(), "{v:?} is exact in f16");
        }
    }
    trait Exact {
        fn to_f64_exact(&self) -> f64;
    }
    impl Exact for u8 {
        fn to_f64_exact(&self) -> f64 {
            f64::from(*self)
        }
    }
    impl Exact for i8 {
        fn to_f64_exact(&self) -> f64 {
            f64::from(*self)
        }
    }
    let bytes: Vec<u8> = (0..=255).cycle().take(1000).collect();
    check(&bytes);
    check(&bytes[..7]);
    let signed: Vec<i8> = (-128..=127).cycle().take(1000).collect();
    check(&signed);
    check(&signed[..300]);
}

/// A cropped source whose H and W do not fuse, large enough to run in parallel tasks: the
/// blocked pass must find each task's rows (two loops outside the pixels: N and H).
#[test]
fn a_large_cropped_source_runs_in_parallel_and_matches() {
    use typed_layout::cast::ChannelPadded;
    let src = Tensor::<f32, Nchw>::from_fn([4, 3, 256, 320], |[n, c, h, w]| {
        ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0
    })
    .unwrap();
    let crop = src.narrow('W', 0..319).unwrap();
    let out: ChannelPadded<f16, Nhwc> = relayout_cast_pad(&crop, 8, Unscaled).unwrap();
    let t = out.tensor();
    assert!(t.as_slice().len() * 2 > typed_layout::PARALLEL_THRESHOLD_BYTES);
    for n in 0..4 {
        for h in 0..256 {
            for w in 0..319 {
                for c in 0..8 {
                    let want = if c < 3 { f16::from_f32(src[[n, c, h, w]]) } else { f16::ZERO };
                    assert_eq!(t[[n, c, h, w]], want, "at [{n}, {c}, {h}, {w}]");
                }
            }
        }
    }
    // Rows of 299 pixels of 8 bytes, rounded in registers: every other row starts 8 bytes off
    // a 16-byte boundary (streamed from its second pixel), each row's tail through the block;
    // into destinations of 4 MiB and more whose every element held a sentinel. RGB into f16,
    // gray into bf16.
    let value = |[n, c, h, w]: [usize; 4]| ((n * 7 + c * 5 + h * 3 + w) % 1000) as f32 / 3.0 - 50.0;
    for channels in [3, 1] {
        let src = Tensor::<f32, Nchw>::from_fn([4, channels, 511, 301], value).unwrap();
        let crop = src.narrow('W', 1..300).unwrap();
        let mut halves = Tensor::<f16, Nhwc>::filled([4, 4, 511, 299], f16::from_bits(0x7E5A)).unwrap();
        let mut brains =
            Tensor::<half::bf16, Nhwc>::filled([4, 4, 511, 299], half::bf16::from_bits(0x7FDA)).unwrap();
        relayout_cast_pad_into(&crop, &mut halves, Unscaled).unwrap();
        relayout_cast_pad_into(&crop, &mut brains, Unscaled).unwrap();
        for (n, h, w, c) in (0..4).flat_map(|n| {
            (0..511).flat_map(move |h| (0..299).flat_map(move |w| (0..4).map(move |c| (n, h, w, c))))
        }) {
            let v = if c < channels { crop[[n, c, h, w]] } else { 0.0 };
            let at = format!("{channels} channels at [{n}, {c}, {h}, {w}]");
            assert_eq!(halves[[n, c, h, w]].to_bits(), f16::from_f32(v).to_bits(), "f16, {at}");
            assert_eq!(brains[[n, c, h, w]].to_bits(), half::bf16::from_f32(v).to_bits(), "bf16, {at}");
        }
    }
}

/// The casts the fused pass computes its own way say so (a regression would only slow it).
#[test]
fn unscaled_says_it_is_unscaled() {
    use typed_layout::cast::{KnownCast, PerChannel};
    assert_eq!(<Unscaled as Cast<f32, f16>>::known(&Unscaled), Some(KnownCast::Unscaled));
    assert_eq!(<Unscaled as Cast<f32, half::bf16>>::known(&Unscaled), Some(KnownCast::Unscaled));
    let quantize = typed_layout::cast::Quantize(0.25);
    assert_eq!(<_ as Cast<f32, i8>>::known(&quantize), Some(KnownCast::Quantize(0.25)));
    assert_eq!(<Scale as Cast<f32, f16>>::known(&Scale(1.0)), None);
    let one = PerChannel { scale: &[1.0], shift: &[0.0] };
    assert_eq!(<PerChannel as Cast<f32, f16>>::known(&one), None);
}
