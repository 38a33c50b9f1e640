//! Three tensors walked together: [`zip2_mut_with`](TensorBase::zip2_mut_with), in the storage
//! order of the one written, the others (of any arrangements of the family, broadcast ones
//! included) at the same logical index.

use super::access::geometry;
use super::{Storage, StorageMut, TensorBase};
use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::layout::Arrangement;
use crate::loops::{same_dims, Geometry, Walk};
use crate::notation::MAX_RANK;
use crate::placement::DimMap;

/// Binds `$make` to a function from an offset to an iterator over the `$n` elements of `$data`
/// from there, `$s` apart, of the iterator type the stride allows (a repeat, a slice, a step),
/// and evaluates `$body` once: the walk is compiled once per kind of run, so runs of contiguous
/// or repeated elements vectorize and choose nothing per run.
macro_rules! runs {
    ($data:expr, $s:expr, $n:expr, |$make:ident| $body:expr) => {
        match $s {
            0 => {
                let $make = |o: isize| core::iter::repeat_n(&$data[o as usize], $n);
                $body
            }
            1 => {
                let $make = |o: isize| $data[o as usize..o as usize + $n].iter();
                $body
            }
            s if s > 0 => {
                let $make = |o: isize| $data[o as usize..].iter().step_by(s as usize).take($n);
                $body
            }
            s => {
                let $make = |o: isize| (0..$n as isize).map(move |j| &$data[(o + j * s) as usize]);
                $body
            }
        }
    };
}

/// Elements between neighbours of the walk's loop over `dim` (advancing `step` positions) in a
/// tensor of geometry `g`, when that is one number (not across a vectorized dimension).
fn step_of(g: &Geometry, dim: usize, step: usize) -> Option<isize> {
    match g.maps()[dim] {
        DimMap::Whole { stride } => Some(stride * step as isize),
        DimMap::Split { .. } => None,
    }
}

