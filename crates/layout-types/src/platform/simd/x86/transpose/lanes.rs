//! Strips of bytes and halves with their lanes gathered by the loads, for a conversion in cache
//! whose strips read near source runs (`x86::band` says where they are measured faster than the
//! other strips): AVX-512's (bytes and halves) and AVX2's (halves).
//!
//! For `W`-byte elements a 16-byte lane holds `M = 16 / W` of them, and a strip reads one
//! line's worth of source runs (`64 / W`, its columns), `N` lanes a register (4 for AVX-512, 2
//! for AVX2). Row group `g` (rows `Mg..Mg + M`) is `M` registers a part of the line (`4 / N`
//! parts): register `i` of part `c` takes lane `l` from source run `(cN + l)M + i`, bytes
//! `16g..16g + 16` (one 16-byte load and `N - 1` inserted). The lanes are then where the rows
//! want them before any shuffle, so `log2 M` rounds of in-lane interleaves transpose them, and
//! register `k` of part `c` is the part's columns of destination row `Mg + k`: no cross-lane
//! round, and each row written whole, its parts back to back, as soon as its group is formed.
//!
//! A band's strips go two at a time, row group by row group: each group's rows are written
//! two lines each, over two cache sets (`x86::band` says why that matters).
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

/// One instruction set's gathered-lane strips: `$reg` its register of `$v` bytes, `$feature`
/// what it needs, `$rows` a strip's rows; `$gather` loads one register's lanes.
macro_rules! lanes {
    (
        $module:ident, $feature:literal, $reg:ty, $v:expr, rows: $rows:literal,
        unpack: [$lo8:ident, $hi8:ident, $lo16:ident, $hi16:ident], zero: $zero:ident, store: $store:ident,
        gather: $gather:item
    ) => {
        pub(crate) mod $module {
            use core::arch::x86_64::*;

            /// Rows of a strip.
            const ROWS: usize = $rows;

            /// Bytes of a register.
            const V: usize = $v;

            /// Parts of a line: registers a row.
            const PARTS: usize = super::super::LINE / V;

            /// One round of the in-lane interleave of a group of 16 byte registers, written out
            /// (a loop over an array of registers went through memory): pair `k` is the low and
            /// high byte interleave of registers `k` and `k + 8`; four rounds transpose each
            /// lane's 16×16 block.
            #[target_feature(enable = $feature)]
            #[inline]
            fn bytes(g: [$reg; 16]) -> [$reg; 16] {
                [
                    $lo8(g[0], g[8]), $hi8(g[0], g[8]), $lo8(g[1], g[9]), $hi8(g[1], g[9]),
                    $lo8(g[2], g[10]), $hi8(g[2], g[10]), $lo8(g[3], g[11]), $hi8(g[3], g[11]),
                    $lo8(g[4], g[12]), $hi8(g[4], g[12]), $lo8(g[5], g[13]), $hi8(g[5], g[13]),
                    $lo8(g[6], g[14]), $hi8(g[6], g[14]), $lo8(g[7], g[15]), $hi8(g[7], g[15]),
                ]
            }

            /// [`bytes`] for a group of 8 registers of halves (2-byte elements): pairs `k` and
            /// `k + 4`; three rounds transpose each lane's 8×8 block.
            #[target_feature(enable = $feature)]
            #[inline]
            fn halves(g: [$reg; 8]) -> [$reg; 8] {
                [
                    $lo16(g[0], g[4]), $hi16(g[0], g[4]), $lo16(g[1], g[5]), $hi16(g[1], g[5]),
                    $lo16(g[2], g[6]), $hi16(g[2], g[6]), $lo16(g[3], g[7]), $hi16(g[3], g[7]),
                ]
            }

            /// Transposes each 16-byte lane of a group of `M` registers (16 of bytes or 8 of
            /// halves).
            #[target_feature(enable = $feature)]
            #[inline]
            fn transpose<const M: usize>(mut g: [$reg; M]) -> [$reg; M] {
                if let Ok(b) = <&mut [$reg; 16]>::try_from(&mut g[..]) {
                    *b = bytes(bytes(bytes(bytes(*b))));
                } else if let Ok(h) = <&mut [$reg; 8]>::try_from(&mut g[..]) {
                    *h = halves(halves(halves(*h)));
                }
                g
            }

            $gather

            /// Group registers from `src`: register `i` takes lane `l` from bytes `0..16` of
            /// source run `Ml + i` (`ss` bytes apart).
            ///
            /// # Safety
            ///
            /// The CPU has the feature; those bytes are inside a live allocation.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn load<const M: usize>(src: *const u8, ss: usize) -> [$reg; M] {
                // Each register's runs from one pointer and one stride (with the addresses of
                // all the runs computed apart, they spilled from the general registers).
                let mut at = src;
                let mut v = [$zero(); M];
                for r in v.iter_mut() {
                    // SAFETY: bytes `0..16` of runs `i`, `M + i`, … (a lane each) are inside
                    // `src` (the caller's contract).
                    *r = unsafe { gather(at, M * ss) };
                    at = at.wrapping_add(ss);
                }
                v
            }

            /// `Q` neighbouring strips of `W`-byte elements (`M = 16 / W`), row group by row
            /// group: strip `q`'s source runs `q * src_step + j * ss` bytes from `src` (64 /
            /// `W` of them, `ROWS` elements each), its rows `q * dst_step + r * ds` bytes from
            /// `dst` (64 bytes each, `r` in `0..ROWS`), ordinary stores.
            ///
            /// # Safety
            ///
            /// The CPU has the feature; those bytes are inside live, disjoint allocations.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn strips<const W: usize, const M: usize, const Q: usize>(
                src: *const u8,
                [ss, src_step]: [usize; 2],
                dst: *mut u8,
                [ds, dst_step]: [usize; 2],
            ) {
                const { assert!(M * W == 16 && (W == 1 || W == 2) && ROWS % M == 0) };
                // Runs a part of the line: a register's lanes of `M` registers.
                let part_bytes = V / 16 * M * ss;
                for g in 0..ROWS / M {
                    for q in 0..Q {
                        let src = src.wrapping_add(q * src_step + 16 * g);
                        // A loop, not `array::from_fn`: its closure was compiled out of line.
                        let mut rows = [[$zero(); M]; PARTS];
                        for (c, part) in rows.iter_mut().enumerate() {
                            // SAFETY: group `g`'s bytes of strip `q`'s part `c` are inside `src`
                            // (the caller's contract).
                            *part = transpose::<M>(unsafe { load::<M>(src.wrapping_add(c * part_bytes), ss) });
                        }
                        for k in 0..M {
                            let row = dst.wrapping_add(q * dst_step + (g * M + k) * ds);
                            for (c, part) in rows.iter().enumerate() {
                                // SAFETY: row `Mg + k`'s 64 bytes of strip `q` are inside `dst`
                                // (the caller's contract).
                                unsafe { $store(row.add(c * V).cast(), part[k]) };
                            }
                        }
                    }
                }
            }

            /// `repeat` bands of `count` strips of `W`-byte elements (`M = 16 / W`), strip `i`
            /// of band `k` at `src + k * src_next + i * src_step` and `dst + k * dst_next + i *
            /// dst_step`: two strips a call to [`strips`](fn@strips), and the last one alone
            /// when `count` is odd.
            ///
            /// # Safety
            ///
            /// As [`strips`](fn@strips), for every strip; the CPU has the feature.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn band<const W: usize, const M: usize>(
                src: *const u8,
                [ss, src_step, src_next]: [usize; 3],
                dst: *mut u8,
                [ds, dst_step, dst_next]: [usize; 3],
                [count, repeat]: [usize; 2],
            ) {
                let steps = ([src_step, src_next], [dst_step, dst_next]);
                let geometry = ([ss, src_step], [ds, dst_step]);
                super::super::each_group::<2>(
                    src,
                    steps.0,
                    dst,
                    steps.1,
                    [count, repeat],
                    // SAFETY: every strip of the bands is inside both buffers (the caller's
                    // contract), and the CPU has the feature.
                    |s, d| unsafe { strips::<W, M, 2>(s, geometry.0, d, geometry.1) },
                    // SAFETY: as above.
                    |s, d| unsafe { strips::<W, M, 1>(s, geometry.0, d, geometry.1) },
                );
            }
        }
    };
}

