//! What safe Rust cannot say about the machine, in the one room of `layout-types` that holds
//! `unsafe` (the crate denies it everywhere else): the CPU's SIMD level and its streaming stores
//! ([`simd`], public as `typed_layout::simd`), storage written before it is read (`out`), the
//! operating system's huge pages for large fresh buffers (`pages`), and files mapped into memory
//! (`mapped`).
//!
//! The safety argument, once. SIMD: every intrinsic runs inside a function compiled for its feature
//! (`#[target_feature]`), called only after [`simd::Level::available`] (or, for F16C's conversions
//! to f16, VBMI's byte permutes and FP16's conversions, their own detection) has seen the feature
//! on this CPU; every access goes through a slice whose bounds Rust checked (chunks of exactly one
//! vector); the destination's vectors start at the alignment a streaming store needs (the head
//! before it is copied with ordinary stores), and a store fence (`sfence`) ends every streaming
//! copy, so the bytes are visible to every thread when the call returns. Transpose strips
//! (`simd::strips`) reach raw pointers only after `Strips::band` has checked, with overflow-checked
//! arithmetic, that the last strip of the band lies inside the source slice and the destination's
//! span (and, in a column part of a destination, that every line stays in its columns), and stream
//! a row only when it starts on a cache line; piped tiles (`simd::piped`) only after
//! `piped::piped_tiles` has checked the same for the whole plane, every row on a line; a band, a
//! staged panel or tile pass, a piped plane and a fused pass each end with a fence. Write-only
//! storage (`out`): `Out` views a tensor's elements or a new allocation's unwritten room as
//! `MaybeUninit`, and offers only writes of whole values (or bytes of plain-old-data element
//! types), so initialized storage stays initialized (the SIMD stores
//! reach its slots through `into_places` and `into_ptr`, `unsafe fn`s whose callers store only
//! values). A view is all of its span or a column part of it (`Out::column_parts`: disjoint columns
//! of every row of a view it consumes, for threads filling a plane side by side); every write is
//! checked inside the span and the part's columns before it lands, the strips' lines by
//! `Out::holds_lines` before their pointer is used; `extend_written` counts the room in only once
//! its filler has written all of it (its contract, stated there). Pages: `madvise` is given a range
//! inside a live allocation the caller holds mutably (rounded inward to whole pages) and only
//! advice that never changes its contents (`MADV_HUGEPAGE`, and `MADV_POPULATE_WRITE`, which faults
//! pages in as a write would without changing a byte); its result is ignored (advice the kernel
//! refuses changes nothing). Mapped files (`mapped`, feature `safetensors`): mapping a file is safe
//! only while nothing writes to or truncates it, which no check can see, so `MappedFile::open` is
//! an `unsafe fn` that states that contract and hands it to its caller. DLPack (`dlpack`, feature
//! `dlpack`): an exported tensor's data pointer is into the storage its context owns until the
//! deleter runs; a foreign tensor's pointer is read only through `DlpackRef::new`, an `unsafe fn`
//! whose caller vouches for the memory, after every field DLPack describes it with is checked.

#[cfg(feature = "dlpack")]
pub(crate) mod dlpack;
#[cfg(feature = "safetensors")]
pub(crate) mod mapped;
pub(crate) mod out;
pub(crate) mod pages;
pub mod simd;
