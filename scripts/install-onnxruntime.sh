#!/usr/bin/env bash
# Installs the ONNX Runtime shared library (>= 1.24, C API 24, as
# github.com/yalue/onnxruntime_go v1.27.0 needs) into third_party/onnxruntime/.
# It comes from the npm package onnxruntime-node, fetched with `npm pack`
# (never `npm install`: the package has a postinstall step that downloads).
# Idempotent: does nothing when the pinned library is already there.
set -euo pipefail
version="${ORT_VERSION:-1.24.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/third_party/onnxruntime"
lib="$dest/libonnxruntime.so"
stamp="$dest/VERSION"
if [[ -f "$lib" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
  echo "onnxruntime $version already installed: $lib"
  exit 0
fi
command -v npm >/dev/null || { echo "install-onnxruntime: npm is required (apt-get install npm)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tar -xzf "$tmp"/onnxruntime-node-"$version".tgz -C "$tmp" package/bin/napi-v6/linux/x64
mkdir -p "$dest"
src="$tmp/package/bin/napi-v6/linux/x64"
cp "$src"/libonnxruntime.so.1* "$dest"/
real="$(ls "$dest"/libonnxruntime.so.1* | head -n1)"
ln -sf "$(basename "$real")" "$lib"
echo "$version" > "$stamp.tmp" && mv "$stamp.tmp" "$stamp"
echo "onnxruntime $version installed: $lib"