lanes!(
    avx512, "avx512f,avx512bw", __m512i, 64, rows: 32,
    unpack: [_mm512_unpacklo_epi8, _mm512_unpackhi_epi8, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16],
    zero: _mm512_setzero_si512, store: _mm512_storeu_si512,
    gather:
    /// One register: lane `l` the 16 bytes at `at + l * apart`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 F; those bytes are inside a live allocation.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    unsafe fn gather(at: *const u8, apart: usize) -> __m512i {
        // SAFETY: the four lanes' bytes are inside a live allocation (the caller's contract).
        unsafe {
            let lane = |p: *const u8| _mm_loadu_si128(p.cast());
            let x = _mm512_castsi128_si512(lane(at));
            let x = _mm512_inserti32x4::<1>(x, lane(at.add(apart)));
            let x = _mm512_inserti32x4::<2>(x, lane(at.add(2 * apart)));
            _mm512_inserti32x4::<3>(x, lane(at.add(3 * apart)))
        }
    }
);

lanes!(
    avx2, "avx2", __m256i, 32, rows: 16,
    unpack: [_mm256_unpacklo_epi8, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16],
    zero: _mm256_setzero_si256, store: _mm256_storeu_si256,
    gather:
    /// One register: lane `l` the 16 bytes at `at + l * apart`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2; those bytes are inside a live allocation.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn gather(at: *const u8, apart: usize) -> __m256i {
        // SAFETY: the two lanes' bytes are inside a live allocation (the caller's contract).
        unsafe {
            let x = _mm256_castsi128_si256(_mm_loadu_si128(at.cast()));
            _mm256_inserti128_si256::<1>(x, _mm_loadu_si128(at.add(apart).cast()))
        }
    }
);
