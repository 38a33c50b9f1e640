//! The bounded exact search of the overlap analysis: is there a nonzero `x`, `|x_i| < d_i`, with
//! `Σ x_i·s_i = 0`? Axes are (largest coefficient, stride) pairs: dim - 1 and |stride|, both
//! positive. Every sum it forms is at most twice the reach, so below [`SEARCH_REACH_LIMIT`]
//! `i64` holds them all.

use std::cmp::Reverse;

use super::reach;

/// The search takes tensors whose offsets span less than this.
const SEARCH_REACH_LIMIT: u128 = 1 << 62;
/// Most entries in the table of tail sums (2 MiB).
const TABLE_LIMIT: u128 = 1 << 18;
/// The two axes settled in closed form are picked among this many with the largest dims.
const PAIR_CANDIDATES: usize = 8;

/// The search ran out of steps (or cannot represent the offsets).
pub(super) struct Spent;

/// Is there a nonzero `x`, `|x_i| < d_i`, with `Σ x_i·s_i = 0` over `axes` (at least two, dims
/// at least 2, strides positive)? Decided in at most `budget` steps.
pub(super) fn search(axes: &[(u128, u128)], mut budget: usize) -> Result<bool, Spent> {
    if reach(axes) >= SEARCH_REACH_LIMIT {
        return Err(Spent);
    }
    // Below the limit every coefficient bound and stride fits in an i64.
    let axes: Vec<(i64, i64)> = axes.iter().map(|&(d, s)| ((d - 1) as i64, s as i64)).collect();
    let mut search = Search::new(&plan(&axes, &mut budget)?, budget);
    if search.fill_table()? {
        return Ok(true);
    }
    search.walk(0, 0, false)
}

/// One axis in visiting order, with what the search needs at it.
#[derive(Clone, Copy)]
struct Level {
    /// Largest |x| on this axis (its dim - 1).
    bound: i64,
    stride: i64,
    /// Largest |sum| the later axes reach.
    reach_after: i64,
    /// The later axes reach only multiples of their strides' gcd `g`, so `x·stride ≡ target
    /// (mod g)`: possible iff `divisor = gcd(stride, g)` divides the target, and then
    /// `x ≡ (target / divisor)·inverse (mod period)`, `period = g / divisor`.
    divisor: i64,
    period: i64,
    inverse: i64,
}

fn levels(order: &[(i64, i64)]) -> Vec<Level> {
    let mut levels = Vec::with_capacity(order.len());
    let (mut reach_after, mut gcd_after) = (0i64, 0i64);
    for &(bound, stride) in order.iter().rev() {
        let divisor = gcd64(stride, gcd_after);
        let period = gcd_after / divisor;
        let inverse = if period > 1 { inverse(stride / divisor % period, period) } else { 0 };
        levels.push(Level { bound, stride, reach_after, divisor, period: period.max(1), inverse });
        reach_after += bound * stride;
        gcd_after = divisor;
    }
    levels.reverse();
    levels
}

/// The axes (coefficient bound, stride) in visiting order, and how many of the last are the
/// tail.
struct Plan {
    order: Vec<(i64, i64)>,
    tail: usize,
}

/// The plan with the least estimated work: two tail axes picked among the longest, or a table
/// of the axes with the smallest strides or dims. Each candidate costs as many steps as there
/// are axes.
fn plan(axes: &[(i64, i64)], budget: &mut usize) -> Result<Plan, Spent> {
    let n = axes.len();
    let mut by_stride: Vec<usize> = (0..n).collect();
    by_stride.sort_by_key(|&k| Reverse(axes[k].1));
    let mut by_length = by_stride.clone();
    by_length.sort_by_key(|&k| Reverse(axes[k].0));
    let mut candidates: Vec<(Vec<usize>, usize)> = Vec::new();
    let longest = &by_length[..n.min(PAIR_CANDIDATES)];
    for (i, &first) in longest.iter().enumerate() {
        for &second in &longest[i + 1..] {
            let rest = by_stride.iter().copied().filter(|&k| k != first && k != second);
            candidates.push((rest.chain([first, second]).collect(), 2));
        }
    }
    for tail in 3..=n {
        candidates.push((by_stride.clone(), tail));
        // The `tail` shortest axes last, each part by decreasing stride.
        let mut order = by_length.clone();
        order[..n - tail].sort_by_key(|&k| Reverse(axes[k].1));
        order[n - tail..].sort_by_key(|&k| Reverse(axes[k].1));
        candidates.push((order, tail));
    }
    let mut best: Option<(u128, Plan)> = None;
    for (order, tail) in candidates {
        *budget = budget.checked_sub(n).ok_or(Spent)?;
        let order: Vec<(i64, i64)> = order.iter().map(|&k| axes[k]).collect();
        if let Some(work) = estimate(&levels(&order), tail) {
            if best.as_ref().is_none_or(|(least, _)| work < *least) {
                best = Some((work, Plan { order, tail }));
            }
        }
    }
    best.map(|(_, plan)| plan).ok_or(Spent)
}

