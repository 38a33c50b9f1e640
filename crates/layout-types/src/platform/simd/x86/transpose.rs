//! x86-64 transpose strips: SSE2, AVX2 and AVX-512 (the safety argument is the room's, in
//! `platform/mod.rs`; the bounds each call relies on are checked by `super::super::strips`).
//!
//! A strip is `E` destination rows by one cache line of columns (`LINE / W` elements of `W`
//! bytes): `B = LINE / V` blocks of `E`×`E` elements side by side, `E = V / W` being the elements
//! of one `V`-byte register. A tall strip (`TALL`) stacks its blocks instead: `B · E`
//! destination rows by one register of columns, reading one cache line of each source run, for
//! destination rows shorter than a line (NC/32HW32's 32 bytes of int8); streamed, its rows are
//! dense half lines, so each pair of rows stored back to back fills one line. Each block loads
//! its `E` source runs, one register each, and transposes them in two steps: within each 16-byte lane, groups of `M = 16 / W` registers
//! interleave pairwise `log2 M` times (each round rotates the bits of (register, lane element)
//! by one, so `log2 M` rounds swap them); then the 16-byte lanes move across registers (AVX2's
//! `permute2x128`, AVX-512's `shuffle_i64x2` twice). A strip's rows are written one after the
//! other, each a whole cache line, so streaming stores fill whole write-combining buffers.

/// Bytes of the destination line a strip writes at once: one cache line.
pub(crate) const LINE: usize = 64;

