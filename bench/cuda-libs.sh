#!/usr/bin/env bash
# Installs CUDA libraries from PyPI into target/cuda-venv, once each; no GPU needed:
#   bash bench/cuda-libs.sh              NVRTC 13 (compiles the GPU kernels; ~6 s)
#   bash bench/cuda-libs.sh cudnn        and cuDNN 9 (its descriptor calls run without a GPU;
#                                        ~1 min, 1.7 GB installed)
# `bash bench/cuda-libs.sh --env` prints the export that puts what is installed on the library
# path: `eval "$(bash bench/cuda-libs.sh --env)"` before `cargo test` or a benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/cuda-venv
nvidia() { ls -d "$PWD/$venv"/lib/python3*/site-packages/nvidia 2>/dev/null | head -1; }
if [[ "${1:-}" == "--env" ]]; then
    dirs=""
    for lib in cu13/lib cudnn/lib; do
        [[ -n "$(nvidia)" && -d "$(nvidia)/$lib" ]] && dirs="$dirs${dirs:+:}$(nvidia)/$lib"
    done
    echo "export LD_LIBRARY_PATH=\"$dirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
    exit 0
fi
[[ -x "$venv/bin/pip" ]] || python3 -m venv "$venv"
pip() { "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"; }
[[ -e "$(nvidia)/cu13/lib/libnvrtc.so.13" ]] || pip "nvidia-cuda-nvrtc>=13,<14"
test -e "$(nvidia)/cu13/lib/libnvrtc.so.13" || { echo "NVRTC install failed: no libnvrtc.so.13 under $venv" >&2; exit 1; }
echo "NVRTC: $(nvidia)/cu13/lib"
if [[ "${1:-}" == "cudnn" ]]; then
    [[ -e "$(nvidia)/cudnn/lib/libcudnn.so.9" ]] || pip "nvidia-cudnn-cu13>=9,<10"
    test -e "$(nvidia)/cudnn/lib/libcudnn.so.9" || { echo "cuDNN install failed: no libcudnn.so.9 under $venv" >&2; exit 1; }
    echo "cuDNN: $(nvidia)/cudnn/lib"
fi
