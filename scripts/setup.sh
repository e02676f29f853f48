#!/usr/bin/env bash
# One-time (idempotent) set-up of everything ragbench needs on a fresh
# machine: Go modules, the ONNX Runtime library, standard ONNX models.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Debian packages the set-up needs (unzip to unpack the model jars,
# ShellCheck for scripts/lint.sh).
apt_updated=""
need_deb() { # need_deb COMMAND PACKAGE WHY
  command -v "$1" >/dev/null 2>&1 && return 0
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    [[ -n "$apt_updated" ]] || { apt-get update -qq; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  else
    echo "setup: $1 is missing (apt-get install $2); $3" >&2
  fi
}
need_deb unzip unzip "standard models cannot be unpacked"
need_deb shellcheck shellcheck "scripts/lint.sh cannot check the shell scripts"
go mod download
# staticcheck, pinned, for scripts/lint.sh.
staticcheck_version=v0.8.2
if ! bin/staticcheck -version 2>/dev/null | grep -qF "(${staticcheck_version#v})"; then
  GOBIN="$root/bin" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
./scripts/install-onnxruntime.sh
if [[ -x ./scripts/fetch-models.sh ]]; then
  ./scripts/fetch-models.sh || echo "setup: fetch-models failed; dense tests with standard models will be skipped" >&2
fi
go build -o bin/bench ./cmd/bench
echo "setup: done (binary: bin/bench)"
