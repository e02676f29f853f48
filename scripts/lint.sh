#!/usr/bin/env bash
# Static checks beyond go vet, as CI runs them (scripts/test.sh): staticcheck
# (pinned version; scripts/setup.sh installs it in bin/) on every package,
# and ShellCheck on every shell script. Both must be clean. A tool that is
# missing fails the check under CI (CI=true) and is skipped with a warning
# elsewhere (scripts/setup.sh installs both).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
staticcheck_version=v0.8.2

missing() {
  if [[ "${CI:-}" == true ]]; then
    echo "lint: $1 is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
  echo "lint: warning: $1 is missing (run scripts/setup.sh); not checked" >&2
}

if [[ -x bin/staticcheck ]]; then
  bin/staticcheck ./...
elif command -v staticcheck >/dev/null 2>&1; then
  staticcheck ./...
else
  missing "staticcheck $staticcheck_version"
fi

if command -v shellcheck >/dev/null 2>&1; then
  mapfile -t scripts < <(git ls-files '*.sh' 2>/dev/null || find scripts -name '*.sh')
  shellcheck -x .ci/run "${scripts[@]}"
else
  missing shellcheck
fi
