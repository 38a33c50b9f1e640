//! The element-moving kernels: CUDA source for one conversion, generated from a [`KernelSpec`]
//! (the shapes are described in the `kernels` module's docs).

use std::fmt::Write as _;

use layout_types::loops::MAX_LOOPS;

/// Threads per block of the copy and gather kernels.
///
/// ```
/// use layout_gpu::kernels::{Kernel, KernelSpec, THREADS};
/// let gather = KernelSpec { kernel: Kernel::Gather { loops: 2 }, elem_bytes: 4, vec: 1, wide: false };
/// assert_eq!(gather.block(), (THREADS, 1, 1));
/// ```
pub const THREADS: u32 = 256;

/// A tile kernel's block is `TILE_THREADS_X` × `TILE_ROWS` threads.
///
/// ```
/// use layout_gpu::kernels::{Kernel, KernelSpec, TILE_ROWS, TILE_THREADS_X};
/// let tile = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 4, vec: 1, wide: false };
/// assert_eq!(tile.block(), (TILE_THREADS_X, TILE_ROWS, 1)); // 32 × 8 threads move a 32 × 32 tile
/// ```
pub const TILE_THREADS_X: u32 = 32;
/// Rows of the tile each thread row strides over.
///
/// ```
/// use layout_gpu::kernels::{TILE_ROWS, TILE_THREADS_X};
/// // Each thread row strides over 32 / TILE_ROWS rows of the tile.
/// assert_eq!(TILE_THREADS_X / TILE_ROWS, 4);
/// ```
pub const TILE_ROWS: u32 = 8;

/// The shape of a kernel and its loop count.
///
/// ```
/// use layout_gpu::kernels::{Kernel, KernelSpec};
/// let copy = KernelSpec { kernel: Kernel::Copy, elem_bytes: 1, vec: 16, wide: false };
/// assert_eq!(copy.name("NHWC", "NHWC"), "tl_copy_v16_NHWC_to_NHWC_e1_i32");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// One contiguous run.
    Copy,
    /// One thread per destination vector; `loops` axes, the last innermost on both sides when
    /// the spec's `vec > 1`.
    Gather {
        /// Number of loops decomposed (at least 1).
        loops: u8,
    },
    /// A shared-memory transpose of two axes, batched over `batch` more.
    Tile {
        /// Number of batch loops.
        batch: u8,
    },
    /// A transpose of a long axis against a narrow one (fewer than [`NARROW`](super::NARROW)
    /// elements, C = 3 into NHWC) whose elements are packed on one side, batched over `batch`
    /// more: each block stages a run of the long axis for every narrow index through shared
    /// memory, so it reads `c` contiguous runs and writes one (or the reverse).
    Narrow {
        /// Number of batch loops.
        batch: u8,
        /// The narrow axis is the destination's innermost (the destination is the packed side);
        /// otherwise the source's.
        packed_dst: bool,
    },
}

/// Planes whose source-inner or destination-inner extent is below this take the narrow kernel
/// (the gather where the narrow axis is not packed against the other): a 32-wide tile would
/// leave most of its threads idle (C = 3 into NHWC, W = 4 out of it).
///
/// ```
/// use layout_gpu::kernels::{route, Kernel, Route, NARROW};
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let kernel = |c: usize| -> Result<Kernel, typed_layout::LayoutError> {
///     let dims = [8, c, 64, 64];
///     let Route::Direct(p) = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)? else { unreachable!() };
///     Ok(p.launch.spec.kernel)
/// };
/// assert_eq!(kernel(NARROW - 1)?, Kernel::Narrow { batch: 1, packed_dst: true });
/// assert_eq!(kernel(NARROW)?, Kernel::Tile { batch: 1 });
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const NARROW: usize = 16;

/// Bytes of the long axis one narrow-kernel block stages per narrow index.
///
/// ```
/// use layout_gpu::kernels::{route, Kernel, Route, NARROW_RUN_BYTES};
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let dims = [8, 3, 64, 64];
/// let Route::Direct(p) = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)? else { unreachable!() };
/// assert_eq!(p.launch.spec.kernel, Kernel::Narrow { batch: 1, packed_dst: true });
/// // N × (H·W / 256) runs of 256 f32 pixels, each staged for the three planes.
/// assert_eq!(p.launch.params.work as usize, 8 * 64 * 64 / (NARROW_RUN_BYTES / 4));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const NARROW_RUN_BYTES: usize = 1024;

/// Everything baked into one kernel as a compile-time constant.
///
/// ```
/// use layout_gpu::kernels::{Kernel, KernelSpec};
/// let spec = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 1, vec: 4, wide: false };
/// assert_eq!(spec.block(), (32, 8, 1));
/// assert!(spec.source("NCHW", "NHWC").contains("__shared__ word_t tile[128][32];"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelSpec {
    /// The kernel's shape.
    pub kernel: Kernel,
    /// Element size in bytes: 1, 2, 4 or 8.
    pub elem_bytes: u8,
    /// Elements per memory access (copy, gather) or per packed word (tile).
    pub vec: u8,
    /// 64-bit offsets and counters.
    pub wide: bool,
}

