//! The portable transpose block: elements packed into `u64` words, lanes swapped with shifts and
//! masks (SWAR). It serves 8-byte elements and targets without SSE2, and is the reference the
//! unit tests check every other block against.

use super::BLOCK;
use crate::dtype::Element;
use crate::platform::out::Out;

/// [`transpose_block`](super::transpose_block) in `u64` words, for any element size.
///
/// The runs are packed into `u64` words (`8 / size` lanes each) and transposed in three stages,
/// each swapping the off-diagonal halves of 2×2 sub-blocks of half the previous edge: a swap of
/// whole words where the sub-block edge is at least a word, a masked shift within words below it.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // `i`, `j`, `k` index two rows at once
pub(super) fn swar_block<T: Element>(
    src: &[T],
    from: usize,
    src_stride: usize,
    mut dst: Out<'_, T>,
    to: usize,
    dst_stride: usize,
) {
    let lanes = 8 / T::SIZE; // elements per word
    let words = BLOCK / lanes; // words per run
    let mut block = [[0u64; BLOCK]; BLOCK];
    for (c, run) in block.iter_mut().enumerate() {
        let at = from + c * src_stride;
        let elements: &[T; BLOCK] = src[at..at + BLOCK].try_into().expect("a run is BLOCK long");
        for (k, word) in run[..words].iter_mut().enumerate() {
            *word = pack(&elements[k * lanes..(k + 1) * lanes]);
        }
    }
    // Plain counted loops with `continue`: the compiler unrolls them fully and keeps `block` in
    // registers (iterator adapters here defeat that).
    let mut half = BLOCK / 2;
    while half > 0 {
        for i in 0..BLOCK {
            if i & half != 0 {
                continue;
            }
            let j = i + half;
            if half >= lanes {
                let shift = half / lanes; // in words
                for k in 0..words {
                    if k & shift != 0 {
                        let t = block[i][k];
                        block[i][k] = block[j][k - shift];
                        block[j][k - shift] = t;
                    }
                }
            } else {
                let bits = 8 * half * T::SIZE;
                let low = u64::MAX / ((1 << bits) + 1); // lanes whose index has bit `half` clear
                for k in 0..words {
                    let (a, b) = (block[i][k], block[j][k]);
                    let t = ((a >> bits) ^ b) & low;
                    block[i][k] = a ^ (t << bits);
                    block[j][k] = b ^ t;
                }
            }
        }
        half /= 2;
    }
    for (r, run) in block.iter().enumerate() {
        let at = to + r * dst_stride;
        let mut out = dst.at(at..at + BLOCK);
        for (k, &word) in run[..words].iter().enumerate() {
            unpack(word, out.at(k * lanes..(k + 1) * lanes));
        }
    }
}

/// The elements' bits side by side, the first in the low bits. Goes through bytes, which the
/// compiler turns into one word load.
#[inline(always)]
fn pack<T: Element>(elements: &[T]) -> u64 {
    let mut bytes = [0u8; 8];
    for (chunk, &e) in bytes.chunks_exact_mut(T::SIZE).zip(elements) {
        chunk.copy_from_slice(&e.to_word().to_le_bytes()[..T::SIZE]);
    }
    u64::from_le_bytes(bytes)
}

/// The inverse of [`pack`].
#[inline(always)]
fn unpack<T: Element>(word: u64, out: Out<'_, T>) {
    for (o, chunk) in out.slots().zip(word.to_le_bytes().chunks_exact(T::SIZE)) {
        let mut bytes = [0u8; 8];
        bytes[..T::SIZE].copy_from_slice(chunk);
        o.set(T::from_word(u64::from_le_bytes(bytes)));
    }
}
