//! Transposing a plane strip by strip with a SIMD level chosen at run time: the safe face of the
//! x86-64 strips (`x86/transpose.rs`) for the conversion kernels.
//!
//! A strip is [`Strips::rows`] destination rows by one cache line of destination columns
//! ([`Strips::cols`]): each row it writes is a whole line, so streaming stores fill whole
//! write-combining buffers and the destination is never read.

use super::{Level, Stores};
use crate::dtype::Element;
use crate::platform::out::Out;

/// Whose cores the strips take their forms for, where the best form of a strip differed between
/// the vendors' cores measured: [`Strips::whole_line_bytes`], [`Strips::tiles_runs`],
/// [`Strips::stages_far_runs`] and the tall byte strips of [`Strips::stages_aliased_runs`]. Read
/// once per process (CPUID's vendor string); tests run both on every CPU ([`Strips::for_cores`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cores {
    /// AMD's (measured on EPYCs of Zen 3 and Zen 4).
    Amd,
    /// Intel's (measured on Xeons), and any other vendor's.
    Intel,
}

impl Cores {
    /// Both, for tests.
    #[cfg(test)]
    pub(crate) const ALL: [Cores; 2] = [Cores::Amd, Cores::Intel];

    /// This CPU's (Intel's off x86-64, where no strips are made).
    fn detected() -> Cores {
        #[cfg(target_arch = "x86_64")]
        if super::x86::amd() {
            return Cores::Amd;
        }
        Cores::Intel
    }
}

/// Bytes of the destination line a strip writes.
const LINE: usize = 64;

/// Ways of an L1 data cache set on this machine class: the fewer of AMD's Zen 3 (8) and recent
/// Intel cores (12), so that runs which overfill the smaller set are staged on both.
pub(crate) const L1_WAYS: usize = 8;

/// Bytes after which an L1 data cache's sets repeat (64 sets of 64-byte lines): runs a multiple
/// of it apart put their lines at one offset all in one set.
pub(crate) const L1_SET_PERIOD: usize = 4096;

/// How a conversion transposes its strips: a level this CPU has (checked by [`Strips::new`], the
/// only way to make one), the store kind and the element size, fixed once per conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strips {
    level: Level,
    streaming: bool,
    size: usize,
    /// The conversion's destination fits in the caches (its stores were made ordinary), so its
    /// source does too: kept by [`Strips::with_stores`].
    in_cache: bool,
    /// The conversion's source fits in this machine class's share of the last-level cache
    /// ([`Strips::with_cached_source`]).
    cached_source: bool,
    /// Tall strips ([`Strips::tall`]).
    tall: bool,
    /// Streamed from the last-level cache, through tiles ([`Strips::tiling_cached_source`]).
    tiles_cached_source: bool,
    /// Whose cores the strips' forms are for ([`Cores`]).
    cores: Cores,
}

/// `count` strips of a plane whose source runs down its rows and destination along its columns
/// (unit inner strides), in elements: source run `c` of strip `i` starts at
/// `from + i * src_step + c * src_stride`, destination row `r` at
/// `to + i * dst_step + r * dst_stride`; and that band `repeat` times, the `k`-th
/// `k * src_next` and `k * dst_next` further on (one call for many short bands).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Band {
    pub(crate) from: usize,
    pub(crate) src_stride: usize,
    pub(crate) src_step: usize,
    pub(crate) to: usize,
    pub(crate) dst_stride: usize,
    pub(crate) dst_step: usize,
    pub(crate) count: usize,
    pub(crate) repeat: usize,
    pub(crate) src_next: usize,
    pub(crate) dst_next: usize,
}

impl Strips {
    /// Strips at `level` for elements of `size` bytes, or `None` where the level is not on this
    /// CPU or has no strips (the portable level, other architectures, other sizes).
    pub(crate) fn new(level: Level, stores: Stores, size: usize) -> Option<Strips> {
        let has = cfg!(target_arch = "x86_64") && level >= Level::Sse2 && level.available();
        (has && matches!(size, 1 | 2 | 4 | 8)).then_some(Strips {
            level,
            streaming: stores == Stores::Streaming,
            size,
            in_cache: stores == Stores::Ordinary,
            cached_source: stores == Stores::Ordinary,
            tall: false,
            tiles_cached_source: false,
            cores: Cores::detected(),
        })
    }

