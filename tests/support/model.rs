//! A model of the guide's layouts written here from its definitions (not from the library's
//! derivation), and layouts of every rank declared with `layout!`: what the property tests
//! compare the library against.

use typed_layout::{layout, DimArray, Family, Layout};

use super::mix;

layout! {
    /// Clips: a time axis between batch and channels.
    pub family Clip = "NTCDHW";
    /// Grouped clips.
    pub family GClip = "GNTCDHW";
    /// Grouped clips with a sample axis.
    pub family GsClip = "GNTCDHWS";

    pub struct Mbn = "MBN";
    pub struct BmnNPacked = "BMN, N-packed";
    pub struct C4nhw4 = "C/4NHW4";
    pub struct Hwnc = "HWNC";
    pub struct NhwcRows = "NHWC, WC-packed";
    pub struct Nc8dhw8 = "NC/8DHW8";
    pub struct Dhwnc = "DHWNC";

    pub struct ClipNcdhw: Clip = "NTCDHW";
    pub struct ClipNdhwc: Clip = "NTDHWC";
    pub struct ClipVec4: Clip = "NTC/4DHW4";
    pub struct ClipCFirst: Clip = "CDHWNT, NT-packed";

    pub struct GClipPlain: GClip = "GNTCDHW";
    pub struct GClipReversed: GClip = "WHDCTNG";
    pub struct GClipVec8: GClip = "GNTC/8DHW8";
    pub struct GClipLast: GClip = "GNTDHWC";

    pub struct GsPlain: GsClip = "GNTCDHWS";
    pub struct GsReversed: GsClip = "SWHDCTNG";
    pub struct GsVec2: GsClip = "GNTC/2DHWS2";
    pub struct GsLast: GsClip = "GNTDHWSC";
}

/// The family letters of each rank, 3 to 8.
pub(crate) const FAMILIES: [&str; 6] = ["BMN", "NCHW", "NCDHW", "NTCDHW", "GNTCDHW", "GNTCDHWS"];

/// A layout as written by hand: the order of the letters (decreasing stride), C's vector width,
/// and which positions of the order are in the `-packed` suffix.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub(crate) letters: &'static str,
    pub(crate) order: Vec<usize>,
    pub(crate) vector: Option<usize>,
    pub(crate) packed: Vec<bool>,
}

impl Spec {
    pub(crate) fn of<L: Layout>() -> Spec {
        let letters = L::LETTERS;
        let order = L::FORMAT.order().to_vec();
        let packed = order.iter().map(|&d| L::FORMAT.packed()[d]).collect();
        Spec { letters, order, vector: L::FORMAT.vector().map(|v| v.width), packed }
    }

    pub(crate) fn rank(&self) -> usize {
        self.order.len()
    }

    pub(crate) fn c(&self) -> Option<usize> {
        self.letters.find('C')
    }

    pub(crate) fn letter(&self, d: usize) -> char {
        self.letters.as_bytes()[d] as char
    }

    /// cuDNN notation: `NC/4HW4`, `NHWC, WC-packed`; no suffix when every letter is packed.
    pub(crate) fn notation(&self) -> String {
        let mut s = String::new();
        for &d in &self.order {
            s.push(self.letter(d));
            if let (Some(w), true) = (self.vector, Some(d) == self.c()) {
                s += &format!("/{w}");
            }
        }
        if let Some(w) = self.vector {
            s += &w.to_string();
        }
        if self.packed.iter().any(|&p| !p) {
            s += &format!(", {}-packed", self.suffix());
        }
        s
    }

    pub(crate) fn suffix(&self) -> String {
        self.order.iter().zip(&self.packed).filter(|(_, &p)| p).map(|(&d, _)| self.letter(d)).collect()
    }

    pub(crate) fn format_letters(&self) -> String {
        self.order.iter().map(|&d| self.letter(d)).collect()
    }

    /// The model: mixed radix over the letters in order, C split into (group, lane).
    pub(crate) fn offset(&self, dims: &[usize], index: &[usize]) -> usize {
        let mut offset = 0;
        for &d in &self.order {
            let (extent, coordinate) = match self.vector {
                Some(w) if Some(d) == self.c() => (dims[d] / w, index[d] / w),
                _ => (dims[d], index[d]),
            };
            offset = offset * extent + coordinate;
        }
        if let (Some(w), Some(c)) = (self.vector, self.c()) {
            offset = offset * w + index[c] % w;
        }
        offset
    }

    /// The model's logical strides (for a vectorized C, the stride between groups).
    pub(crate) fn strides(&self, dims: &[usize]) -> Vec<usize> {
        (0..self.rank())
            .map(|d| {
                let mut unit = vec![0; self.rank()];
                unit[d] = if Some(d) == self.c() { self.vector.unwrap_or(1) } else { 1 };
                self.offset(dims, &unit)
            })
            .collect()
    }

    /// Partially packed strides: the packed rule, plus `pad[k]` on letters outside the suffix.
    pub(crate) fn padded_strides(&self, dims: &[usize], pad: &[usize]) -> Vec<usize> {
        assert!(self.vector.is_none());
        let mut strides = vec![0; self.rank()];
        let mut next = 1;
        for (k, &d) in self.order.iter().enumerate().rev() {
            strides[d] = next + if self.packed[k] { 0 } else { pad[k] };
            next = strides[d] * dims[d];
        }
        strides
    }
}

/// Every logical index of `dims`, last dimension fastest.
pub(crate) fn indices(dims: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let count: usize = dims.iter().product();
    (0..count).map(move |mut k| {
        let mut index = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            index[d] = k % dims[d];
            k /= dims[d];
        }
        index
    })
}

/// A value that names its logical index (distinct for the small dims used here: digits of a base
/// above every dim).
pub(crate) fn value_of(index: &[usize]) -> i64 {
    index.iter().fold(0i64, |v, &i| v * 67 + i as i64 + 1)
}

/// Dims for layout `L` from a seed: small enough to enumerate, C a multiple of the vector width.
pub(crate) fn dims_for<L: Layout>(seed: u64) -> Vec<usize> {
    let rank = L::LETTERS.len();
    let max = [12u64, 8, 5, 4, 3, 3][rank - 3];
    let mut dims: Vec<usize> = (0..rank).map(|d| 1 + (mix(seed, d) % max) as usize).collect();
    if let Some(v) = L::FORMAT.vector() {
        dims[v.dim] = if v.width >= 8 { dims[v.dim].min(2) * v.width } else { dims[v.dim] * v.width };
    }
    dims
}

/// `v` as layout `L`'s dims array (its length must be the rank).
pub(crate) fn arr<L: Layout>(v: &[usize]) -> <L::Family as Family>::Dims {
    <<L::Family as Family>::Dims>::try_from_slice(v).unwrap()
}
