#!/usr/bin/env bash
# The README's first command: set everything up (Go modules, ONNX Runtime,
# standard models, bin/bench; idempotent), then sweep configs/scifact.yaml —
# every chunking × retriever cell on SciFact — into results/scifact/.
# Extra arguments go to 'bench run' (e.g. --data-dir DIR, --models-dir DIR,
# or another config such as configs/scifact-quick.yaml).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./scripts/setup.sh
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
# A .yaml argument replaces the default config (e.g. configs/scifact-quick.yaml).
config=configs/scifact.yaml
for a in "$@"; do
  case "$a" in *.yaml|*.yml) config="" ;; esac
done
exec bin/bench run "$@" $config
