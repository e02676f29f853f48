#!/usr/bin/env bash
# Fetches Elasticsearch and OpenSearch (with its k-NN plugin) from Maven
# Central and unpacks them into the engines folder `scripts/engines/ctl.sh dir`
# prints ($RAGBENCH_ENGINES_DIR, else third_party/engines/ in the repository,
# git-ignored, or /var/tmp/ragbench-engines as root when other users cannot
# reach the repository):
#
#   elasticsearch-8.19.21/   org.elasticsearch.distribution.integ-test-zip:elasticsearch:8.19.21:zip
#   opensearch-3.5.0/        org.opensearch.distribution.integ-test-zip:opensearch:3.5.0:zip
#                            + org.opensearch.plugin:opensearch-knn:3.5.0.0:zip (bin/opensearch-plugin)
#
# Versions and sha256 hashes are pinned (checked 2026-12-01); a zip whose hash
# differs is rejected. Idempotent: an engine folder holding a SOURCE file with
# the pinned hashes is left alone. Nothing is downloaded at run time; the
# engines are started by scripts/engines/ctl.sh, on 127.0.0.1 only.
#
# The Elasticsearch integ-test zip has no analysis-common module (no
# "english" analyzer, no stemmer): fetch.sh compiles and installs a one-class
# stable plugin, scripts/engines/lucene-english/, that offers Lucene's
# EnglishAnalyzer (the analysis of Elasticsearch's "english" and of
# Pyserini's indexes) as the analyzer "lucene_english", built with the JDK
# from the zip's own lib/ jars (nothing downloaded).
#
# The k-NN plugin zip carries no native libraries: knn_vector mappings must
# say "engine": "lucene" (faiss, or no engine, kills the node on the first
# document). The integ-test zips hold no X-Pack security (Elasticsearch) and
# no security plugin (OpenSearch).
#
# Needs: mvn, unzip, sha256sum, a JDK (ctl.sh picks it). Usage:
#   scripts/engines/fetch.sh [elasticsearch|opensearch]...
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$("$root/scripts/engines/ctl.sh" dir)"
dep_plugin="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

# name | folder | maven artifact | sha256
zips=(
  "elasticsearch|elasticsearch-8.19.21|org.elasticsearch.distribution.integ-test-zip:elasticsearch:8.19.21:zip|215d5f3dbf0609a149f6218a9e47b6ae2df34ebbff3c5754e35f15a5e5393c8a"
  "opensearch|opensearch-3.5.0|org.opensearch.distribution.integ-test-zip:opensearch:3.5.0:zip|b676ad392c95a94d8d2bd8785b8b922c7811536daf6a9ec0c7277a34bd8a17a9"
)
knn_artifact="org.opensearch.plugin:opensearch-knn:3.5.0.0:zip"
knn_sha="99fdf3ac9ef95974e276298b83a58532bf21ba13bd5fd96a4b59465b7e613309"

# shellcheck source=scripts/fetch-lib.sh
source "$root/scripts/fetch-lib.sh"
require_tools engines/fetch mvn unzip sha256sum

want=("$@")

# fetch ARTIFACT SHA DIR: copies the artifact into DIR and checks its hash;
# prints the file's path.
fetch() {
  local artifact="$1" want_sha="$2" dir="$3" f got
  if ! mvn -q -B "$dep_plugin:copy" -Dartifact="$artifact" -DoutputDirectory="$dir" >"$dir/mvn.log" 2>&1; then
    echo "engines/fetch: mvn could not fetch $artifact:" >&2
    grep -m3 ERROR "$dir/mvn.log" >&2 || tail -n3 "$dir/mvn.log" >&2
    return 1
  fi
  f="$(ls "$dir"/*.zip)"
  got="$(sha "$f")"
  if [[ "$got" != "$want_sha" ]]; then
    echo "engines/fetch: $artifact: sha256 $got, want $want_sha" >&2
    return 1
  fi
  echo "$f"
}

