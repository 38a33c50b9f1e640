//! Write-only destinations: [`Out`], the storage a pass fills, written already or not yet, and
//! [`extend_written`], which fills a vector's spare capacity without writing it twice.
//!
//! A conversion into a new tensor needs no value in its destination before it runs, only room:
//! zeroing it first is a second pass over the output (a `memset` of the whole tensor, which
//! `calloc` makes wherever the allocator reuses memory rather than mapping fresh pages). The
//! kernels therefore write through [`Out`], which can view either kind of storage, and offers
//! only writes of whole values: it never reads an element, and never un-initializes one.

use core::mem::MaybeUninit;
use core::slice::SliceIndex;

/// A slice a pass writes and never reads: the elements of a tensor (initialized), or room that
/// is not written yet (a new allocation's spare capacity).
///
/// Every write stores a whole `T` (or, through [`bytes`](Out::bytes), bytes of a type whose
/// every bit pattern is a value): initialized storage stays initialized, and an element written
/// is initialized, whichever kind of storage it views.
pub(crate) struct Out<'a, T>(&'a mut [MaybeUninit<T>]);

/// An empty view.
impl<T> Default for Out<'_, T> {
    fn default() -> Self {
        Out(&mut [])
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

impl<'a, T: Copy> Out<'a, T> {
    /// A view of initialized elements.
    #[inline(always)]
    pub(crate) fn new(init: &'a mut [T]) -> Self {
        let len = init.len();
        // SAFETY: `MaybeUninit<T>` has `T`'s size and alignment, so the cast covers the same
        // bytes. The view never writes an uninitialized value (every method writes whole `T`s or
        // bytes of a plain type), so `init` is still initialized when the borrow ends and its
        // owner reads it as `T`s again; `T: Copy` has no drop, so overwriting needs none.
        Out(unsafe { core::slice::from_raw_parts_mut(init.as_mut_ptr().cast(), len) })
    }

    /// A view of room not written yet.
    #[inline(always)]
    pub(crate) fn uninit(room: &'a mut [MaybeUninit<T>]) -> Self {
        Out(room)
    }

    /// The number of elements.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// A shorter-lived view of the same elements.
    #[inline(always)]
    pub(crate) fn rb(&mut self) -> Out<'_, T> {
        Out(self.0)
    }

    /// The elements at `range` (which must be inside, as in slice indexing).
    #[inline(always)]
    pub(crate) fn at<R>(&mut self, range: R) -> Out<'_, T>
    where
        R: SliceIndex<[MaybeUninit<T>], Output = [MaybeUninit<T>]>,
    {
        Out(&mut self.0[range])
    }

    /// The elements at `range`, for the whole borrow.
    #[inline(always)]
    pub(crate) fn into_at<R>(self, range: R) -> Out<'a, T>
    where
        R: SliceIndex<[MaybeUninit<T>], Output = [MaybeUninit<T>]>,
    {
        Out(&mut self.0[range])
    }

    /// Writes `value` at `i` (which must be inside, as in slice indexing).
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, value: T) {
        self.0[i].write(value);
    }

    /// Writes `src`, which must be as long as the view.
    #[inline(always)]
    pub(crate) fn copy_from(&mut self, src: &[T]) {
        self.0.write_copy_of_slice(src);
    }

    /// The first `mid` elements and the rest.
    #[inline(always)]
    pub(crate) fn split_at(self, mid: usize) -> (Out<'a, T>, Out<'a, T>) {
        let (a, b) = self.0.split_at_mut(mid);
        (Out(a), Out(b))
    }

    /// Consecutive views of `n` elements, the last one shorter where `n` does not divide the
    /// length.
    #[inline(always)]
    pub(crate) fn chunks(self, n: usize) -> impl Iterator<Item = Out<'a, T>> {
        self.0.chunks_mut(n).map(Out)
    }

    /// Consecutive views of exactly `n` elements (a shorter rest is left out).
    #[inline(always)]
    pub(crate) fn chunks_exact(self, n: usize) -> impl Iterator<Item = Out<'a, T>> {
        self.0.chunks_exact_mut(n).map(Out)
    }

    /// [`chunks`](Out::chunks), for rayon's tasks.
    #[cfg(feature = "parallel")]
    #[inline(always)]
    pub(crate) fn par_chunks(self, n: usize) -> impl rayon::iter::IndexedParallelIterator<Item = Out<'a, T>>
    where
        T: Send,
    {
        use rayon::prelude::*;
        self.0.par_chunks_mut(n).map(Out)
    }

    /// Each element, to write once.
    #[inline(always)]
    pub(crate) fn slots(self) -> impl Iterator<Item = Slot<'a, T>> {
        self.0.iter_mut().map(Slot)
    }

    /// The elements' places, for addresses (alignment, prefetching): a `MaybeUninit` cannot be
    /// read as a value without `unsafe`, so this shows no element.
    #[inline(always)]
    pub(crate) fn places(&self) -> &[MaybeUninit<T>] {
        self.0
    }

    /// The same storage as bytes.
    #[inline(always)]
    pub(crate) fn bytes(self) -> Out<'a, u8>
    where
        T: bytemuck::Pod,
    {
        let bytes = core::mem::size_of_val(self.0);
        // SAFETY: the same memory, `bytes` long, as bytes (alignment 1, any address). A `Pod`
        // type has no padding and every bit pattern is a value, so writing any byte keeps an
        // initialized element initialized, and an element whose every byte is written holds a
        // value.
        Out(unsafe { core::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast(), bytes) })
    }

    /// The storage, for the SIMD stores of `platform::simd`.
    ///
    /// # Safety
    ///
    /// The caller writes only values into it (bytes of its source, or bytes its shuffles made
    /// from them), never an uninitialized `MaybeUninit`: the view may be over initialized
    /// elements ([`Out::new`]), which must stay initialized.
    #[inline(always)]
    pub(super) unsafe fn into_places(self) -> &'a mut [MaybeUninit<T>] {
        self.0
    }
}

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