    /// The same strips in the forms taken for `cores` (tests: both vendors' forms run on every
    /// CPU).
    #[cfg(test)]
    pub(crate) fn for_cores(self, cores: Cores) -> Strips {
        Strips { cores, ..self }
    }

    /// Whether AVX-512's streamed byte strips are whole lines held in 64-byte registers
    /// (`x86/transpose/avx512_bytes.rs`: measured on Intel's cores, where AVX2's blocks spilled
    /// when held for streaming), or AVX2's blocks in their EVEX forms: on AMD's. On an AMD EPYC
    /// (Zen 4), u8 row→column matrices, two threads, a scratch loop of `convert` alternating
    /// four times, whole-line strips → AVX2's blocks: at 256 MiB 25.7–27.7 → 34.6–37.7 GB/s,
    /// at 16 MiB 33.2–35.4 → 37.6–42.6 (u8 NCHW→NHWC even). Zen 5 was not measured.
    pub(crate) fn whole_line_bytes(&self) -> bool {
        self.cores == Cores::Intel
    }

    /// Whether strips whose source runs lie `stride` bytes apart read them through tiles of four
    /// lines (`x86/transpose.rs`'s `band`, which has AVX-512's figures) rather than in place or
    /// from a staged panel, their rows `stream`ed or not: on AMD's cores only, AVX-512's of 2, 4
    /// and 8 bytes (not tall) with ordinary stores from runs a multiple of 4 KiB apart, and
    /// AVX2's of 1, 2 and 4 bytes from runs of which more share one L1 set than it has ways
    /// ([`L1_WAYS`]): in cache (tall ones too), or streamed from the last-level cache where the
    /// plane's runs would be staged ([`Strips::tiling_cached_source`], not tall).
    ///
    /// AVX2's planes of runs a multiple of 4 KiB apart were staged panel by panel
    /// ([`Strips::stages_aliased_runs`]), the 64 KiB panel past Zen 3's L1. On an AMD EPYC (Zen 3,
    /// L1d 32 KiB of 8 ways), 1 MiB, `to_layout_into` best of 0.3 s, one binary with the tiles
    /// behind an environment variable, the two in turn three times, panels → tiles, GB/s, one
    /// thread: f32 NCHW→NHWC 29.1, 36.6, 37.2 → 51.6, 40.3, 52.9, NCHW→NC/32HW32 28.4, 28.3,
    /// 36.4 → 51.3, 49.8, 51.2, NCDHW→NDHWC 28.7, 29.2, 37.9 → 53.9, 40.1, 52.3; f16 NCHW→NHWC
    /// 24.7, 34.8, 34.2 → 42.3, 41.2, 42.0, NC/32HW32 31.4, 33.8, 34.9 → 42.5, 42.1, 41.7,
    /// NCDHW→NDHWC 34.0, 25.6, 34.8 → 42.8, 42.4, 42.6 (`BENCHMARKS.md`, step 46, has the bench's
    /// races). Runs 2 KiB apart (512-wide f32 and 1024-wide f16 matrices into columns), the same
    /// way: f16's 32 runs, 16 a set, in place → tiles 31.5–31.9 → 35.0–35.9 (two threads
    /// 57.3–58.4 → 63.7–64.6); f32's 16, 8 a set, 31.0–32.6 → 24.9–25.1, so those stay in place.
    /// Bytes (`avx2_bytes`, 64 runs), the same way, in turn three times: NCHW→NHWC one thread
    /// 30.0, 21.0, 29.8 → 32.7, 33.9, 34.0, two threads 44.1, 56.5, 41.6 → 63.6, 64.7, 64.8; a
    /// 1024-wide matrix into columns (runs 1 KiB apart, 16 a set) one thread 27.7–28.2 →
    /// 30.2–30.8, two threads 47.6–54.6 → 46.4–58.0. Tall strips in cache (step 47), panels →
    /// tiles, one thread, in turn three times: f16 NCHW→NHWC with C = 16 (16 runs 64 KiB apart)
    /// 34.2–35.3 → 46.4–46.7, u8 with C = 32 30.5–31.4 → 35.4–35.7 (f32's 8 runs stay in
    /// place); from L3 they lost (u8 NC/32HW32 at 16 MiB, the bench's race in turn twice: 0.66,
    /// 0.68 → 0.53, 0.61 of the strongest copy). AVX2's f64 strips were not measured with tiles.
    pub(crate) fn tiles_runs(&self, stride: usize, stream: bool) -> bool {
        // Lines of a strip's runs at one offset that fall in one L1 set: the runs repeat the
        // sets every `L1_SET_PERIOD / step` runs, `step` the largest power of two dividing the
        // stride (at most the period).
        let step = 1usize << stride.trailing_zeros().min(L1_SET_PERIOD.trailing_zeros());
        let per_set = self.cols() * step / L1_SET_PERIOD;
        let avx2 = (self.in_cache || self.tiles_cached_source) && matches!(self.size, 1 | 2 | 4);
        self.cores == Cores::Amd
            && match self.level {
                Level::Avx512 => {
                    !stream && !self.tall && self.size >= 2 && stride.is_multiple_of(L1_SET_PERIOD)
                }
                Level::Avx2 => avx2 && per_set > L1_WAYS,
                _ => false,
            }
    }

