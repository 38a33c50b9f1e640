//! The fused relayout + cast + channel padding kernels: CUDA source generated from a
//! [`CastSpec`], and the launch of a [`CastNest`] (the conversion rules are described in the
//! `kernels` module's docs).

use std::fmt::Write as _;

use layout_types::cast::{CastNest, Quantize, Scale, Unscaled};
use layout_types::placement::MAX_AXES;
use layout_types::DataType;

use super::moving::{uint, ACCESS_MACROS, THREADS};
use super::schedule::MAX_BLOCKS;
use crate::ffi::driver::CastParams;

/// Everything baked into one cast kernel.
///
/// ```
/// use layout_gpu::kernels::CastSpec;
/// use typed_layout::DataType;
/// let spec = CastSpec { loops: 2, from: DataType::BFloat16, to: DataType::Uint8, wide: false, quantize: false, vector: 1 };
/// let cuda = spec.source("NHWC", "NCHW");
/// assert!(cuda.contains("tl_from_bf16") && cuda.contains("typedef unsigned char dst_t;"));
/// assert_eq!(spec.block(), (256, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CastSpec {
    /// Loops decomposed per thread (at least 1).
    pub loops: u8,
    /// The source element type.
    pub from: DataType,
    /// The destination element type.
    pub to: DataType,
    /// 64-bit offsets and counters.
    pub wide: bool,
    /// Quantizing: divide by the scale in `f32` and round half to even
    /// ([`Quantize`]), instead of multiplying by it.
    pub quantize: bool,
    /// Consecutive destination elements per thread, written by one store of up to 16 bytes: a
    /// power of two dividing the innermost loop's extent (1: one element per thread). The
    /// destination must start aligned to that store, as every allocation of ours does. Other
    /// values give the one-element kernel.
    pub vector: u8,
}

/// A cast kernel with its arguments and grid.
///
/// ```
/// use layout_gpu::kernels::cast_launch;
/// use typed_layout::{cast::{CastNest, Scale}, DataType, Nchw, Nhwc, Shape};
/// let (rgb, padded) = (Shape::<Nchw>::new([64, 3, 224, 224])?, Shape::<Nhwc>::new([64, 8, 224, 224])?);
/// let launch = cast_launch(&CastNest::new(&rgb, &padded)?, DataType::Uint8, DataType::Half, rgb.len(), Scale(1.0 / 255.0));
/// assert_eq!(launch.spec.vector, 8); // one thread per pixel: its 8 channels, one 16-byte store
/// assert_eq!(launch.grid, (64 * 224 * 224 / 256) as u32);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CastLaunch {
    /// What the kernel bakes in.
    pub spec: CastSpec,
    /// Its run-time arguments.
    pub params: CastParams,
    /// Blocks in the grid (x only); blocks have [`THREADS`] threads.
    pub grid: u32,
}

/// How a cast reaches the device: the factor every value is multiplied by, or the scale it is
/// quantized by. Implemented by the casts the kernels know: [`Unscaled`], [`Scale`] and
/// [`Quantize`].
///
/// ```
/// use layout_gpu::kernels::DeviceCast;
/// use typed_layout::cast::{Quantize, Scale, Unscaled};
/// assert_eq!((Unscaled.scale(), Scale(0.5).scale()), (1.0, 0.5));
/// assert!(Quantize(0.25).quantize() && !Scale(0.25).quantize());
/// ```
pub trait DeviceCast: Copy {
    /// The factor (1 for a plain conversion), or the quantization scale.
    fn scale(&self) -> f64;
    /// Does the kernel quantize (divide in `f32`, round half to even)?
    fn quantize(&self) -> bool {
        false
    }
}

impl DeviceCast for Quantize {
    fn scale(&self) -> f64 {
        f64::from(self.0)
    }
    fn quantize(&self) -> bool {
        true
    }
}

impl DeviceCast for Unscaled {
    fn scale(&self) -> f64 {
        1.0
    }
}

impl DeviceCast for Scale {
    fn scale(&self) -> f64 {
        self.0
    }
}

