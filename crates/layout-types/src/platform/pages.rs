//! Transparent huge pages for large fresh buffers: one fault per 2 MiB instead of per 4 KiB
//! when a conversion first writes a new tensor (Linux; elsewhere nothing).

/// Buffers at least this large are advised (smaller ones gain little and may share pages).
pub(crate) const HUGE_THRESHOLD_BYTES: usize = 8 << 20;

/// Asks the OS to back `data` (not yet touched, for the advice to help) with huge pages where
/// it offers them. Changes no byte; a refusal is ignored.
pub(crate) fn advise_huge<T>(data: &mut [T]) {
    let bytes = core::mem::size_of_val(data);
    if bytes < HUGE_THRESHOLD_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = data.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = (start + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: [first, end) lies inside `data` (rounded inward to whole pages), which the
            // caller holds mutably, so no other reference sees it change; MADV_HUGEPAGE changes
            // how pages are backed, never their contents; the result is advice and is ignored.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
            populate(first, end);
        }
    }
}

/// Faults in the pages of `[first, end)` (page-aligned, inside a buffer the caller holds
/// mutably) with `MADV_POPULATE_WRITE`, cut into one range per thread: the kernel zeroes fresh
/// pages on every core at once, without a trap per page, before the pass that writes them.
#[cfg(target_os = "linux")]
fn populate(first: usize, end: usize) {
    const HUGE: usize = 2 << 20;
    let threads = {
        #[cfg(feature = "parallel")]
        {
            rayon::current_num_threads()
        }
        #[cfg(not(feature = "parallel"))]
        {
            1
        }
    };
    let part = (end - first).div_ceil(threads).next_multiple_of(HUGE);
    let advise = |from: usize| {
        let to = (from + part).min(end);
        // SAFETY: [from, to) is a page-aligned part of [first, end), inside the caller's buffer;
        // MADV_POPULATE_WRITE faults pages in as a write would, without changing a byte (fresh
        // anonymous pages are zero, written ones keep their contents); the result is ignored.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_POPULATE_WRITE);
        }
    };
    #[cfg(feature = "parallel")]
    {
        crate::tasks::for_each((first..end).step_by(part), advise);
    }
    #[cfg(not(feature = "parallel"))]
    (first..end).step_by(part).for_each(advise);
}