    /// The same strips reading their source runs through tiles ([`Strips::tiles_runs`]) where
    /// they are streamed from the last-level cache ([`Strips::cached_source`]) and a plane's runs
    /// share one L1 set (`convert::kernels`'s `by_staged_source` asks, for the planes it would
    /// stage): AVX2's bytes, halves and words on AMD's cores. `None` elsewhere. On an AMD EPYC (Zen 3),
    /// 16 MiB (four images of C = 64), `to_layout_into` best of 0.3 s on a pool of two threads,
    /// one binary with the tiles behind an environment variable, the two in turn three times,
    /// panels → tiles, GB/s: f32 NCHW→NHWC 20.3, 19.2, 20.3 → 33.0, 35.6, 33.3, NCHW→NC/32HW32
    /// 27.1, 26.1, 44.2 → 46.6, 46.8, 47.5, NCDHW→NDHWC 24.4, 26.6, 27.1 → 45.2, 47.9, 47.3; f16
    /// NCHW→NHWC 19.9, 21.1, 28.5 → 38.1, 30.3, 40.8, NC/32HW32 26.7, 29.1, 29.4 → 37.6, 38.9,
    /// 46.0, NCDHW→NDHWC 21.7, 28.2, 25.5 → 33.4, 47.3, 47.9; u8 NCHW→NHWC 36.3, 34.1, 29.5 →
    /// 40.5, 39.8, 40.7 (one thread 22.8, 13.9, 14.4 → 21.8, 21.0, 21.2). Not for the bands `by_strips`
    /// streams in place from more runs (large matrices into columns, 4 KiB rows: f32 22.7–23.0 →
    /// 17.3–18.9 GB/s tiled, f16 20.8–22.6 → 14.3–15.6).
    pub(crate) fn tiling_cached_source(self) -> Option<Strips> {
        let tiled = Strips { tiles_cached_source: true, ..self };
        let has = self.level == Level::Avx2
            && self.cores == Cores::Amd
            && self.streaming
            && self.cached_source
            && !self.tall
            && matches!(self.size, 1 | 2 | 4);
        has.then_some(tiled)
    }

    /// The SIMD level the strips run at (one this CPU has).
    pub(crate) fn level(&self) -> Level {
        self.level
    }

