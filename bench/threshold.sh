#!/usr/bin/env bash
# Where two threads start to beat one: bash bench/threshold.sh [ROUNDS] (default 3).
# Lays two worktrees of HEAD under target/threshold, one with PARALLEL_THRESHOLD_BYTES =
# usize::MAX (every pass on the calling thread: "old"), one with 0 (every pass on the calling
# thread and rayon's workers: "new"), and races bench/threshold/main.rs built against each
# through bench/ab.sh: the threshold belongs at the smallest size from which every row's
# new/old is at least about 1 (the noise of a run). It measures HEAD: commit first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/target/threshold; mkdir -p "$root"
tree() { # name, threshold -> a worktree of HEAD with that threshold
    local dir="$root/tree-$1"
    git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
    git worktree prune
    git worktree add --detach "$dir" HEAD >/dev/null
    local file="$dir/crates/layout-types/src/convert/mod.rs"
    sed -i "s/^pub const PARALLEL_THRESHOLD_BYTES: usize = .*;/pub const PARALLEL_THRESHOLD_BYTES: usize = $2;/" "$file"
    grep -q "^pub const PARALLEL_THRESHOLD_BYTES: usize = $2;" "$file" ||
        { echo "bench/threshold.sh: no PARALLEL_THRESHOLD_BYTES line to set in $file" >&2; exit 1; }
    echo "$dir"
}
one=$(tree one usize::MAX)
all=$(tree all 0)
AB_PROGRAM=bench/threshold/main.rs exec bash bench/ab.sh "$one" "$all" "${1:-3}"