impl<S: StorageMut, A: Arrangement> TensorBase<S, A> {
    /// Calls `f(mine, a, b)` for every logical index, with this tensor's element mutably and
    /// `a`'s and `b`'s at the same index: a three-tensor apply (`y += w · x`) walking this
    /// tensor's storage in order, `a` and `b` of any arrangements of the family (strided, sub,
    /// broadcast with [`broadcast`](TensorBase::broadcast)).
    ///
    /// Fails with [`LayoutError::ShapeMismatch`] when the dims differ.
    ///
    /// # Speed
    ///
    /// The walk follows this tensor's storage order, innermost axis in runs: inputs that are
    /// contiguous (stride 1) or repeated (stride 0, a broadcast) along that axis vectorize;
    /// inputs strided along it are read element by element (for an NHWC output with C
    /// innermost, weights stored with K innermost, CHWN of `[k, c, r, s]`, run about 3× faster
    /// than KRSC weights: `benches/engine.rs`).
    ///
    /// ```
    /// use typed_layout::{Nchw, Nhwc, Tensor};
    /// let x = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
    /// let gain = Tensor::<f32, Nchw>::from_fn([1, 3, 1, 1], |[_, c, _, _]| c as f32)?; // per channel
    /// let mut y = Tensor::<f32, Nhwc>::filled([1, 3, 2, 2], 1.0)?;
    /// y.zip2_mut_with(&x, &gain.broadcast('H', 2)?.into_broadcast('W', 2)?, |y, &x, &g| *y += g * x)?;
    /// assert_eq!(y[[0, 2, 1, 1]], 1.0 + 2.0 * 11.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn zip2_mut_with<R1, B1, R2, B2>(
        &mut self,
        a: &TensorBase<R1, B1>,
        b: &TensorBase<R2, B2>,
        mut f: impl FnMut(&mut S::Elem, &R1::Elem, &R2::Elem),
    ) -> Result<(), LayoutError>
    where
        R1: Storage,
        B1: Arrangement,
        R2: Storage,
        B2: Arrangement,
        A::Family: SameFamily<B1::Family> + SameFamily<B2::Family>,
    {
        let letters = <A::Family as Family>::LETTERS.as_bytes();
        let (gd, ga, gb) =
            (geometry::<A>(self.shape()), geometry::<B1>(a.shape()), geometry::<B2>(b.shape()));
        same_dims(&ga, &gd, letters)?;
        same_dims(&gb, &gd, letters)?;
        let (xa, xb, dst) = (a.as_slice(), b.as_slice(), self.as_mut_slice());
        let walk = Walk::new(&gd);
        let (inner, loops) = (walk.inner(), walk.loops());
        let rank = gd.dims().len();
        // Every loop's step on the two other sides, when each is one number.
        let mut steps = [(0isize, 0isize); 2 * MAX_RANK];
        let mut affine = true;
        for (k, l) in loops.iter().enumerate() {
            match (step_of(&ga, l.dim, l.step), step_of(&gb, l.dim, l.step)) {
                (Some(a), Some(b)) => steps[k] = (a, b),
                _ => affine = false,
            }
        }
        if !affine || inner.stride <= 0 {
            // A vectorized dimension on another side, or a mirrored output: element by element.
            walk.for_each_run(|d, index: &[usize; MAX_RANK]| {
                let mut at = *index;
                for j in 0..inner.extent {
                    at[inner.dim] = index[inner.dim] + j * inner.step;
                    let y = (d + j as isize * inner.stride) as usize;
                    f(
                        &mut dst[y],
                        &xa[ga.offset(&at[..rank]) as usize],
                        &xb[gb.offset(&at[..rank]) as usize],
                    );
                }
            });
            return Ok(());
        }
        let (outer, (sa, sb)) = (&loops[..loops.len() - 1], steps[loops.len() - 1]);
        // The loop around the runs is walked as a plain loop, the odometer moves only the ones
        // outside it: short runs (a row of 32, a pixel's 16 channels) pay no odometer step each.
        let (outer, rows, (rd, ra, rb)) = match outer.split_last() {
            Some((l, rest)) => (rest, l.extent, (l.stride, steps[rest.len()].0, steps[rest.len()].1)),
            None => (outer, 1, (0, 0, 0)),
        };
        let (n, zero) = (inner.extent, [0usize; MAX_RANK]);
        let start = (walk.base(), ga.offset(&zero[..rank]), gb.offset(&zero[..rank]));
        let stride = inner.stride as usize;
        runs!(xa, sa, n, |run_a| runs!(xb, sb, n, |run_b| {
            // An odometer over the outer loops moving all three offsets.
            let (mut d, mut oa, mut ob) = start;
            let mut counters = [0usize; 2 * MAX_RANK];
            loop {
                // The runs of `y += w · x` (one side repeated, the other a slice) as loops over
                // two slices, which vectorize; `Repeat` in a zip does not. The repeated value
                // is copied out so that the loop keeps it in a register.
                if stride == 1 && sa == 1 && sb == 0 {
                    for i in 0..rows as isize {
                        let (d0, a0) = ((d + i * rd) as usize, (oa + i * ra) as usize);
                        let b0 = xb[(ob + i * rb) as usize];
                        dst[d0..d0 + n].iter_mut().zip(&xa[a0..a0 + n]).for_each(|(y, a)| f(y, a, &b0));
                    }
                } else if stride == 1 && sa == 0 && sb == 1 {
                    for i in 0..rows as isize {
                        let (d0, b0) = ((d + i * rd) as usize, (ob + i * rb) as usize);
                        let a0 = xa[(oa + i * ra) as usize];
                        dst[d0..d0 + n].iter_mut().zip(&xb[b0..b0 + n]).for_each(|(y, b)| f(y, &a0, b));
                    }
                } else if stride == 1 {
                    for i in 0..rows as isize {
                        let d0 = (d + i * rd) as usize;
                        let mine = dst[d0..d0 + n].iter_mut();
                        let pairs = mine.zip(run_a(oa + i * ra)).zip(run_b(ob + i * rb));
                        pairs.for_each(|((y, a), b)| f(y, a, b));
                    }
                } else {
                    for i in 0..rows as isize {
                        let d0 = (d + i * rd) as usize;
                        let mine = dst[d0..].iter_mut().step_by(stride).take(n);
                        let pairs = mine.zip(run_a(oa + i * ra)).zip(run_b(ob + i * rb));
                        pairs.for_each(|((y, a), b)| f(y, a, b));
                    }
                }
                let mut k = outer.len();
                loop {
                    if k == 0 {
                        return Ok(());
                    }
                    k -= 1;
                    counters[k] += 1;
                    let (l, (ka, kb)) = (outer[k], steps[k]);
                    if counters[k] < l.extent {
                        (d, oa, ob) = (d + l.stride, oa + ka, ob + kb);
                        break;
                    }
                    counters[k] = 0;
                    let back = l.extent as isize - 1;
                    (d, oa, ob) = (d - back * l.stride, oa - back * ka, ob - back * kb);
                }
            }
        }))
    }
}