/// An upper bound on the leaves of the walk over the non-tail levels, plus the table size;
/// `None` when the table would be too large.
fn estimate(levels: &[Level], tail: usize) -> Option<u128> {
    let top = levels.len() - tail;
    let mut work = 1u128;
    for (k, l) in levels[..top].iter().enumerate() {
        let values = (2 * l.bound + 1).min(2 * (l.reach_after / l.stride) + 1) as u128;
        let values = values.div_ceil(l.period as u128);
        // The first coefficient is never negative.
        work = work.saturating_mul(if k == 0 { values / 2 + 1 } else { values });
    }
    if tail > 2 {
        let table = levels[top..].iter().fold(1u128, |t, l| t.saturating_mul(2 * l.bound as u128 + 1));
        if table / 2 + 1 > TABLE_LIMIT {
            return None;
        }
        work = work.saturating_add(table / 2 + 1);
    }
    Some(work)
}

/// How the tail levels are settled for a target sum.
enum Tail {
    /// Two axes `a·x + c·y = target`: `g = gcd(a, c)`, `a = g·a1`, `c = g·c1`, and `inverse`
    /// is the inverse of `a1` modulo `c1`.
    Pair { a: Level, c: Level, g: i64, a1: i64, c1: i64, inverse: i64 },
    /// Every |sum| of the tail axes that the walk can ask for, sorted.
    Table(Vec<i64>),
}

struct Search {
    levels: Vec<Level>,
    /// Levels walked one coefficient at a time; the rest are the tail.
    top: usize,
    tail: Tail,
    budget: usize,
}

impl Search {
    /// The search by `plan`, its tail (at least two axes) not yet listed.
    fn new(plan: &Plan, budget: usize) -> Search {
        let levels = levels(&plan.order);
        let top = levels.len() - plan.tail;
        let tail = if plan.tail == 2 {
            let (a, c) = (levels[top], levels[top + 1]);
            let g = gcd64(a.stride, c.stride);
            let (a1, c1) = (a.stride / g, c.stride / g);
            Tail::Pair { a, c, g, a1, c1, inverse: inverse(a1 % c1, c1) }
        } else {
            Tail::Table(Vec::new())
        };
        Search { levels, top, tail, budget }
    }

    /// Lists the sums of a table tail. True if the tail axes alone have an `x`.
    fn fill_table(&mut self) -> Result<bool, Spent> {
        if !matches!(self.tail, Tail::Table(_)) {
            return Ok(false);
        }
        let upper = &self.levels[..self.top];
        let top_reach = upper.iter().map(|l| l.bound * l.stride).sum::<i64>();
        let top_gcd = upper.iter().fold(0, |g, l| gcd64(g, l.stride)).max(1);
        let mut table = Vec::new();
        if self.list(self.top, 0, false, (top_reach, top_gcd), &mut table)? {
            return Ok(true);
        }
        table.sort_unstable();
        table.dedup();
        self.tail = Tail::Table(table);
        Ok(false)
    }

    fn spend(&mut self) -> Result<(), Spent> {
        self.budget = self.budget.checked_sub(1).ok_or(Spent)?;
        Ok(())
    }

