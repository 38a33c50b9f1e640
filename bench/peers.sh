#!/usr/bin/env bash
# Runs the CPU conversion benchmark, then times NumPy, PyTorch and ONNX Runtime on the same rows
# and prints one table of GB/s and ratios (bench/peers.py).
#
#   bench/peers.sh                 # every row (about 30 minutes on 2 cores)
#   bench/peers.sh 256MiB          # a row filter: only the 256 MiB rows
#   PEERS_INSTALL=1 bench/peers.sh # first install NumPy, PyTorch and ONNX Runtime into target/peers-venv
#   PEERS_PYTHON=python3 bench/peers.sh   # use an interpreter that already has them
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/peers-venv
if [ "${PEERS_INSTALL:-0}" = 1 ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy torch onnx onnxruntime
fi
python=${PEERS_PYTHON:-}
if [ -z "$python" ]; then
  if [ -x "$venv/bin/python" ]; then python=$venv/bin/python; else python=python3; fi
fi

csv=$PWD/target/convert-bench.csv
TL_BENCH_CSV=$csv cargo bench --bench convert -- "$@"
# The bench's executable, which peers.py runs for one row's back-to-back times between its
# timings of ONNX Runtime on that row.
bin=$(cargo bench --bench convert --no-run --message-format=json 2>/dev/null |
  "$python" -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "convert" and m.get("executable"):
        print(m["executable"])')
"$python" bench/peers.py "$csv" $bin
