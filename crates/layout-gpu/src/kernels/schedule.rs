//! From a conversion's [`LoopNest`] to a kernel and its launch: which shape, how wide the
//! accesses, how many blocks.
//!
//! The nest is the CPU backend's own plan (refined, ordered as the destination stores it, with
//! the axes contiguous on both sides fused), so NCHW→NHWC arrives as a batched 2-D transpose.
//!
//! ```
//! use layout_gpu::kernels::{route, Kernel, Route};
//! use typed_layout::{Nchw, Nhwc, Shape};
//! let dims = [8, 64, 56, 56];
//! let Route::Direct(pass) = route(&Shape::<Nchw>::new(dims)?, &Shape::<Nhwc>::new(dims)?, 4)? else { unreachable!() };
//! assert_eq!(pass.launch.spec.kernel, Kernel::Tile { batch: 1 });
//! assert_eq!(pass.kernel_name(), "tl_tile1_p1_NCHW_to_NHWC_e4_i32");
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use layout_types::loops::{tile_axis, LoopAxis, LoopNest, MAX_LOOPS};
use layout_types::{Layout, LayoutError, SameFamily, Shape};

use super::moving::{Kernel, KernelSpec, NARROW, NARROW_RUN_BYTES, TILE_THREADS_X};
use crate::ffi::driver::Params;

/// Most blocks a launch asks for; grid-stride loops cover the rest.
///
/// ```
/// use layout_gpu::kernels::{route, MAX_BLOCKS};
/// use typed_layout::{Nchw, Shape};
/// // 2^32 f32 elements copied in 16-byte vectors: 2^30 vectors, 2^22 blocks of 256; the grid is
/// // capped and strides.
/// let big = Shape::<Nchw>::new([256, 64, 512, 512])?;
/// assert_eq!(route(&big, &big, 4)?.passes()[0].launch.grid as u64, MAX_BLOCKS);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const MAX_BLOCKS: u64 = 1 << 20;

/// Widest single access in bytes.
const MAX_ACCESS_BYTES: usize = 16;

/// A kernel with its arguments and grid.
///
/// ```
/// use layout_gpu::kernels::schedule;
/// use typed_layout::{loops::LoopNest, Nchw, Nhwc, Shape};
/// let (a, b) = (Shape::<Nchw>::new([1, 3, 224, 224])?, Shape::<Nhwc>::new([1, 3, 224, 224])?);
/// let launch = schedule(&LoopNest::between(&a, &b)?.unwrap(), 2, a.len(), b.len());
/// // A narrow plane: one block per run of 512 f16 pixels, staged for the three planes.
/// assert_eq!(launch.spec.block(), (256, 1, 1));
/// assert_eq!(launch.grid as usize, (224 * 224usize).div_ceil(512));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// What the kernel bakes in.
    pub spec: KernelSpec,
    /// Its run-time arguments.
    pub params: Params,
    /// Blocks in the grid (x only).
    pub grid: u32,
}

/// Notation of the row-major intermediate of a two-pass conversion, in kernel names.
///
/// ```
/// use layout_gpu::kernels::{route, LOGICAL};
/// use typed_layout::{NcxHwx, Shape};
/// let (a, b) = (Shape::<NcxHwx<3>>::new([1, 12, 2, 2])?, Shape::<NcxHwx<4>>::new([1, 12, 2, 2])?);
/// let r = route(&a, &b, 4)?;
/// assert_eq!(r.passes()[1].kernel_name(), format!("tl_narrow1_d_{LOGICAL}_to_NC_4HW4_e4_i32"));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const LOGICAL: &str = "logical";

/// One kernel launch of a conversion.
///
/// ```
/// use layout_gpu::kernels::route;
/// use typed_layout::{Nhwc, NcxHwx, Shape};
/// let dims = [2, 64, 8, 8];
/// let r = route(&Shape::<Nhwc>::new(dims)?, &Shape::<NcxHwx<32>>::new(dims)?, 1)?;
/// let pass = &r.passes()[0];
/// assert_eq!(pass.notations, ("NHWC", "NC/32HW32"));
/// assert!(pass.source().contains(&pass.kernel_name()));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// The kernel and its arguments.
    pub launch: Launch,
    /// The notations of the side it reads and the side it writes (kernel names, cache keys).
    pub notations: (&'static str, &'static str),
}