    /// Is there `x` over levels `k..` with `Σ x_i·s_i = target`, nonzero overall (`nonzero`:
    /// an earlier coefficient is)?
    fn walk(&mut self, k: usize, target: i64, nonzero: bool) -> Result<bool, Spent> {
        self.spend()?;
        if k == self.top {
            return Ok(self.settle(target, nonzero));
        }
        let l = self.levels[k];
        // What is left after x·stride must be within the later axes' reach.
        let mut low = (-l.bound).max(ceil_div(target - l.reach_after, l.stride));
        let high = l.bound.min(floor_div(target + l.reach_after, l.stride));
        if !nonzero {
            low = low.max(0);
        }
        if low > high || target % l.divisor != 0 {
            return Ok(false);
        }
        let residue = mul_mod(target / l.divisor, l.inverse, l.period);
        let mut x = low + (residue - low).rem_euclid(l.period);
        while x <= high {
            if self.walk(k + 1, target - x * l.stride, nonzero || x != 0)? {
                return Ok(true);
            }
            x += l.period;
        }
        Ok(false)
    }

    /// The tail's answer to `walk` at its first level.
    fn settle(&self, target: i64, nonzero: bool) -> bool {
        match &self.tail {
            &Tail::Pair { a, c, g, a1, c1, inverse } => {
                if !nonzero {
                    // The target is 0; the smallest nonzero solution is (c1, -a1).
                    return c1 <= a.bound && a1 <= c.bound;
                }
                if target % g != 0 {
                    return false;
                }
                // |y| <= c.bound bounds x; within that, x ≡ (target / g)·a1⁻¹ (mod c1).
                let low = (-a.bound).max(ceil_div(target - c.bound * c.stride, a.stride));
                let high = a.bound.min(floor_div(target + c.bound * c.stride, a.stride));
                let x = mul_mod(target / g, inverse, c1);
                low <= high && low + (x - low).rem_euclid(c1) <= high
            }
            // With the target 0 from all-zero upper coefficients, the tail alone would need an
            // `x`: listing it looked for one.
            Tail::Table(table) => nonzero && table.binary_search(&target.abs()).is_ok(),
        }
    }

    /// Pushes every |sum| of levels `k..` (after `sum` so far) that the walk can ask for: at
    /// most `top_reach`, a multiple of `top_gcd`. True if a nonzero `x` of the tail alone sums
    /// to 0.
    fn list(
        &mut self,
        k: usize,
        sum: i64,
        nonzero: bool,
        (top_reach, top_gcd): (i64, i64),
        table: &mut Vec<i64>,
    ) -> Result<bool, Spent> {
        self.spend()?;
        let Some(&l) = self.levels.get(k) else {
            if sum.abs() <= top_reach && sum % top_gcd == 0 {
                table.push(sum.abs());
            }
            return Ok(nonzero && sum == 0);
        };
        let slack = l.reach_after + top_reach;
        let mut low = (-l.bound).max(ceil_div(-sum - slack, l.stride));
        let high = l.bound.min(floor_div(-sum + slack, l.stride));
        if !nonzero {
            low = low.max(0);
        }
        for x in low..=high {
            if self.list(k + 1, sum + x * l.stride, nonzero || x != 0, (top_reach, top_gcd), table)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// `super::gcd` on the search's nonnegative `i64` values, a few times faster.
fn gcd64(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

fn ceil_div(a: i64, b: i64) -> i64 {
    -(-a).div_euclid(b)
}

/// `a·b mod m` in `0..m`, for `m >= 1` and `0 <= b < m`.
fn mul_mod(a: i64, b: i64, m: i64) -> i64 {
    if m == 1 {
        return 0;
    }
    (a.rem_euclid(m) as i128 * b as i128 % m as i128) as i64
}

/// The inverse of `a` modulo `m` (coprime, `m >= 1`), in `0..m`.
fn inverse(a: i64, m: i64) -> i64 {
    let (mut r0, mut r1) = (a.rem_euclid(m), m);
    let (mut x0, mut x1) = (1i64, 0i64);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (x0, x1) = (x1, x0 - q * x1);
    }
    x0.rem_euclid(m)
}

#[cfg(test)]
mod tests;
