//! CUDA source for one conversion kernel, generated from a [`KernelSpec`].
//!
//! A spec holds everything baked into a kernel as a compile-time constant: its shape (copy,
//! gather or tile), the element size (elements are moved as unsigned integers of that size:
//! dispatch is by size, not by type), the number of loops it decomposes, the elements per memory
//! access, and the index width. Extents and strides arrive at run time in [`Params`], so one
//! compiled kernel serves every tensor size of its (source, destination, element size) pair.
//!
//! The three shapes, chosen by [`schedule`](crate::schedule):
//!
//! * **copy**: the conversion is one contiguous run; 16-byte vector loads and stores, then the
//!   tail element by element.
//! * **gather**: one thread per `vec` destination elements, in destination order, each reading
//!   from the source offset its loop coordinates give. With `vec > 1` the innermost axis is
//!   contiguous on both sides and moves in vectors; with `vec = 1` it serves narrow planes
//!   (C = 3 into NHWC: every warp writes 32 consecutive elements and reads a few short runs).
//! * **tile**: the source's innermost axis (`a`) against the destination's (`b`) through a
//!   shared-memory tile of `32·pack` × `32·pack` elements, padded by one 32-bit word per row
//!   against bank conflicts; reads coalesce along `a`, writes along `b`. 1- and 2-byte elements
//!   are moved `pack` at a time as 32-bit words when the extents and strides allow.
//!
//! All loops are grid-stride, so any tensor fits any grid; offsets are 64-bit when either
//! buffer has 2^31 elements or more.
//!
//! ```
//! use layout_gpu::codegen::{Kernel, KernelSpec};
//! let spec = KernelSpec { kernel: Kernel::Gather { loops: 3 }, elem_bytes: 2, vec: 1, wide: false };
//! let cuda = spec.source("NCHW", "NHWC");
//! assert!(cuda.contains("typedef unsigned short elem_t;")); // moved as 2-byte integers
//! assert!(cuda.contains("extern \"C\" __global__ void __launch_bounds__(256) tl_gather3_v1_NCHW_to_NHWC_e2_i32("));
//! ```

use std::fmt::Write as _;

/// Most loops a [`LoopNest`](layout_types::loops::LoopNest) has: 8 dims, each cut into at
/// most a group, a sub-group and a lane.
///
/// ```
/// use layout_gpu::codegen::{Params, MAX_LOOPS};
/// // Params is three arrays of MAX_LOOPS i64 and a u64, passed by value to every kernel.
/// assert_eq!(core::mem::size_of::<Params>(), 8 * (3 * MAX_LOOPS + 1));
/// ```
pub const MAX_LOOPS: usize = 24;

/// Threads per block of the copy and gather kernels.
///
/// ```
/// use layout_gpu::codegen::{Kernel, KernelSpec, THREADS};
/// let gather = KernelSpec { kernel: Kernel::Gather { loops: 2 }, elem_bytes: 4, vec: 1, wide: false };
/// assert_eq!(gather.block(), (THREADS, 1, 1));
/// ```
pub const THREADS: u32 = 256;

/// A tile kernel's block is `TILE_THREADS_X` × `TILE_ROWS` threads.
///
/// ```
/// use layout_gpu::codegen::{Kernel, KernelSpec, TILE_ROWS, TILE_THREADS_X};
/// let tile = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 4, vec: 1, wide: false };
/// assert_eq!(tile.block(), (TILE_THREADS_X, TILE_ROWS, 1)); // 32 × 8 threads move a 32 × 32 tile
/// ```
pub const TILE_THREADS_X: u32 = 32;
/// Rows of the tile each thread row strides over.
///
/// ```
/// use layout_gpu::codegen::{TILE_ROWS, TILE_THREADS_X};
/// // Each thread row strides over 32 / TILE_ROWS rows of the tile.
/// assert_eq!(TILE_THREADS_X / TILE_ROWS, 4);
/// ```
pub const TILE_ROWS: u32 = 8;

/// The run-time arguments of every kernel: the loops (outermost first) and the work count.
///
/// Layout by kernel shape: copy uses `extent[0]` (elements); gather uses its `loops` axes in
/// destination order; tile puts its batch axes first, then `a` (the source's innermost axis),
/// then `b` (the destination's). `work` is the number of work items the grid strides over.
///
/// ```
/// use layout_gpu::codegen::Params;
/// use layout_gpu::schedule::route;
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let dims = [2, 64, 8, 8];
/// let r = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)?;
/// let p: Params = r.passes()[0].launch.params;
/// // The tile kernel: N as a batch loop, then H·W (the source's inner axis), then C.
/// assert_eq!((&p.extent[..3], &p.src[..3], &p.dst[..3]), (&[2, 64, 64][..], &[4096, 1, 64][..], &[4096, 64, 1][..]));
/// assert_eq!(p.to_bytes().len(), core::mem::size_of::<Params>());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Extent of each loop.
    pub extent: [i64; MAX_LOOPS],
    /// Source stride of each loop, in elements.
    pub src: [i64; MAX_LOOPS],
    /// Destination stride of each loop, in elements.
    pub dst: [i64; MAX_LOOPS],
    /// Work items: vectors (copy, gather) or tiles (tile).
    pub work: u64,
}