    /// Whether there are strips for the element size at this level: always, but for 1-byte
    /// elements below AVX2. SSE2's 1-byte strip is four 16×16 blocks side by side, which lost
    /// to the SSE2 blocks of `convert::kernels` (measured: u8 NHWC→NCHW at 256 MiB 0.29 of the
    /// strongest copy against 0.65 through staged tiles), so those keep the blocks and stream
    /// through a staging buffer.
    pub(crate) fn has_blocks(&self) -> bool {
        self.size >= 2 || self.level >= Level::Avx2
    }

    /// Whether streamed strips are the better way to stream a plane of `rows` long destination
    /// rows than staged tiles (`convert::kernels`'s `by_staged_tiles`: ordinary strips into a
    /// cache-resident buffer, then streamed). Not for AVX2's halves, whose streamed strips write
    /// one line of each of 16 planes in turn: on an AMD EPYC (Zen 3), f16 NHWC→NCHW with C = 64
    /// at 256 MiB, a scratch loop of `convert` alternating five times, staged tiles (1 KiB of
    /// each of 64 planes streamed at once) took one thread from 7.0–8.3 to 12.3–13.9 GB/s and two
    /// from 15.0–15.7 to 18.1–21.3, where f32 (and a 2048 × 4096 f16 matrix into columns) stayed
    /// even. (Staged tiles that prefetch their contiguous sources beat even these:
    /// [`Strips::stages_contiguous_sources`].)
    ///
    /// Bytes: AVX-512's streamed byte strips of AVX2's blocks (on AMD's cores:
    /// `whole_line_bytes`) where the plane has a strip's rows at least. On an AMD EPYC (Zen 4),
    /// two threads, u8 NHWC→NCHW at 256 MiB, staged tiles → streamed strips, a scratch loop of
    /// `convert` in turn three times: C = 64 20.2–28.0 → 35.6–38.1 GB/s, C = 128 19.4–19.8 →
    /// 27.8–30.0, C = 256 20.9–21.3 → 29.2–30.1, C = 32 31.6 → 45.4; at 16 MiB C = 64
    /// 30.0–32.3 → 44.0–44.7; u8 NCHW→NHWC with C = 256 (rows of 4 lines, whose staged tiles
    /// read 256 page-strided runs a line each), the two alternating in one process, 9.2–9.4 →
    /// 24.5–25.8 (16 MiB 18.3 → 41.1), and into a destination 16 bytes past a line (the rows'
    /// seams) C = 128 20.7–21.6 → 24.0–26.7. With fewer rows than a strip the staged tiles
    /// stay (C = 16: 17.6 against 11.1). Elsewhere bytes keep the staged tiles: they matched
    /// AVX-512's streamed strips of whole lines on Intel's cores (u8 NHWC→NCHW at 256 MiB:
    /// 0.82 of the strongest copy either way), and beat AVX2's, which hold a whole line as two
    /// blocks of 32 registers.
    pub(crate) fn streams_directly(&self, rows: usize) -> bool {
        let bytes = self.level == Level::Avx512 && !self.whole_line_bytes() && rows >= self.rows();
        self.has_blocks()
            && (self.size >= 2 || (self.size == 1 && bytes))
            && !(self.level == Level::Avx2 && self.size == 2)
    }

    /// Tall strips of the same kind, for destination rows shorter than a cache line but at
    /// least half one (NC/32HW32's 32 bytes of int8, 8 to 15 channels of f32 NHWC): each strip
    /// reads one whole line of [`Strips::rows`] elements from each of its source runs and
    /// writes as many destination rows of [`Strips::cols`] elements (half a line). Streaming
    /// tall strips stream where those rows are dense and start on a line (each pair of rows one
    /// whole line, written back to back: [`Strips::band`] checks it); ordinary stores write
    /// them otherwise. `None` below AVX2.
    pub(crate) fn tall(self) -> Option<Strips> {
        let has = matches!(self.level, Level::Avx2 | Level::Avx512);
        has.then_some(Strips { tall: true, ..self })
    }

