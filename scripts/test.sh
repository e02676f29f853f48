#!/usr/bin/env bash
# Sets up everything (scripts/setup.sh), then runs the whole test suite:
# the fast unit tests, a bounded fuzz step (every target 10 s), then the heavy end-to-end tests (build tag e2e,
# test names TestE2E*), which CI runs once, and last the engine tests against real Elasticsearch and OpenSearch
# nodes (scripts/engines/test.sh --ci; README "Engine tests").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# step CMD...: runs one step and prints its wall time to stderr, so a CI log says where the minutes went
# (docs/testing.md keeps the measured times).
step() {
	local t0=$SECONDS
	"$@"
	echo "test.sh: $((SECONDS - t0)) s: $*" >&2
}
step ./scripts/setup.sh
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
unformatted="$( (git ls-files -z '*.go' 2>/dev/null || find . -name '*.go' -print0) | xargs -0 gofmt -l)"
test -z "$unformatted" || { echo "gofmt needed:" >&2; echo "$unformatted" >&2; exit 1; }
step go vet ./...
step ./scripts/lint.sh                   # staticcheck and shellcheck, clean
# The packages with concurrency under the race detector (about 1.5 minutes):
# eval's streaming reader, stats, compare, dense, the sweep, bm25 (without
# its SciFact and Cranfield replays), the encoder's embedding cache (its
# other tests run ONNX models), the labelling workbench's server, the
# worker loop (internal/parallel) and judged coverage's hole search on it
# (spans.HoleFinder.FindAll, about 10 s); the skipped tests run without
# -race below.
step go test -count=1 -race -timeout 20m ./eval ./stats ./compare ./retrievers/dense ./sweep ./workbench ./spans ./internal/parallel
step go test -count=1 -race -timeout 10m -skip '^Test(SciFact|Cranfield)$' ./retrievers/bm25
step go test -count=1 -race -timeout 10m -run 'CachedEmbedder' ./encoder
step go test -count=1 -timeout 20m ./...
# The Python side of external pipelines (pipelines/: reference pipelines, scorer, fault server; docs/pipelines.md), about 40 s.
step third_party/python/bin/python -m unittest discover -s pipelines/tests
step ./scripts/fuzz.sh 10s               # every fuzz target 10 s, one at a time (fuzz.sh finds the targets itself: about 10 s × their number; long run: ./scripts/fuzz.sh 10m)
step go test -count=1 -tags e2e -run '^TestE2E' -timeout 70m ./...
# Elasticsearch 8.19.21 and OpenSearch 3.5.0, each a single node and a
# two-node cluster on 127.0.0.1:9200–9370 (fetched by setup.sh): the SciFact
# acceptance numbers and the faults. After the end-to-end tests, whose dense
# tests leave SciFact's MiniLM embeddings in the shared cache (RAGBENCH_CACHE,
# else .cache/embeddings) that the engine tests read. Nodes are stopped by
# the script's trap even when a test fails.
step ./scripts/engines/test.sh --ci
