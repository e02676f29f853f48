#!/usr/bin/env bash
# Runs the engine retrievers' end-to-end tests (retrievers/engine, build tag
# e2e) against real Elasticsearch 8.19.21 and OpenSearch 3.5.0 on 127.0.0.1:
# installs them first (scripts/engines/fetch.sh, idempotent), then each test
# starts and stops its own nodes through scripts/engines/ctl.sh — a single
# node on 9200, a two-node cluster on 9200/9210, a tiny-write-queue node on
# 9240; then the sweep's engine test (sweep, TestE2EEngineSweep) single nodes
# on 9250 and 9270 — so nothing may be listening there. SciFact comes from ../shared and
# all-MiniLM-L6-v2 from models/ (scripts/fetch-models.sh); the embeddings are
# read from the shared cache ($RAGBENCH_CACHE) or computed (about 17 min on
# a loaded 2-core machine the first time).
#
# Usage: scripts/engines/test.sh [elasticsearch|opensearch] [go test flags...]
# Takes about 7 min (Elasticsearch) and 12 min (OpenSearch) with warm
# embeddings on the shared 2-core machine (load 15–22): too long for CI's
# budget, so scripts/test.sh does not run it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
run='^TestE2E(Elasticsearch|OpenSearch)$' sweeprun='^TestE2EEngineSweep$'
case "${1:-}" in
  elasticsearch) run='^TestE2EElasticsearch$' sweeprun='^TestE2EEngineSweep$/^elasticsearch$'; shift ;;
  opensearch) run='^TestE2EOpenSearch$' sweeprun='^TestE2EEngineSweep$/^opensearch$'; shift ;;
esac
scripts/engines/fetch.sh
export RAGBENCH_ENGINE_TESTS=1
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
go test -tags e2e -count=1 -timeout 60m -run "$run" -v "$@" ./retrievers/engine/
# The sweep's engine cells (bench run with type elasticsearch/opensearch):
# single nodes on 9250 (Elasticsearch) and 9270 (OpenSearch), or
# $RAGBENCH_ENGINE_PORT and +20. The test runs only with RAGBENCH_ENGINES_DIR set.
RAGBENCH_ENGINES_DIR="${RAGBENCH_ENGINES_DIR:-$root/third_party/engines}" \
  go test -tags e2e -count=1 -timeout 30m -run "$sweeprun" -v "$@" ./sweep/