    /// The same strips with `stores` (a streamed conversion's staged tiles: ordinary strips into
    /// a cache-resident buffer, the source still read from memory).
    pub(crate) fn with_stores(self, stores: Stores) -> Strips {
        Strips { streaming: stores == Stores::Streaming, ..self }
    }

    /// Destination rows of a strip: the elements of one register (of a tall strip: a line).
    pub(crate) fn rows(&self) -> usize {
        if self.tall {
            return LINE / self.size;
        }
        let register = match self.level {
            // Bytes at AVX-512 take 32-row strips (AVX2's blocks, or two of them paired in
            // 64-byte registers when streamed on Intel's cores: `whole_line_bytes`): a 64-byte
            // register's block is 64 registers, which spill (measured: u8 NCHW→NHWC at 256 MiB
            // 0.29 of the strongest copy, 0.61 with 32-row strips).
            Level::Avx512 if self.size == 1 => 32,
            Level::Avx512 => 64,
            Level::Avx2 => 32,
            _ => 16,
        };
        register / self.size
    }

    /// Destination columns of a strip: one cache line (of a tall strip: half one).
    pub(crate) fn cols(&self) -> usize {
        match self.tall {
            true => LINE / 2 / self.size,
            false => LINE / self.size,
        }
    }

    /// Whether the conversion's buffers fit in the caches (its stores were chosen ordinary).
    pub(crate) fn in_cache(&self) -> bool {
        self.in_cache
    }

    /// The same strips for a conversion moving `bytes` of output: its source counts as cached
    /// when it is in cache or under [`super::CACHED_SOURCE_BYTES`].
    pub(crate) fn with_cached_source(self, bytes: usize) -> Strips {
        Strips { cached_source: self.in_cache || bytes < super::CACHED_SOURCE_BYTES, ..self }
    }

    /// Whether the conversion's source comes from the last-level cache when it is called back
    /// to back, so that a sweep's source runs need no hardware prefetcher to arrive in time.
    pub(crate) fn cached_source(&self) -> bool {
        self.cached_source
    }

    /// Whether rows are written with streaming stores where their alignment allows.
    pub(crate) fn streaming(&self) -> bool {
        self.streaming
    }

    /// Whether a streamed plane whose source runs lie far apart in memory, more of them a strip
    /// than the prefetchers follow ([`Strips::streamed_runs`]), copies them into a staging
    /// buffer first (`convert::kernels`'s `by_staged_source`): faster so on an Intel Xeon
    /// (AVX-512, strips of whole lines; `BENCHMARKS.md`, step 11), slower on an AMD EPYC (Zen 4),
    /// whose AVX-512 strips of AVX2's blocks (`whole_line_bytes`) read the runs in place (u8
    /// NCHW→NHWC at 256 MiB, two threads: C = 64 22.3–25.5 → 30.8–37.7 GB/s). AVX2 stages them
    /// on Intel's cores (not measured without), and on AMD's only where the runs do not start on
    /// cache lines (`runs_on_lines` false): on an AMD EPYC (Zen 3), 256 MiB, one thread, staged →
    /// in place, f16 NCHW→NHWC 17.7 → 23.1 GB/s, NC/32HW32 17.9 → 22.9, u8 NCHW→NHWC 15.9 →
    /// 18.3, NC/32HW32 12.9 → 18.3 (two threads +15 to +40 %); runs off lines (images of an odd
    /// number of pixels) lost 5–15 % in place (`BENCHMARKS.md`, step 49).
    pub(crate) fn stages_far_runs(&self, runs_on_lines: bool) -> bool {
        match (self.level, self.cores) {
            (Level::Avx512, _) => self.whole_line_bytes(),
            (Level::Avx2, Cores::Amd) => !runs_on_lines,
            _ => true,
        }
    }

    /// Whether [`Strips::stages_far_runs`]'s panels are long (`convert::kernels`'s
    /// `FAR_PANEL_BYTES`, 256 KiB, which has the figures) rather than 64 KiB: AVX2's strips,
    /// where it was measured (AMD EPYC, Zen 3, whose L2 holds 512 KiB). Intel's cores, some of
    /// whose L2 holds 256 KiB, were not measured with them.
    pub(crate) fn long_far_panels(&self) -> bool {
        self.level == Level::Avx2
    }