impl KernelSpec {
    /// The block shape the kernel is written for.
    pub fn block(&self) -> (u32, u32, u32) {
        match self.kernel {
            Kernel::Tile { .. } => (TILE_THREADS_X, TILE_ROWS, 1),
            _ => (THREADS, 1, 1),
        }
    }

    /// Work items one block handles per grid-stride step.
    pub fn items_per_block(&self) -> u64 {
        match self.kernel {
            Kernel::Tile { .. } | Kernel::Narrow { .. } => 1,
            _ => u64::from(THREADS),
        }
    }

    /// The kernel's symbol: its shape, the two layouts' notations, the element size, the width.
    ///
    /// ```
    /// use layout_gpu::kernels::{Kernel, KernelSpec};
    /// let spec = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 4, vec: 1, wide: false };
    /// assert_eq!(spec.name("NCHW", "NC/32HW32"), "tl_tile1_p1_NCHW_to_NC_32HW32_e4_i32");
    /// ```
    pub fn name(&self, src: &str, dst: &str) -> String {
        let shape = match self.kernel {
            Kernel::Copy => format!("copy_v{}", self.vec),
            Kernel::Gather { loops } => format!("gather{loops}_v{}", self.vec),
            Kernel::Tile { batch } => format!("tile{batch}_p{}", self.vec),
            Kernel::Narrow { batch, packed_dst } => {
                format!("narrow{batch}_{}", if packed_dst { "d" } else { "s" })
            }
        };
        let clean =
            |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect::<String>();
        let width = if self.wide { 64 } else { 32 };
        format!("tl_{shape}_{}_to_{}_e{}_i{width}", clean(src), clean(dst), self.elem_bytes)
    }