impl Params {
    pub(crate) const ZERO: Params =
        Params { extent: [0; MAX_LOOPS], src: [0; MAX_LOOPS], dst: [0; MAX_LOOPS], work: 0 };

    /// The struct's bytes as the kernel receives them (native endianness, C layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(core::mem::size_of::<Params>());
        for a in [&self.extent, &self.src, &self.dst] {
            for v in a {
                out.extend_from_slice(&v.to_ne_bytes());
            }
        }
        out.extend_from_slice(&self.work.to_ne_bytes());
        out
    }
}

/// The shape of a kernel and its loop count.
///
/// ```
/// use layout_gpu::codegen::{Kernel, KernelSpec};
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
}

/// Everything baked into one kernel as a compile-time constant.
///
/// ```
/// use layout_gpu::codegen::{Kernel, KernelSpec};
/// let spec = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 1, vec: 4, wide: false };
/// assert_eq!(spec.block(), (32, 8, 1));
/// assert!(spec.source("NCHW", "NHWC").contains("__shared__ elem_t tile[128][128 + 4];"));
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
            Kernel::Tile { .. } => 1,
            _ => u64::from(THREADS),
        }
    }

    /// The kernel's symbol: its shape, the two layouts' notations, the element size, the width.
    ///
    /// ```
    /// use layout_gpu::codegen::{Kernel, KernelSpec};
    /// let spec = KernelSpec { kernel: Kernel::Tile { batch: 1 }, elem_bytes: 4, vec: 1, wide: false };
    /// assert_eq!(spec.name("NCHW", "NC/32HW32"), "tl_tile1_p1_NCHW_to_NC_32HW32_e4_i32");
    /// ```
    pub fn name(&self, src: &str, dst: &str) -> String {
        let shape = match self.kernel {
            Kernel::Copy => format!("copy_v{}", self.vec),
            Kernel::Gather { loops } => format!("gather{loops}_v{}", self.vec),
            Kernel::Tile { batch } => format!("tile{batch}_p{}", self.vec),
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
        s.push_str("// Generated by layout-gpu's codegen; extents and strides arrive in Params.\n");
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
        ((vec_t*)dst)[i] = ((const vec_t*)src)[i];
    }}
    for (idx_t i = nv * {v} + first; i < n; i += step) {{
        dst[i] = src[i];
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
            "        *(vec_t*)(dst + d) = *(const vec_t*)(src + s);
    }}
}}"
        );
    }

    fn tile(&self, s: &mut String, name: &str, batch: usize) {
        let p = self.vec as usize;
        let e = self.elem_bytes as usize;
        let tile = 32 * p;
        // One 32-bit word of padding per row keeps the column reads of the write phase spread
        // over the banks.
        let pad = (4 / e).max(1);
        let (a, b) = (batch, batch + 1);
        let _ = writeln!(s, "typedef {} word_t;", uint(p * e));
        Self::signature(s, name, TILE_THREADS_X * TILE_ROWS);
        let _ = writeln!(
            s,
            "    __shared__ elem_t tile[{tile}][{tile} + {pad}];
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
                const word_t w = *(const word_t*)(src + s + (off_t_)b * sb + (off_t_)a);"
        );
        for i in 0..p {
            let _ = writeln!(
                s,
                "                tile[r][threadIdx.x * {p} + {i}] = (elem_t)(w >> {});",
                8 * e * i
            );
        }
        let _ = writeln!(
            s,
            "            }}
        }}
        __syncthreads();
        for (idx_t r = threadIdx.y; r < {tile}; r += {TILE_ROWS}) {{
            const idx_t a = a0 + r, b = b0 + threadIdx.x * {p};
            if (a < ea && b < eb) {{
                word_t w = 0;"
        );
        for i in 0..p {
            let _ = writeln!(
                s,
                "                w |= (word_t)tile[threadIdx.x * {p} + {i}][r] << {};",
                8 * e * i
            );
        }
        let _ = writeln!(
            s,
            "                *(word_t*)(dst + d + (off_t_)a * da + (off_t_)b) = w;
            }}
        }}
        __syncthreads();
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

/// The unsigned CUDA type of `bytes` bytes (vectors for 8 and 16).
fn uint(bytes: usize) -> &'static str {
    match bytes {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "uint4",
    }
}