/// The launch running `plan` from a source of `src_len` elements of `from` into a destination
/// of `to`, with `cast` (its factor or quantization scale).
///
/// ```
/// use layout_gpu::kernels::cast_launch;
/// use typed_layout::{cast::{CastNest, Unscaled}, DataType, Nchw, Nhwc, Shape};
/// let plan = CastNest::new(&Shape::<Nchw>::new([8, 3, 224, 224])?, &Shape::<Nhwc>::new([8, 8, 224, 224])?)?;
/// let launch = cast_launch(&plan, DataType::Float, DataType::Half, 8 * 3 * 224 * 224, Unscaled);
/// assert_eq!((launch.spec.loops, launch.spec.vector, launch.params.work), (3, 8, 8 * 8 * 224 * 224));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn cast_launch(
    plan: &CastNest,
    from: DataType,
    to: DataType,
    src_len: usize,
    cast: impl DeviceCast,
) -> CastLaunch {
    let loops = plan.loops();
    let mut params = CastParams {
        extent: [0; MAX_AXES],
        src: [0; MAX_AXES],
        channel: [0; MAX_AXES],
        work: plan.len() as u64,
        channels: plan.channels() as i64,
        c_width: plan.channel_map().width as i64,
        c_outer: plan.channel_map().outer as i64,
        c_inner: plan.channel_map().inner as i64,
        scale: cast.scale(),
        src_base: 0,
        dst_base: 0,
    };
    for (k, l) in loops.iter().enumerate() {
        params.extent[k] = l.extent as i64;
        params.src[k] = l.src as i64;
        params.channel[k] = l.channel as i64;
    }
    let wide = src_len.max(plan.len()) > i32::MAX as usize;
    // As many destination elements per thread as fill 16 bytes, where the innermost loop's
    // extent splits into such groups (so a group never straddles an outer index).
    let inner = loops.last().map_or(1, |l| l.extent);
    let mut vector = 16 / to.size();
    while vector > 1 && !inner.is_multiple_of(vector) {
        vector /= 2;
    }
    let spec = CastSpec {
        loops: loops.len() as u8,
        from,
        to,
        wide,
        quantize: cast.quantize(),
        vector: vector as u8,
    };
    let grid = (params.work / vector as u64).div_ceil(u64::from(THREADS)).clamp(1, MAX_BLOCKS) as u32;
    CastLaunch { spec, params, grid }
}

impl CastSpec {
    /// The block shape the kernel is written for.
    pub fn block(&self) -> (u32, u32, u32) {
        (THREADS, 1, 1)
    }

    /// The kernel's symbol: the two layouts' notations, the two types, the loop count, the
    /// elements per thread where more than one.
    ///
    /// ```
    /// use layout_gpu::kernels::CastSpec;
    /// use typed_layout::DataType;
    /// let spec = CastSpec { loops: 3, from: DataType::Float, to: DataType::Half, wide: false, quantize: false, vector: 1 };
    /// assert_eq!(spec.name("NCHW", "NHWC"), "tl_cast3_NCHW_to_NHWC_FLOAT_to_HALF_i32");
    /// let q = CastSpec { quantize: true, to: DataType::Int8, vector: 16, ..spec };
    /// assert_eq!(q.name("KCRS", "KC/32RS32"), "tl_cast3_v16_KCRS_to_KC_32RS32_FLOAT_to_INT8_i32_q");
    /// ```
    pub fn name(&self, src: &str, dst: &str) -> String {
        let clean =
            |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect::<String>();
        let ty = |t: DataType| t.cudnn_name().trim_start_matches("CUDNN_DATA_");
        let width = if self.wide { 64 } else { 32 };
        let vector = if self.vector > 1 { format!("_v{}", self.vector) } else { String::new() };
        format!(
            "tl_cast{}{vector}_{}_to_{}_{}_to_{}_i{width}{}",
            self.loops,
            clean(src),
            clean(dst),
            ty(self.from),
            ty(self.to),
            if self.quantize { "_q" } else { "" }
        )
    }

