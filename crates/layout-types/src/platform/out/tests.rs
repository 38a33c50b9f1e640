//! Column parts, their checks, and chunks of views.

use super::Out;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A grid of rows 12 long whose last row ends at column 10, cut at columns 4 and 10.
const STRIDE: usize = 12;
const LEN: usize = 4 * STRIDE + 10;
const CUTS: [usize; 4] = [0, 4, 10, 12];

/// Each part writes its columns of every row, down to the short last row, and no other
/// element; parts can be written from other threads.
#[test]
fn column_parts_write_their_own_columns_of_every_row() {
    let mut buf = [0u8; LEN + 4];
    let parts: Vec<_> = Out::new(&mut buf[..LEN]).column_parts(STRIDE, &CUTS).collect();
    std::thread::scope(|scope| {
        for (k, mut part) in parts.into_iter().enumerate() {
            scope.spawn(move || {
                let width = CUTS[k + 1] - CUTS[k];
                for r in 0..5 {
                    let row = r * STRIDE;
                    let n = width.min(LEN.saturating_sub(row + CUTS[k]));
                    part.at(row..row + n).copy_from(&vec![k as u8 + 1; n]);
                }
            });
        }
    });
    for (i, &v) in buf.iter().enumerate() {
        let part = CUTS.windows(2).position(|w| (w[0]..w[1]).contains(&(i % STRIDE))).unwrap();
        let expected = if i < LEN { part as u8 + 1 } else { 0 };
        assert_eq!(v, expected, "element {i}");
    }
}

/// A write reaching out of a part's columns panics before writing anything: one element,
/// a run across the part's edge, a run starting in another part's columns, and slots of the
/// whole span.
#[test]
fn writes_out_of_a_part_panic_before_writing() {
    let mut buf = vec![0u8; LEN];
    let mut parts: Vec<_> = Out::new(&mut buf).column_parts(STRIDE, &CUTS).collect();
    let part = &mut parts[1]; // columns 4..10
    type Write = dyn Fn(&mut Out<'_, u8>);
    let wrong: [&Write; 4] = [
        &|p| p.set(6, 1),
        &|p| p.at(2..9).copy_from(&[1; 7]),
        &|p| p.at(STRIDE - 1..STRIDE + 1).copy_from(&[1; 2]),
        &|p| p.rb().slots().for_each(|s| s.set(1)),
    ];
    for (i, write) in wrong.iter().enumerate() {
        assert!(catch_unwind(AssertUnwindSafe(|| write(part))).is_err(), "write {i} ran");
    }
    part.set(STRIDE + 5, 7); // row 1, column 9: its own
    drop(parts);
    assert_eq!(buf.iter().map(|&v| v as usize).sum::<usize>(), 7, "only the part's own write landed");
    assert_eq!(buf[STRIDE + 9], 7);
}

/// Lines of a band stay in a part's columns, or the check says no.
#[test]
fn holds_lines_follows_the_columns() {
    let mut buf = vec![0u8; LEN];
    let parts: Vec<_> = Out::new(&mut buf).column_parts(STRIDE, &CUTS).collect();
    let part = &parts[1]; // columns 4..10, its element 0 at column 4
    let rows = (STRIDE, 4);
    let one = (0, 1);
    for (first, steps, width, holds) in [
        (0, [rows, one, one], 6, true),
        (0, [rows, one, one], 7, false),
        (1, [rows, one, one], 6, false),
        (0, [(2, 2), rows, one], 4, true),
        (0, [(2, 3), rows, one], 4, false),
        (0, [(STRIDE + 1, 3), one, one], 4, true),
        (0, [(STRIDE + 1, 4), one, one], 4, false),
        (STRIDE - 4, [rows, one, one], 1, false), // column 0 of the next row: part 0's
    ] {
        assert_eq!(part.holds_lines(first, steps, width), holds, "{first} {steps:?} {width}");
    }
    assert!(Out::new(&mut [0u8; 8]).holds_lines(3, [(1, 2), (0, 1), (0, 1)], 4), "a whole view");
}

/// Chunks, and skipping ahead: each view the run of elements a slice's chunks would give, the
/// short rest kept.
#[test]
fn chunks_are_a_slices_chunks() {
    for (len, n, skip) in [(10, 3, 0), (10, 3, 2), (9, 3, 1), (10, 3, 5), (0, 2, 0), (7, 7, 0)] {
        {
            let mut buf = vec![0u8; len];
            let mut expected = vec![0u8; len];
            let chunks = |b: &mut [u8]| -> Vec<(usize, usize)> {
                let mut at = 0;
                let mut runs = Vec::new();
                while at < b.len() {
                    runs.push((at, n.min(b.len() - at)));
                    at += n;
                }
                runs
            };
            for (k, (at, m)) in chunks(&mut expected).into_iter().enumerate().skip(skip) {
                expected[at..at + m].iter_mut().for_each(|v| *v = k as u8 + 1);
            }
            let view = Out::new(&mut buf);
            let it = view.chunks(n);
            assert_eq!(it.len(), chunks(&mut vec![0; len]).len(), "{len} {n}");
            for (k, part) in it.enumerate().skip(skip) {
                part.slots().for_each(|s| s.set(k as u8 + 1));
            }
            assert_eq!(buf, expected, "{len} elements, chunks of {n}, from {skip}");
        }
    }
}

/// Cuts that do not rise from 0 to at most the row are refused.
#[test]
fn cuts_must_rise_within_a_row() {
    for cuts in [[0, 5, 4], [1, 4, 12], [0, 4, 13]] {
        let run = catch_unwind(|| Out::new(&mut [0u8; 24]).column_parts(STRIDE, &cuts).count());
        assert!(run.is_err(), "{cuts:?}");
    }
}
