#!/usr/bin/env bash
# Runs the engine retrievers' end-to-end tests (retrievers/engine, build tag
# e2e) against real Elasticsearch 8.19.21 and OpenSearch 3.5.0 on 127.0.0.1:
# installs them first (scripts/engines/fetch.sh, idempotent), then each test
# starts and stops its own nodes through scripts/engines/ctl.sh — a single
# node on 9200, a two-node cluster on 9200/9210, a tiny-write-queue node on
# 9240 — so nothing may be listening there. SciFact comes from ../shared and
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
run='^TestE2E(Elasticsearch|OpenSearch)$'
case "${1:-}" in
  elasticsearch) run='^TestE2EElasticsearch$'; shift ;;
  opensearch) run='^TestE2EOpenSearch$'; shift ;;
esac
scripts/engines/fetch.sh
export RAGBENCH_ENGINE_TESTS=1
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/third_party/onnxruntime/libonnxruntime.so}"
go test -tags e2e -count=1 -timeout 60m -run "$run" -v "$@" ./retrievers/engine/
