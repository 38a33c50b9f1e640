#!/usr/bin/env bash
# Installs NVRTC (CUDA 13, from PyPI, no GPU needed) into target/nvrtc-venv, once.
# `bash bench/nvrtc.sh --env` prints the export that puts it on the library path, so that
# `eval "$(bash bench/nvrtc.sh --env)"` lets the GPU tests and layout-gpu compile kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/nvrtc-venv
lib() { ls -d "$PWD/$venv"/lib/python3*/site-packages/nvidia/cu13/lib 2>/dev/null | head -1; }
if [[ "${1:-}" == "--env" ]]; then
    echo "export LD_LIBRARY_PATH=\"$(lib)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
    exit 0
fi
if [[ -z "$(lib)" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "nvidia-cuda-nvrtc>=13,<14"
fi
test -e "$(lib)/libnvrtc.so.13" || { echo "NVRTC install failed: no libnvrtc.so.13 under $venv" >&2; exit 1; }
echo "NVRTC: $(lib)"
