//! The `simd` room against the portable path: every level this CPU has (a lower level forced;
//! a level it lacks prints SKIPPED), both kinds of stores, element sizes 1, 2, 4 and 8, odd
//! lengths and misaligned starts, one thread and several.

mod support;

use half::f16;
use support::mix;
use typed_layout::simd::{copy, copy_at, copy_parallel, Level, Stores};
use typed_layout::{Element, LayoutError};

fn check<T: FromByte>(level: Level) -> usize {
    let mut checked = 0;
    for len in [0usize, 1, 7, 15, 16, 17, 63, 64, 65, 255, 1000, 4099, 70_001] {
        let src: Vec<T> = (0..len + 3).map(|i| T::from_byte(mix(1, i) as u8)).collect();
        for offset in 0..3 {
            for start in 0..3 {
                let s = &src[offset..offset + len];
                let mut dst = vec![T::from_byte(0xA5); len + 3];
                for stores in [Stores::Ordinary, Stores::Streaming] {
                    dst.iter_mut().for_each(|v| *v = T::from_byte(0xA5));
                    copy_at(level, &mut dst[start..start + len], s, stores).unwrap();
                    assert_eq!(
                        &dst[start..start + len],
                        s,
                        "{level:?} {stores:?} len {len} src +{offset} dst +{start}"
                    );
                    // Nothing outside the destination written.
                    assert!(dst[..start].iter().chain(&dst[start + len..]).all(|v| *v == T::from_byte(0xA5)));
                    checked += 1;
                }
            }
        }
    }
    checked
}

#[test]
fn every_level_copies_like_the_portable_path() {
    let mut checked = 0;
    for level in Level::ALL {
        if !level.available() {
            println!("SKIPPED: {level:?}: this CPU's highest level is {:?}", Level::detected());
            continue;
        }
        checked += check::<u8>(level);
        checked += check::<f16>(level);
        checked += check::<f32>(level);
        checked += check::<f64>(level);
    }
    println!("{checked} copies equal their source (levels up to {:?})", Level::detected());
    assert!(checked > 0);
}

/// An element of each size, made from a byte.
trait FromByte: Element {
    fn from_byte(b: u8) -> Self;
}
impl FromByte for u8 {
    fn from_byte(b: u8) -> Self {
        b
    }
}
impl FromByte for f16 {
    fn from_byte(b: u8) -> Self {
        f16::from_f32(f32::from(b) - 100.0)
    }
}
impl FromByte for f32 {
    fn from_byte(b: u8) -> Self {
        f32::from(b) * 1.5
    }
}
impl FromByte for f64 {
    fn from_byte(b: u8) -> Self {
        f64::from(b) - 0.25
    }
}

#[test]
fn parallel_copies_and_refusals() {
    let src: Vec<f32> = (0..1_000_003).map(|i| i as f32).collect();
    for threads in [1, 2, 3, 8] {
        for stores in [Stores::Ordinary, Stores::Streaming] {
            let mut dst = vec![0.0f32; src.len()];
            copy_parallel(&mut dst, &src, stores, threads).unwrap();
            assert!(dst == src, "{threads} threads {stores:?}");
        }
    }
    let mut short = vec![0.0f32; 10];
    assert_eq!(
        copy(&mut short, &src[..11], Stores::Streaming),
        Err(LayoutError::BufferLength { expected: 11, found: 10 })
    );
    if let Some(missing) = Level::ALL.into_iter().find(|l| !l.available()) {
        assert!(copy_at(missing, &mut short, &src[..10], Stores::Streaming).is_err());
    }
}
