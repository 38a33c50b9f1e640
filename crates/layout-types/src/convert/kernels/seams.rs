//! The seams of a streamed plane whose dense destination rows are whole lines but do not start
//! on one ([`stream_seams`]): each line that holds the end of one row and the start of the next
//! is assembled by the strips from a staged copy of its source runs and streamed whole.

use super::{Staging, CACHE_LINE, PANEL_BYTES};
use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd::strips::{Band, Strips};

/// The seams of the plane `rows` × `cols` (unit inner strides) whose dense destination rows are
/// whole lines starting `head` elements before a line (`0 < head <` a line): row `q`'s seam is
/// the line holding the last `line - head` elements of row `q - 1` and the first `head` of row
/// `q`. Its elements come from `line` source runs that are not evenly spaced (the tail columns
/// one row back, then the head columns), so a chunk of seams copies them into a staging buffer
/// evenly spaced (each run an odd number of lines after the last, so they fall in different
/// cache sets) and the strips stream the seams from there, a strip's rows at a time.
///
/// Writes the seams of rows `1..=q` and returns `q` (a multiple of the strips' rows; 0 having
/// written nothing where the plane is of another kind, or the view cannot hold the seams as
/// whole lines: a column part). The caller writes the head columns of row 0 and of the rows
/// after `q`, and the tail columns of rows `q..`.
///
/// Before, such a plane went through staged panels (rows up to 1 KiB) or wrote its head and
/// tail columns with ordinary stores after the strips (longer rows).
#[allow(clippy::too_many_arguments)]
pub(super) fn stream_seams<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
    head: usize,
) -> usize {
    let line = CACHE_LINE / T::SIZE;
    let (width, src_stride, dst_stride) = (cols.extent, cols.src as usize, rows.dst as usize);
    let strip_rows = strips.rows();
    let seams = (rows.extent.saturating_sub(1)) / strip_rows * strip_rows;
    let fits = strips.streaming()
        && strips.cols() == line
        && dst_stride == width
        && (width * T::SIZE).is_multiple_of(CACHE_LINE)
        && (1..line).contains(&head)
        && seams > 0;
    let tail = line - head;
    // Staged runs an odd number of lines apart, a chunk of seams each (whole strips).
    let pitch = ((PANEL_BYTES / T::SIZE / line / line).saturating_sub(1) | 1) * line;
    let chunk = (pitch - line) / strip_rows * strip_rows;
    if !fits || chunk == 0 {
        return 0;
    }
    // Row 1's seam starts `tail` elements before row 1 (inside row 0: `tail < line <= width`).
    let first = d + dst_stride - tail;
    let steps = [(strip_rows * dst_stride, seams / strip_rows), (0, 1), (dst_stride, strip_rows)];
    if !dst.holds_lines(first, steps, line) {
        return 0;
    }
    let mut staging = Staging([0; PANEL_BYTES]);
    let buf: &mut [T] = bytemuck::cast_slice_mut(&mut staging.0[..]);
    for q0 in (1..=seams).step_by(chunk) {
        let n = chunk.min(seams + 1 - q0);
        for j in 0..line {
            // Seam `q`'s element `j`: row `q - 1`'s column `width - tail + j`, then row `q`'s
            // column `j - tail`.
            let from = match j < tail {
                true => s + (q0 - 1) + (width - tail + j) * src_stride,
                false => s + q0 + (j - tail) * src_stride,
            };
            buf[j * pitch..j * pitch + n].copy_from_slice(&src[from..from + n]);
        }
        let band = Band {
            from: 0,
            src_stride: pitch,
            src_step: strip_rows,
            to: d + q0 * dst_stride - tail,
            dst_stride,
            dst_step: strip_rows * dst_stride,
            count: n / strip_rows,
            repeat: 1,
            src_next: 0,
            dst_next: 0,
        };
        strips.band(buf, dst.rb(), band);
    }
    seams
}