impl Pass {
    /// The kernel's symbol.
    pub fn kernel_name(&self) -> String {
        self.launch.spec.name(self.notations.0, self.notations.1)
    }

    /// The kernel's CUDA source.
    pub fn source(&self) -> String {
        self.launch.spec.source(self.notations.0, self.notations.1)
    }
}

/// How a conversion runs on the device.
///
/// ```
/// use layout_gpu::kernels::{route, Route};
/// use typed_layout::{Nchw, Nhwc, Shape};
/// let (a, b) = (Shape::<Nchw>::new([2, 3, 4, 5])?, Shape::<Nhwc>::new([2, 3, 4, 5])?);
/// match route(&a, &b, 2)? {
///     Route::Direct(pass) => assert_eq!(pass.notations, ("NCHW", "NHWC")),
///     Route::ViaLogical { .. } => unreachable!("whole dims always nest"),
/// }
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // lives on the stack for one call; boxing would allocate per conversion
pub enum Route {
    /// One kernel from the source into the destination.
    Direct(Pass),
    /// Vector widths that do not nest (NC/3HW3 into NC/4HW4): the source into a row-major
    /// buffer of `len` elements, then that buffer into the destination.
    ViaLogical {
        /// The two passes, in order.
        passes: [Pass; 2],
        /// Elements of the intermediate buffer.
        len: usize,
    },
}

impl Route {
    /// The passes in order.
    pub fn passes(&self) -> &[Pass] {
        match self {
            Route::Direct(p) => core::slice::from_ref(p),
            Route::ViaLogical { passes, .. } => passes,
        }
    }
}

/// How to convert packed `src` into packed `dst` with elements of `elem_bytes` bytes.
///
/// ```
/// use layout_gpu::kernels::{route, Route};
/// use typed_layout::{NcxHwx, Shape};
/// let (a, b) = (Shape::<NcxHwx<3>>::new([1, 12, 2, 2])?, Shape::<NcxHwx<4>>::new([1, 12, 2, 2])?);
/// let r = route(&a, &b, 4)?;
/// assert!(matches!(r, Route::ViaLogical { len: 48, .. }));
/// assert_eq!(r.passes()[0].notations, ("NC/3HW3", "logical"));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn route<S: Layout, D: Layout>(
    src: &Shape<S>,
    dst: &Shape<D>,
    elem_bytes: usize,
) -> Result<Route, LayoutError>
where
    D::Family: SameFamily<S::Family>,
{
    let (from, to) = (S::NOTATION, D::NOTATION);
    if let Some(nest) = LoopNest::between(src, dst)? {
        let launch = schedule(&nest, elem_bytes, src.len(), dst.len());
        return Ok(Route::Direct(Pass { launch, notations: (from, to) }));
    }
    let (first, second) = LoopNest::via_logical(src, dst)?;
    let len = src.placement().dims().iter().product();
    let passes = [
        Pass { launch: schedule(&first, elem_bytes, src.len(), len), notations: (from, LOGICAL) },
        Pass { launch: schedule(&second, elem_bytes, len, dst.len()), notations: (LOGICAL, to) },
    ];
    Ok(Route::ViaLogical { passes, len })
}