/// One instruction set's strips; `$reg` is its register, `$v` its bytes, `$registers` how many
/// registers it has.
macro_rules! strips {
    (
        $module:ident, $feature:literal, $reg:ty, $v:expr, registers: $registers:literal,
        zero: $zero:ident, load: $load:ident, store: $store:ident, stream: $stream:ident,
        unpack: [$lo8:ident, $hi8:ident, $lo16:ident, $hi16:ident, $lo32:ident, $hi32:ident, $lo64:ident, $hi64:ident],
        cross: $cross:item
    ) => {
        pub(crate) mod $module {
            use core::arch::x86_64::*;
            use super::staging::GROUP;

            /// Bytes of a register.
            pub(crate) const V: usize = $v;

            /// The low (`HIGH` false) or high halves of each 16-byte lane of `a` and `b`,
            /// interleaved in units of `W` bytes.
            #[target_feature(enable = $feature)]
            #[inline]
            fn unpack<const W: usize, const HIGH: bool>(a: $reg, b: $reg) -> $reg {
                match (W, HIGH) {
                    (1, false) => $lo8(a, b),
                    (1, true) => $hi8(a, b),
                    (2, false) => $lo16(a, b),
                    (2, true) => $hi16(a, b),
                    (4, false) => $lo32(a, b),
                    (4, true) => $hi32(a, b),
                    (_, false) => $lo64(a, b),
                    (_, true) => $hi64(a, b),
                }
            }

            /// Transposes each 16-byte lane of every group of `M = 16 / W` registers.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(crate) fn in_lanes<const W: usize, const E: usize, const M: usize>(v: &mut [$reg; E]) {
                const { assert!(M * W == 16 && E % M == 0) };
                for group in v.chunks_exact_mut(M) {
                    let group: &mut [$reg; M] = group.try_into().expect("M registers");
                    for _ in 0..M.ilog2() {
                        let mut next = [$zero(); M];
                        for (k, n) in next.iter_mut().enumerate() {
                            let (a, b) = (group[k / 2], group[k / 2 + M / 2]);
                            *n = if k % 2 == 0 { unpack::<W, false>(a, b) } else { unpack::<W, true>(a, b) };
                        }
                        *group = next;
                    }
                }
            }

            $cross

            /// [`cross_each`]'s rows gathered into one array, row `r` at `r`.
            #[target_feature(enable = $feature)]
            #[inline]
            fn cross<const W: usize, const E: usize>(v: [$reg; E]) -> [$reg; E] {
                let mut out = v;
                cross_each::<W, E>(v, |r, row| out[r] = row);
                out
            }

            /// One strip: block `b` reads the `E` source runs `(b * E + j) * ss` bytes from
            /// `src` (`V` bytes each) and writes `V` bytes at `r * ds + b * V` from `dst` for
            /// each row `r`; a `TALL` strip's block `b` reads `V` bytes at `j * ss + b * V` and
            /// writes row `b * E + r` at `(b * E + r) * ds`. Streamed, or `WHOLE`, a strip
            /// of several blocks forms them all before it writes its rows, each whole.
            ///
            /// # Safety
            ///
            /// The CPU has the feature; those bytes are inside live, disjoint allocations;
            /// with `STREAM`, every destination row starts `V`-byte aligned.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn strip<
                const W: usize,
                const E: usize,
                const B: usize,
                const M: usize,
                const STREAM: bool,
                const TALL: bool,
                const WHOLE: bool,
            >(
                src: *const u8,
                ss: usize,
                dst: *mut u8,
                ds: usize,
            ) {
                const { assert!(E * W == V && B * V == super::LINE && (!STREAM || !TALL || 2 * V == super::LINE)) };
                // Each block is loaded, transposed and stored in this body (no closure around a
                // block: one was compiled out of line, its registers returned through memory,
                // and f16 strips ran at half speed in cache; the one a row that `cross_each`
                // takes is inlined with it).
                if (STREAM || WHOLE) && !TALL && B > 1 {
                    // Every block first, then each row's blocks back to back: whole lines, one
                    // at a time (streamed, or with ordinary stores where `WHOLE`: rows a
                    // multiple of 4 KiB apart share one L1 set, and written a block at a time
                    // they evict each other between blocks).
                    let mut rows = [[$zero(); E]; B];
                    for (b, block) in rows.iter_mut().enumerate() {
                        // SAFETY: block `b`'s source runs are inside `src` (the caller's contract).
                        let mut v = unsafe { load::<E, false>(src, ss, b) };
                        in_lanes::<W, E, M>(&mut v);
                        *block = cross::<W, E>(v);
                    }
                    for r in 0..E {
                        for (b, block) in rows.iter().enumerate() {
                            // SAFETY: row `r`'s bytes of block `b` are inside `dst` and start
                            // `V`-byte aligned (the caller's contract).
                            unsafe {
                                match STREAM {
                                    true => $stream(dst.add(r * ds + b * V).cast(), block[r]),
                                    false => $store(dst.add(r * ds + b * V).cast(), block[r]),
                                }
                            };
                        }
                    }
                } else if STREAM && TALL {
                    // A streamed tall strip reads each source run's line whole, its blocks'
                    // registers back to back, a lane group of runs at a time: its runs can share
                    // one cache set (NC/32HW32's 32 int8 planes 64 KiB apart share one of L1's
                    // and one of L2's), and read a block at a time every line left the caches
                    // between the blocks and was read twice (a block at a time → whole lines, at
                    // 16 MiB on an AMD EPYC (Zen 3), two threads, back to back, best of five
                    // alternations: u8 NCHW→NC/32HW32 25.7 → 31.4 GB/s, NCDHW→NDHWC 24.7 →
                    // 30.7). Then each block's rows go out in address order (half lines, each
                    // pair one whole line).
                    //
                    // With 32 registers (AVX2's blocks in their EVEX forms) every run is loaded
                    // before the lane transposes, as the strip probe does; a lane group of runs
                    // at a time left 20–25 % to the probe (AMD EPYC, Zen 4, two threads, u8 at
                    // 256 MiB, a scratch loop of `convert` alternating in one process, ÷ a
                    // streaming copy, four runs: NCHW→NC/32HW32 0.58–0.73 → 0.68–0.82,
                    // NCDHW→NDHWC 0.61–0.71 → 0.79–0.88; at 16 MiB 0.71–0.84 → 0.72–0.84 and
                    // 0.65–0.87 → 0.77–0.92). With 16 (AVX2's own) halves keep the groups, and
                    // bytes load every run first too (AMD EPYC, Zen 3, u8 NCHW→NC/32HW32 at 256
                    // MiB: one thread 22.9–23.1 → 26.4–26.9 GB/s, two 38.0–38.4 → 44.1–44.7).
                    let mut blocks = [[$zero(); E]; B];
                    let group = if $registers >= 32 || W == 1 { E } else { M };
                    for g in (0..E).step_by(group) {
                        for j in g..g + group {
                            for (b, block) in blocks.iter_mut().enumerate() {
                                // SAFETY: block `b`'s source runs are inside `src` (the
                                // caller's contract).
                                block[j] = unsafe { $load(src.add(j * ss + b * V).cast()) };
                            }
                        }
                        for h in (g..g + group).step_by(M) {
                            for block in blocks.iter_mut() {
                                let runs: &mut [$reg; M] = (&mut block[h..h + M]).try_into().expect("M registers");
                                in_lanes::<W, M, M>(runs);
                            }
                        }
                    }
                    // Each block's rows are streamed as `cross_each` forms them: formed into a
                    // new array (`cross`), AVX2's spilled blocks were copied by `memmove`, 22 % of
                    // the time (u8 NCHW→NC/32HW32 at 256 MiB on an AMD EPYC, Zen 3: two threads
                    // 33–35 → 38–43 GB/s, one 18 → 22.5; `BENCHMARKS.md`, step 50).
                    for (b, v) in blocks.iter().enumerate() {
                        cross_each::<W, E>(*v, |r, row| {
                            // SAFETY: row `r` of block `b` is inside `dst` (the caller's
                            // contract), and `V`-byte aligned (a tall strip's rows then lie `V`
                            // bytes apart from a line).
                            unsafe { $stream(dst.add((b * E + r) * ds).cast(), row) };
                        });
                    }
                } else {
                    // Ordinary stores need no whole lines, and a streamed strip of one block
                    // writes whole lines whatever their order: each row goes out as soon as the
                    // lane transpose has formed it, so that the block's registers and the
                    // transpose's temporaries do not outnumber the register file. Held until
                    // all were formed, AVX-512's f16 block of 32 registers moved 12 of them
                    // through the stack a strip (4 now). f16 NHWC→NCHW, two threads, old and
                    // new alternating: at 256 MiB (three times) in the bench's race 27.9–28.3 →
                    // 28.3–28.4 GB/s, back to back 28.3–28.9 → 29.1–29.9; at 1 MiB (twice)
                    // back to back 87.8–94.9 → 96.2–97.7.
                    for b in 0..B {
                        // SAFETY: block `b`'s source runs are inside `src` (the caller's contract).
                        let mut v = unsafe { load::<E, TALL>(src, ss, b) };
                        in_lanes::<W, E, M>(&mut v);
                        cross_each::<W, E>(v, |r, row| {
                            let at = if TALL { (b * E + r) * ds } else { r * ds + b * V };
                            // SAFETY: row `r`'s bytes of block `b` are inside `dst` (the
                            // caller's contract), and `V`-byte aligned when streamed.
                            unsafe {
                                match STREAM {
                                    true => $stream(dst.add(at).cast(), row),
                                    false => $store(dst.add(at).cast(), row),
                                }
                            }
                        });
                    }
                }
            }

            /// Block `b`'s `E` source runs, one register each: run `j` at `(b * E + j) * ss`
            /// bytes from `src`, or for a `TALL` strip `V` bytes into run `j`, `j * ss + b * V`.
            ///
            /// # Safety
            ///
            /// The CPU has the feature; those bytes are inside a live allocation.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn load<const E: usize, const TALL: bool>(src: *const u8, ss: usize, b: usize) -> [$reg; E] {
                let mut v = [$zero(); E];
                for (j, r) in v.iter_mut().enumerate() {
                    let at = if TALL { j * ss + b * V } else { (b * E + j) * ss };
                    // SAFETY: that register's bytes are inside `src` (the caller's contract).
                    *r = unsafe { $load(src.add(at).cast()) };
                }
                v
            }

            /// `L` lines' worth of neighbouring strips in cache (`P` strips a line: `B`, strip
            /// `l * B + p` reading `p * V` bytes into line `l` of each source run; or one `TALL`
            /// strip reading the whole line; strip `l * P + p` writes its rows that many `step`s
            /// on from `dst`) through `tiles` ([`staging`](super::staging)): each of the `R`
            /// source runs' `L` lines are copied into the tiles, and the strips read them there.
            ///
            /// # Safety
            ///
            /// As [`strip`], for every strip of the `L` lines; the CPU has the feature.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn staged<
                const W: usize,
                const E: usize,
                const B: usize,
                const M: usize,
                const STREAM: bool,
                const TALL: bool,
                const WHOLE: bool,
                const L: usize,
                const R: usize,
            >(
                src: *const u8,
                ss: usize,
                dst: *mut u8,
                [ds, step]: [usize; 2],
                tiles: &mut super::staging::Tiles<R>,
            ) {
                // A tall strip's blocks share its `E` runs.
                const { assert!(R == if TALL { E } else { B * E }) };
                let per_line = if TALL { 1 } else { B };
                // SAFETY: the `L` lines of the strips' source runs are inside `src` (the caller's
                // contract). AVX-512's ask for the next group's (AVX2's not: `Tiles::fill`).
                unsafe { tiles.fill::<L, { V == 64 }>(src, ss) };
                for l in 0..L {
                    for p in 0..per_line {
                        let dst = dst.wrapping_add((l * per_line + p) * step);
                        let src = tiles.tile(l).wrapping_add(p * V);
                        // SAFETY: tile `l` holds the strip's `R` source runs, a line apart, the
                        // strip's bytes of each `p * V` into its line; its rows are inside `dst`
                        // (the caller's contract).
                        unsafe { strip::<W, E, B, M, STREAM, TALL, WHOLE>(src, super::LINE, dst, ds) };
                    }
                }
            }

            /// `repeat` bands of `count` strips, strip `i` of band `k` at
            /// `src + k * src_next + i * src_step` and `dst + k * dst_next + i * dst_step`, then
            /// a store fence when streaming.
            ///
            /// Strips whose source runs overfill one L1 set (NCHW's and NCDHW's channel planes a
            /// multiple of 4 KiB apart: 16 to 64 runs in one set) read them through tiles
            /// ([`staged`]) where `tiles` (`Strips::tiles_runs` says which: on AMD's cores,
            /// AVX-512's in cache, AVX2's in cache or streamed from the last-level cache;
            /// [`staging`](super::staging) has what they gained). `R` is the runs a strip
            /// reads: `E` for a tall strip, `B * E` for the others.
            ///
            /// # Safety
            ///
            /// As [`strip`], for every strip.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn band<
                const W: usize,
                const E: usize,
                const B: usize,
                const M: usize,
                const STREAM: bool,
                const TALL: bool,
                const WHOLE: bool,
                const R: usize,
            >(
                src: *const u8,
                [ss, src_step, src_next]: [usize; 3],
                dst: *mut u8,
                [ds, dst_step, dst_next]: [usize; 3],
                [count, repeat]: [usize; 2],
                tiles: bool,
            ) {
                let steps = ([src_step, src_next], [dst_step, dst_next]);
                // A tall strip reads a whole line of each run.
                let per_line = if TALL { 1 } else { B };
                let walk = match tiles {
                    true => super::walks::LineWalk::new(steps.0, steps.1, [count, repeat], per_line),
                    false => None,
                };
                if let Some(walk) = walk {
                    let mut tiles = super::staging::Tiles::<R>::new();
                    walk.run(
                        src,
                        dst,
                        // SAFETY: every strip of the bands is inside both buffers (the caller's
                        // contract), and the CPU has the feature.
                        |s, d, n| unsafe {
                            let rows = [ds, walk.dst_step()];
                            match n {
                                GROUP => staged::<W, E, B, M, STREAM, TALL, WHOLE, GROUP, R>(s, ss, d, rows, &mut tiles),
                                _ => staged::<W, E, B, M, STREAM, TALL, WHOLE, 1, R>(s, ss, d, rows, &mut tiles),
                            }
                        },
                        // SAFETY: as above.
                        |s, d| unsafe { strip::<W, E, B, M, STREAM, TALL, WHOLE>(s, ss, d, ds) },
                    );
                } else if STREAM && !TALL && B > 1 && E >= 16 && V == 32 {
                    // SAFETY: the CPU has the feature; every strip of the bands is inside both
                    // buffers and its streamed rows start `V`-byte aligned (the caller's
                    // contract, `pipelined`'s).
                    unsafe { pipelined::<W, E, B, M>(src, ss, dst, ds, steps, [count, repeat]) };
                } else {
                    super::each_strip(src, steps.0, dst, steps.1, [count, repeat], |src, dst| {
                        // SAFETY: every strip of the bands is inside both buffers (the
                        // caller's contract).
                        unsafe { strip::<W, E, B, M, STREAM, TALL, WHOLE>(src, ss, dst, ds) }
                    });
                }
                if STREAM {
                    _mm_sfence();
                }
            }

            /// [`band`]'s streamed strips of several blocks and at least 16 rows in 32-byte
            /// registers (AVX2's bytes and halves), software-pipelined: each strip's rows are formed into one of two
            /// tiles in the L1 cache, and streamed out while the next strip loads its source
            /// runs, one store of a row's register after each load. [`strip`] loads all its
            /// runs, then streams all its rows, and the loads wait on memory with nothing to
            /// overlap them: on an AMD EPYC (Zen 3), u8 4096 × 4096 matrices into columns at
            /// 256 MiB, the same lines moved without shuffles, one thread, a load and its store
            /// in turn 10.3–10.5 GB/s, all loads then all stores 6.8–6.9, pipelined through
            /// two tiles 9.9–10.0. The library, a scratch loop of `convert` (best of 5 × 2
            /// calls), old and new alternating three times: u8 matrices one thread 6.2–6.8 →
            /// 8.8–9.1 GB/s, two threads 10.4–13.5 → 13.6–17.8; f16 NCHW→NHWC with C = 64 one
            /// thread 9.2–10.2 → 11.0–12.7, two 18.9–20.1 → 17.7–26.5; f16 2048 × 4096 matrices
            /// 6.8–8.0 → 6.9–8.1 and 13.2–16.0 → 14.8–16.8. f32's strips of 8 rows lost
            /// (NCHW→NHWC one thread 22.2–23.1 → 18.4–19.9, matrices 10.7–11.2 → 8.7–9.2,
            /// NHWC→NCHW 11.3–12.2 → 8.8–9.3), so they keep [`strip`].
            ///
            /// # Safety
            ///
            /// As [`strip`] with `STREAM`, for every strip of the bands.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn pipelined<const W: usize, const E: usize, const B: usize, const M: usize>(
                src: *const u8,
                ss: usize,
                dst: *mut u8,
                ds: usize,
                (src_steps, dst_steps): ([usize; 2], [usize; 2]),
                counts: [usize; 2],
            ) {
                const { assert!(E * W == V && B * V == super::LINE) };
                // Row `r` of a strip is `tile[r]`, its `B` registers one whole line.
                let mut tiles = [[[$zero(); B]; E]; 2];
                let mut last: Option<(*mut u8, usize)> = None;
                super::each_strip(src, src_steps, dst, dst_steps, counts, |src, dst| {
                    let fill = last.map_or(0, |(_, t)| 1 - t);
                    let [a, b] = &mut tiles;
                    let (tile, drain) = if fill == 0 { (a, &*b) } else { (b, &*a) };
                    for blk in 0..B {
                        // Formed by `from_fn`: a zeroed array took a call to `memset`.
                        let mut v: [$reg; E] = core::array::from_fn(|j| {
                            // SAFETY: block `blk`'s source runs are inside `src` (the caller's
                            // contract).
                            let run = unsafe { $load(src.add((blk * E + j) * ss).cast()) };
                            if let Some((at, _)) = last {
                                let (row, part) = ((blk * E + j) / B, (blk * E + j) % B);
                                // SAFETY: the last strip's row `row` is inside `dst` and starts
                                // `V`-byte aligned (the caller's contract, for that strip).
                                unsafe { $stream(at.add(row * ds + part * V).cast(), drain[row][part]) };
                            }
                            run
                        });
                        in_lanes::<W, E, M>(&mut v);
                        cross_each::<W, E>(v, |r, row| tile[r][blk] = row);
                    }
                    last = Some((dst, fill));
                });
                if let Some((at, t)) = last {
                    for (r, row) in tiles[t].iter().enumerate() {
                        for (part, v) in row.iter().enumerate() {
                            // SAFETY: as above, for the last strip of the bands.
                            unsafe { $stream(at.add(r * ds + part * V).cast(), *v) };
                        }
                    }
                }
            }
        }
    };
}

