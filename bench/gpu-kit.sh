#!/usr/bin/env bash
# Builds the GPU kit on a machine with Rust and no GPU: every GPU test binary (tests/gpu_*.rs,
# with the `dlpack` feature) and the GPU benchmark (examples/gpu_bench.rs) in release, stripped,
# the PyTorch DLPack library (examples/dlpack_torch.rs), with `run.sh` (the runner),
# `torch_peer.py` (the PyTorch rows) and `torch_dlpack.py` (the DLPack exchange with PyTorch),
# into one folder to carry to a GPU machine:
#   bash bench/gpu-kit.sh [OUT_DIR]        default target/gpu-kit
# On the GPU machine: `bash OUT_DIR/run.sh REPORT_DIR` (see bench/gpu-kit/run.sh). The kit carries
# no CUDA library: run.sh finds the device's NVRTC and cuDNN.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/gpu-kit}
start=$SECONDS
rm -rf "$out"
mkdir -p "$out/bin"

# Executables from cargo's JSON messages: "name path" for each compiled target that has one.
executables() {
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["executable"])'
}

echo "building the GPU test binaries (release) ..."
tests=$(cargo test --release --no-run --features dlpack --message-format=json --test 'gpu_*' | executables)
echo "building the GPU benchmark (release) ..."
bench=$(cargo build --release --example gpu_bench --message-format=json | executables)
[[ -n "$tests" && -n "$bench" ]] || { echo "gpu-kit: cargo reported no executables" >&2; exit 1; }
while read -r name path; do
    cp "$path" "$out/bin/$name"
done <<<"$tests
$bench"
strip --strip-all "$out"/bin/*
echo "building the PyTorch DLPack library (release) ..."
mkdir -p "$out/lib"
cargo build --release --features dlpack --example dlpack_torch
cp target/release/examples/libdlpack_torch.so "$out/lib/"
strip --strip-unneeded "$out/lib/libdlpack_torch.so"
cp bench/gpu-kit/run.sh bench/gpu-kit/torch_peer.py bench/gpu-kit/torch_dlpack.py "$out/"
chmod +x "$out/run.sh" "$out"/bin/*

# The newest glibc symbol version the binaries need; the device image must have at least that.
glibc=$(objdump -T "$out"/bin/* "$out"/lib/* | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
newer=$(printf '%s\n2.35\n' "$glibc" | sort -V | tail -1)
{
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "built: $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(rustc --version)"
    echo "binaries: $(cd "$out/bin" && echo *)"
    echo "needs glibc >= $glibc"
} >"$out/kit.txt"
cat "$out/kit.txt"
if [[ "$newer" != "2.35" ]]; then
    echo "warning: the binaries need glibc $glibc, newer than 2.35; build on an older distribution" >&2
fi
echo "kit: $out, $(du -sh "$out" | cut -f1) ($(du -sb "$out" | cut -f1) bytes), built in $((SECONDS - start)) s"
echo "run on a GPU machine: bash $out/run.sh REPORT_DIR"
