//! Write-only destinations: [`Out`], the storage a pass fills, written already or not yet, and
//! [`extend_written`], which fills a vector's spare capacity without writing it twice.
//!
//! A conversion into a new tensor needs no value in its destination before it runs, only room:
//! zeroing it first is a second pass over the output (a `memset` of the whole tensor, which
//! `calloc` makes wherever the allocator reuses memory rather than mapping fresh pages). The
//! kernels therefore write through [`Out`], which can view either kind of storage, and offers
//! only writes of whole values: it never reads an element, and never un-initializes one.
//!
//! A view is all of its span, or some columns of every row of it ([`Out::column_parts`]): the
//! parts of a plane that threads fill side by side, each its own columns of every row.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ops::{Bound, Range, RangeBounds};
use core::ptr::NonNull;

/// A span of storage a pass writes and never reads: the elements of a tensor (initialized), or
/// room that is not written yet (a new allocation's spare capacity); all of it, or the same
/// columns of each of its rows ([`Out::column_parts`]).
///
/// Every write stores a whole `T` (or, through [`bytes`](Out::bytes), bytes of a type whose
/// every bit pattern is a value): initialized storage stays initialized, and an element written
/// is initialized, whichever kind of storage it views. Every write is checked, as slice
/// indexing is, to lie inside the span and, for a part, inside its columns (a panic otherwise,
/// before anything is written).
///
/// **Invariant** (what the `unsafe` below relies on): for `'a`, the `len` places from `start`
/// lie in one live allocation, and those of them that [`Cols::holds`] (all, without columns)
/// are this view's alone to write: nothing else reads or writes them while it lives.
pub(crate) struct Out<'a, T> {
    start: NonNull<MaybeUninit<T>>,
    len: usize,
    cols: Option<Cols>,
    life: PhantomData<&'a mut [MaybeUninit<T>]>,
}

// SAFETY: a view is an exclusive borrow of the places it writes (the invariant), as
// `&'a mut [MaybeUninit<T>]` is, which is `Send` where `T` is.
unsafe impl<T: Send> Send for Out<'_, T> {}

/// The columns of a part: of rows `stride` elements long, columns `start..end`; the view's
/// first element is at column `phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cols {
    stride: usize,
    start: usize,
    end: usize,
    phase: usize,
}

impl Cols {
    /// Whether the `n` elements from element `i` of the view are in one row's columns.
    #[inline(always)]
    fn holds(&self, i: usize, n: usize) -> bool {
        let c = (self.phase + i % self.stride) % self.stride;
        n == 0 || (c >= self.start && c + n <= self.end)
    }

    /// The columns of the view starting `k` elements further on.
    #[inline(always)]
    fn skip(self, k: usize) -> Cols {
        Cols { phase: (self.phase + k % self.stride) % self.stride, ..self }
    }
}

/// An empty view.
impl<T> Default for Out<'_, T> {
    fn default() -> Self {
        Out { start: NonNull::dangling(), len: 0, cols: None, life: PhantomData }
    }
}

/// One element of an [`Out`], to write once.
pub(crate) struct Slot<'a, T>(&'a mut MaybeUninit<T>);

impl<T: Copy> Slot<'_, T> {
    /// Writes `value`.
    #[inline(always)]
    pub(crate) fn set(self, value: T) {
        self.0.write(value);
    }
}

/// The panic of a write outside a part's columns, out of line.
#[cold]
#[inline(never)]
#[track_caller]
fn outside(len: usize, cols: Option<Cols>) -> ! {
    panic!("{len} elements outside a part's columns {cols:?}")
}

/// `range` of a span of `len` elements as `start..end`, checked as slice indexing checks it.
#[inline(always)]
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&i) => i,
        Bound::Excluded(&i) => i.checked_add(1).expect("a range start past usize::MAX"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&i) => i.checked_add(1).expect("a range end past usize::MAX"),
        Bound::Excluded(&i) => i,
        Bound::Unbounded => len,
    };
    assert!(start <= end && end <= len, "range {start}..{end} out of a view of {len} elements");
    start..end
}