strips!(
    sse2, "sse2", __m128i, 16, registers: 16,
    zero: _mm_setzero_si128, load: _mm_loadu_si128, store: _mm_storeu_si128, stream: _mm_stream_si128,
    unpack: [_mm_unpacklo_epi8, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpackhi_epi16,
        _mm_unpacklo_epi32, _mm_unpackhi_epi32, _mm_unpacklo_epi64, _mm_unpackhi_epi64],
    cross:
    /// One lane per register: nothing moves across; row `r` is register `r`.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn cross_each<const W: usize, const E: usize>(v: [__m128i; E], mut row: impl FnMut(usize, __m128i)) {
        for (r, v) in v.into_iter().enumerate() {
            row(r, v);
        }
    }
);

/// AVX2's strips, compiled for `$feature`: AVX2 alone, or with AVX-512 VL and BW, where the same
/// instructions take their EVEX forms and reach 32 registers (a byte block of 32 registers
/// spills from AVX2's 16).
macro_rules! avx2_strips {
    ($module:ident, $feature:literal, $registers:literal) => {
        strips!(
            $module, $feature, __m256i, 32, registers: $registers,
            zero: _mm256_setzero_si256, load: _mm256_loadu_si256, store: _mm256_storeu_si256,
            stream: _mm256_stream_si256,
            unpack: [_mm256_unpacklo_epi8, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16,
                _mm256_unpacklo_epi32, _mm256_unpackhi_epi32, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64],
            cross:
            /// Two lanes per register: row `k` takes lane 0 of registers `k` and `M + k`, row
            /// `M + k` their lane 1; `row(r, register)` for each as it is formed.
            #[target_feature(enable = $feature)]
            #[inline]
            fn cross_each<const W: usize, const E: usize>(v: [__m256i; E], mut row: impl FnMut(usize, __m256i)) {
                let m = 16 / W;
                for k in 0..m {
                    let (a, b) = (v[k], v[m + k]);
                    row(k, _mm256_permute2x128_si256::<0x20>(a, b));
                    row(m + k, _mm256_permute2x128_si256::<0x31>(a, b));
                }
            }
        );
    };
}

