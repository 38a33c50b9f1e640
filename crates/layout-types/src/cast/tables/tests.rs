//! Pixels from the tables, with and without the SIMD widening, against the definition: channel
//! `c` of pixel `j` is `cast.cast_at(run_c[j], c)`, bit for bit, and the padding is zero.

use super::*;
use crate::cast::{PerChannel, Scale, Unscaled};
use crate::platform::simd::Level;
use half::{bf16, f16};

/// Runs of `n` bytes for `channels` channels, each starting `offset` bytes into its own stretch
/// (misaligned starts), every byte value present.
fn runs(channels: usize, n: usize, offset: usize) -> Vec<Vec<u8>> {
    (0..channels)
        .map(|c| (0..n + offset).map(|j| (j * 37 + c * 101 + 7) as u8).skip(offset).collect())
        .collect()
}

/// Checks `Tables::pixels` for every padding in `paddings` and length in `LENGTHS`, through the
/// widening where `widens` says the tables allow it (and always through the lookups).
fn check<T: Element, U: Element, C: Cast<T, U>>(cast: C, channels: usize, paddings: &[usize], widens: bool) {
    const LENGTHS: [usize; 8] = [0, 1, 15, 16, 17, 63, 100, 1000];
    let tables = Tables::<U>::new::<T, C>(cast, channels).expect("a byte source of at most 4 channels");
    assert_eq!(tables.halves.is_some(), widens, "{channels} channels: are the tables the exact halves?");
    let widening = widens && Level::Avx512.available();
    if widens && !widening {
        println!("SKIPPED: the AVX-512 widening of bytes into halves (this CPU lacks AVX-512)");
    }
    for &padded in paddings {
        for n in LENGTHS {
            for offset in [0, 3] {
                let bytes = runs(channels, n, offset);
                let values: Vec<&[T]> = bytes.iter().map(|r| bytemuck::cast_slice(r)).collect();
                let want: Vec<U> = (0..n * padded)
                    .map(|k| match k % padded {
                        c if c < channels => cast.cast_at(values[c][k / padded], c),
                        _ => U::default(),
                    })
                    .collect();
                let by_run: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
                for lookups in [false, true] {
                    let mut tables = tables.clone();
                    if lookups {
                        tables.halves = None;
                    }
                    // Words, so 2-byte pixels of whole words can be built as words.
                    let mut room = vec![0x5a5a_5a5a_5a5a_5a5au64; (n * padded * U::SIZE).div_ceil(8)];
                    let out = &mut bytemuck::cast_slice_mut::<u64, U>(&mut room)[..n * padded];
                    tables.pixels(&by_run, padded, out);
                    assert_eq!(
                        bytemuck::cast_slice::<U, u8>(out),
                        bytemuck::cast_slice::<U, u8>(&want),
                        "{:?} -> {:?}, {channels} channels padded to {padded}, {n} pixels from offset \
                         {offset}, lookups only: {lookups}",
                        T::DATA_TYPE,
                        U::DATA_TYPE,
                    );
                }
            }
        }
    }
}

#[test]
fn bytes_widen_into_halves_like_the_definition() {
    for channels in 1..=4 {
        let paddings: Vec<usize> = [4, 8, 16, channels, 6].into_iter().filter(|&p| p >= channels).collect();
        check::<u8, f16, _>(Unscaled, channels, &paddings, true);
        check::<u8, bf16, _>(Unscaled, channels, &paddings, true);
        check::<i8, f16, _>(Unscaled, channels, &paddings, true);
        check::<i8, bf16, _>(Unscaled, channels, &paddings, true);
        // A cast that agrees with the widening bit for bit widens too.
        check::<u8, f16, _>(Scale(1.0), channels, &paddings, true);
    }
}

#[test]
fn other_casts_of_bytes_are_looked_up() {
    let (scale, shift) = ([1.0 / 255.0, 2.0 / 255.0, 0.5, 1.0], [-0.5, 0.25, 0.0, 3.0]);
    for channels in 1..=4 {
        let paddings: Vec<usize> = [4, 8, 16, channels, 6].into_iter().filter(|&p| p >= channels).collect();
        let normalize = PerChannel { scale: &scale[..channels], shift: &shift[..channels] };
        check::<u8, f32, _>(normalize, channels, &paddings, false);
        check::<u8, f16, _>(normalize, channels, &paddings, false);
        check::<i8, f64, _>(Unscaled, channels, &paddings, false);
        check::<i8, i32, _>(Scale(-3.0), channels, &paddings, false);
        check::<u8, f16, _>(Scale(2.0), channels, &paddings, false);
        check::<u8, u8, _>(Unscaled, channels, &paddings, false);
    }
    // Zero cast to -0: equal to the widening's +0 as a value, not as bits.
    #[derive(Clone, Copy)]
    struct NegativeZero;
    impl Cast<u8, f16> for NegativeZero {
        fn cast(&self, v: u8) -> f16 {
            if v == 0 {
                f16::NEG_ZERO
            } else {
                f16::from_f32(f32::from(v))
            }
        }
    }
    check::<u8, f16, _>(NegativeZero, 3, &[4, 8], false);
}

#[test]
fn only_byte_sources_of_at_most_four_channels_get_tables() {
    assert!(Tables::<f16>::new::<f32, _>(Unscaled, 3).is_none());
    assert!(Tables::<f16>::new::<u8, _>(Unscaled, 5).is_none());
    assert!(Tables::<f16>::new::<u8, _>(Unscaled, 0).is_none());
    assert!(Tables::<f16>::new::<i8, _>(Unscaled, 4).is_some());
}
