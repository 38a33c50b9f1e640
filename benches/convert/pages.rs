//! The destination's pages and start: typed-layout and the strongest copy into a buffer on huge
//! pages (the library's own allocations ask for them: `Tensor::zeros`, `to_layout`) and into
//! one held on 4 KiB pages (`MADV_NOHUGEPAGE`), as a caller's own buffer can be (a `Vec` under
//! the `madvise` setting of transparent huge pages, memory from another library), each starting
//! on a cache line; and typed-layout into the 4 KiB pages 16 bytes past a line, where a `Vec`
//! starts when glibc maps it (its chunk header takes the first 16 bytes). The races of the main
//! table write into huge pages on a line; this table says what the other two cost.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::simd::{copy_parallel, Stores};
use typed_layout::{
    convert, Bmn, ColMajor, DimsOf, Layout, Nchw, Nhwc, RowMajor, SameFamily, Tensor, TensorViewMut,
};

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

/// One row: seven contenders raced round by round, five rounds (the best of each): a copy per
/// thread with ordinary and with streaming stores into each kind of page (on a line), then
/// typed-layout into each on a line and into the 4 KiB pages 16 bytes past a line (where glibc
/// starts a large `Vec`). The line says whether the buffers held the pages
/// asked for after the race.
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
    let len = s.len();
    let dst_dims = <D::Family as SameFamily<S::Family>>::same_dims(dims);
    let line = 64 / T::SIZE;
    // The typed-layout and copy buffers of each kind, one line longer for the offsets.
    let mut bufs: [Vec<T>; 4] = [true, false, true, false].map(|huge| paged(len + 2 * line, huge));
    let start = |buf: &Vec<T>, past: usize| buf.as_ptr().align_offset(64) + past / T::SIZE;
    let threads = rayon::current_num_threads();
    let mut best = [Duration::MAX; 7];
    for _ in 0..5 {
        for (k, slot) in best.iter_mut().enumerate() {
            let stores = if k % 2 == 0 { Stores::Ordinary } else { Stores::Streaming };
            let (buf, past) = match k {
                0 | 1 => (&mut bufs[2], 0),
                2 | 3 => (&mut bufs[3], 0),
                4 => (&mut bufs[0], 0),
                5 => (&mut bufs[1], 0),
                _ => (&mut bufs[1], 16),
            };
            let at = start(buf, past);
            let dst = &mut buf[at..at + len];
            let started = Instant::now();
            match k {
                0..=3 => copy_parallel(dst, black_box(s), stores, threads).unwrap(),
                _ => {
                    convert(black_box(&src), &mut TensorViewMut::<T, D>::new(dst_dims, dst).unwrap()).unwrap()
                }
            }
            *slot = (*slot).min(started.elapsed());
        }
    }
    let held = bufs.iter().enumerate().all(|(i, buf)| {
        let kib = huge_kib_at(buf.as_ptr() as usize + buf.len() * T::SIZE / 2);
        if i % 2 == 0 {
            kib.is_some_and(|k| k > 0)
        } else {
            kib == Some(0)
        }
    });
    let gbps = |t: Duration| (2 * len * T::SIZE) as f64 / t.as_secs_f64() / 1e9;
    let (copy_huge, copy_small) = (gbps(best[0].min(best[1])), gbps(best[2].min(best[3])));
    let [on_huge, on_small, past_small] = [best[4], best[5], best[6]].map(gbps);
    out.push(format!(
        "| {row} | {copy_huge:.1} | {copy_small:.1} | {on_huge:.1} | {on_small:.1} | {past_small:.1} | {:.2} | {:.2} | {:.2} | {} |",
        on_huge / copy_huge,
        on_small / on_huge,
        past_small / on_small,
        if held { "yes" } else { "no" }
    ));
    eprintln!("{row} pages: done");
}

/// `len` zero elements in a buffer asked, before its first write, to be backed by huge pages or
/// to stay on 4 KiB pages (Linux; elsewhere as the allocator gives).
fn paged<T: Sample>(len: usize, huge: bool) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        let start = v.as_mut_ptr() as usize;
        let (first, end) = (start.next_multiple_of(4096), (start + len * T::SIZE) / 4096 * 4096);
        let advice = if huge { libc::MADV_HUGEPAGE } else { libc::MADV_NOHUGEPAGE };
        if end > first {
            // SAFETY: [first, end) lies inside `v`'s allocation, which nothing else references;
            // the advice changes how its pages are backed, not their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, advice) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = huge;
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