    /// The CUDA source of this kernel, converting `src` into `dst` (notations, for the name and
    /// the header comment).
    pub fn source(&self, src: &str, dst: &str) -> String {
        let name = self.name(src, dst);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// typed-layout: {src} -> {dst}, {} -> {}, channels padded with zeros ({} loops).",
            self.from, self.to, self.loops
        );
        s.push_str("// Generated by layout-gpu's kernels::cast; extents and strides arrive in CastParams.\n");
        s.push_str(ACCESS_MACROS);
        let _ = writeln!(s, "typedef {} src_t;", ctype(self.from));
        let _ = writeln!(s, "typedef {} dst_t;", ctype(self.to));
        let (idx, off) =
            if self.wide { ("unsigned long long", "long long") } else { ("unsigned int", "int") };
        let _ = writeln!(s, "typedef {idx} idx_t;");
        let _ = writeln!(s, "typedef {off} off_t_;");
        let _ = writeln!(
            s,
            "struct CastParams {{ long long extent[{MAX_AXES}]; long long src[{MAX_AXES}]; long long channel[{MAX_AXES}]; \
             unsigned long long work; long long channels, c_width, c_outer, c_inner; double scale; long long src_base, dst_base; }};"
        );
        for t in [self.from, self.to] {
            if let Some((tag, frac, exp_bits)) = float16(t) {
                if !s.contains(&format!("tl_from_{tag}")) {
                    half_functions(&mut s, tag, frac, exp_bits);
                }
            }
        }
        let _ = writeln!(
            s,
            "__device__ __forceinline__ double tl_load(src_t x) {{ return {}; }}",
            load(self.from)
        );
        let _ = writeln!(s, "__device__ __forceinline__ dst_t tl_store(double x) {{\n{}\n}}", store(self.to));
        let loops = self.loops as usize;
        // A group is a power of two of elements in at most 16 bytes (`cast_launch` makes no
        // other); any other value writes the one-element kernel, which a launch of any grid
        // covers.
        let vector = usize::from(self.vector);
        let vector = if vector.is_power_of_two() && vector * self.to.size() <= 16 { vector } else { 1 };
        // A group's store: one of its bytes' width (the element itself for a group of one).
        let _ = writeln!(s, "typedef {} vec_t;", uint(vector * self.to.size()));
        let _ = writeln!(s, "union pack_t {{ vec_t v; dst_t e[{vector}]; }};");
        // One thread per group of `vector` destination elements: the loop indices of the
        // group's first element, then each element's channel and source offset one innermost
        // step apart, and the group written by one store.
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(const src_t* __restrict__ src, dst_t* __restrict__ dst, const CastParams p) {{
    const idx_t step = (idx_t)gridDim.x * blockDim.x;
    for (idx_t w = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; w < (idx_t)(p.work / {vector}); w += step) {{
        idx_t rest = w * {vector}, ch = 0;
        off_t_ s = (off_t_)p.src_base;"
        );
        for k in (1..loops).rev() {
            let _ = writeln!(
                s,
                "        {{ const idx_t e = (idx_t)p.extent[{k}], q = rest / e, i = rest - q * e; \
                 s += (off_t_)i * (off_t_)p.src[{k}]; ch += i * (idx_t)p.channel[{k}]; rest = q; }}"
            );
        }
        // Quantizing: x / scale in f32, rounded half to even (rintf), then the saturating store.
        let value = if self.quantize {
            "tl_store((double)rintf((float)tl_load(TL_LD(src_t, src + at)) / (float)p.scale))"
        } else {
            "tl_store(tl_load(TL_LD(src_t, src + at)) * p.scale)"
        };
        let last = loops - 1;
        let _ = writeln!(
            s,
            "        s += (off_t_)rest * (off_t_)p.src[0]; ch += rest * (idx_t)p.channel[0];
        const idx_t cw = (idx_t)p.c_width;
        pack_t out;
        #pragma unroll
        for (int j = 0; j < {vector}; ++j) {{
            const idx_t c = ch + (idx_t)j * (idx_t)p.channel[{last}];
            dst_t v = 0;
            if (c < (idx_t)p.channels) {{
                off_t_ at = s + (off_t_)j * (off_t_)p.src[{last}];
                at += cw == 1 ? (off_t_)c * (off_t_)p.c_outer
                              : (off_t_)(c / cw) * (off_t_)p.c_outer + (off_t_)(c % cw) * (off_t_)p.c_inner;
                v = {value};
            }}
            out.e[j] = v;
        }}
        TL_ST(vec_t, (vec_t*)(dst + (idx_t)p.dst_base) + w, out.v);
    }}
}}"
        );
        s
    }
}

/// The C type holding one element (16-bit floats as their bits).
fn ctype(t: DataType) -> &'static str {
    match t {
        DataType::Float => "float",
        DataType::Double => "double",
        DataType::Half | DataType::BFloat16 => "unsigned short",
        DataType::Int8 => "signed char",
        DataType::Uint8 => "unsigned char",
        DataType::Int32 => "int",
        DataType::Int64 => "long long",
    }
}

/// `(tag, fraction bits, exponent bits)` of the 16-bit float types.
fn float16(t: DataType) -> Option<(&'static str, u32, u32)> {
    match t {
        DataType::Half => Some(("f16", 10, 5)),
        DataType::BFloat16 => Some(("bf16", 7, 8)),
        _ => None,
    }
}

/// The expression widening `x` to double.
fn load(t: DataType) -> String {
    match float16(t) {
        Some((tag, ..)) => format!("tl_from_{tag}(x)"),
        None => "(double)x".into(),
    }
}

