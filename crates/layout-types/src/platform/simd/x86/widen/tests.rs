//! AVX-512's byte groups, called directly (the widening tests through `byte_halves` reach
//! the rebiased groups only for a run's last pixels where the CPU has VBMI).

use super::*;

/// Every byte value, signed and not, into f16 and bf16 through each of AVX-512's groups (a CPU
/// with VBMI runs the rebiased ones only for a run's last pixels, and one with FP16 VBMI's
/// tables only for bf16, so the widening test through `byte_halves` sees few values there),
/// one to four channels, pixels of one, two and four words, against `half`.
#[test]
fn every_byte_value_widens_exactly_in_every_avx512_group() {
    if !Level::Avx512.available() {
        println!("SKIPPED: AVX-512's byte groups (this CPU lacks AVX-512 F and BW)");
        return;
    }
    if !super::super::has_vbmi() {
        println!("SKIPPED: VBMI's byte groups (this CPU lacks AVX-512 VBMI)");
    }
    if !super::super::has_fp16() {
        println!("SKIPPED: FP16's byte groups (this CPU lacks AVX-512 FP16 or VBMI)");
    }
    widen_every_byte::<1>();
    widen_every_byte::<2>();
    widen_every_byte::<4>();
}

fn widen_every_byte<const W: usize>() {
    let runs: Vec<Vec<u8>> = (0..4).map(|c| (0..256).map(|j| (j * 37 + c * 101) as u8).collect()).collect();
    let runs: Vec<&[u8]> = runs.iter().map(|r| r.as_slice()).collect();
    for (channels, signed, bf16) in
        (1..=4).flat_map(|c| [(c, false, false), (c, true, false), (c, false, true), (c, true, true)])
    {
        let runs = &runs[..channels];
        let want = |j: usize| {
            (0..channels).fold(0, |p, c| {
                let b = runs[c][j];
                let v = if signed { f32::from(b as i8) } else { f32::from(b) };
                let bits = match bf16 {
                    true => half::bf16::from_f32(v).to_bits(),
                    false => half::f16::from_f32(v).to_bits(),
                };
                p | u64::from(bits) << (16 * c)
            })
        };
        let check = |out: &[u64], groups: &str| {
            for (j, pixel) in out.chunks(W).enumerate() {
                let what = format!("{groups}: pixel {j}, {channels} channels, {W} words, {signed} {bf16}");
                assert_eq!(pixel[0], want(j), "{what}");
                assert!(pixel[1..].iter().all(|&w| w == 0), "{what}: padding");
            }
        };
        let mut out = vec![u64::MAX; 256 * W];
        // SAFETY: the CPU has AVX-512 F and BW (checked by the caller); the runs hold 256
        // bytes, `out` 256 pixels.
        unsafe { byte_halves_avx512_of::<W>(out.as_mut_ptr(), runs, 16, signed, bf16) };
        check(&out, "rebiased");
        if super::super::has_vbmi() {
            let mut out = vec![u64::MAX; 256 * W];
            // SAFETY: as above, and the CPU has VBMI (checked).
            unsafe { byte_halves_vbmi::<W>(out.as_mut_ptr(), runs, 4, (signed, bf16)) };
            check(&out, "tables");
        }
        if super::super::has_fp16() && !bf16 {
            let mut out = vec![u64::MAX; 256 * W];
            // SAFETY: as above, and the CPU has VBMI and FP16 (checked).
            unsafe { fp16::byte_halves_fp16::<W>(out.as_mut_ptr(), runs, 4, signed) };
            check(&out, "FP16's conversions");
        }
    }
}
