//! Block transposes of 1-, 2- and 4-byte elements with SSE2's unpack shuffles: 16×16 bytes,
//! 8×8 of 2-byte elements, 8×8 of 4-byte ones as four 4×4 quadrants ([`transpose_lanes`]), and
//! 8×8 bytes for planes narrower than 16 ([`bytes_8x8`]).
//!
//! SSE2 is x86-64's baseline, so these need no run-time detection; `safe_arch` wraps each
//! intrinsic in a safe function (`std::arch`'s cannot be called from safe code even where the
//! feature is always on).

use super::BLOCK;
use crate::dtype::Element;
use crate::platform::out::Out;
use safe_arch::{
    load_unaligned_m128i, m128i, unpack_high_i16_m128i, unpack_high_i32_m128i, unpack_high_i8_m128i,
    unpack_low_i16_m128i, unpack_low_i32_m128i, unpack_low_i8_m128i,
};

/// Edge of a block of 1-byte elements: one register holds a run of 16.
pub(super) const BYTE_BLOCK: usize = 16;
const _: () =
    assert!(super::TILE_GRAIN.is_multiple_of(BYTE_BLOCK) && super::TILE_GRAIN.is_multiple_of(BLOCK));

/// Transposes one [`BYTE_BLOCK`]×[`BYTE_BLOCK`] block of 1-byte elements (runs as in [`block`]).
#[inline(always)]
pub(super) fn byte_block<T: Element>(
    src: &[T],
    from: usize,
    src_stride: usize,
    mut dst: Out<'_, T>,
    to: usize,
    dst_stride: usize,
) {
    let runs = runs::<T, BYTE_BLOCK>(src, from, src_stride);
    let v = transpose_lanes::<BYTE_BLOCK>(
        core::array::from_fn(|c| load(bytemuck::cast_slice(runs[c]))),
        unpack_low_i8_m128i,
        unpack_high_i8_m128i,
    );
    // Each row through the one view: an array of 16 row views (as a `rows` helper made) is
    // moved through the stack and its builder left out of line (measured, one thread, a 1 MiB u8
    // NCHW→NHWC plane with C = 64 at the SSE2 level: 1.2–1.5 GB/s that way).
    for (r, row) in v.into_iter().enumerate() {
        let at = to + r * dst_stride;
        store(dst.at(at..at + BYTE_BLOCK).bytes(), row);
    }
}