    /// The CUDA source of this kernel, converting `src` into `dst` (notations, for the name and
    /// the header comment).
    pub fn source(&self, src: &str, dst: &str) -> String {
        let name = self.name(src, dst);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// typed-layout: {src} -> {dst}, {}-byte elements ({:?}).",
            self.elem_bytes, self.kernel
        );
        s.push_str("// Generated by layout-gpu's kernels::moving; extents and strides arrive in Params.\n");
        s.push_str(ACCESS_MACROS);
        let _ = writeln!(s, "typedef {} elem_t;", uint(self.elem_bytes as usize));
        let (idx, off) =
            if self.wide { ("unsigned long long", "long long") } else { ("unsigned int", "int") };
        let _ = writeln!(s, "typedef {idx} idx_t;");
        let _ = writeln!(s, "typedef {off} off_t_;");
        let _ = writeln!(
            s,
            "struct Params {{ long long extent[{MAX_LOOPS}]; long long src[{MAX_LOOPS}]; long long dst[{MAX_LOOPS}]; unsigned long long work; }};"
        );
        match self.kernel {
            Kernel::Copy => self.copy(&mut s, &name),
            Kernel::Gather { loops } => self.gather(&mut s, &name, loops as usize),
            Kernel::Tile { batch } => self.tile(&mut s, &name, batch as usize),
            Kernel::Narrow { batch, packed_dst } => self.narrow(&mut s, &name, batch as usize, packed_dst),
        }
        s
    }

    fn signature(s: &mut String, name: &str, threads: u32) {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({threads}) {name}(const elem_t* __restrict__ src, elem_t* __restrict__ dst, const Params p) {{"
        );
    }

    fn copy(&self, s: &mut String, name: &str) {
        let v = self.vec as usize;
        let _ = writeln!(s, "typedef {} vec_t;", uint(v * self.elem_bytes as usize));
        Self::signature(s, name, THREADS);
        let _ = writeln!(
            s,
            "    const idx_t n = (idx_t)p.extent[0];
    const idx_t nv = n / {v};
    const idx_t step = (idx_t)gridDim.x * blockDim.x;
    const idx_t first = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (idx_t i = first; i < nv; i += step) {{
        TL_ST(vec_t, (vec_t*)dst + i, TL_LD(vec_t, (const vec_t*)src + i));
    }}
    for (idx_t i = nv * {v} + first; i < n; i += step) {{
        TL_ST(elem_t, dst + i, TL_LD(elem_t, src + i));
    }}
}}"
        );
    }

    fn gather(&self, s: &mut String, name: &str, loops: usize) {
        let v = self.vec as usize;
        let inner = loops - 1;
        let _ = writeln!(s, "typedef {} vec_t;", uint(v * self.elem_bytes as usize));
        Self::signature(s, name, THREADS);
        let _ = writeln!(
            s,
            "    const idx_t inner = (idx_t)p.extent[{inner}] / {v};
    const idx_t step = (idx_t)gridDim.x * blockDim.x;
    for (idx_t w = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; w < (idx_t)p.work; w += step) {{
        idx_t rest = w / inner;
        const idx_t c = (w - rest * inner) * {v};
        off_t_ s = (off_t_)c * (off_t_)p.src[{inner}];
        off_t_ d = (off_t_)c * (off_t_)p.dst[{inner}];"
        );
        decompose(s, (0..inner).rev(), "        ");
        let _ = writeln!(
            s,
            "        TL_ST(vec_t, dst + d, TL_LD(vec_t, src + s));
    }}
}}"
        );
    }

    fn tile(&self, s: &mut String, name: &str, batch: usize) {
        let p = self.vec as usize;
        let e = self.elem_bytes as usize;
        let tile = 32 * p;
        let (a, b) = (batch, batch + 1);
        let _ = writeln!(s, "typedef {} word_t;", uint(p * e));
        Self::signature(s, name, TILE_THREADS_X * TILE_ROWS);
        // The tile is 32 words wide and `tile` rows deep; word x of row r is stored in column
        // x ^ (r / p) (an XOR swizzle), so the row-wise word stores of the read phase and the
        // column-wise reads of the write phase each touch 32 different banks.
        let _ = writeln!(
            s,
            "    __shared__ word_t tile[{tile}][32];
    const idx_t ea = (idx_t)p.extent[{a}], eb = (idx_t)p.extent[{b}];
    const off_t_ sb = (off_t_)p.src[{b}], da = (off_t_)p.dst[{a}];
    const idx_t tiles_a = (ea + {tile} - 1) / {tile}, tiles_b = (eb + {tile} - 1) / {tile};
    for (idx_t t = blockIdx.x; t < (idx_t)p.work; t += gridDim.x) {{
        idx_t rest = t / tiles_b;
        const idx_t b0 = (t - rest * tiles_b) * {tile};
        idx_t next = rest / tiles_a;
        const idx_t a0 = (rest - next * tiles_a) * {tile};
        rest = next;
        off_t_ s = 0, d = 0;"
        );
        decompose(s, (0..batch).rev(), "        ");
        let _ = writeln!(
            s,
            "        for (idx_t r = threadIdx.y; r < {tile}; r += {TILE_ROWS}) {{
            const idx_t b = b0 + r, a = a0 + threadIdx.x * {p};
            if (b < eb && a < ea) {{
                TL_ST(word_t, &tile[r][threadIdx.x ^ (r / {p})], TL_LD(word_t, src + s + (off_t_)b * sb + (off_t_)a));
            }}
        }}
        __syncthreads();
        for (idx_t r = threadIdx.y; r < {tile}; r += {TILE_ROWS}) {{
            const idx_t a = a0 + r, b = b0 + threadIdx.x * {p};
            if (a < ea && b < eb) {{"
        );
        if p == 1 {
            let _ = writeln!(
                s,
                "                const word_t w = TL_LD(word_t, &tile[threadIdx.x][r ^ threadIdx.x]);"
            );
        } else {
            let _ = writeln!(s, "                word_t w = 0;");
            for i in 0..p {
                let _ = writeln!(
                    s,
                    "                w |= (word_t)(elem_t)(TL_LD(word_t, &tile[threadIdx.x * {p} + {i}][(r / {p}) ^ threadIdx.x]) >> ({} * (r % {p}))) << {};",
                    8 * e,
                    8 * e * i
                );
            }
        }
        let _ = writeln!(
            s,
            "                TL_ST(word_t, dst + d + (off_t_)a * da + (off_t_)b, w);
            }}
        }}
        __syncthreads();
    }}
}}"
        );
    }

    fn narrow(&self, s: &mut String, name: &str, batch: usize, narrow_dst: bool) {
        let run = NARROW_RUN_BYTES / self.elem_bytes as usize;
        let (l, k) = (batch, batch + 1);
        Self::signature(s, name, THREADS);
        // Staged as c rows of `run` elements, `pitch` apart: the rows' side moves contiguous
        // runs, the packed side walks the rows in turn. The pitch for each narrow extent is the
        // one (of the run plus up to 128 bytes) whose packed walk hits the fewest banks twice.
        let pitches: Vec<String> =
            (1..NARROW).map(|c| (run + narrow_pitch_pad(self.elem_bytes as usize, c)).to_string()).collect();
        let most =
            (1..NARROW).map(|c| run + narrow_pitch_pad(self.elem_bytes as usize, c)).max().unwrap_or(run);
        let _ = writeln!(
            s,
            "    __shared__ elem_t buf[{} * {most}];
    const unsigned short pitches[{}] = {{{}}};
    const idx_t el = (idx_t)p.extent[{l}], c = (idx_t)p.extent[{k}], pitch = pitches[c > 0 ? c - 1 : 0];
    const off_t_ ls = (off_t_)p.src[{l}], ld = (off_t_)p.dst[{l}], ks = (off_t_)p.src[{k}], kd = (off_t_)p.dst[{k}];
    const idx_t runs = (el + {run} - 1) / {run};
    for (idx_t t = blockIdx.x; t < (idx_t)p.work; t += gridDim.x) {{
        idx_t rest = t / runs;
        const idx_t l0 = (t - rest * runs) * {run};
        const idx_t n = el - l0 < {run} ? el - l0 : {run};
        off_t_ s = (off_t_)l0 * ls, d = (off_t_)l0 * ld;",
            NARROW - 1,
            NARROW - 1,
            pitches.join(", "),
        );
        decompose(s, (0..batch).rev(), "        ");
        // The rows: c runs of n elements, each read (or written) by consecutive threads.
        let rows = |s: &mut String, load: bool| {
            let access = if load {
                "TL_ST(elem_t, &buf[j * pitch + i], TL_LD(elem_t, src + s + (off_t_)i * ls + (off_t_)j * ks));"
            } else {
                "TL_ST(elem_t, dst + d + (off_t_)i * ld + (off_t_)j * kd, TL_LD(elem_t, &buf[j * pitch + i]));"
            };
            let _ = writeln!(
                s,
                "        for (idx_t x = threadIdx.x; x < c * {run}; x += {THREADS}) {{
            const idx_t j = x / {run}, i = x % {run};
            if (i < n) {{ {access} }}
        }}"
            );
        };
        // The packed side: n · c consecutive elements.
        let packed = |s: &mut String, load: bool| {
            let access = if load {
                "TL_ST(elem_t, &buf[j * pitch + i], TL_LD(elem_t, src + s + (off_t_)i * ls + (off_t_)j * ks));"
            } else {
                "TL_ST(elem_t, dst + d + (off_t_)i * ld + (off_t_)j * kd, TL_LD(elem_t, &buf[j * pitch + i]));"
            };
            let _ = writeln!(
                s,
                "        for (idx_t x = threadIdx.x; x < n * c; x += {THREADS}) {{
            const idx_t i = x / c, j = x - i * c;
            {access}
        }}"
            );
        };
        if narrow_dst {
            rows(s, true);
            let _ = writeln!(s, "        __syncthreads();");
            packed(s, false);
        } else {
            packed(s, true);
            let _ = writeln!(s, "        __syncthreads();");
            rows(s, false);
        }
        let _ = writeln!(
            s,
            "        __syncthreads();
    }}
}}"
        );
    }
}

