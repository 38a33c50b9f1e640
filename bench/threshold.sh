#!/usr/bin/env bash
# Where two threads start to beat one: bash bench/threshold.sh [ROUNDS] (default 3).
# Builds bench/threshold/main.rs against two worktrees of HEAD (under target/threshold), one
# with PARALLEL_THRESHOLD_BYTES = usize::MAX (every pass on the calling thread), one with 0
# (every pass on the calling thread and rayon's workers), runs them in alternating rounds, and
# prints per row the best GB/s of each and all ÷ one: the threshold belongs at the smallest size
# from which every row is ≥ 1.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
root=$PWD/target/threshold; mkdir -p "$root"
build() { # name, threshold -> binary
    local dir="$root/tree-$1" crate="$root/$1"
    git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
    git worktree prune
    git worktree add --detach "$dir" HEAD >/dev/null
    sed -i "s/^pub const PARALLEL_THRESHOLD_BYTES: usize = .*;/pub const PARALLEL_THRESHOLD_BYTES: usize = $2;/" \
        "$dir/crates/layout-types/src/convert/mod.rs"
    mkdir -p "$crate/src"; cp bench/threshold/main.rs "$crate/src/main.rs"
    printf '[package]\nname = "threshold"\nversion = "0.1.0"\nedition = "2021"\n[dependencies]\ntyped-layout = { path = "%s" }\nhalf = "2"\n[workspace]\n' "$dir" >"$crate/Cargo.toml"
    (cd "$crate" && cargo build --release -q) >&2
    echo "$crate/target/release/threshold"
}
one=$(build one usize::MAX)
all=$(build all 0)
out=$root/runs; rm -rf "$out"; mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
    if (( i % 2 )); then "$one" >"$out/one.$i"; "$all" >"$out/all.$i"; else "$all" >"$out/all.$i"; "$one" >"$out/one.$i"; fi
done
python3 - "$out" "$rounds" <<'PY'
import sys
out, rounds = sys.argv[1], int(sys.argv[2])
read = lambda f: [(l.split()[0], float(l.split()[1])) for l in open(f)]
rows = {}
for i in range(1, rounds + 1):
    for kind in ("one", "all"):
        for k, v in read(f"{out}/{kind}.{i}"):
            rows.setdefault(k, {}).setdefault(kind, []).append(v)
print(f"{'row':28} {'one thread':>10} {'all threads':>11} {'all ÷ one':>9}")
for k, v in rows.items():
    print(f"{k:28} {max(v['one']):10.1f} {max(v['all']):11.1f} {max(v['all']) / max(v['one']):9.2f}")
PY
