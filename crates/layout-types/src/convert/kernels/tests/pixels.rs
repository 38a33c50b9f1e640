//! The fused pass's pixel builders against the definition: image bytes widened into 2-byte
//! floats, 2-byte runs interleaved into pixels, f32 runs rounded into f16 pixels, and groups of
//! words streamed, into a block and straight into the destination.

use crate::dtype::Element;
use crate::platform::out::Out;
use crate::platform::simd::{fence, Level};

/// Image bytes widened into pixels of 2-byte floats, at every level, against `half`'s conversion
/// of each value: one to four channels, u8 and i8, f16 and bf16, pixels of 1, 2 and 4 words,
/// lengths around the groups (257 and more: every byte value). With ordinary stores (AVX-512's
/// groups of 64 where the CPU has VBMI, then of 16; AVX2's of 8) from a 16-byte boundary and a
/// half off it; streamed (AVX2's groups of 8 from AVX2 up) from the boundary, and nothing off
/// it. The halves past the pixels it says it wrote stay
/// untouched.
#[test]
fn image_bytes_widen_into_half_pixels_like_the_definition() {
    use crate::platform::simd::{byte_halves_at, Stores};
    for level in Level::ALL {
        if !level.available() {
            println!("SKIPPED: byte halves at {level:?} (this CPU lacks it)");
            continue;
        }
        for (channels, words, signed, bf16, stores, offset) in (1..=4).flat_map(|c| {
            [1, 2, 4].into_iter().flat_map(move |w| {
                [(false, false), (true, false), (false, true), (true, true)].into_iter().flat_map(
                    move |(s, b)| {
                        [Stores::Ordinary, Stores::Streaming]
                            .into_iter()
                            .flat_map(move |t| [0, 1].map(|o| (c, w, s, b, t, o)))
                    },
                )
            })
        }) {
            for n in [0, 7, 8, 9, 15, 16, 17, 40, 63, 64, 81, 257, 300] {
                let runs: Vec<Vec<u8>> =
                    (0..channels).map(|c| (0..n).map(|j| (j * 37 + c * 101 + 3) as u8).collect()).collect();
                let runs: Vec<&[u8]> = runs.iter().map(|r| r.as_slice()).collect();
                let per = 4 * words;
                let mut room = vec![0x5A5A_5A5A_5A5A_5A5Au64; n * words + 6];
                let at = room.as_ptr().align_offset(16);
                let len = (n * words + 3) * 4 - offset; // halves from the start
                let halves: &mut [u16] = bytemuck::cast_slice_mut(&mut room[..]);
                let start = 4 * at + offset;
                let dst: &mut [half::f16] = bytemuck::cast_slice_mut(&mut halves[start..start + len]);
                let done = byte_halves_at(level, Out::new(dst), words, &runs, (signed, bf16), stores);
                fence();
                let what = format!(
                    "{level:?}: {channels} channels, {words} words, n {n}, signed {signed}, bf16 {bf16}, {stores:?}, offset {offset}"
                );
                // Where the level has the widening, every whole group is done.
                let group = match (level, stores) {
                    (Level::Avx512, Stores::Ordinary) => 16,
                    (Level::Avx512 | Level::Avx2, _) => 8,
                    _ => 0,
                };
                let whole = match group > 0 && (offset == 0 || stores == Stores::Ordinary) {
                    true => n / group * group,
                    false => 0,
                };
                assert_eq!(done, whole, "{what}");
                expect_half_pixels(&room, (start, per, channels, done), &what, |c, pixel| {
                    let b = runs[c][pixel];
                    let v = if signed { f32::from(b as i8) } else { f32::from(b) };
                    match bf16 {
                        true => half::bf16::from_f32(v).to_bits(),
                        false => half::f16::from_f32(v).to_bits(),
                    }
                });
            }
        }
    }
}

