//! NVRTC. Safety argument, in three parts:
//!
//! * [`present`] only asks whether the library can be opened, by its candidate names, and calls
//!   no symbol from it; the `kernels` room asks it before any other call here (cudarc panics
//!   when it first calls into a library that is absent).
//! * [`version`] passes `nvrtcVersion` two live out-parameters.
//! * [`Program`] owns one `nvrtcProgram` from creation to `Drop`, together with the C strings it
//!   was created from (NVRTC may keep pointers to them). Every call on it passes that live
//!   handle; the output getters first ask NVRTC for the size, then hand it a buffer of exactly
//!   that many bytes. cudarc's safe layer compiles to PTX only and keeps its program type
//!   private, so the CUBIN getters (`nvrtcGetCUBINSize`, `nvrtcGetCUBIN`) need this wrapper;
//!   it calls cudarc's `result` layer wherever that has the call.

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use cudarc::nvrtc::result::{self, NvrtcError};
use cudarc::nvrtc::sys;

/// Whether the NVRTC library can be loaded, looked up once per process.
pub(crate) fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names; it calls
    // no symbol from it.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// The loaded NVRTC's version, `(major, minor)`. Call only when [`present`].
pub(crate) fn version() -> Result<(i32, i32), NvrtcError> {
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: two live, writable `c_int`s; `nvrtcVersion` writes them and keeps no pointer.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result()?;
    Ok((major, minor))
}

/// One NVRTC program: created from a source, compiled once, then read (log, PTX, CUBIN).
pub(crate) struct Program {
    /// Live from `new` until `drop`.
    prog: sys::nvrtcProgram,
    // NVRTC may refer to these until the program is destroyed.
    _source: CString,
    _name: CString,
}

impl Program {
    /// A program of `source` named `name`. Call only when [`present`].
    pub(crate) fn new(source: CString, name: CString) -> Result<Program, NvrtcError> {
        let prog = result::create_program(&source, Some(&name))?;
        Ok(Program { prog, _source: source, _name: name })
    }

    /// Compiles the program with NVRTC's command-line `options`.
    pub(crate) fn compile(&self, options: &[String]) -> Result<(), NvrtcError> {
        // SAFETY: `self.prog` is live (the type's invariant).
        unsafe { result::compile_program(self.prog, options) }
    }

    /// NVRTC's log of the compile (warnings and errors), lossily as UTF-8.
    pub(crate) fn log(&self) -> String {
        // SAFETY: `self.prog` is live; cudarc sizes the buffer from `nvrtcGetProgramLogSize`.
        match unsafe { result::get_program_log(self.prog) } {
            Ok(log) => text(&log),
            Err(e) => format!("(no log: {e:?})"),
        }
    }

    /// The compiled PTX.
    pub(crate) fn ptx(&self) -> Result<String, NvrtcError> {
        // SAFETY: `self.prog` is live; cudarc sizes the buffer from `nvrtcGetPTXSize`.
        Ok(text(&unsafe { result::get_ptx(self.prog) }?))
    }

    /// The compiled CUBIN (an ELF image); empty when the program was compiled for a virtual
    /// architecture (`compute_90`), which yields PTX only.
    pub(crate) fn cubin(&self) -> Result<Vec<u8>, NvrtcError> {
        let mut size = 0usize;
        // SAFETY: `self.prog` is live; `size` is a live, writable `usize`.
        unsafe { sys::nvrtcGetCUBINSize(self.prog, &mut size) }.result()?;
        if size == 0 {
            return Ok(Vec::new());
        }
        let mut image = vec![0u8; size];
        // SAFETY: `self.prog` is live; `image` has exactly the `size` bytes NVRTC just reported,
        // which `nvrtcGetCUBIN` fills.
        unsafe { sys::nvrtcGetCUBIN(self.prog, image.as_mut_ptr().cast::<c_char>()) }.result()?;
        Ok(image)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.prog` is live and destroyed once, here; nothing uses it afterwards.
        // A failure to free leaks the program, which is all that can be done in `drop`.
        let _ = unsafe { result::destroy_program(self.prog) };
    }
}

/// A NUL-terminated C buffer as text, lossily as UTF-8.
fn text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().map(|&c| c as u8).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
