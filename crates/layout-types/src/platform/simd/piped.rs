//! Piped tiles: a streamed large matrix into columns, a tile at a time through the L1 cache with
//! the tile before streaming out meanwhile (the safe face of `x86/piped.rs`, for the conversion
//! kernels).

use super::Level;
use crate::dtype::Element;
use crate::platform::out::Out;

/// Bytes of each destination row that a piped tile holds: four lines, streamed back to back.
/// In a scratch probe of the same loop (2048 × 4096 f16 matrices at 256 MiB, two threads, on an
/// AMD EPYC, Zen 3), 128 and 512 bytes a tile lost for halves (27.9–28.3 and 26.6–28.4 GB/s
/// against 34.4–34.6 in the same runs); for bytes and f32 they were even (`BENCHMARKS.md`,
/// step 52).
pub(crate) const TILE_ROW_BYTES: usize = 256;

/// For 4-byte elements, the bytes of destination rows that one column of tiles goes down before
/// the next column starts (the tiles go band by band; a band is rounded up to whole tiles, at
/// least one tile's rows, so rows more than 256 KiB apart take bands of one tile). Into a
/// destination of 4 KiB pages, a column down all of a 2048 × 2048 f32 matrix's rows (8 KiB
/// apart, 16 MiB) walks past the TLB's reach. On an AMD EPYC (Zen 3), in the bench's race of five
/// rounds each way, bands of 4 MiB took that row into 4 KiB pages from 17.2–27.5 to 25.1–32.4
/// GB/s on two threads, and cost 7 % into huge pages (one thread 21.5–22.5 → 18.9–20.8). Bands of
/// 8 MiB gained nothing. Bytes and halves go down whole columns: bands lost for bytes (8192 ×
/// 4096 into 4 KiB pages, one thread 11.9 → 9.3–9.8) and cost halves 5–10 % into huge pages
/// (`BENCHMARKS.md`, step 53).
const BAND_BYTES_4: usize = 4 << 20;

/// The destination rows that one column of piped tiles of `size`-byte elements goes down before
/// the next (see [`BAND_BYTES_4`]), for rows `row_bytes` apart and `rows` of them: at least 1 and
/// at most `rows`, before the loop rounds it up to whole tiles.
pub(crate) fn piped_band(size: usize, row_bytes: usize, rows: usize) -> usize {
    match size {
        4 => (BAND_BYTES_4 / row_bytes.max(1)).clamp(1, rows.max(1)),
        _ => rows,
    }
}

/// Bytes of a cache line: a tile holds one of each source run.
const LINE: usize = 64;

/// A piped tile of `size`-byte elements: (destination rows, source runs).
pub(crate) fn piped_tile(size: usize) -> (usize, usize) {
    (LINE / size.max(1), TILE_ROW_BYTES / size.max(1))
}

/// Whether `level` has piped tiles for `size`-byte elements (AVX2's, of 1, 2 and 4 bytes), and
/// this CPU has `level`.
pub(crate) fn has_piped_tiles(level: Level, size: usize) -> bool {
    cfg!(target_arch = "x86_64") && level == Level::Avx2 && matches!(size, 1 | 2 | 4) && level.available()
}