/// Transposes one block whose source runs start at `from + c * src_stride` and destination runs
/// at `to + r * dst_stride`; `T::SIZE` is 1, 2 or 4.
#[inline(always)]
pub(super) fn block<T: Element>(
    src: &[T],
    from: usize,
    src_stride: usize,
    mut dst: Out<'_, T>,
    to: usize,
    dst_stride: usize,
) {
    // (`array::map` over the runs here compiles to copies through the stack: f16 3× slower.)
    let runs = runs::<T, BLOCK>(src, from, src_stride);
    let run = |c: usize| -> &[u8] { bytemuck::cast_slice(runs[c]) };
    // Each row through the one view, as in `byte_block` (with the array of 8 row views that
    // `rows` made, at a forced portable level, where these blocks take whole planes, one
    // thread, 1 MiB NCHW→NHWC: f16 2.6–3.0 → 7.0–11.2 GB/s, f32 2.5–3.4 → 6.7–11.5; at the
    // SSE2 level and up the strips take those planes and the blocks only their edges).
    let at = |r: usize| to + r * dst_stride..to + r * dst_stride + BLOCK;
    match T::SIZE {
        1 => {
            let v = bytes_8x8(core::array::from_fn(|c| {
                u64::from_le_bytes(run(c).try_into().expect("8 one-byte elements"))
            }));
            for (r, row) in v.into_iter().enumerate() {
                dst.at(at(r)).bytes().copy_from(&row.to_le_bytes());
            }
        }
        2 => {
            let v: [m128i; BLOCK] = core::array::from_fn(|c| load(run(c)));
            for (r, row) in
                transpose_lanes(v, unpack_low_i16_m128i, unpack_high_i16_m128i).into_iter().enumerate()
            {
                store(dst.at(at(r)).bytes(), row);
            }
        }
        _ => {
            // Quadrant by quadrant: four runs' halves in, four halves out, so the block never
            // needs more registers than SSE2 has.
            for g in 0..2 {
                for h in 0..2 {
                    let v = core::array::from_fn(|i| load(&run(4 * g + i)[16 * h..16 * h + 16]));
                    let v = transpose_lanes::<4>(v, unpack_low_i32_m128i, unpack_high_i32_m128i);
                    for (k, row) in v.into_iter().enumerate() {
                        store(dst.at(at(4 * h + k)).bytes().into_at(16 * g..16 * g + 16), row);
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn load(bytes: &[u8]) -> m128i {
    load_unaligned_m128i(bytes.try_into().expect("16 bytes"))
}

/// Writes `v` to `bytes` (16 of them).
#[inline(always)]
fn store(mut bytes: Out<'_, u8>, v: m128i) {
    bytes.copy_from(&<[u8; 16]>::from(v))
}

/// Eight runs of eight bytes, transposed: output `k` holds byte `k` of every run.
#[inline(always)]
fn bytes_8x8(runs: [u64; 8]) -> [u64; 8] {
    let v = |i: usize| m128i::from([runs[i], 0]);
    // Byte pairs, then 4-byte groups, then whole 8-byte columns: two outputs per register.
    let a = [0, 2, 4, 6].map(|i| unpack_low_i8_m128i(v(i), v(i + 1)));
    let b = [
        unpack_low_i16_m128i(a[0], a[1]),
        unpack_high_i16_m128i(a[0], a[1]),
        unpack_low_i16_m128i(a[2], a[3]),
        unpack_high_i16_m128i(a[2], a[3]),
    ];
    let c = [
        unpack_low_i32_m128i(b[0], b[2]),
        unpack_high_i32_m128i(b[0], b[2]),
        unpack_low_i32_m128i(b[1], b[3]),
        unpack_high_i32_m128i(b[1], b[3]),
    ];
    let pairs = c.map(<[u64; 2]>::from);
    core::array::from_fn(|k| pairs[k / 2][k % 2])
}

/// `N` registers of `N` lanes each, transposed: register `k`, lane `p` ends in register `p`,
/// lane `k`. `low` and `high` interleave the low and high halves of two registers' lanes.
///
/// Each round interleaves registers `i` and `i + N/2` into registers `2i` and `2i + 1`, which
/// rotates the bits of (register, lane) left by one; `log2 N` rounds swap the two halves.
///
/// `low` and `high` are generic, not `fn` pointers: through pointers the 16-register byte block
/// kept its unpacks as calls (with an array of row views: 1.5 GB/s against 5.6–6.3, one thread,
/// a 1 MiB u8 NCHW→NHWC plane at the SSE2 level).
#[inline(always)]
fn transpose_lanes<const N: usize>(
    mut v: [m128i; N],
    low: impl Fn(m128i, m128i) -> m128i,
    high: impl Fn(m128i, m128i) -> m128i,
) -> [m128i; N] {
    for _ in 0..N.ilog2() {
        v = core::array::from_fn(|k| {
            let (a, b) = (v[k / 2], v[k / 2 + N / 2]);
            if k % 2 == 0 {
                low(a, b)
            } else {
                high(a, b)
            }
        });
    }
    v
}

/// The `E` source runs of a block, `E` elements each from `from`, `stride` apart.
///
/// Each run is checked once, by stepping a slice along the stride: indexing each run from
/// `from` instead costs a multiply and two overflow checks per run (measured in cache, one thread,
/// a 64 × 1024 f32 NCHW→NHWC plane: 35 GB/s that way, 48 this way).
#[inline(always)]
fn runs<T, const E: usize>(src: &[T], from: usize, stride: usize) -> [&[T]; E] {
    let mut rest = &src[from..];
    core::array::from_fn(|c| {
        if c > 0 {
            rest = &rest[stride..];
        }
        &rest[..E]
    })
}
