#!/usr/bin/env bash
# One-time (idempotent) set-up of everything ragbench needs on a fresh
# machine: Go modules, the ONNX Runtime library, standard ONNX models.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
go mod download
./scripts/install-onnxruntime.sh
if [[ -x ./scripts/fetch-models.sh ]]; then
  ./scripts/fetch-models.sh || echo "setup: fetch-models failed; dense tests with standard models will be skipped" >&2
fi
go build -o bin/bench ./cmd/bench
echo "setup: done (binary: bin/bench)"