impl<'a, T: Copy> Out<'a, T> {
    /// A view of initialized elements.
    #[inline(always)]
    pub(crate) fn new(init: &'a mut [T]) -> Self {
        let len = init.len();
        // SAFETY: `MaybeUninit<T>` has `T`'s size and alignment, so the cast covers the same
        // bytes. The view never writes an uninitialized value (every method writes whole `T`s or
        // bytes of a plain type), so `init` is still initialized when the borrow ends and its
        // owner reads it as `T`s again; `T: Copy` has no drop, so overwriting needs none.
        Out::uninit(unsafe { core::slice::from_raw_parts_mut(init.as_mut_ptr().cast(), len) })
    }

    /// A view of room not written yet.
    #[inline(always)]
    pub(crate) fn uninit(room: &'a mut [MaybeUninit<T>]) -> Self {
        // The borrow is exclusive for `'a` and covers every place: the invariant.
        Out { start: NonNull::from(&mut *room).cast(), len: room.len(), cols: None, life: PhantomData }
    }

    /// The elements `range` of this view, for `'b`.
    ///
    /// # Safety
    ///
    /// For `'b` nothing else writes the places the new view holds: the caller gives this view
    /// up (consumes it, or borrows it mutably for `'b`), and no two views it makes so hold a
    /// place in common (their spans may overlap where their columns do not).
    #[inline(always)]
    unsafe fn sub<'b>(&self, range: Range<usize>) -> Out<'b, T> {
        debug_assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: `range` is inside the span (checked by every caller), so the pointer stays in
        // its allocation.
        let start = unsafe { self.start.add(range.start) };
        let cols = self.cols.map(|c| c.skip(range.start));
        Out { start, len: range.len(), cols, life: PhantomData }
    }

    /// The whole view as a slice: every element must be this view's (a part's view must lie in
    /// one row's columns; a panic otherwise).
    #[inline(always)]
    fn into_slice(self) -> &'a mut [MaybeUninit<T>] {
        if !self.cols.is_none_or(|c| c.holds(0, self.len)) {
            outside(self.len, self.cols);
        }
        // SAFETY: every place of the span is this view's alone for `'a` (the invariant, with
        // the columns just checked), in one live allocation, properly aligned (a
        // `NonNull<MaybeUninit<T>>` from a slice or an in-bounds offset of one).
        unsafe { core::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }

    /// The number of elements the view spans (those of other parts between its rows included).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// A shorter-lived view of the same elements.
    #[inline(always)]
    pub(crate) fn rb(&mut self) -> Out<'_, T> {
        // SAFETY: the whole span, for the mutable borrow of `self`.
        unsafe { self.sub(0..self.len) }
    }

    /// The elements at `range` (which must be inside, as in slice indexing).
    #[inline(always)]
    pub(crate) fn at(&mut self, range: impl RangeBounds<usize>) -> Out<'_, T> {
        let range = bounds(range, self.len);
        // SAFETY: in bounds; for the mutable borrow of `self`.
        unsafe { self.sub(range) }
    }

    /// The elements at `range`, for the whole borrow.
    #[inline(always)]
    pub(crate) fn into_at(self, range: impl RangeBounds<usize>) -> Out<'a, T> {
        let range = bounds(range, self.len);
        // SAFETY: in bounds; `self` is consumed.
        unsafe { self.sub(range) }
    }

    /// Writes `value` at `i` (which must be inside, as in slice indexing, and in the view's
    /// columns).
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, value: T) {
        self.at(i..=i).into_slice()[0].write(value);
    }

    /// Writes `src`, which must be as long as the view (and in one row's columns).
    #[inline(always)]
    pub(crate) fn copy_from(&mut self, src: &[T]) {
        self.rb().into_slice().write_copy_of_slice(src);
    }

    /// The first `mid` elements and the rest.
    #[inline(always)]
    pub(crate) fn split_at(self, mid: usize) -> (Out<'a, T>, Out<'a, T>) {
        let mid = bounds(..mid, self.len).end;
        // SAFETY: two disjoint ranges inside the span; `self` is consumed.
        unsafe { (self.sub(0..mid), self.sub(mid..self.len)) }
    }

    /// Consecutive views of `n` elements, the last one shorter where `n` does not divide the
    /// length.
    #[inline(always)]
    pub(crate) fn chunks(self, n: usize) -> Chunks<'a, T> {
        assert!(n > 0, "chunks of 0 elements");
        Chunks { rest: self, n }
    }

    /// A view of all its span as parts of a grid of rows `stride` elements long, one part a
    /// range of columns: columns `cuts[k]..cuts[k + 1]` of every row, each part starting at its
    /// first row's first column. The parts never share an element, so threads can fill them side
    /// by side. `cuts` must start at 0 and never fall, up to at most `stride` (a panic
    /// otherwise); equal cuts make an empty part.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))] // threads fill the parts
    pub(crate) fn column_parts<'c>(
        self,
        stride: usize,
        cuts: &'c [usize],
    ) -> impl ExactSizeIterator<Item = Out<'a, T>> + 'c
    where
        'a: 'c,
        T: 'c,
    {
        assert!(self.cols.is_none(), "column parts of a view of all its span");
        assert!(
            stride > 0 && cuts.first() == Some(&0) && cuts.is_sorted() && cuts.last() <= Some(&stride),
            "cuts {cuts:?} of rows of {stride}"
        );
        let rows = self.len.div_ceil(stride);
        (1..cuts.len()).map(move |k| {
            let w = [cuts[k - 1], cuts[k]];
            let (start, end) = (w[0].min(self.len), w[1]);
            // The last row may end before the part's columns do.
            let len = (rows.max(1) - 1) * stride + end;
            let len = len.min(self.len) - start;
            // SAFETY: inside the span; `self` is consumed, and the parts' columns are disjoint
            // (the cuts rise), so no place is two parts'.
            let part = unsafe { self.sub(start..start + len) };
            Out { cols: Some(Cols { stride, start: w[0], end, phase: w[0] }), ..part }
        })
    }

    /// Each element, to write once (in one row's columns).
    #[inline(always)]
    pub(crate) fn slots(self) -> impl Iterator<Item = Slot<'a, T>> {
        self.into_slice().iter_mut().map(Slot)
    }

    /// The address of element `i` (at most the length), for alignment: no element is read or
    /// borrowed.
    #[inline(always)]
    pub(crate) fn address(&self, i: usize) -> usize {
        self.start.as_ptr().wrapping_add(i) as usize
    }

    /// Asks for the cache line holding element `i` (a hint, any element of the span: no effect
    /// on results; nothing past the span).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if i < self.len {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch reads nothing a program sees and never faults; the address is
            // inside the span.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(self.start.as_ptr().wrapping_add(i).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Whether the view holds lines of `width` elements from `first` stepped by every
    /// `(step, count)` of `steps`: element `first + Σ k_j · step_j + w` for `k_j < count_j` and
    /// `w < width`, all inside the span and, for a part, inside its columns. The last element
    /// must be inside the span (the caller checks that, `Strips::band`); the columns are checked
    /// here: `first`'s column plus the furthest reach of the steps across a row must stay in
    /// the part's columns, so no line crosses out of them (a step of whole rows reaches
    /// none).
    pub(crate) fn holds_lines(&self, first: usize, steps: [(usize, usize); 3], width: usize) -> bool {
        let Some(c) = self.cols else { return true };
        let col = c.skip(first).phase;
        let reach = steps.iter().try_fold(col.checked_add(width), |at, &(step, count)| {
            Some(at?.checked_add((step % c.stride).checked_mul(count.checked_sub(1)?)?))
        });
        col >= c.start && reach.flatten().is_some_and(|end| end <= c.end)
    }

    /// The same storage as bytes.
    #[inline(always)]
    pub(crate) fn bytes(self) -> Out<'a, u8>
    where
        T: bytemuck::Pod,
    {
        let size = core::mem::size_of::<T>();
        let scale = |c: Cols| Cols {
            stride: c.stride * size,
            start: c.start * size,
            end: c.end * size,
            phase: c.phase * size,
        };
        // The same places, `len * size` bytes (alignment 1, any address). A `Pod` type has no
        // padding and every bit pattern is a value, so writing any byte keeps an initialized
        // element initialized, and an element whose every byte is written holds a value; a
        // part's columns are the same bytes.
        Out { start: self.start.cast(), len: self.len * size, cols: self.cols.map(scale), life: PhantomData }
    }

    /// The storage, for the SIMD stores of `platform::simd` (a panic where it is a part's and
    /// not in one row's columns).
    ///
    /// # Safety
    ///
    /// The caller writes only values into it (bytes of its source, or bytes its shuffles made
    /// from them), never an uninitialized `MaybeUninit`: the view may be over initialized
    /// elements ([`Out::new`]), which must stay initialized.
    #[inline(always)]
    pub(super) unsafe fn into_places(self) -> &'a mut [MaybeUninit<T>] {
        self.into_slice()
    }

    /// The first place, for the transposing strips of `platform::simd`, which write lines
    /// [`holds_lines`](Out::holds_lines) has checked.
    ///
    /// # Safety
    ///
    /// The caller writes only values (as [`Out::into_places`]), and only into places that are
    /// inside the span and this view's ([`Out::holds_lines`]).
    #[inline(always)]
    pub(super) unsafe fn into_ptr(self) -> *mut MaybeUninit<T> {
        self.start.as_ptr()
    }
}

