#!/usr/bin/env bash
# Makes ce-scifact-tiny-q, an int8 export of the cross-encoder
# ../shared/models/ce-scifact-tiny, with onnxruntime's own quantizer:
#
#   onnxruntime.quantization.quantize_dynamic(src, dst, weight_type=QInt8)
#
# into $RAGBENCH_MODELS_DIR/ce-scifact-tiny-q (default models/, git-ignored),
# beside the source's tokenizer.json and config.json. Optional: setup.sh does
# not run it and fp32 ce-scifact-tiny stays the configs' model. The int8
# graph is dynamically quantized, so the encoder runs it at batch 1; on
# SciFact test its interpolated rerank (BM25 top 100, 0.4·z(CE) + 0.6·z(BM25))
# scores nDCG@10 0.7467 against fp32's 0.7479, at 2.27× the pairs per
# CPU-second (docs/benchmarks/encoder.md, "int8 cross-encoder").
#
# The quantizer runs in a throw-away Python venv with pinned packages from
# PyPI (python3 -m venv, pip); the source and the result are checked against
# pinned sha256 hashes, so a different quantizer output is refused rather
# than used. Idempotent: an intact folder is left alone.
#
# Needs: python3 with venv, network access to PyPI, sha256sum.
# Environment: RAGBENCH_DATA_DIR (default ../shared beside the repository),
# RAGBENCH_MODELS_DIR, RAGBENCH_QUANT_VENV (reuse a venv instead of a
# temporary one).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${RAGBENCH_DATA_DIR:-$root/../shared}/models/ce-scifact-tiny"
dest="${RAGBENCH_MODELS_DIR:-$root/models}/ce-scifact-tiny-q"
src_sha="842e1cae331a83af41b72cd97305a913e443ab3f9f2cea2727524e198acd5cd1"
out_sha="4a12f98b13107e63ca040c1f98101603a0b73e6d13aae9193e2ba5d6c4eceeca"
pins=(onnxruntime==1.31.1 onnx==1.23.2 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.7.0)

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$dest/model.onnx" && "$(sha "$dest/model.onnx")" == "$out_sha" && -f "$dest/tokenizer.json" && -f "$dest/config.json" ]]; then
  echo "make-ce-int8: ce-scifact-tiny-q up to date ($dest)"
  exit 0
fi
for f in model.onnx tokenizer.json config.json; do
  [[ -f "$src/$f" ]] || { echo "make-ce-int8: $src/$f not found (set RAGBENCH_DATA_DIR to the data root)" >&2; exit 1; }
done
got="$(sha "$src/model.onnx")"
[[ "$got" == "$src_sha" ]] || { echo "make-ce-int8: $src/model.onnx has sha256 $got, want $src_sha" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
venv="${RAGBENCH_QUANT_VENV:-$work/venv}"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q "${pins[@]}"
mkdir -p "$(dirname "$dest")"
tmp="$(mktemp -d "$(dirname "$dest")/.make-ce-int8.XXXXXX")"
"$venv/bin/python" - "$src/model.onnx" "$tmp/model.onnx" <<'PY'
import sys
from onnxruntime.quantization import QuantType, quantize_dynamic
quantize_dynamic(sys.argv[1], sys.argv[2], weight_type=QuantType.QInt8)
PY
got="$(sha "$tmp/model.onnx")"
if [[ "$got" != "$out_sha" ]]; then
  echo "make-ce-int8: quantized model has sha256 $got, want $out_sha (other package versions?)" >&2
  rm -rf "$tmp"; exit 1
fi
cp "$src/tokenizer.json" "$src/config.json" "$tmp/"
chmod u+w "$tmp"/*
chmod 755 "$tmp"
{
  echo "int8 export of ce-scifact-tiny (sha256 $src_sha) made by scripts/make-ce-int8.sh:"
  echo "onnxruntime.quantization.quantize_dynamic(weight_type=QInt8) with ${pins[*]}"
  echo "model.onnx sha256 $out_sha"
} >"$tmp/SOURCE"
rm -rf "$dest.old"
[[ -e "$dest" ]] && mv "$dest" "$dest.old"
mv "$tmp" "$dest"
rm -rf "$dest.old"
echo "make-ce-int8: ce-scifact-tiny-q ready ($dest)"
