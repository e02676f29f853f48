#!/usr/bin/env bash
# The test-only Python environment (third_party/python, git-ignored): the
# independent references some tests compare with (scipy, statsmodels,
# ir_measures, tiktoken) and the reference LangChain / LlamaIndex pipelines.
# Pinned (scripts/python-requirements.txt, every transitive version in
# scripts/python-constraints.txt), from PyPI; idempotent: a venv whose
# requirements stamp matches is left alone. bench never needs it. Tests find
# it through internal/testenv.Python ($RAGBENCH_PYTHON, else this venv).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
venv=third_party/python
stamp="$venv/.requirements.sha256"
want="$(cat scripts/python-requirements.txt scripts/python-constraints.txt | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  echo "setup-python: python3 with venv is missing (apt-get install python3-venv); tests that need the Python references will be skipped" >&2
  exit 1
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/python-requirements.txt -c scripts/python-constraints.txt
echo "$want" >"$stamp"
echo "setup-python: ready ($venv)"