avx2_strips!(avx2, "avx2", 16);
avx2_strips!(avx2_evex, "avx2,avx512f,avx512bw,avx512vl", 32);

strips!(
    avx512, "avx512f,avx512bw", __m512i, 64, registers: 32,
    zero: _mm512_setzero_si512, load: _mm512_loadu_si512, store: _mm512_storeu_si512,
    stream: _mm512_stream_si512,
    unpack: [_mm512_unpacklo_epi8, _mm512_unpackhi_epi8, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16,
        _mm512_unpacklo_epi32, _mm512_unpackhi_epi32, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64],
    cross:
    /// Four lanes per register: a 4×4 transpose of lanes among registers `k`, `M + k`,
    /// `2M + k` and `3M + k` (even lanes then odd lanes, twice); `row(r, register)` for each
    /// row as it is formed.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn cross_each<const W: usize, const E: usize>(v: [__m512i; E], mut row: impl FnMut(usize, __m512i)) {
        let m = 16 / W;
        for k in 0..m {
            let (a, b, c, d) = (v[k], v[m + k], v[2 * m + k], v[3 * m + k]);
            // 0x88: lanes 0 and 2 of each; 0xDD: lanes 1 and 3.
            let (ab_even, ab_odd) = (_mm512_shuffle_i64x2::<0x88>(a, b), _mm512_shuffle_i64x2::<0xDD>(a, b));
            let (cd_even, cd_odd) = (_mm512_shuffle_i64x2::<0x88>(c, d), _mm512_shuffle_i64x2::<0xDD>(c, d));
            row(k, _mm512_shuffle_i64x2::<0x88>(ab_even, cd_even));
            row(2 * m + k, _mm512_shuffle_i64x2::<0xDD>(ab_even, cd_even));
            row(m + k, _mm512_shuffle_i64x2::<0x88>(ab_odd, cd_odd));
            row(3 * m + k, _mm512_shuffle_i64x2::<0xDD>(ab_odd, cd_odd));
        }
    }
);

pub(crate) mod avx2_bytes;
pub(crate) mod avx512_bytes;
pub(crate) mod lanes;
mod staging;
mod walks;

use walks::{each_group, each_strip};