/// The plane of `rows` destination rows by `cols` source runs (unit inner strides, in elements):
/// source run `c` at `from + c * src_stride` in `src`, `rows` long; destination row `r` at
/// `to + r * dst_stride` in `dst`, `cols` long, streamed; then a store fence. Returns `false`,
/// having written nothing, unless [`has_piped_tiles`], `rows` and `cols` are whole tiles
/// ([`piped_tile`]), every destination row starts on a cache line, and both sides lie inside
/// their buffers (and, in a column part of a destination, inside its columns).
#[allow(clippy::too_many_arguments)] // each side's buffer, start and stride
pub(crate) fn piped_tiles<T: Element>(
    level: Level,
    src: &[T],
    (from, src_stride): (usize, usize),
    dst: Out<'_, T>,
    (to, dst_stride): (usize, usize),
    [rows, cols]: [usize; 2],
) -> bool {
    let size = T::SIZE;
    let (tile_rows, tile_runs) = piped_tile(size);
    let whole = rows > 0 && cols > 0 && rows.is_multiple_of(tile_rows) && cols.is_multiple_of(tile_runs);
    let end = |start: usize, stride: usize, lines: usize, run: usize| {
        start.checked_add(stride.checked_mul(lines - 1)?)?.checked_add(run)
    };
    let inside = whole
        && end(from, src_stride, cols, rows).is_some_and(|e| e <= src.len())
        && end(to, dst_stride, rows, cols).is_some_and(|e| e <= dst.len())
        && dst.holds_lines(to, [(dst_stride, rows), (0, 1), (0, 1)], cols)
        && src_stride.checked_mul(size).is_some()
        && dst_stride.checked_mul(size).is_some();
    // Checked inside the buffers first, so the stride's bytes cannot overflow here.
    let on_lines = inside && dst.address(to).is_multiple_of(LINE) && (dst_stride * size).is_multiple_of(LINE);
    if !has_piped_tiles(level, size) || !inside || !on_lines {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let src: &[u8] = bytemuck::cast_slice(&src[from..]);
        // SAFETY: the tiles store bytes of `src`'s elements, transposed, into `dst`, only in the
        // rows checked above.
        let dst = unsafe { dst.into_ptr() }.cast::<u8>().wrapping_add(to * size);
        // SAFETY: AVX2 is on this CPU (`has_piped_tiles`); the checks above are the contract.
        unsafe {
            super::x86::piped_tiles(
                size,
                src.as_ptr(),
                src_stride * size,
                dst,
                dst_stride * size,
                [rows, cols],
                piped_band(size, dst_stride * size, rows),
            )
        };
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole tiles (several each way, so each tile streams while the next is transposed) are
    /// written like the definition and nothing else; every plane the contract excludes is
    /// refused with nothing written.
    #[test]
    fn piped_tiles_transpose_whole_tiles_and_refuse_the_rest() {
        if !has_piped_tiles(Level::Avx2, 1) {
            println!("SKIPPED: piped tiles are AVX2's; this CPU's highest level is {:?}", Level::detected());
            return;
        }
        check::<u8>();
        check::<half::f16>();
        check::<f32>();
        assert!(!has_piped_tiles(Level::Avx2, 8) && !has_piped_tiles(Level::Sse2, 4));
    }

    /// Four-byte tiles go down bands of 4 MiB of destination rows: a plane whose rows are 1 MiB
    /// apart goes down three bands of one tile's rows (the band of four rows rounded up), two
    /// columns of tiles each, and is written like the definition.
    #[test]
    fn four_byte_tiles_go_band_by_band() {
        assert_eq!(piped_band(4, 8 << 10, 2048), 512);
        assert_eq!(piped_band(4, 8 << 10, 256), 256);
        assert_eq!(piped_band(4, 16 << 20, 64), 1);
        assert_eq!(piped_band(2, 8 << 10, 2048), 2048);
        assert_eq!(piped_band(1, 4 << 10, 4096), 4096);
        if !has_piped_tiles(Level::Avx2, 4) {
            println!("SKIPPED: piped tiles are AVX2's; this CPU's highest level is {:?}", Level::detected());
            return;
        }
        let (tile_rows, tile_runs) = piped_tile(4);
        let (rows, cols) = (3 * tile_rows, 2 * tile_runs);
        let (src_stride, dst_stride) = (rows + 3, (1 << 20) / 4);
        assert_eq!(piped_band(4, dst_stride * 4, rows), 4);
        let src: Vec<f32> = (0..cols * src_stride).map(|i| i as f32 + 1.0).collect();
        // Zeros (pages the OS fills lazily); only the plane's rows and their ends, and a tile's
        // rows below the plane (where a band not rounded to whole tiles would write), are read
        // back.
        let mut dst = vec![0.0f32; (rows + tile_rows) * dst_stride + LINE];
        let to = dst.as_ptr().align_offset(LINE);
        let ran = piped_tiles(
            Level::Avx2,
            &src,
            (0, src_stride),
            Out::new(&mut dst),
            (to, dst_stride),
            [rows, cols],
        );
        assert!(ran);
        for r in 0..rows {
            let row = &dst[to + r * dst_stride..][..cols + 1];
            for (c, v) in row[..cols].iter().enumerate() {
                assert_eq!(*v, src[c * src_stride + r], "at ({r}, {c})");
            }
            assert_eq!(row[cols], 0.0, "past row {r}");
        }
        for r in rows..rows + tile_rows {
            let row = &dst[to + r * dst_stride..][..cols];
            assert!(row.iter().all(|v| *v == 0.0), "row {r}, below the plane, written");
        }
    }

    /// Why a plane is refused, and its level, destination start and stride, shape and source.
    type Refused<'a, T> = (&'a str, Level, (usize, usize), [usize; 2], &'a [T]);

    fn check<T: Element>() {
        let (tile_rows, tile_runs) = piped_tile(T::SIZE);
        let line = LINE / T::SIZE;
        let (rows, cols) = (3 * tile_rows, 2 * tile_runs);
        let (src_stride, dst_stride) = (rows + 5, cols + line);
        let src: Vec<T> = (0..cols * src_stride + 8)
            .map(|i| T::from_word((i as u64).wrapping_mul(0x9e37_79b9) >> 3))
            .collect();
        let fill = T::from_word(u64::MAX);
        // Room for rows one element further apart too, so that such a plane is inside the buffer
        // and only its rows' alignment refuses it.
        let mut dst = vec![fill; rows * (dst_stride + 1) + 2 * line];
        let on_line = (dst.as_ptr() as usize).next_multiple_of(LINE) - dst.as_ptr() as usize;
        let to = on_line / T::SIZE; // a whole number of elements: the buffer starts on an element
        let from = 2;
        let go = |dst: &mut [T], level, (to, dst_stride), [rows, cols]: [usize; 2], src: &[T]| {
            piped_tiles(level, src, (from, src_stride), Out::new(dst), (to, dst_stride), [rows, cols])
        };
        assert!(go(&mut dst, Level::Avx2, (to, dst_stride), [rows, cols], &src), "size {}", T::SIZE);
        for (i, v) in dst.iter().enumerate() {
            let (r, c) = (i.wrapping_sub(to) / dst_stride, i.wrapping_sub(to) % dst_stride);
            let inside = i >= to && r < rows && c < cols;
            let expected = if inside { src[from + c * src_stride + r] } else { fill };
            assert_eq!(v.to_word(), expected.to_word(), "size {} at {i} ({r}, {c})", T::SIZE);
        }
        // One element short of the last run's end.
        let short = &src[..from + (cols - 1) * src_stride + rows - 1];
        let refused: [Refused<'_, T>; 7] = [
            ("ragged rows", Level::Avx2, (to, dst_stride), [rows - 1, cols], &src),
            ("ragged columns", Level::Avx2, (to, dst_stride), [rows, cols - 1], &src),
            ("no plane", Level::Avx2, (to, dst_stride), [0, cols], &src),
            ("off a line", Level::Avx2, (to + 1, dst_stride), [rows, cols], &src),
            ("rows not lines apart", Level::Avx2, (to, dst_stride + 1), [rows, cols], &src),
            ("the source too short", Level::Avx2, (to, dst_stride), [rows, cols], short),
            ("another level", Level::Sse2, (to, dst_stride), [rows, cols], &src),
        ];
        for (why, level, at, plane, src) in refused {
            dst.iter_mut().for_each(|v| *v = fill);
            assert!(!go(&mut dst, level, at, plane, src), "{why}, size {}", T::SIZE);
            assert!(dst.iter().all(|v| v.to_word() == fill.to_word()), "{why}: written, size {}", T::SIZE);
        }
        // The destination too short: its last row would end past the buffer.
        dst.iter_mut().for_each(|v| *v = fill);
        let room = to + (rows - 1) * dst_stride + cols - 1;
        assert!(!go(&mut dst[..room], Level::Avx2, (to, dst_stride), [rows, cols], &src));
        assert!(dst.iter().all(|v| v.to_word() == fill.to_word()), "too short: written, size {}", T::SIZE);
        // In the first of two column parts (its columns `0..cols`, rows `2 * cols` apart), a
        // plane one line over (and a tile's rows short of the last) stays inside the part's span
        // but reaches the other part's columns.
        let (stride, cuts) = (2 * cols, [0, cols, 2 * cols]);
        let mut room = vec![fill; rows * stride + line];
        let at = room.as_ptr().align_offset(LINE); // the grid starts on a line
        let grid = &mut room[at..at + rows * stride];
        let first = Out::new(grid).column_parts(stride, &cuts).next().expect("two parts");
        let short = [rows - tile_rows, cols];
        let over = piped_tiles(Level::Avx2, &src, (from, src_stride), first, (line, stride), short);
        assert!(!over, "out of its part's columns, size {}", T::SIZE);
        assert!(room.iter().all(|v| v.to_word() == fill.to_word()), "out of its part: written");
        let grid = &mut room[at..at + rows * stride];
        let first = Out::new(grid).column_parts(stride, &cuts).next().expect("two parts");
        let ran = piped_tiles(Level::Avx2, &src, (from, src_stride), first, (0, stride), [rows, cols]);
        assert!(ran, "in its part, size {}", T::SIZE);
        for (i, v) in room.iter().enumerate() {
            let (r, c) = (i.wrapping_sub(at) / stride, i.wrapping_sub(at) % stride);
            let ours = i >= at && r < rows && c < cols;
            let expected = if ours { src[from + c * src_stride + r] } else { fill };
            assert_eq!(v.to_word(), expected.to_word(), "in its part, size {} at {i}", T::SIZE);
        }
    }
}