/// Groups of pixels streamed straight into a destination of 2- and 4-byte values: every group
/// from a 16-byte boundary (what `make` returned, in order), nothing from another boundary,
/// and nothing past the groups asked for or past the destination.
#[test]
fn streamed_words_land_in_order_from_a_16_byte_boundary() {
    use crate::platform::simd::stream_words;
    fn check<U: Element, const W: usize>() {
        let fill = U::from_word(0x5A5A_5A5A_5A5A_5A5A);
        let per = 8 * W * 8 / U::SIZE; // values a group
        let word = |g: usize, i: usize| (g as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64;
        for offset in 0..16 / U::SIZE {
            for (groups, room) in [(0, 0), (1, 1), (3, 3), (3, 2), (2, 5)] {
                let mut dst = vec![fill; 2 * 16 / U::SIZE + room * per + 3];
                let at = dst.as_ptr().align_offset(16) + offset;
                let len = room * per + 1;
                let done = stream_words::<U, W>(Out::new(&mut dst[at..at + len]), groups, |g| {
                    core::array::from_fn(|p| core::array::from_fn(|w| word(g, p * W + w)))
                });
                fence();
                let what = format!("size {}, {W} words, offset {offset}, {groups} of {room}", U::SIZE);
                let aligned = cfg!(target_arch = "x86_64") && offset == 0;
                assert_eq!(done, if aligned { groups.min(room) } else { 0 }, "{what}");
                let bytes: &[u8] = bytemuck::cast_slice(&dst);
                let first = at * U::SIZE;
                for (i, &b) in bytes.iter().enumerate() {
                    let k = i.wrapping_sub(first);
                    let expected = match k < done * per * U::SIZE {
                        true => word(k / (64 * W), k % (64 * W) / 8).to_le_bytes()[k % 8],
                        false => 0x5A,
                    };
                    assert_eq!(b, expected, "{what}: byte {i}");
                }
            }
        }
    }
    check::<half::f16, 1>();
    check::<half::f16, 2>();
    check::<half::f16, 4>();
    check::<f32, 2>();
    check::<f32, 4>();
    check::<f32, 8>();
}

/// Four runs of 2-byte values interleaved into pixels of 1, 2 and 4 words (groups of 8 with
/// SSE2 on x86-64), into a block and streamed straight into a destination of halves, against
/// the definition: lengths around the groups, from a 16-byte boundary and off it (where the
/// streamed form writes nothing); the words past the pixels it says it wrote stay untouched.
#[test]
fn half_runs_interleave_into_pixels_like_the_definition() {
    use crate::platform::simd::{half_pixels, half_pixels_streamed};
    for (words, streamed, n, offset) in [1, 2, 4].into_iter().flat_map(|w| {
        [false, true].into_iter().flat_map(move |t| {
            [0, 7, 8, 9, 17, 40, 257].into_iter().flat_map(move |n| [0, 1].map(|o| (w, t, n, o)))
        })
    }) {
        let runs: Vec<Vec<u16>> =
            (0..4).map(|c| (0..n).map(|j| (j * 7919 + c * 4001 + 3) as u16).collect()).collect();
        let runs: [&[u16]; 4] = core::array::from_fn(|c| runs[c].as_slice());
        let fill = 0x5A5A_5A5A_5A5A_5A5Au64;
        let mut room = vec![fill; n * words + 6];
        let at = room.as_ptr().align_offset(16) + offset;
        let len = n * words + 3;
        let done = match streamed {
            false => half_pixels(&mut room[at..at + len], words, runs),
            true => {
                let halves: &mut [half::f16] = bytemuck::cast_slice_mut(&mut room[at..at + len]);
                let done = half_pixels_streamed(Out::new(halves), words, runs);
                fence();
                done
            }
        };
        let what = format!("{words} words, streamed {streamed}, n {n}, offset {offset}");
        let whole = match (cfg!(target_arch = "x86_64"), streamed && offset != 0) {
            (true, false) => n / 8 * 8,
            _ => 0,
        };
        assert_eq!(done, whole, "{what}");
        for (i, &w) in room.iter().enumerate() {
            let k = i.wrapping_sub(at);
            let (pixel, word) = (k / words, k % words);
            let expected = match pixel < done {
                false => fill,
                true if word > 0 => 0,
                true => (0..4).fold(0u64, |acc, c| acc | u64::from(runs[c][pixel]) << (16 * c)),
            };
            assert_eq!(w, expected, "{what}: word {i}");
        }
    }
}

/// f32 runs rounded into pixels of f16 and bf16, written straight into a destination of
/// halves, at every level, against `half`'s `from_f32` of each value: one to four channels,
/// pixels of 1, 2 and 4 words, lengths around the groups, values that round to even, carry into
/// the exponent, overflow, fall under the normals and are NaN; streamed from a 16-byte boundary
/// (AVX2 and F16C's groups of 8 from AVX2 up, none below) and off it (nothing), with ordinary
/// stores from both; into a destination shorter than the runs too; the halves past the pixels
/// it says it wrote stay untouched.
#[test]
fn f32_runs_round_into_half_pixels_like_the_definition() {
    use crate::platform::simd::{float_halves_at, Stores};
    #[cfg(target_arch = "x86_64")]
    let f16c = std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    let f16c = false;
    // Ties at 1 + 2^-11 and 1 + 3 · 2^-11 (to even: down, up), past f16's largest finite
    // value, f16's smallest subnormal and half of it, signed zeros and NaNs with payloads.
    let special = [
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        65504.0,
        65520.0,
        -1e9,
        f32::INFINITY,
        2f32.powi(-24),
        2f32.powi(-25),
        -0.0,
        0.0,
        f32::NAN,
        f32::from_bits(0xFFC0_1234),
        f32::from_bits(0x7F80_0001),
        1.0 / 3.0,
        // bf16: ties at 1 + 2^-8 (down) and 1 + 3 · 2^-8 (up), a carry into the exponent, the
        // largest finite value rounding to infinity, NaNs whose top half alone would read as
        // infinity.
        1.0 + 2f32.powi(-8),
        1.0 + 3.0 * 2f32.powi(-8),
        f32::from_bits(0x3FFF_FFFF),
        f32::MAX,
        -f32::MAX,
        f32::from_bits(0x7F80_0001),
        f32::from_bits(0xFF80_8000),
        f32::from_bits(0x0000_8001),
    ];
    for level in Level::ALL {
        if !level.available() {
            println!("SKIPPED: f32 halves at {level:?} (this CPU lacks it)");
            continue;
        }
        for (channels, words, offset, bf16, stores) in (1..=4).flat_map(|c| {
            [1, 2, 4].into_iter().flat_map(move |w| {
                [0, 1].into_iter().flat_map(move |o| {
                    [
                        (false, Stores::Streaming),
                        (true, Stores::Streaming),
                        (false, Stores::Ordinary),
                        (true, Stores::Ordinary),
                    ]
                    .map(|(b, s)| (c, w, o, b, s))
                })
            })
        }) {
            // `room` pixels of destination: all of them, or 3 fewer than the runs hold.
            for (n, room_pixels) in [0usize, 7, 8, 9, 15, 16, 17, 40, 257]
                .into_iter()
                .flat_map(|n| [(n, n), (n, n.saturating_sub(3))])
            {
                let runs: Vec<Vec<f32>> = (0..channels)
                    .map(|c| {
                        let value = |j: usize| match (j + 5 * c) % 3 {
                            0 => special[(j + c) % special.len()],
                            _ => (j as f32 - 100.0) * (1.37 + c as f32),
                        };
                        (0..n).map(value).collect()
                    })
                    .collect();
                let runs: Vec<&[f32]> = runs.iter().map(|r| r.as_slice()).collect();
                let per = 4 * words; // halves a pixel
                let mut room = vec![0x5A5A_5A5A_5A5A_5A5Au64; n * words + 6];
                let at = room.as_ptr().align_offset(16);
                let len = (room_pixels * words + 3) * 4 - offset; // halves from the start
                let halves: &mut [u16] = bytemuck::cast_slice_mut(&mut room[..]);
                let start = 4 * at + offset;
                let dst: &mut [half::f16] = bytemuck::cast_slice_mut(&mut halves[start..start + len]);
                let done = float_halves_at(level, Out::new(dst), words, &runs, bf16, stores);
                fence();
                let what = format!(
                    "{level:?}: {channels} channels, {words} words, n {n}, room {room_pixels}, offset {offset}, bf16 {bf16}, {stores:?}"
                );
                let writes = level >= Level::Avx2 && f16c && (offset == 0 || stores == Stores::Ordinary);
                let whole = match writes {
                    true => n.min(len / per) / 8 * 8,
                    false => 0,
                };
                assert_eq!(done, whole, "{what}");
                expect_half_pixels(&room, (start, per, channels, done), &what, |c, pixel| match bf16 {
                    true => half::bf16::from_f32(runs[c][pixel]).to_bits(),
                    false => half::f16::from_f32(runs[c][pixel]).to_bits(),
                });
            }
        }
    }
}

/// Every half of `room` (filled with 0x5A5A before) against `done` pixels of `per` halves from
/// half `start`: channel `c < channels` of pixel `p` holds `bits(c, p)`, the pixel's other
/// halves zero, every half outside the pixels the fill still.
fn expect_half_pixels(
    room: &[u64],
    (start, per, channels, done): (usize, usize, usize, usize),
    what: &str,
    bits: impl Fn(usize, usize) -> u16,
) {
    let halves: &[u16] = bytemuck::cast_slice(room);
    for (i, &h) in halves.iter().enumerate() {
        let k = i.wrapping_sub(start);
        let (pixel, c) = (k / per, k % per);
        let expected = match pixel < done {
            false => 0x5A5A,
            true if c >= channels => 0,
            true => bits(c, pixel),
        };
        assert_eq!(h, expected, "{what}: half {i}");
    }
}

/// f32 runs quantized into pixels of bytes, written straight into a destination of i8 or u8,
/// at every level, against the rule written out (`x / scale` in f32, NaN to 0, rounded half to
/// even, saturated): one to four channels, pixels of 4, 8, 16 and 32 bytes, lengths around the
/// groups, values at the halves,
/// the ranges' edges, infinities and NaNs, three scales (a negative one among them); streamed
/// from a 16-byte boundary (AVX2's groups of 8 from AVX2 up, none below) and off it (nothing),
/// with ordinary stores from both; into a destination shorter than the runs too; the bytes past
/// the pixels it says it wrote stay untouched.
#[test]
fn f32_runs_quantize_into_byte_pixels_like_the_definition() {
    use crate::platform::simd::{quantized_pixels_at, Stores};
    let special = [
        0.5,
        1.5,
        2.5,
        -0.5,
        -2.5,
        126.5,
        127.5,
        -128.5,
        -129.0,
        254.5,
        255.5,
        256.0,
        1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        -0.0,
        1e-40,
    ];
    for level in Level::ALL {
        if !level.available() {
            println!("SKIPPED: quantized byte pixels at {level:?} (this CPU lacks it)");
            continue;
        }
        for (channels, bytes, offset, signed, stores) in (1..=4).flat_map(|c| {
            [4, 8, 16, 32].into_iter().flat_map(move |p| {
                [0, 4].into_iter().flat_map(move |o| {
                    [
                        (false, Stores::Streaming),
                        (true, Stores::Streaming),
                        (false, Stores::Ordinary),
                        (true, Stores::Ordinary),
                    ]
                    .map(|(s, t)| (c, p, o, s, t))
                })
            })
        }) {
            for scale in [0.75f32, 1.0, -0.4] {
                // `room` pixels of destination: all of them, or 1 or 3 fewer than the runs hold
                // (a room of 7, 15 or 39 pixels and 5 bytes: no group past it).
                for (n, room_pixels) in [0usize, 7, 8, 9, 16, 17, 40, 129]
                    .into_iter()
                    .flat_map(|n| [(n, n), (n, n.saturating_sub(1)), (n, n.saturating_sub(3))])
                {
                    let runs: Vec<Vec<f32>> = (0..channels)
                        .map(|c| {
                            let value = |j: usize| match (j + c) % 3 {
                                0 => special[(j + c) % special.len()] * scale,
                                _ => (j as f32 - 60.0) * (1.37 + c as f32),
                            };
                            (0..n).map(value).collect()
                        })
                        .collect();
                    let runs: Vec<&[f32]> = runs.iter().map(|r| r.as_slice()).collect();
                    let mut room = vec![0x5Au8; n * bytes + 64];
                    let start = room.as_ptr().align_offset(16) + offset;
                    let len = room_pixels * bytes + 5;
                    let dst: &mut [u8] = &mut room[start..start + len];
                    let done =
                        quantized_pixels_at(level, Out::new(dst), bytes, &runs, (scale, signed), stores);
                    fence();
                    let what = format!(
                        "{level:?}: {channels} channels, {bytes}-byte pixels, n {n}, room {room_pixels}, offset {offset}, signed {signed}, scale {scale}, {stores:?}"
                    );
                    let writes = level >= Level::Avx2 && (offset == 0 || stores == Stores::Ordinary);
                    let whole = match writes {
                        true => n.min(len / bytes) / 8 * 8,
                        false => 0,
                    };
                    assert_eq!(done, whole, "{what}");
                    let rule = |x: f32| {
                        let (q, (low, high)) =
                            (x / scale, if signed { (-128.0, 127.0) } else { (0.0, 255.0) });
                        match q.is_nan() {
                            true => 0,
                            false => q.round_ties_even().clamp(low, high) as i32 as u8,
                        }
                    };
                    for (i, &b) in room.iter().enumerate() {
                        let k = i.wrapping_sub(start);
                        let (pixel, c) = (k / bytes, k % bytes);
                        let expected = match pixel < done {
                            false => 0x5A,
                            true if c >= channels => 0,
                            true => rule(runs[c][pixel]),
                        };
                        assert_eq!(b, expected, "{what}: byte {i}");
                    }
                }
            }
        }
    }
}
