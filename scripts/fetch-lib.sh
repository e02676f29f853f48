# shellcheck shell=bash
# Shared by the fetch scripts (scripts/fetch-models.sh, scripts/engines/fetch.sh),
# which source it: the tool check, name selection and sha256 of a file.
# Not run on its own.

# require_tools PREFIX TOOL...: exits 1 naming the first TOOL not on PATH.
require_tools() {
  local prefix="$1" tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$prefix: $tool is required" >&2; exit 1; }
  done
}

# selected NAME [WANTED...]: true when no WANTED names are given (the
# script was asked for everything) or NAME is among them.
selected() {
  local name="$1" w
  shift
  [[ $# -eq 0 ]] && return 0
  for w in "$@"; do [[ "$w" == "$name" ]] && return 0; done
  return 1
}

# sha FILE: its sha256 in hex.
sha() { sha256sum "$1" | cut -d' ' -f1; }