/// The body narrowing double `x` to the destination type.
fn store(t: DataType) -> String {
    // (lowest, highest) as doubles to compare with, and as the integers returned.
    let saturate = |lo: &str, hi: &str, lo_i: &str, hi_i: &str| {
        format!(
            "    if (!(x == x)) return 0;
    if (x <= {lo}) return (dst_t)({lo_i});
    if (x >= {hi}) return (dst_t)({hi_i});
    const long long t = (long long)x;
    const double d = x - (double)t;
    return (dst_t)(d >= 0.5 ? t + 1 : d <= -0.5 ? t - 1 : t);"
        )
    };
    match t {
        DataType::Float => "    return (float)x;".into(),
        DataType::Double => "    return x;".into(),
        // On the device, the hardware's round-to-nearest-even conversion from double: the same
        // bits as `tl_to_*` (one rounding of the same value) but for NaN payloads, which stay
        // with the bit-exact path. bf16 has the instruction from sm_90 on. The host emulator
        // runs the portable path.
        DataType::Half => "#ifdef __CUDA_ARCH__
    if (x == x) { unsigned short h; asm(\"cvt.rn.f16.f64 %0, %1;\" : \"=h\"(h) : \"d\"(x)); return h; }
#endif
    return tl_to_f16(x);"
            .into(),
        DataType::BFloat16 => "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (x == x) { unsigned short h; asm(\"cvt.rn.bf16.f64 %0, %1;\" : \"=h\"(h) : \"d\"(x)); return h; }
#endif
    return tl_to_bf16(x);"
            .into(),
        DataType::Int8 => saturate("-128.0", "127.0", "-128", "127"),
        DataType::Uint8 => saturate("0.0", "255.0", "0", "255"),
        DataType::Int32 => saturate("-2147483648.0", "2147483647.0", "-2147483647 - 1", "2147483647"),
        // 2^63 is the first double above i64::MAX; below it every double is an exact integer.
        DataType::Int64 => saturate(
            "-9223372036854775808.0",
            "9223372036854775808.0",
            "-9223372036854775807LL - 1",
            "9223372036854775807LL",
        ),
    }
}

/// `tl_from_<tag>` (bits to double, exact) and `tl_to_<tag>` (double to bits, nearest, ties to
/// even: `layout_types::narrow`'s algorithm) for a 16-bit float format.
fn half_functions(s: &mut String, tag: &str, frac: u32, exp_bits: u32) {
    let bias = (1u32 << (exp_bits - 1)) - 1;
    let max = (1u32 << exp_bits) - 1;
    // The value of one unit of a subnormal's significand, as a C++17 hex float.
    let sub_unit = format!("0x1p-{}", bias - 1 + frac);
    let _ = writeln!(
        s,
        "__device__ __forceinline__ double tl_from_{tag}(unsigned short h) {{
    const unsigned long long sign = (unsigned long long)(h >> 15) << 63;
    const unsigned e = (h >> {frac}) & {max}u, m = h & ((1u << {frac}) - 1);
    if (e == 0) {{ const double v = (double)m * {sub_unit}; return sign ? -v : v; }}
    const unsigned long long ef = e == {max}u ? 0x7ffull : (unsigned long long)(e + 1023 - {bias});
    const unsigned long long quiet = (e == {max}u && m != 0) ? (1ull << 51) : 0;
    return __longlong_as_double((long long)(sign | (ef << 52) | quiet | ((unsigned long long)m << {})));
}}
__device__ __forceinline__ unsigned short tl_to_{tag}(double x) {{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    const unsigned short sign = (unsigned short)((bits >> 48) & 0x8000);
    const long long exp = (long long)((bits >> 52) & 0x7ff);
    const unsigned long long man = bits & ((1ull << 52) - 1);
    const unsigned short inf = (unsigned short)(sign | ({max}u << {frac}));
    if (exp == 0x7ff) return man == 0 ? inf : (unsigned short)(inf | (1u << {}) | (unsigned short)(man >> {}));
    if (exp == 0) return sign;
    const long long e = exp - 1023, bias = {bias}, min_e = 1 - bias;
    if (e > bias) return inf;
    const unsigned long long m = man | (1ull << 52);
    const long long shift = {} + (e < min_e ? min_e - e : 0);
    if (shift > 54) return sign;
    unsigned long long q = m >> shift;
    const unsigned long long rest = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) q += 1;
    if (e < min_e) return (unsigned short)(sign | q);
    return (unsigned short)(sign | ((((unsigned long long)(e + bias - 1)) << {frac}) + q));
}}",
        52 - frac,
        frac - 1,
        52 - frac,
        52 - frac,
    );
}
