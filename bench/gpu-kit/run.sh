#!/usr/bin/env bash
# The GPU kit's runner, copied into the kit by bench/gpu-kit.sh:
#   bash run.sh REPORT_DIR
# On a machine with an NVIDIA driver it finds NVRTC and cuDNN (TL_NVRTC_DIR / TL_CUDNN_DIR
# choose a folder), runs every GPU test binary with TL_REQUIRE_GPU=1 TL_REQUIRE_CUDNN=1
# TL_REQUIRE_NVRTC=1, then the benchmark, then the DLPack exchange with PyTorch and the PyTorch
# rows when `import torch` works, and writes REPORT_DIR/report.md (plus one log per step). Every step has a timeout and all of them
# fit in TL_KIT_BUDGET_S seconds (default 480). Exits 0 when every step passed, 1 when one
# failed, 2 when there is no GPU ("no GPU: <reason>").
set -uo pipefail
kit=$(cd "$(dirname "$0")" && pwd)
report=${1:?usage: run.sh REPORT_DIR}
mkdir -p "$report"
report=$(cd "$report" && pwd)
rm -f "$report"/*.log "$report/report.md" # a previous run's
budget=${TL_KIT_BUDGET_S:-480}
python=${PYTHON:-python3}
start=$SECONDS

# --- Is there a GPU? ------------------------------------------------------------------------
why=()
if ! command -v nvidia-smi >/dev/null; then
    why+=("nvidia-smi is not on PATH")
elif ! smi=$(timeout 60 nvidia-smi 2>&1); then
    why+=("nvidia-smi failed: $(head -1 <<<"$smi")")
fi
libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
if [[ -z "$libcuda" ]]; then
    ld_path=${LD_LIBRARY_PATH:-}
    for dir in ${ld_path//:/ } /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu; do
        [[ -e "$dir/libcuda.so.1" ]] && libcuda="$dir/libcuda.so.1" && break
    done
fi
[[ -n "$libcuda" ]] || why+=("no libcuda.so.1 (ldconfig, LD_LIBRARY_PATH, /usr/local/nvidia/lib64)")
if ((${#why[@]})); then
    reason=$(printf '%s; ' "${why[@]}")
    reason=${reason%; }
    echo "no GPU: $reason" | tee "$report/report.md"
    exit 2
fi
gpu=$(timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
cuda=$(grep -o 'CUDA Version: *[0-9.]*' <<<"$smi" | grep -o '[0-9.]*$')
echo "GPU: $gpu; driver's CUDA $cuda; $libcuda"

# --- NVRTC and cuDNN -------------------------------------------------------------------------
# Candidate folders, most likely first: the Python environment's NVIDIA wheels, CUDA toolkits,
# then what ldconfig knows.
site=$("$python" -c 'import site; print("\n".join(site.getsitepackages()))' 2>/dev/null)
candidates() { # $1: library stem (libnvrtc, libcudnn)
    local s d
    for s in $site; do
        for d in "$s"/nvidia/cu13/lib "$s"/nvidia/cudnn/lib "$s"/nvidia/*/lib; do
            [[ -d "$d" ]] && echo "$d"
        done
    done
    for d in /usr/local/cuda*/lib64 /usr/local/cuda*/targets/x86_64-linux/lib; do
        [[ -d "$d" ]] && echo "$d"
    done
    ldconfig -p 2>/dev/null | awk -v l="$1" '$1 ~ "^"l"\\.so" {print $NF}' | xargs -r -n1 dirname
}
# "major.minor" of the library in a folder, from its versioned file names ("major" at least).
version() { # $1 folder, $2 stem
    local f v
    for f in "$1/$2"-builtins.so.* "$1/$2".so.*; do
        [[ -e "$f" ]] || continue
        v=$(basename "$(readlink -f "$f")")
        [[ "${v#*.so.}" =~ ^([0-9]+\.[0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return; }
    done
    for f in "$1/$2".so.*; do
        [[ "${f##*.so.}" =~ ^([0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return; }
    done
}
# A folder holding $2.so*: $1 if given; else the newest version not newer than $3 (PTX from an
# NVRTC newer than the driver does not load), the first candidate among equals; else the oldest.
choose() { # $1 override, $2 stem, $3 newest acceptable version ("" for any)
    if [[ -n "$1" ]]; then echo "$1"; return; fi
    local d i=0
    candidates "$2" | awk '!seen[$0]++' | while read -r d; do
        i=$((i + 1))
        compgen -G "$d/$2.so*" >/dev/null && echo "$(version "$d" "$2") $i $d"
    done | sort -k1,1Vr -k2,2n | awk -v max="$3" '
        function le(a, b,   x, y) { split(a, x, "."); split(b, y, ".");
            return x[1] + 0 < y[1] + 0 || (x[1] + 0 == y[1] + 0 && x[2] + 0 <= y[2] + 0) }
        !found && (max == "" || le($1, max)) { print $3; found = 1 }
        { last = $3 }
        END { if (!found && last != "") print last }'
}
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
path=""
libs=()
use() { # $1 stem, $2 override folder, $3 newest acceptable version
    local dir files file
    dir=$(choose "$2" "$1" "$3")
    if [[ -z "$dir" ]]; then
        libs+=("$1: none found")
        return
    fi
    files=("$dir/$1".so*)
    file=${files[0]}
    # cudarc asks for lib*.so before lib*.so.N: a link of that name first on the path makes the
    # chosen file win over any lib*.so elsewhere (ldconfig's included).
    ln -sf "$file" "$shim/$1.so"
    path="$path:$dir"
    libs+=("$1: $(readlink -f "$file") (version $(version "$dir" "$1"))")
}
use libnvrtc "${TL_NVRTC_DIR:-}" "$cuda"
use libcudnn "${TL_CUDNN_DIR:-}" ""
# PyTorch brings its own cuDNN and refuses another version found first: its steps run with the
# library path as it was.
torch_ld_path=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH="$shim$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
printf '%s\n' "${libs[@]}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# --- Steps -----------------------------------------------------------------------------------
results=()
failed=0
# step NAME MAX_SECONDS COMMAND...: runs with a timeout inside what is left of the budget.
step() {
    local name=$1 max=$2 left rc t
    shift 2
    left=$((budget - (SECONDS - start) - 10))
    ((left < max)) && max=$left
    if ((max < 5)); then
        results+=("| $name | NOT RUN (time budget spent) | | |")
        failed=1
        return
    fi
    echo "== $name (timeout ${max} s)"
    t=$SECONDS
    timeout --kill-after=10 "$max" "$@" >"$report/$name.log" 2>&1
    rc=$?
    local verdict=PASS summary line skips='SKIPPED: cuDNN'
    # Skips that are failures here: a cuDNN check without cuDNN (the device tests print that
    # rather than read TL_REQUIRE_CUDNN), and the benchmark without a device.
    [[ $name == gpu_bench ]] && skips="^SKIPPED:|$skips"
    summary=$(grep -E '^test result:' "$report/$name.log" | tail -1)
    if ((rc == 124 || rc == 137)); then
        verdict="FAIL (timed out after ${max} s)"
    elif line=$(grep -m1 -E "$skips" "$report/$name.log"); then
        verdict="FAIL (skipped on a GPU machine: ${line#*SKIPPED: })"
    elif ((rc != 0)); then
        verdict="FAIL (exit $rc)"
    fi
    [[ "$verdict" == PASS ]] || failed=1
    local skipped
    skipped=$(grep -c 'SKIPPED' "$report/$name.log")
    results+=("| $name | $verdict | $((SECONDS - t)) s | ${summary:-} $( ((skipped)) && echo "($skipped SKIPPED lines)") |")
    echo "$name: $verdict ($((SECONDS - t)) s) ${summary:-}"
}

export TL_REQUIRE_GPU=1 TL_REQUIRE_CUDNN=1 TL_REQUIRE_NVRTC=1
# The steps that need the device come first, so a short lease spends its minutes on them; the
# NVRTC-only and emulator tests, which CI also runs, come last and are the first to fall to the
# budget.
test_step() { # $1 binary name, $2 timeout
    local bin=$1 args=(--nocapture --test-threads=1)
    [[ -x "$kit/bin/$bin" ]] || return 0
    # The snapshot test reads the build machine's source tree, which the kit does not carry.
    [[ $bin == gpu_codegen ]] && args+=(--skip generated_cuda_matches_the_snapshots)
    step "$bin" "$2" "$kit/bin/$bin" "${args[@]}"
}
test_step gpu_absent 60
test_step gpu_device 200
test_step gpu_dlpack 60
step gpu_bench 150 "$kit/bin/gpu_bench"
if "$python" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    step torch_dlpack 60 env PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$torch_ld_path" "$python" "$kit/torch_dlpack.py" "$kit/lib/libdlpack_torch.so"
    step torch_peer 120 env PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$torch_ld_path" "$python" "$kit/torch_peer.py"
else
    results+=("| torch_dlpack | NOT RUN (no PyTorch with CUDA for $python) | | |")
    results+=("| torch_peer | NOT RUN (no PyTorch with CUDA for $python) | | |")
fi
known=" gpu_absent gpu_device gpu_dlpack gpu_bench gpu_codegen gpu_cast gpu_emulated gpu_efficiency "
test_step gpu_codegen 120
test_step gpu_cast 120
test_step gpu_emulated 120
test_step gpu_efficiency 120
for bin in "$kit"/bin/gpu_*; do # any further test binary a later commit adds
    name=$(basename "$bin")
    [[ "$known" == *" $name "* ]] || test_step "$name" 120
done

# --- Report ----------------------------------------------------------------------------------
{
    echo "# GPU kit report, $(date -u +%Y-%m-%d)"
    echo
    echo "- device: $gpu (name, driver, memory); the driver's CUDA: $cuda"
    sed 's/^/- kit /' "$kit/kit.txt"
    printf -- '- %s\n' "${libs[@]}"
    echo "- total: $((SECONDS - start)) s"
    echo
    echo "| step | result | time | summary |"
    echo "|---|---|---:|---|"
    printf '%s\n' "${results[@]}"
    for name in gpu_bench torch_dlpack torch_peer; do
        [[ -s "$report/$name.log" ]] || continue
        echo
        echo "## $name"
        echo
        cat "$report/$name.log"
    done
    for log in "$report"/gpu_*.log; do
        grep -q SKIPPED "$log" || continue
        echo
        echo "SKIPPED in $(basename "$log"):"
        grep SKIPPED "$log" | sed 's/^/    /'
    done
} >"$report/report.md"
echo "report: $report/report.md ($((SECONDS - start)) s)"
exit "$failed"
