#!/usr/bin/env bash
# Installs the Python side of the interop tests into target/interop-venv, once: the reference
# safetensors library and NumPy (~10 s). tests/safetensors.rs has that Python read the files we
# write when TL_PYTHON names it:
#   bash bench/python-interop.sh && eval "$(bash bench/python-interop.sh --env)"
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/interop-venv
if [[ "${1:-}" == "--env" ]]; then
    echo "export TL_PYTHON=\"$PWD/$venv/bin/python\""
    exit 0
fi
[[ -x "$venv/bin/pip" ]] || python3 -m venv "$venv"
"$venv/bin/python" -c "import safetensors, numpy" 2>/dev/null ||
    "$venv/bin/pip" install --quiet --disable-pip-version-check "safetensors>=0.4,<1" "numpy>=1.24"
"$venv/bin/python" -c "import safetensors, numpy; print('safetensors', safetensors.__version__, 'numpy', numpy.__version__)"
