#!/usr/bin/env bash
# The README's first command: set everything up (Go modules, ONNX Runtime,
# standard models, bin/bench; idempotent), then sweep configs/scifact.yaml —
# every chunking × retriever cell on SciFact — into results/scifact/.
# Extra arguments go to 'bench run' (e.g. --data-dir DIR, --models-dir DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./scripts/setup.sh
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
exec bin/bench run "$@" configs/scifact.yaml