    /// Source runs from memory that a streamed plane's strips read at once and the hardware
    /// prefetchers still follow: past them, a plane whose strips read more runs is staged
    /// (`convert::kernels`'s `by_staged_source`), and one of more runs is not swept in
    /// whole-row bands (`by_strips`). 32 (Intel's L2 streamer follows 32 streams), but 16 at
    /// AVX2, measured on an AMD EPYC (Zen 3), where f32's strips of 16 runs swept down NCHW→NHWC's
    /// planes moved 1.0 of a streaming copy at 256 MiB and f32 NC/32HW32's whole-row bands of 32
    /// runs 0.5. There, two threads, at 256 MiB, the bench's races (`-- "256MiB/NC"`), 32 and 16
    /// in turn twice, ÷ the strongest copy: f32 NCHW→NC/32HW32 0.53, 0.45 → 1.24, 0.97 and
    /// NCDHW→NDHWC 0.55, 0.56 → 1.30, 1.09 (swept in column strips of 16 runs). (f16's and u8's
    /// strips of more runs were staged then; [`Strips::stages_far_runs`] says where they are.)
    pub(crate) fn streamed_runs(&self) -> usize {
        match self.level {
            Level::Avx2 => 16,
            _ => 32,
        }
    }

    /// Strips at most along each band of an in-cache plane's tile swept across its rows
    /// (`convert::kernels`'s `by_strips`: NHWC→NCHW's few long rows), where fewer than the
    /// tiling's gained: AVX2's f32 strips, 8 (a tile's source then 32 KiB, L1's size, against
    /// 256 KiB). On an AMD EPYC (Zen 3), f32 NHWC→NCHW with C = 64 at 1 MiB, the bench's race,
    /// in turn three times, ÷ the strongest copy: 0.69, 0.73, 0.70 → 0.80, 0.82, 0.74 (one
    /// thread 44.7, 45.6, 42.0 → 49.9, 49.0, 47.3 GB/s). f16 and u8 were even with 8 (0.57,
    /// 0.58 → 0.54–0.55, 0.50–0.55), and 1 or 2 strips lost for all three.
    pub(crate) fn in_cache_band_strips(&self) -> Option<usize> {
        (self.level == Level::Avx2 && self.size == 4 && !self.tall).then_some(8)
    }

    /// Whether a streamed plane swept in tiles prefetches the next tile's source lines between
    /// its bands: AVX-512's strips only. Measured where it was added (Intel Xeon, AVX-512) f32
    /// NHWC→NCHW with C = 64 at 256 MiB gained 27.1–27.2 → 27.8–28.6 GB/s; on an AMD EPYC
    /// (Zen 3, AVX2) the same row lost it: the bench's strip-probe race, walk and none
    /// alternating twice, 17.2–17.3 GB/s with it, 21.0 without.
    pub(crate) fn walks_next_tile(&self) -> bool {
        self.level == Level::Avx512
    }

    /// Whether a streamed plane transposed tile by tile into a staging buffer
    /// (`convert::kernels`'s `by_staged_tiles`) prefetches the next tile's source (runs back to
    /// back or near) while a tile streams out: AVX2's and AVX-512's strips, measured on AMD
    /// EPYCs (Zen 3 with AVX2, Zen 4 with AVX-512). On the Zen 4, u8 NHWC→NCHW with C = 64 (whose
    /// byte strips never stream directly, so always staged), two threads, a scratch loop of
    /// `convert` alternating three times: at 256 MiB 18.8–23.3 → 28.3–34.3 GB/s, at 16 MiB
    /// 21.0–31.7 → 29.4–37.6; with C = 128 (near runs, prefetched run by run) at 256 MiB
    /// 16.1–16.6 → 18.1–20.5, at 16 MiB 20.1–29.9 → 31.1–34.5. AVX-512 on Intel was not
    /// measured with it.
    pub(crate) fn prefetches_staged_source(&self) -> bool {
        matches!(self.level, Level::Avx2 | Level::Avx512)
    }

