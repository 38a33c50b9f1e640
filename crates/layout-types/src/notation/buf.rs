//! A notation string built at compile time, without allocating.

use core::fmt;

use super::{MAX_RANK, PACKED_SUFFIX};

/// Letters, `/`, two vector widths of up to 20 digits, and `, <letters>-packed`.
const NOTATION_CAP: usize = MAX_RANK + 1 + 2 * 20 + 2 + MAX_RANK + PACKED_SUFFIX.len();
const _: () = assert!(NOTATION_CAP < 256, "a NotationBuf counts its bytes in a u8");

/// A notation string built at compile time: a fixed buffer, read with [`NotationBuf::as_str`].
///
/// ```
/// use typed_layout::{DynLayout, NcxHwx};
/// let buf = DynLayout::of::<NcxHwx<4>>().notation(); // built without allocating
/// assert_eq!(buf.as_str(), "NC/4HW4");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NotationBuf {
    bytes: [u8; NOTATION_CAP],
    // A byte: the buffer holds fewer than 256 (errors carry these, and stay small).
    len: u8,
}

impl NotationBuf {
    pub(super) const fn empty() -> Self {
        NotationBuf { bytes: [0; NOTATION_CAP], len: 0 }
    }

    pub(super) const fn push(mut self, b: u8) -> Self {
        self.bytes[self.len as usize] = b;
        self.len += 1;
        self
    }

    pub(super) const fn push_number(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            self = self.push(digits[k]);
        }
        self
    }

    /// `letters` without the letter at `index` (a family's letters with one axis indexed away).
    pub(crate) const fn letters_without(letters: &str, index: usize) -> Self {
        let bytes = letters.as_bytes();
        let mut out = NotationBuf::empty();
        let mut k = 0;
        while k < bytes.len() {
            if k != index {
                out = out.push(bytes[k]);
            }
            k += 1;
        }
        out
    }

    /// The notation as a string slice.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len as usize).0) {
            Ok(s) => s,
            // Only ASCII letters, digits and '/' are ever pushed.
            Err(_) => "",
        }
    }
}

impl fmt::Display for NotationBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for NotationBuf {
    /// The notation, quoted: `"NC/32HW32"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}