/// The launch converting with `nest` between buffers of `src_len` and `dst_len` elements of
/// `elem_bytes` bytes (1, 2, 4 or 8).
///
/// ```
/// use layout_gpu::kernels::{schedule, Kernel};
/// use typed_layout::{loops::LoopNest, Nchw, Nhwc, Shape};
/// let (a, b) = (Shape::<Nchw>::new([8, 64, 56, 56])?, Shape::<Nhwc>::new([8, 64, 56, 56])?);
/// let nest = LoopNest::between(&a, &b)?.unwrap();
/// let launch = schedule(&nest, 4, a.len(), b.len());
/// assert_eq!(launch.spec.kernel, Kernel::Tile { batch: 1 }); // N batches a 3136 × 64 transpose
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn schedule(nest: &LoopNest, elem_bytes: usize, src_len: usize, dst_len: usize) -> Launch {
    let axes = nest.axes();
    // A run contiguous on both sides (NC/4HW4's lanes) of at most 8 bytes moves as one wider
    // element, so the loops around it become a transpose of whole runs.
    if let Some((wider, n, run)) = widen(axes, elem_bytes) {
        let e = elem_bytes * run;
        return plan(&wider[..n], e, src_len.div_ceil(run), dst_len.div_ceil(run));
    }
    plan(axes, elem_bytes, src_len, dst_len)
}

/// The loops with the innermost folded into the element, its extent, when that axis is
/// contiguous on both sides, the wider element is 2, 4 or 8 bytes, and every other stride is
/// a whole number of them.
fn widen(axes: &[LoopAxis], elem_bytes: usize) -> Option<([LoopAxis; MAX_LOOPS], usize, usize)> {
    let (inner, outer) = axes.split_last()?;
    let run = inner.extent;
    let fits = !outer.is_empty()
        && inner.src == 1
        && inner.dst == 1
        && matches!(run * elem_bytes, 2 | 4 | 8)
        && outer.iter().all(|x| x.src % run as isize == 0 && x.dst % run as isize == 0);
    if !fits {
        return None;
    }
    let mut wider = [LoopAxis::default(); MAX_LOOPS];
    for (w, x) in wider.iter_mut().zip(outer) {
        *w = LoopAxis { extent: x.extent, src: x.src / run as isize, dst: x.dst / run as isize };
    }
    Some((wider, outer.len(), run))
}

/// [`schedule`] of loops in a nest's order.
fn plan(axes: &[LoopAxis], elem_bytes: usize, src_len: usize, dst_len: usize) -> Launch {
    let total: usize = axes.iter().map(|a| a.extent).product();
    let wide = src_len.max(dst_len).max(total) > i32::MAX as usize;
    let mut params = Params::ZERO;
    let single = LoopAxis { extent: 1, src: 1, dst: 1 };
    let inner = axes.last().copied().unwrap_or(single);

    if axes.len() <= 1 && inner.src == 1 && inner.dst == 1 {
        let vec = (MAX_ACCESS_BYTES / elem_bytes).max(1);
        params.extent[0] = inner.extent as i64;
        params.work = (inner.extent / vec).max(inner.extent % vec) as u64;
        let spec = KernelSpec { kernel: Kernel::Copy, elem_bytes: elem_bytes as u8, vec: vec as u8, wide };
        return finish(spec, params);
    }

    if let Some(k) = tile_axis(axes) {
        if axes[k].extent.min(inner.extent) < NARROW {
            if let Some(launch) = narrow(axes, k, elem_bytes, wide) {
                return launch;
            }
        }
    }
    if let Some(k) = tile_axis(axes).filter(|&k| axes[k].extent.min(inner.extent) >= NARROW) {
        let (a, b) = (axes[k], inner);
        // Batch loops first (no allocation on the launch path), then a, then b.
        let batch =
            || axes[..axes.len() - 1].iter().enumerate().filter(move |&(i, _)| i != k).map(|(_, x)| x);
        let n_batch = axes.len() - 2;
        for (i, x) in batch().chain([&a, &b]).enumerate() {
            set(&mut params, i, x);
        }
        // Pack 1- and 2-byte elements into 32-bit words where every word stays aligned: the
        // packed extents and every stride but the unit ones are multiples of the pack.
        let pack = (4 / elem_bytes).max(1);
        let packs = |v: isize| v.rem_euclid(pack as isize) == 0;
        let fits = a.extent % pack == 0
            && b.extent % pack == 0
            && packs(b.src)
            && packs(a.dst)
            && batch().all(|x| packs(x.src) && packs(x.dst));
        let pack = if fits { pack } else { 1 };
        let tile = TILE_THREADS_X as usize * pack;
        let tiles = (a.extent.div_ceil(tile) as u64) * (b.extent.div_ceil(tile) as u64);
        params.work = batch().map(|x| x.extent as u64).product::<u64>() * tiles;
        let kernel = Kernel::Tile { batch: n_batch as u8 };
        return finish(KernelSpec { kernel, elem_bytes: elem_bytes as u8, vec: pack as u8, wide }, params);
    }

    let axes: &[LoopAxis] = if axes.is_empty() { core::slice::from_ref(&single) } else { axes };
    for (i, x) in axes.iter().enumerate() {
        set(&mut params, i, x);
    }
    // Vector accesses when the innermost axis is contiguous on both sides and every vector
    // starts aligned.
    let mut vec = 1;
    if inner.src == 1 && inner.dst == 1 {
        let mut v = (MAX_ACCESS_BYTES / elem_bytes).max(1);
        let outer = &axes[..axes.len() - 1];
        let ok = |v: usize| {
            let aligned = |s: isize| s.rem_euclid(v as isize) == 0;
            inner.extent % v == 0 && outer.iter().all(|x| aligned(x.src) && aligned(x.dst))
        };
        while v > 1 && !ok(v) {
            v /= 2;
        }
        vec = v;
    }
    params.work = (total / vec) as u64;
    let kernel = Kernel::Gather { loops: axes.len() as u8 };
    finish(KernelSpec { kernel, elem_bytes: elem_bytes as u8, vec: vec as u8, wide }, params)
}

