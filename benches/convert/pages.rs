//! The destination's pages: typed-layout and the strongest copy into a buffer on huge pages
//! (the library's own allocations ask for them: `Tensor::zeros`, `to_layout`) and into one
//! held on 4 KiB pages (`MADV_NOHUGEPAGE`), as a caller's own buffer can be (a `Vec` under the
//! `madvise` setting of transparent huge pages, memory from another library). The races of the
//! main table write into huge pages; this table says what a 4 KiB-page destination costs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::simd::{copy_parallel, Stores};
use typed_layout::{convert, Bmn, ColMajor, DimsOf, Layout, Nchw, Nhwc, RowMajor, SameFamily, Tensor};

use super::{plane, Bench, Sample};

/// The rows whose destinations are written across many pages at once (NHWC→NCHW's planes, a
/// matrix's columns) and one written in address order (NCHW→NHWC), f32 and u8, at 16 and
/// 256 MiB.
pub(crate) fn page_rows<T: Sample>(b: &Bench, out: &mut Vec<String>) {
    for (size, mib, n) in [("16MiB", 16, 4), ("256MiB", 256, 16)] {
        let elements = (mib << 20) / T::SIZE;
        let (h, w) = plane(elements / (n * 64));
        page_row::<T, Nchw, Nhwc>(b, "NCHW->NHWC", size, [n, 64, h, w], out);
        page_row::<T, Nhwc, Nchw>(b, "NHWC->NCHW", size, [n, 64, h, w], out);
        let (m, k) = plane(elements / n);
        page_row::<T, Bmn<RowMajor>, Bmn<ColMajor>>(b, "BMN row->col", size, [n, m, k], out);
    }
}

/// One row: six contenders raced round by round, five rounds (the best of each): a copy per
/// thread with ordinary and with streaming stores into each kind of page, typed-layout into
/// each. The line says whether the 4 KiB buffer held no huge page after the race.
fn page_row<T: Sample, S: Layout, D: Layout>(
    b: &Bench,
    what: &str,
    size: &str,
    dims: DimsOf<S>,
    out: &mut Vec<String>,
) where
    D::Family: SameFamily<S::Family>,
{
    let row = format!("{}/{size}/{what}", T::NAME);
    if b.skips(&format!("{row} pages")) {
        return;
    }
    let src =
        Tensor::<T, S>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k))).unwrap();
    let s = src.as_slice();
    let dst_dims = <D::Family as SameFamily<S::Family>>::same_dims(dims);
    let mut huge = Tensor::<T, D>::zeros(dst_dims).unwrap();
    let mut small = Tensor::<T, D>::from_vec(dst_dims, small_pages(s.len())).unwrap();
    let mut copy_huge = Tensor::<T, D>::zeros(dst_dims).unwrap();
    let mut copy_small = small_pages(s.len());
    let threads = rayon::current_num_threads();
    let mut best = [Duration::MAX; 6];
    for _ in 0..5 {
        for (k, slot) in best.iter_mut().enumerate() {
            let stores = if k % 2 == 0 { Stores::Ordinary } else { Stores::Streaming };
            let start = Instant::now();
            match k {
                0 | 1 => copy_parallel(copy_huge.as_mut_slice(), black_box(s), stores, threads).unwrap(),
                2 | 3 => copy_parallel(&mut copy_small, black_box(s), stores, threads).unwrap(),
                4 => convert(black_box(&src), &mut huge).unwrap(),
                _ => convert(black_box(&src), &mut small).unwrap(),
            }
            *slot = (*slot).min(start.elapsed());
        }
    }
    let held = [small.as_slice().as_ptr() as usize, copy_small.as_ptr() as usize]
        .iter()
        .all(|&at| huge_kib_at(at) == Some(0));
    let gbps = |t: Duration| (2 * s.len() * T::SIZE) as f64 / t.as_secs_f64() / 1e9;
    let (copy_huge, copy_small) = (gbps(best[0].min(best[1])), gbps(best[2].min(best[3])));
    let (typed_huge, typed_small) = (gbps(best[4]), gbps(best[5]));
    out.push(format!(
        "| {row} | {copy_huge:.1} | {copy_small:.1} | {typed_huge:.1} | {typed_small:.1} | {:.2} | {:.2} | {:.2} | {} |",
        typed_huge / copy_huge,
        typed_small / copy_small,
        typed_small / typed_huge,
        if held { "yes" } else { "no" }
    ));
    eprintln!("{row} pages: done");
}

/// `len` zero elements in a buffer asked to stay on 4 KiB pages before its first write (Linux;
/// elsewhere as the allocator gives).
fn small_pages<T: Sample>(len: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        let start = v.as_mut_ptr() as usize;
        let (first, end) = (start.next_multiple_of(4096), (start + len * T::SIZE) / 4096 * 4096);
        if end > first {
            // SAFETY: [first, end) lies inside `v`'s allocation, which nothing else references;
            // MADV_NOHUGEPAGE changes how its pages are backed, not their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_NOHUGEPAGE) };
        }
    }
    v.resize(len, T::default());
    v
}

/// `AnonHugePages` (KiB) of the mapping that holds `address`, from `/proc/self/smaps` (Linux;
/// `None` elsewhere or when it cannot be read).
fn huge_kib_at(address: usize) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
        if let Some((a, b)) = range
            .and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?)))
        {
            inside = (a..b).contains(&address);
        } else if inside && line.starts_with("AnonHugePages:") {
            return line.split_whitespace().nth(1)?.parse().ok();
        }
    }
    None
}
