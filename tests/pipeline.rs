//! The image pipeline of an engine, as a new user writes it from the crate docs: HWC u8 bytes as
//! a camera delivers them → a crop → f16 NHWC with C padded to 8 (what Tensor Cores want),
//! normalized per channel in the same pass → one image of a batch the engine allocated once.
//! Checked element by element against the bytes (tests/allocations.rs counts what such a call
//! allocates: nothing on a rayon worker, a boxed job per helper thread from another thread).

use half::f16;
use typed_layout::cast::{relayout_cast_pad_into, PerChannel};
use typed_layout::{LayoutError, Nhwc, Tensor, TensorView};

const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// `(v / 255 − mean) / std` as `v · scale + shift`, per channel.
fn normalization() -> ([f64; 3], [f64; 3]) {
    let scale = core::array::from_fn(|c| 1.0 / (255.0 * STD[c] as f64));
    let shift = core::array::from_fn(|c| -(MEAN[c] as f64) / STD[c] as f64);
    (scale, shift)
}

/// One image into slot `slot` of `batch`.
fn prepare(
    bytes: &[u8],
    (h, w): (usize, usize),
    (top, left): (usize, usize),
    batch: &mut Tensor<f16, Nhwc>,
    slot: usize,
) -> Result<(), LayoutError> {
    let (scale, shift) = normalization();
    let image = TensorView::<u8, Nhwc>::new_physical([1, h, w, 3], bytes)?; // N, H, W, C
    let crop = image.crop([0, 0, top, left], [1, 3, 224, 224])?;
    relayout_cast_pad_into(&crop, &mut batch.batch_mut(slot)?, PerChannel { scale: &scale, shift: &shift })?;
    Ok(())
}

fn camera(seed: usize, (h, w): (usize, usize)) -> Vec<u8> {
    (0..h * w * 3).map(|i| ((i * 7 + seed * 13) % 256) as u8).collect()
}

#[test]
fn the_pipeline_lands_every_pixel() {
    let (h, w) = (240, 320);
    let frames: Vec<Vec<u8>> = (0..4).map(|s| camera(s, (h, w))).collect();
    let mut batch = Tensor::<f16, Nhwc>::filled([4, 8, 224, 224], f16::from_f32(9.0)).unwrap();
    let corners = [(0, 0), (8, 40), (16, 96), (3, 5)];
    for (slot, frame) in frames.iter().enumerate() {
        prepare(frame, (h, w), corners[slot], &mut batch, slot).unwrap();
    }

    let (scale, shift) = normalization();
    for (slot, frame) in frames.iter().enumerate() {
        let (top, left) = corners[slot];
        for y in 0..224 {
            for x in 0..224 {
                for c in 0..8 {
                    let want = if c < 3 {
                        let byte = frame[((top + y) * w + left + x) * 3 + c];
                        f16::from_f64(byte as f64 * scale[c] + shift[c])
                    } else {
                        f16::ZERO
                    };
                    assert_eq!(batch[[slot, c, y, x]], want, "slot {slot} (c, y, x) = ({c}, {y}, {x})");
                }
            }
        }
    }
}

/// A crop that leaves the image is an error naming the dimension, and the batch is untouched.
#[test]
fn a_crop_outside_the_image_is_refused() {
    let frame = camera(0, (100, 100));
    let mut batch = Tensor::<f16, Nhwc>::zeros([1, 8, 224, 224]).unwrap();
    let e = prepare(&frame, (100, 100), (0, 0), &mut batch, 0).unwrap_err();
    assert!(matches!(e, LayoutError::RangeOutOfBounds { size: 100, .. }), "{e}");
    assert!(batch.iter().all(|v| *v == f16::ZERO));
}

/// Per-channel parameters for another channel count are refused before anything is written.
#[test]
fn per_channel_parameters_must_match_the_channels() {
    let frame = camera(1, (224, 224));
    let image = TensorView::<u8, Nhwc>::new_physical([1, 224, 224, 3], &frame).unwrap();
    let mut batch = Tensor::<f16, Nhwc>::zeros([1, 8, 224, 224]).unwrap();
    let two = PerChannel { scale: &[1.0, 1.0], shift: &[0.0, 0.0] };
    let e = relayout_cast_pad_into(&image, &mut batch.batch_mut(0).unwrap(), two).unwrap_err();
    assert_eq!(e, LayoutError::ChannelParameters { scales: 2, shifts: 2, channels: 3 }, "{e}");
    assert!(e.to_string().starts_with("2 scales and 2 shifts for 3 channels"), "{e}");
    assert!(batch.iter().all(|v| *v == f16::ZERO));
}