/// [`Out::chunks`]: the front `n` elements of what is left, one view
/// at a time (skipping ahead costs nothing, as for a slice's chunks).
pub(crate) struct Chunks<'a, T> {
    rest: Out<'a, T>,
    n: usize,
}

impl<'a, T: Copy> Iterator for Chunks<'a, T> {
    type Item = Out<'a, T>;

    #[inline(always)]
    fn next(&mut self) -> Option<Out<'a, T>> {
        let n = self.n.min(self.rest.len);
        if n == 0 {
            return None;
        }
        let rest = core::mem::take(&mut self.rest);
        let (front, back) = rest.split_at(n);
        self.rest = back;
        Some(front)
    }

    #[inline(always)]
    fn nth(&mut self, k: usize) -> Option<Out<'a, T>> {
        let skip = k.saturating_mul(self.n).min(self.rest.len);
        let rest = core::mem::take(&mut self.rest);
        self.rest = rest.into_at(skip..);
        self.next()
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let k = self.rest.len.div_ceil(self.n);
        (k, Some(k))
    }
}

impl<T: Copy> ExactSizeIterator for Chunks<'_, T> {}

/// Appends `n` elements to `data`, written by `fill` straight into its spare capacity (no value
/// is written first). `data` grows only when `fill` returns `Ok`; on an error or a panic it
/// keeps its length, and the room `fill` may have partly written is never read.
///
/// **The contract** (stated here only; the fillers link to it): on `Ok`, `fill` has written
/// every element of the view it was given. A filler that cannot vouch for that checks what it
/// relies on before writing and panics otherwise, which leaves `data` as it was. The crate's
/// tests fill the room with a sentinel byte first (not under Miri, which then sees any
/// uninitialized read itself), so an element left unwritten shows as a wrong value.
pub(crate) fn extend_written<T: Copy, E>(
    data: &mut Vec<T>,
    n: usize,
    fill: impl FnOnce(Out<'_, T>) -> Result<(), E>,
) -> Result<(), E> {
    let len = data.len();
    assert!(data.capacity() - len >= n, "room for {n} elements was reserved");
    let room = &mut data.spare_capacity_mut()[..n];
    #[cfg(all(test, not(miri)))]
    sentinel::fill(room);
    fill(Out::uninit(room))?;
    // SAFETY: the capacity holds `len + n` elements (asserted), the first `len` were initialized
    // already, and `fill` returned `Ok`, so by its contract it wrote the `n` after them.
    unsafe { data.set_len(len + n) };
    Ok(())
}

/// The byte [`extend_written`] fills room with in this crate's tests: an element a conversion
/// leaves unwritten then reads as this pattern (0xA5 in every byte), never as uninitialized
/// memory.
#[cfg(all(test, not(miri)))]
pub(crate) mod sentinel {
    use core::mem::MaybeUninit;

    /// The byte every element of fresh room holds before a conversion writes it.
    pub(crate) const BYTE: u8 = 0xA5;

    pub(super) fn fill<T>(room: &mut [MaybeUninit<T>]) {
        let bytes = core::mem::size_of_val(room);
        // SAFETY: `room` is `bytes` long as bytes; writing bytes into `MaybeUninit` storage is
        // always allowed (it does not claim the elements hold values).
        unsafe { core::ptr::write_bytes(room.as_mut_ptr().cast::<u8>(), BYTE, bytes) };
    }
}

#[cfg(test)]
mod tests;
