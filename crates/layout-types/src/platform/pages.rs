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
        }
    }
}