/// The narrow kernel for the plane of axes `k` (the source's innermost) and the last (the
/// destination's), when one of the two is narrow and its elements are packed against the other:
/// the destination's rows are whole pixels (`a.dst` = the narrow extent, C = 3 into NHWC) or
/// the source's are (`b.src` = the narrow extent, out of NHWC).
fn narrow(axes: &[LoopAxis], k: usize, elem_bytes: usize, wide: bool) -> Option<Launch> {
    let (a, b) = (axes[k], axes[axes.len() - 1]);
    let packed_dst = b.dst == 1 && a.dst == b.extent as isize && b.extent < NARROW;
    let packed_src = a.src == 1 && b.src == a.extent as isize && a.extent < NARROW;
    // Both packed (both narrow): stage along the longer axis.
    let packed_dst = match (packed_dst, packed_src) {
        (false, false) => return None,
        (true, true) => b.extent <= a.extent,
        (dst, _) => dst,
    };
    let (long, short) = if packed_dst { (a, b) } else { (b, a) };
    let mut params = Params::ZERO;
    let batch = || axes[..axes.len() - 1].iter().enumerate().filter(move |&(i, _)| i != k).map(|(_, x)| x);
    for (i, x) in batch().chain([&long, &short]).enumerate() {
        set(&mut params, i, x);
    }
    let run = NARROW_RUN_BYTES / elem_bytes;
    params.work = batch().map(|x| x.extent as u64).product::<u64>() * long.extent.div_ceil(run) as u64;
    let kernel = Kernel::Narrow { batch: (axes.len() - 2) as u8, packed_dst };
    Some(finish(KernelSpec { kernel, elem_bytes: elem_bytes as u8, vec: 1, wide }, params))
}

fn set(params: &mut Params, i: usize, x: &LoopAxis) {
    debug_assert!(i < MAX_LOOPS);
    params.extent[i] = x.extent as i64;
    params.src[i] = x.src as i64;
    params.dst[i] = x.dst as i64;
}

fn finish(spec: KernelSpec, params: Params) -> Launch {
    let blocks = params.work.div_ceil(spec.items_per_block()).clamp(1, MAX_BLOCKS);
    Launch { spec, params, grid: blocks as u32 }
}