    /// Whether planes whose staged tiles' sources are contiguous blocks (NHWC→NCHW with at most
    /// 64 channels) go through staged tiles that prefetch them even where the strips stream
    /// directly: AVX2's strips, where it was measured (AMD EPYC, Zen 3). AVX-512's direct
    /// strips beat such tiles on an AMD EPYC (Zen 4), two threads, alternating three times: f32
    /// NHWC→NCHW with C = 64 at 256 MiB 26.0–32.4 GB/s direct, 22.3–29.8 staged; f16
    /// 30.9–35.5 against 29.0–40.5 (even); at 16 MiB f32 38.1–39.5 against 35.4–36.8, f16
    /// 41.0–46.6 against 35.1–41.5.
    pub(crate) fn stages_contiguous_sources(&self) -> bool {
        self.level == Level::Avx2
    }

    /// Whether a plane (in cache, or streamed from the last-level cache) whose strips read more
    /// source runs from one L1 set than it has ways copies its source into a staging buffer
    /// first (`convert::kernels`'s `by_staged_source`), `tall` where its strips are tall: the
    /// strips that read each source line a half at a time, so that a line evicted between its
    /// halves comes twice from L2. AVX2's strips, where it was measured (AMD EPYC, Zen 3), and
    /// on AMD's cores AVX-512's tall byte strips (AVX2's blocks in their EVEX forms). On an AMD
    /// EPYC (Zen 4), u8 at 1 MiB (channel planes of 16 KiB, so 32 runs in one set), two
    /// threads, a scratch loop of `convert` alternating four times, in place → staged:
    /// NCHW→NC/32HW32 40.0–42.7 → 48.4–60.0 GB/s, NCDHW→NDHWC 39.8–42.3 → 49.3–57.0.
    /// AVX-512's other strips lost staged there: tall f16 (NCHW→NHWC with C = 16) 68.1–73.0 →
    /// 53.4–61.8; f32 NCHW→NC/32HW32 65.0–81.2 → 28.5–48.4 and f16 NCHW→NHWC 49.5–68.2 →
    /// 37.0–60.9, whose strips load whole lines; bytes that are not tall pair neighbouring
    /// strips through a tile of their source lines instead. On Intel's cores (a Xeon with a
    /// 12-way L1 of 48 KiB and 2 MiB of L2 a
    /// core) the tall byte strips read in place: the bench's races, the two alternating twice,
    /// two threads, staged → in place, u8 NCHW→NC/32HW32 at 1 MiB 0.54, 0.58 → 0.68, 0.78 of
    /// the strongest copy (one thread 28.4, 25.7 → 36.9, 38.4 GB/s), NCDHW→NDHWC 0.50, 0.53 →
    /// 0.68, 0.67; back to back (`TL_BENCH_HOT`, three times each) 36.5–37.9 → 28.4–29.0 µs a
    /// call and 37.3–38.4 → 27.6–29.2. AVX-512's other strips lost staged there too: f32, f16
    /// and u8 NCHW→NHWC at 1 MiB 0.56–0.58, 0.65, 0.68–0.73 → 0.45–0.46, 0.48–0.52, 0.56–0.58.
    /// Where AVX2's strips read such runs through tiles instead ([`Strips::tiles_runs`]: in
    /// cache, on AMD's cores, tall ones too), their planes are not staged.
    pub(crate) fn stages_aliased_runs(&self, tall: bool) -> bool {
        let strips = if tall { self.tall() } else { Some(*self) };
        let tiles = strips.is_some_and(|s| s.tiles_runs(L1_SET_PERIOD, false));
        (self.level == Level::Avx2 && !tiles)
            || (self.level == Level::Avx512 && tall && self.size == 1 && self.cores == Cores::Amd)
    }

