use super::*;
use crate::overlap::SEARCH_BUDGET;

/// Small random axes (ranks 2..=8, dims 2..=6, strides 1..=60, at most 4096 elements), by
/// a fixed-seed generator.
fn small_cases() -> impl Iterator<Item = Vec<(u128, u128)>> {
    let mut state = 0x0123_4567_89ab_cdefu64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let axes = move || {
        let rank = 2 + next(7) as usize;
        (0..rank).map(|_| (2 + next(5) as u128, 1 + next(60) as u128)).collect::<Vec<_>>()
    };
    std::iter::repeat_with(axes).filter(|a| a.iter().map(|&(d, _)| d).product::<u128>() <= 4096).take(2000)
}

/// Every address, then whether one repeats.
fn brute_force(axes: &[(u128, u128)]) -> bool {
    let mut addresses = vec![0u128];
    for &(d, s) in axes {
        addresses = addresses.iter().flat_map(|&a| (0..d).map(move |i| a + i * s)).collect();
    }
    let count = addresses.len();
    addresses.sort_unstable();
    addresses.dedup();
    addresses.len() != count
}

#[test]
fn the_search_alone_is_exact_on_small_tensors() {
    // Without the cheap tests in front: colliding pairs, separable axes and crowded spans
    // all come to the search here, each settled within the budget.
    let mut table_tails = 0;
    for axes in small_cases() {
        let found =
            search(&axes, SEARCH_BUDGET / 4).map_err(|Spent| ()).expect("small tensors fit in the budget");
        assert_eq!(found, brute_force(&axes), "{axes:?}");
        let as_i64: Vec<(i64, i64)> = axes.iter().map(|&(d, s)| (d as i64 - 1, s as i64)).collect();
        let mut budget = SEARCH_BUDGET;
        table_tails += usize::from(plan(&as_i64, &mut budget).is_ok_and(|plan| plan.tail > 2));
    }
    // Both tails are exercised.
    assert!(table_tails >= 20, "{table_tails}");
}

#[test]
fn each_tail_and_the_residue_step_are_exact() {
    // Visiting orders, each searched with every tail size. In the first three the later
    // strides share a factor the first lacks (4 after 41, 2 after 9, 6 after 35), so the
    // walk steps its first coefficient by a period above 1.
    let cases = [
        (vec![(3u128, 41u128), (3, 36), (3, 56), (2, 52)], false),
        (vec![(4, 9), (4, 6), (4, 4), (3, 2)], true),
        (vec![(5, 35), (4, 6), (3, 12), (6, 18), (2, 30)], true),
        (vec![(7, 97), (6, 89), (5, 83), (4, 79), (3, 73)], true),
        (vec![(3, 40), (3, 13), (3, 4), (3, 1)], false),
    ];
    for (k, (axes, overlapping)) in cases.into_iter().enumerate() {
        assert_eq!(brute_force(&axes), overlapping, "{axes:?}");
        let order: Vec<(i64, i64)> = axes.iter().map(|&(d, s)| (d as i64 - 1, s as i64)).collect();
        assert_eq!(levels(&order)[0].period > 1, k < 3, "{axes:?}");
        for tail in 2..=axes.len() {
            let mut search = Search::new(&Plan { order: order.clone(), tail }, SEARCH_BUDGET);
            let found = match search.fill_table() {
                Ok(true) => Ok(true),
                Ok(false) => search.walk(0, 0, false),
                Err(Spent) => Err(Spent),
            };
            assert!(matches!(found, Ok(f) if f == overlapping), "{axes:?} tail {tail}");
        }
    }
}
