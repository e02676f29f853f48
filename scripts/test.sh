#!/usr/bin/env bash
# Sets up everything (scripts/setup.sh), then runs the whole test suite:
# the fast unit tests, a bounded fuzz step (every target 10 s), then the heavy end-to-end tests (build tag e2e,
# test names TestE2E*), which CI runs once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./scripts/setup.sh
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
test -z "$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed" >&2; gofmt -l .; exit 1; }
go vet ./...
go test -count=1 -timeout 20m ./...
./scripts/fuzz.sh 10s               # every fuzz target 10 s, one at a time: 11 targets, about 2.6 min (long run: ./scripts/fuzz.sh 10m)
go test -count=1 -tags e2e -run '^TestE2E' -timeout 70m ./...