failed=0
mkdir -p "$dest"
for entry in "${zips[@]}"; do
  IFS='|' read -r name folder artifact zip_sha <<<"$entry"
  selected "$name" "${want[@]}" || continue
  dir="$dest/$folder"
  source_line="artifact: $artifact sha256 $zip_sha"
  if [[ -f "$dir/SOURCE" ]] && grep -qxF "$source_line" "$dir/SOURCE"; then
    echo "engines/fetch: $name up to date ($dir)"
    continue
  fi
  tmp="$(mktemp -d "$dest/.fetch-$name.XXXXXX")"
  echo "engines/fetch: $name <- $artifact"
  mkdir -p "$tmp/zip" "$tmp/out"
  if ! zip="$(fetch "$artifact" "$zip_sha" "$tmp/zip")" || ! unzip -q "$zip" -d "$tmp/out"; then
    rm -rf "$tmp"; failed=1; continue
  fi
  top="$(ls "$tmp/out")"
  if [[ "$(echo "$top" | wc -l)" -ne 1 || ! -x "$tmp/out/$top/bin/$name" ]]; then
    echo "engines/fetch: $name: unexpected zip layout: $top" >&2
    rm -rf "$tmp"; failed=1; continue
  fi
  home="$tmp/out/$top"
  echo "$source_line" >"$home/SOURCE"
  if [[ "$name" == elasticsearch ]]; then
    j="$("$root/scripts/engines/ctl.sh" java elasticsearch)"
    src="$root/scripts/engines/lucene-english"
    mkdir -p "$tmp/plugin/classes" "$tmp/plugin/zip"
    cp=""
    for jar in elasticsearch-plugin-api elasticsearch-plugin-analysis-api lucene-core lucene-analysis-common; do
      cp+="${cp:+:}$(ls "$home"/lib/"$jar"-[0-9]*.jar)"
    done
    if ! "$j/bin/javac" --release 17 -cp "$cp" -d "$tmp/plugin/classes" "$src"/src/ragbench/*.java >"$tmp/plugin.log" 2>&1 ||
       ! "$j/bin/jar" cf "$tmp/plugin/zip/lucene-english.jar" -C "$tmp/plugin/classes" . ||
       ! cp "$src/stable-plugin-descriptor.properties" "$src/named_components.json" "$tmp/plugin/zip/" ||
       ! (cd "$tmp/plugin/zip" && "$j/bin/jar" cfM ../lucene-english.zip .) ||
       ! JAVA_HOME="$j" ES_JAVA_HOME="$j" "$home/bin/elasticsearch-plugin" install --batch "file://$tmp/plugin/lucene-english.zip" >>"$tmp/plugin.log" 2>&1; then
      echo "engines/fetch: building or installing the lucene-english plugin failed:" >&2
      tail -n5 "$tmp/plugin.log" >&2
      rm -rf "$tmp"; failed=1; continue
    fi
    echo "plugin: lucene-english (scripts/engines/lucene-english, analyzer lucene_english)" >>"$home/SOURCE"
  fi
  if [[ "$name" == opensearch ]]; then
    mkdir -p "$tmp/knn"
    if ! knn="$(fetch "$knn_artifact" "$knn_sha" "$tmp/knn")"; then
      rm -rf "$tmp"; failed=1; continue
    fi
    # opensearch-plugin needs a JDK; it only unpacks and checks the zip.
    if ! JAVA_HOME="$("$root/scripts/engines/ctl.sh" java opensearch)" \
        OPENSEARCH_JAVA_HOME="$("$root/scripts/engines/ctl.sh" java opensearch)" \
        "$home/bin/opensearch-plugin" install --batch "file://$knn" >"$tmp/plugin.log" 2>&1; then
      echo "engines/fetch: opensearch-plugin install $knn failed:" >&2
      tail -n5 "$tmp/plugin.log" >&2
      rm -rf "$tmp"; failed=1; continue
    fi
    echo "plugin: $knn_artifact sha256 $knn_sha" >>"$home/SOURCE"
  fi
  rm -rf "$dir"
  mv "$home" "$dir"
  rm -rf "$tmp"
  echo "engines/fetch: $name ready ($dir)"
done
exit "$failed"
