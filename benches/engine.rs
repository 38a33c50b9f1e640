//! Computing on tensors, layout-generic against raw slices, measured in one run.
//!
//! * A 3×3 convolution (valid padding, f32) written once over the layout with `Index` and
//!   `for_each_indexed_mut`, against the same loop nest on raw slices with the index arithmetic
//!   written by hand for NCHW and for NHWC.
//! * Element-wise work (`iter().sum()`, `map`, `zip_mut_with`, `fill`) against the same work on
//!   the tensor's slice.
//!
//! Each contender runs `ROUNDS` times, interleaved with its peers; the table gives the best time
//! of each, its ratio to the first raw contender (the naive loops) and to the fastest raw one
//! (the strongest baseline of the row): 1.00 is raw speed. `cargo bench --bench engine`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::{Chwn, Image, Layout, Nchw, NcxHwx, Nhwc, PerDimStrides, StridedView, Tensor};

const ROUNDS: usize = 31;

/// Best wall time of `f` over `ROUNDS` runs, interleaved with the other contenders by the caller.
fn best(times: &mut Duration, f: impl FnOnce()) {
    let start = Instant::now();
    f();
    *times = (*times).min(start.elapsed());
}

/// Times each contender `ROUNDS` times, round-robin, and prints best times and ratios to the
/// first (the naive raw baseline) and to the fastest contender labelled `raw …` (the strongest).
fn race(name: &str, contenders: &mut [(&str, &mut dyn FnMut())]) {
    let mut times = vec![Duration::MAX; contenders.len()];
    for _ in 0..ROUNDS {
        for ((_, f), t) in contenders.iter_mut().zip(&mut times) {
            best(t, f);
        }
    }
    let base = times[0].as_secs_f64();
    let strongest = contenders
        .iter()
        .zip(&times)
        .filter(|((label, _), _)| label.starts_with("raw"))
        .map(|(_, t)| t.as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    for ((label, _), t) in contenders.iter().zip(&times) {
        let t = t.as_secs_f64();
        println!("| {name} | {label} | {:.3} ms | {:.2} | {:.2} |", t * 1e3, t / base, t / strongest);
    }
}

/// The convolution, written once for every image layout: `y[n, k, h, w] = Σ x[n, c, h+r, w+s] ·
/// f[k, c, r, s]`.
fn conv3x3<L: Layout<Family = Image>, F: Layout<Family = Image>>(
    x: &Tensor<f32, L>,
    f: &Tensor<f32, F>,
    y: &mut Tensor<f32, L>,
) {
    let [_, channels, _, _] = x.dims();
    y.for_each_indexed_mut(|[n, k, h, w], out| {
        let mut acc = 0.0;
        for c in 0..channels {
            for r in 0..3 {
                for s in 0..3 {
                    acc += x[[n, c, h + r, w + s]] * f[[k, c, r, s]];
                }
            }
        }
        *out = acc;
    });
}

/// The convolution written once with sub-tensors: for every (k, c, r, s), the output channel k
/// gains f[k, c, r, s] times the input channel c shifted by (r, s), a `zip_mut_with` of two crops
/// that walks memory in the layout's own order.
fn conv3x3_by_crops<L: Layout<Family = Image>, F: Layout<Family = Image>>(
    x: &Tensor<f32, L>,
    f: &Tensor<f32, F>,
    y: &mut Tensor<f32, L>,
) {
    let [n, channels, _, _] = x.dims();
    let [_, kernels, ho, wo] = y.dims();
    y.fill(0.0);
    for k in 0..kernels {
        let mut out = y.narrow_mut('C', k..k + 1).unwrap();
        for c in 0..channels {
            for r in 0..3 {
                for s in 0..3 {
                    let weight = f[[k, c, r, s]];
                    let window = x.crop([0, c, r, s], [n, 1, ho, wo]).unwrap();
                    out.zip_mut_with(&window, |o, &v| *o += weight * v).unwrap();
                }
            }
        }
    }
}

/// The convolution written once for layouts with per-dimension strides: the slice and the
/// strides hoisted, offsets as dot products.
fn conv3x3_by_strides<
    L: Layout<Family = Image> + PerDimStrides,
    F: Layout<Family = Image> + PerDimStrides,
>(
    x: &Tensor<f32, L>,
    f: &Tensor<f32, F>,
    y: &mut Tensor<f32, L>,
) {
    let [_, channels, _, _] = x.dims();
    let (xs, fs) = (x.as_slice(), f.as_slice());
    let ([xn, xc, xh, xw], [fk, fc, fr, fs_]) = (x.strides(), f.strides());
    y.for_each_indexed_mut(|[n, k, h, w], out| {
        let mut acc = 0.0;
        for c in 0..channels {
            let xo = n as isize * xn + c as isize * xc + h as isize * xh + w as isize * xw;
            let fo = k as isize * fk + c as isize * fc;
            for r in 0..3 {
                for s in 0..3 {
                    acc += xs[(xo + r * xh + s * xw) as usize] * fs[(fo + r * fr + s * fs_) as usize];
                }
            }
        }
        *out = acc;
    });
}

/// The convolution written once as 9·C three-tensor passes over the output in its own storage
/// order: y += w[·, c, r, s] · x[·, c, h+r, w+s], the input channel broadcast over the output
/// channels and the weights over the pixels.
fn conv3x3_by_zip2<L: Layout<Family = Image> + PerDimStrides, F: Layout<Family = Image> + PerDimStrides>(
    x: &Tensor<f32, L>,
    f: &Tensor<f32, F>,
    y: &mut Tensor<f32, L>,
) {
    let [n, channels, _, _] = x.dims();
    let [_, kernels, ho, wo] = y.dims();
    let [fk, _, _, _] = f.strides();
    y.fill(0.0);
    for c in 0..channels {
        for r in 0..3 {
            for s in 0..3 {
                let window = x.crop([0, c, r, s], [n, 1, ho, wo]).unwrap();
                let xs = window.broadcast('C', kernels).unwrap();
                let base = f.shape().offset([0, c, r, s]).unwrap();
                let ws =
                    StridedView::<f32, Image>::new([n, kernels, ho, wo], [0, fk, 0, 0], base, f.as_slice())
                        .unwrap();
                y.zip2_mut_with(&xs, &ws, |y, &x, &w| *y += w * x).unwrap();
            }
        }
    }
}

/// The zip2 convolution's loop order on raw NCHW slices (filter KCRS): for every (c, r, s), each
/// output row gains a weight times an input row.
fn conv3x3_nchw_rows(x: &[f32], f: &[f32], y: &mut [f32], [nn, cc, hh, ww]: [usize; 4], kk: usize) {
    let (ho, wo) = (hh - 2, ww - 2);
    y.fill(0.0);
    for c in 0..cc {
        for r in 0..3 {
            for s in 0..3 {
                for n in 0..nn {
                    for k in 0..kk {
                        let weight = f[((k * cc + c) * 3 + r) * 3 + s];
                        for h in 0..ho {
                            let out = &mut y[((n * kk + k) * ho + h) * wo..][..wo];
                            let row = &x[((n * cc + c) * hh + h + r) * ww + s..][..wo];
                            out.iter_mut().zip(row).for_each(|(o, &v)| *o += weight * v);
                        }
                    }
                }
            }
        }
    }
}

/// The zip2 convolution's loop order on raw NHWC slices (filter CRSK: K innermost): for every
/// (c, r, s), each output pixel's K channels gain the input value times the K weights.
fn conv3x3_nhwc_rows(x: &[f32], f: &[f32], y: &mut [f32], [nn, cc, hh, ww]: [usize; 4], kk: usize) {
    let (ho, wo) = (hh - 2, ww - 2);
    y.fill(0.0);
    for c in 0..cc {
        for r in 0..3 {
            for s in 0..3 {
                let weights = &f[((c * 3 + r) * 3 + s) * kk..][..kk];
                for n in 0..nn {
                    for h in 0..ho {
                        for w in 0..wo {
                            let v = x[((n * hh + h + r) * ww + w + s) * cc + c];
                            let out = &mut y[((n * ho + h) * wo + w) * kk..][..kk];
                            out.iter_mut().zip(weights).for_each(|(o, &wt)| *o += wt * v);
                        }
                    }
                }
            }
        }
    }
}

/// The same loop nest on raw NCHW slices (filter KCRS), index arithmetic by hand.
fn conv3x3_nchw(x: &[f32], f: &[f32], y: &mut [f32], [nn, cc, hh, ww]: [usize; 4], kk: usize) {
    let (ho, wo) = (hh - 2, ww - 2);
    for n in 0..nn {
        for k in 0..kk {
            for h in 0..ho {
                for w in 0..wo {
                    let mut acc = 0.0;
                    for c in 0..cc {
                        for r in 0..3 {
                            for s in 0..3 {
                                acc += x[((n * cc + c) * hh + h + r) * ww + w + s]
                                    * f[((k * cc + c) * 3 + r) * 3 + s];
                            }
                        }
                    }
                    y[((n * kk + k) * ho + h) * wo + w] = acc;
                }
            }
        }
    }
}

/// The same loop nest on raw NHWC slices (filter KRSC), index arithmetic by hand.
fn conv3x3_nhwc(x: &[f32], f: &[f32], y: &mut [f32], [nn, cc, hh, ww]: [usize; 4], kk: usize) {
    let (ho, wo) = (hh - 2, ww - 2);
    for n in 0..nn {
        for h in 0..ho {
            for w in 0..wo {
                for k in 0..kk {
                    let mut acc = 0.0;
                    for c in 0..cc {
                        for r in 0..3 {
                            for s in 0..3 {
                                acc += x[((n * hh + h + r) * ww + w + s) * cc + c]
                                    * f[((k * 3 + r) * 3 + s) * cc + c];
                            }
                        }
                    }
                    y[((n * ho + h) * wo + w) * kk + k] = acc;
                }
            }
        }
    }
}

fn value(i: [usize; 4]) -> f32 {
    ((i[0] * 7 + i[1] * 5 + i[2] * 3 + i[3]) % 17) as f32 * 0.125
}

fn convolutions() {
    let (dims, k) = ([2, 16, 34, 34], 16);
    let out = [dims[0], k, dims[2] - 2, dims[3] - 2];
    let fdims = [k, dims[1], 3, 3];

    let x = Tensor::<f32, Nchw>::from_fn(dims, value).unwrap();
    let f = Tensor::<f32, Nchw>::from_fn(fdims, value).unwrap();
    let mut y = Tensor::<f32, Nchw>::zeros(out).unwrap();
    let mut raw = vec![0.0f32; y.as_slice().len()];
    let (mut y2, mut y3, mut y4) = (y.clone(), y.clone(), y.clone());
    conv3x3(&x, &f, &mut y);
    conv3x3_nchw(x.as_slice(), f.as_slice(), &mut raw, dims, k);
    conv3x3_by_crops(&x, &f, &mut y2);
    assert_eq!(y.as_slice(), &raw[..], "the generic and the raw NCHW convolutions agree");
    assert_eq!(y2.as_slice(), &raw[..], "the convolution by crops agrees");
    conv3x3_by_strides(&x, &f, &mut y3);
    assert_eq!(y3.as_slice(), &raw[..], "the convolution by strides agrees");
    conv3x3_by_zip2(&x, &f, &mut y4);
    assert_eq!(y4.as_slice(), &raw[..], "the convolution by zip2 agrees");
    let mut raw2 = raw.clone();
    conv3x3_nchw_rows(x.as_slice(), f.as_slice(), &mut raw2, dims, k);
    assert_eq!(raw2, raw, "the raw row-order convolution agrees");
    race(
        "conv 3×3 NCHW, x [2,16,34,34], f32",
        &mut [
            ("raw slices", &mut || conv3x3_nchw(x.as_slice(), f.as_slice(), &mut raw, dims, k)),
            ("generic over the layout", &mut || conv3x3(black_box(&x), &f, &mut y)),
            ("generic, crops + zip", &mut || conv3x3_by_crops(black_box(&x), &f, &mut y2)),
            ("generic, strides", &mut || conv3x3_by_strides(black_box(&x), &f, &mut y3)),
            ("generic, zip2 + broadcast", &mut || conv3x3_by_zip2(black_box(&x), &f, &mut y4)),
            ("raw slices, zip2's loop order (strongest)", &mut || {
                conv3x3_nchw_rows(x.as_slice(), f.as_slice(), &mut raw2, dims, k)
            }),
        ],
    );

    let xh: Tensor<f32, Nhwc> = x.to_layout().unwrap();
    // The filter's K, R, S, C order is NHWC's storage order for dims [k, c, r, s].
    let fh: Tensor<f32, Nhwc> = f.to_layout().unwrap();
    let mut yh = Tensor::<f32, Nhwc>::zeros(out).unwrap();
    let mut raw_h = vec![0.0f32; yh.as_slice().len()];
    let (mut yh2, mut yh3, mut yh4) = (yh.clone(), yh.clone(), yh.clone());
    // The filter with K innermost: each (c, r, s) gives the weights of all outputs in one run.
    let fk: Tensor<f32, Chwn> = f.to_layout().unwrap();
    let mut yh5 = yh.clone();
    conv3x3(&xh, &fh, &mut yh);
    conv3x3_nhwc(xh.as_slice(), fh.as_slice(), &mut raw_h, dims, k);
    conv3x3_by_crops(&xh, &fh, &mut yh2);
    assert_eq!(yh.as_slice(), &raw_h[..], "the generic and the raw NHWC convolutions agree");
    assert_eq!(yh2.as_slice(), &raw_h[..], "the convolution by crops agrees");
    conv3x3_by_strides(&xh, &fh, &mut yh3);
    assert_eq!(yh3.as_slice(), &raw_h[..], "the convolution by strides agrees");
    conv3x3_by_zip2(&xh, &fh, &mut yh4);
    assert_eq!(yh4.as_slice(), &raw_h[..], "the convolution by zip2 agrees");
    conv3x3_by_zip2(&xh, &fk, &mut yh5);
    assert_eq!(yh5.as_slice(), &raw_h[..], "the convolution by zip2 with a CHWN filter agrees");
    // CHWN storage of dims [k, c, r, s] is C, R, S, K: the CRSK filter of the raw loop.
    let mut raw_h2 = raw_h.clone();
    conv3x3_nhwc_rows(xh.as_slice(), fk.as_slice(), &mut raw_h2, dims, k);
    assert_eq!(raw_h2, raw_h, "the raw pixel-order convolution agrees");
    race(
        "conv 3×3 NHWC, x [2,16,34,34], f32",
        &mut [
            ("raw slices", &mut || conv3x3_nhwc(xh.as_slice(), fh.as_slice(), &mut raw_h, dims, k)),
            ("generic over the layout", &mut || conv3x3(black_box(&xh), &fh, &mut yh)),
            ("generic, crops + zip", &mut || conv3x3_by_crops(black_box(&xh), &fh, &mut yh2)),
            ("generic, strides", &mut || conv3x3_by_strides(black_box(&xh), &fh, &mut yh3)),
            ("generic, zip2 + broadcast", &mut || conv3x3_by_zip2(black_box(&xh), &fh, &mut yh4)),
            ("same, filter in CHWN (K innermost)", &mut || conv3x3_by_zip2(black_box(&xh), &fk, &mut yh5)),
            ("raw slices, zip2's loop order, CRSK filter (strongest)", &mut || {
                conv3x3_nhwc_rows(xh.as_slice(), fk.as_slice(), &mut raw_h2, dims, k)
            }),
        ],
    );

    let xv: Tensor<f32, NcxHwx<4>> = x.to_layout().unwrap();
    let mut yv = Tensor::<f32, NcxHwx<4>>::zeros(out).unwrap();
    race(
        "conv 3×3 NC/4HW4 (raw: NCHW), f32",
        &mut [
            ("raw slices, NCHW", &mut || conv3x3_nchw(x.as_slice(), f.as_slice(), &mut raw, dims, k)),
            ("generic over the layout", &mut || conv3x3(black_box(&xv), &f, &mut yv)),
        ],
    );
}

fn element_wise() {
    let dims = [8, 64, 56, 56]; // 6.4 MiB of f32
    let x = Tensor::<f32, Nhwc>::from_fn(dims, value).unwrap();
    let xs = x.as_slice().to_vec();
    race(
        "sum, [8,64,56,56] f32 NHWC",
        &mut [
            ("raw: slice.iter().sum()", &mut || {
                black_box(black_box(&xs).iter().sum::<f32>());
            }),
            ("tensor.iter().sum()", &mut || {
                black_box(black_box(&x).iter().sum::<f32>());
            }),
        ],
    );
    race(
        "map v·2+1 into a new tensor, f32",
        &mut [
            ("raw: slice map collect", &mut || {
                black_box(black_box(&xs).iter().map(|v| v * 2.0 + 1.0).collect::<Vec<f32>>());
            }),
            ("tensor.map", &mut || {
                black_box(black_box(&x).map(|v| v * 2.0 + 1.0).unwrap());
            }),
        ],
    );
    let mut a = x.clone();
    let mut av = xs.clone();
    race(
        "a += b, same layout, f32",
        &mut [
            ("raw: slice zip", &mut || av.iter_mut().zip(black_box(&xs)).for_each(|(a, b)| *a += b)),
            ("zip_mut_with", &mut || a.zip_mut_with(black_box(&x), |a, b| *a += b).unwrap()),
        ],
    );
    race(
        "fill, f32",
        &mut [
            ("raw: slice.fill", &mut || av.fill(black_box(3.0))),
            ("tensor.fill", &mut || a.fill(black_box(3.0))),
        ],
    );
    let mut idx = Tensor::<f32, Nhwc>::zeros(dims).unwrap();
    let mut raw = vec![0.0f32; xs.len()];
    race(
        "write f(n, c, h, w) everywhere, NHWC f32",
        &mut [
            ("raw nested loops", &mut || {
                let [nn, cc, hh, ww] = dims;
                for n in 0..nn {
                    for h in 0..hh {
                        for w in 0..ww {
                            for c in 0..cc {
                                raw[((n * hh + h) * ww + w) * cc + c] = value([n, c, h, w]);
                            }
                        }
                    }
                }
                black_box(&raw);
            }),
            ("for_each_indexed_mut", &mut || idx.for_each_indexed_mut(|i, v| *v = value(i))),
        ],
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    println!("| work | contender | best of {ROUNDS} | ÷ first raw | ÷ fastest raw |\n|---|---|---|---|---|");
    convolutions();
    element_wise();
}
