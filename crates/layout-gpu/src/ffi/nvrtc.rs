//! NVRTC. Safety argument: the one call here only asks whether the library can be opened, by
//! its candidate names, and calls no symbol from it; compiles go through cudarc's safe
//! `compile_ptx_with_opts`, after this says the library is there.

use std::sync::OnceLock;

/// Whether the NVRTC library can be loaded, looked up once per process (cudarc panics when it
/// first calls into a library that is absent).
pub(crate) fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names; it calls
    // no symbol from it.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}
