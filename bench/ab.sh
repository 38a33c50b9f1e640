#!/usr/bin/env bash
# A/B of the CPU conversions at 256 MiB between two commits, interleaved in one run:
#   bash bench/ab.sh OLD [NEW] [ROUNDS]       (NEW defaults to the working tree, ROUNDS to 10)
# Builds bench/ab/main.rs against each tree (worktrees under target/ab; OLD or NEW may also be
# the path of a tree, with a slash in it), then runs the two binaries in alternating rounds, old
# first in odd rounds and new first in even ones (the order matters on a shared machine), and
# prints per row the best GB/s of each and the median of the per-round new/old ratios. Env
# ROW=... restricts the rows (see bench/ab/main.rs); env AB_PROGRAM=... builds another program
# of `row GB/s` lines in its place (bench/threshold.sh's, bench/dispatch/main.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bash bench/ab.sh OLD [NEW] [ROUNDS]}; new=${2:-}; rounds=${3:-10}
root=$PWD/target/ab; mkdir -p "$root"
program=${AB_PROGRAM:-bench/ab/main.rs}
tree() { # commit or directory -> a checkout of it
    if [[ $1 == */* && -d $1 ]]; then (cd "$1" && pwd); return; fi # a path (it has a slash)
    local dir="$root/tree-$1"
    [[ -d $dir ]] || git worktree add --detach "$dir" "$1" >/dev/null
    echo "$dir"
}
build() { # name, path of typed-layout -> binary
    local crate="$root/$1"; mkdir -p "$crate/src"; cp "$program" "$crate/src/main.rs"
    printf '[package]\nname = "ab"\nversion = "0.1.0"\nedition = "2021"\n[dependencies]\ntyped-layout = { path = "%s" }\nhalf = "2"\nrayon = "1"\n[workspace]\n' "$2" >"$crate/Cargo.toml"
    (cd "$crate" && cargo build --release -q) >&2
    echo "$crate/target/release/ab"
}
a=$(build old "$(tree "$old")")
b=$(build new "$(tree "${new:-$PWD}")")
out=$root/runs; rm -rf "$out"; mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
    if (( i % 2 )); then "$a" >"$out/old.$i"; "$b" >"$out/new.$i"; else "$b" >"$out/new.$i"; "$a" >"$out/old.$i"; fi
done
python3 - "$out" "$rounds" <<'PY'
import statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
read = lambda f: dict((l.split()[0], float(l.split()[1])) for l in open(f))
rows = {}
for i in range(1, rounds + 1):
    o, n = read(f"{out}/old.{i}"), read(f"{out}/new.{i}")
    for k in o:
        rows.setdefault(k, []).append((o[k], n[k]))
print(f"{'row':16} {'old best':>9} {'new best':>9} {'new/old (median of rounds)':>27}")
for k, v in rows.items():
    ratio = statistics.median(b / a for a, b in v)
    print(f"{k:16} {max(a for a, _ in v):9.2f} {max(b for _, b in v):9.2f} {ratio:27.3f}")
PY
