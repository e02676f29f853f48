#!/usr/bin/env bash
# Installs the ONNX Runtime shared library (>= 1.24, C API 24, as
# github.com/yalue/onnxruntime_go v1.27.0 needs) into third_party/onnxruntime/.
# It comes from the npm package onnxruntime-node, fetched with `npm pack`
# (never `npm install`: the package has a postinstall step that downloads).
# The pinned version's library is checked against its sha256.
# Idempotent: does nothing when the pinned library is already there intact.
set -euo pipefail
version="${ORT_VERSION:-1.24.3}"
# sha256 of package/bin/napi-v6/linux/x64/libonnxruntime.so.1 in
# onnxruntime-node@1.24.3 (linux x64); other versions are not checked.
pinned_version="1.24.3"
pinned_sha="92ba8e44d31b80a34f5e805076a044122c3be1fffe0d88ed790de7267b0b2682"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/third_party/onnxruntime"
lib="$dest/libonnxruntime.so"
stamp="$dest/VERSION"

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  echo "install-onnxruntime: this script installs the linux x64 library; on $(uname -s)/$(uname -m) install ONNX Runtime >= 1.24 yourself and set ONNXRUNTIME_LIB" >&2
  exit 1
fi

intact() {
  [[ -f "$lib" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]] || return 1
  [[ "$version" != "$pinned_version" ]] && return 0
  [[ "$(sha256sum "$(readlink -f "$lib")" | cut -d' ' -f1)" == "$pinned_sha" ]]
}

if intact; then
  echo "onnxruntime $version already installed: $lib"
  exit 0
fi
command -v npm >/dev/null || { echo "install-onnxruntime: npm is required (apt-get install npm)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tar -xzf "$tmp"/onnxruntime-node-"$version".tgz -C "$tmp" package/bin/napi-v6/linux/x64
src="$tmp/package/bin/napi-v6/linux/x64"
libs=("$src"/libonnxruntime.so.1*)
real="$(basename "${libs[0]}")"
if [[ "$version" == "$pinned_version" ]]; then
  got="$(sha256sum "$src/$real" | cut -d' ' -f1)"
  if [[ "$got" != "$pinned_sha" ]]; then
    echo "install-onnxruntime: $real from onnxruntime-node@$version has sha256 $got, want $pinned_sha" >&2
    exit 1
  fi
fi
mkdir -p "$dest"
# Copy under a temporary name, then rename: a concurrent reader never sees
# a partial library.
cp "$src/$real" "$dest/.$real.tmp" && mv -f "$dest/.$real.tmp" "$dest/$real"
ln -sfn "$real" "$lib.tmp" && mv -fT "$lib.tmp" "$lib"
echo "$version" > "$stamp.tmp" && mv "$stamp.tmp" "$stamp"
echo "onnxruntime $version installed: $lib"