/// Peels loop coordinates off `rest`, innermost first, adding each to `s` and `d`; the
/// outermost takes what is left, so no loop is bounds-checked twice.
fn decompose(s: &mut String, loops: impl Iterator<Item = usize>, indent: &str) {
    let loops: Vec<usize> = loops.collect();
    for (i, k) in loops.iter().enumerate() {
        if i + 1 == loops.len() {
            let _ = writeln!(
                s,
                "{indent}s += (off_t_)rest * (off_t_)p.src[{k}]; d += (off_t_)rest * (off_t_)p.dst[{k}];"
            );
        } else {
            let _ = writeln!(
                s,
                "{indent}{{ const idx_t e = (idx_t)p.extent[{k}], q = rest / e, i = rest - q * e; \
                 s += (off_t_)i * (off_t_)p.src[{k}]; d += (off_t_)i * (off_t_)p.dst[{k}]; rest = q; }}"
            );
        }
    }
}

/// Elements added to a narrow kernel's staging row of `NARROW_RUN_BYTES / elem_bytes` for a
/// narrow extent `c`: the fewest (up to 128 bytes) that keep the packed side's walk (32
/// consecutive elements of c interleaved rows per warp) on distinct banks, or as few banks twice
/// as can be: none conflict for 1- and 2-byte elements; for 4- and 8-byte ones, c = 6, 10, 12
/// and 14 keep a 2-way conflict that no pitch removes.
fn narrow_pitch_pad(elem_bytes: usize, c: usize) -> usize {
    let run = NARROW_RUN_BYTES / elem_bytes;
    // Lanes per shared-memory phase: 32 for accesses up to 4 bytes, 16 for 8.
    let lanes = if elem_bytes <= 4 { 32 } else { 16 };
    let conflicts = |pad: usize| {
        let pitch = run + pad;
        // The pattern of the walk repeats every c warps.
        (0..c * 32 / lanes)
            .map(|k| {
                let mut words: Vec<(usize, usize)> = (k * lanes..(k + 1) * lanes)
                    .flat_map(|x| {
                        let at = ((x % c) * pitch + x / c) * elem_bytes;
                        (at / 4..=(at + elem_bytes - 1) / 4).map(|w| (w % 32, w))
                    })
                    .collect();
                words.sort_unstable();
                words.dedup();
                (0..32).map(|bank| words.iter().filter(|&&(b, _)| b == bank).count()).max().unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    };
    (0..128 / elem_bytes).min_by_key(|&pad| (conflicts(pad), pad)).unwrap_or(0)
}

/// Every load and store of a generated kernel goes through these macros: on the device they are
/// plain accesses; a host model of the memory system may define them first to observe each
/// access (the tests' efficiency model does).
pub(crate) const ACCESS_MACROS: &str = "#ifndef TL_LD
#define TL_LD(T, p) (*(const T*)(p))
#define TL_ST(T, p, v) (*(T*)(p) = (v))
#endif
";

/// The unsigned CUDA type of `bytes` bytes (vectors for 8 and 16).
pub(super) fn uint(bytes: usize) -> &'static str {
    match bytes {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "uint4",
    }
}
