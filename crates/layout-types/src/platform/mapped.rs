//! Files mapped into memory, so that their bytes are read where the operating system keeps them,
//! without a copy (feature `safetensors`).

use std::fs::File;
use std::path::Path;

/// A file's bytes, mapped read-only into memory ([`MappedFile::open`]).
///
/// ```no_run
/// use typed_layout::interop::safetensors::{MappedFile, Safetensors};
/// // SAFETY: nothing writes to or truncates weights.safetensors while it is mapped.
/// let file = unsafe { MappedFile::open("weights.safetensors")? };
/// let weights = Safetensors::new(file.as_bytes())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Maps the file at `path` read-only.
    ///
    /// # Safety
    ///
    /// While the mapping lives, nothing (this process or another) may write to the file or
    /// truncate it: its bytes are handed out as a `&[u8]`, which Rust assumes never changes,
    /// and reading a page a truncation removed faults. Read a file that may change with
    /// [`std::fs::read`] instead (a copy).
    pub unsafe fn open(path: impl AsRef<Path>) -> std::io::Result<MappedFile> {
        let file = File::open(path)?;
        // SAFETY: the caller's contract above: the file is neither written nor truncated while
        // mapped. The mapping itself stays valid after `file` is closed.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile { map })
    }

    /// The file's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.map
    }
}