    /// Transposes the strips of `band`; they must lie inside `src` and `dst` (for a column part,
    /// inside its columns: [`Out::holds_lines`]; a bug otherwise: this panics before touching
    /// memory). Rows are streamed when [`Strips::streaming`] and every row starts on a cache
    /// line (tall strips' rows of half a line: every other row, the rows dense, so that each
    /// pair fills one line); otherwise ordinary stores write them.
    pub(crate) fn band<T: Element>(&self, src: &[T], dst: Out<'_, T>, band: Band) {
        assert!(T::SIZE == self.size && self.has_blocks(), "no strips for {} bytes", T::SIZE);
        if band.count == 0 || band.repeat == 0 {
            return;
        }
        let (rows, cols) = (self.rows(), self.cols());
        let end = |start: usize, [step, next, stride]: [usize; 3], lines: usize, run: usize| {
            start
                .checked_add(step.checked_mul(band.count - 1)?)?
                .checked_add(next.checked_mul(band.repeat - 1)?)?
                .checked_add(stride.checked_mul(lines - 1)?)?
                .checked_add(run)
        };
        let src_end = end(band.from, [band.src_step, band.src_next, band.src_stride], cols, rows);
        let dst_end = end(band.to, [band.dst_step, band.dst_next, band.dst_stride], rows, cols);
        let size = self.size;
        // The byte geometry the x86 strips compute with fits too (with `count == 1` a step is
        // not bounded by the ends above, nor with `repeat == 1` a next).
        let bytes =
            [band.src_stride, band.src_step, band.dst_stride, band.dst_step, band.src_next, band.dst_next]
                .map(|v| v.checked_mul(size));
        // A part's destination ([`Out::column_parts`]): every line in its columns.
        let steps = [(band.dst_step, band.count), (band.dst_next, band.repeat), (band.dst_stride, rows)];
        assert!(
            src_end.is_some_and(|e| e <= src.len())
                && dst_end.is_some_and(|e| e <= dst.len())
                && dst.holds_lines(band.to, steps, cols)
                && bytes.iter().all(Option::is_some),
            "a band of strips outside its buffers: {band:?}"
        );
        let rows_pair_up = self.tall && band.dst_stride * size == LINE / 2;
        // A step is taken only between strips, a next only between bands.
        let on_lines = |bytes: usize, taken: bool| !taken || (bytes * size).is_multiple_of(LINE);
        let aligned = dst.address(band.to).is_multiple_of(LINE)
            && ((band.dst_stride * size).is_multiple_of(LINE) || rows_pair_up)
            && on_lines(band.dst_step, band.count > 1)
            && on_lines(band.dst_next, band.repeat > 1);
        let stream = self.streaming && aligned;
        let src: &[u8] = bytemuck::cast_slice(src);
        // SAFETY: the strips store bytes of `src`'s elements, transposed, into `dst`, only in
        // the lines checked above.
        let dst = unsafe { dst.into_ptr() }.cast::<u8>();
        #[cfg(target_arch = "x86_64")]
        let writes = match (stream, self.in_cache) {
            (true, _) => super::x86::Writes::Streamed,
            (false, true) => super::x86::Writes::InCache,
            (false, false) => super::x86::Writes::Ordinary,
        };
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the checks above are `band`'s contract.
        unsafe {
            super::x86::band(
                super::x86::Kind {
                    level: self.level,
                    size,
                    writes,
                    tall: self.tall,
                    near_runs: band.src_stride * size <= super::x86::NEAR_RUN_BYTES,
                    page_strided_rows: (band.dst_stride * size).is_multiple_of(super::x86::PAGE_STRIDE_BYTES),
                    whole_line_bytes: self.whole_line_bytes(),
                    tiles_runs: self.tiles_runs(band.src_stride * size, stream),
                },
                &src[band.from * size..],
                dst.wrapping_add(band.to * size),
                [band.src_stride, band.src_step, band.src_next].map(|v| v * size),
                [band.dst_stride, band.dst_step, band.dst_next].map(|v| v * size),
                [band.count, band.repeat],
            )
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (src, dst, stream); // no strips are made here
    }
}

#[cfg(test)]
mod tests;
