#!/usr/bin/env bash
# bench-scale.sh N — the BM25 scale benchmark of issue 27, side by side in one run:
#
#   1. a synthetic BEIR-layout corpus of N documents (cmd/synthcorpus: Zipf vocabulary, 40–160 words per
#      document, 1,000 queries of 3–6 words with one judged target each; seed 1), generated once and kept;
#   2. ragbench: `bench run` with one BM25 cell (chunking doc, k1 0.9, b 0.4, lucene-en, top 100), fresh cache;
#   3. ragbench's bm25 package alone (the Go benchmark BenchmarkScaleBEIR: the corpus streamed from the file
#      into bm25.Build, 1,000 queries), so the retriever's own memory shows apart from the sweep's;
#   4. Anserini 1.7.1 (Lucene; the fat jar inside PyPI's pyserini 1.6.0 sdist, fetched with pip into the
#      cache folder, never committed): IndexCollection (BeirFlatCollection) and SearchCollection as two processes;
#   5. BM25S (PyPI bm25s, from the test venv third_party/python; method "lucene", same k1 and b).
#
# Each tool runs under /usr/bin/time -v (peak RSS, CPU seconds); each run is scored by `bench eval` against the
# same qrels (nDCG@10, recall@100: trec_eval's ndcg_cut.10 and recall.100). The table goes to stdout and to
# $DIR/results-N-tT.md; the load average before and after each step is recorded beside it.
# For ragbench's `bench run` the script also samples /proc/PID/status every 0.5 s and reports the peak RssAnon
# (anonymous memory: the Go heap and stacks) and the peak RssFile (file-backed pages mapped by the process: the
# corpus texts' spill file, bleve's memory-mapped segments) beside /usr/bin/time's peak RSS; each is its own
# maximum over the samples (they need not peak at the same moment, so they may sum to more than the peak RSS),
# and a peak shorter than the sampling interval can be missed. Other tools show "—" there.
#
# Usage: scripts/bench-scale.sh N [--threads T] [--only ragbench,bm25pkg,anserini,bm25s]
#   --threads T   threads for every tool (GOMAXPROCS for ragbench, -threads for Anserini, n_threads for BM25S);
#                 default 1 (the issue's acceptance is measured at one thread)
#   --only LIST   run only these parts (default: all present; Anserini needs Java 21+ and pip, BM25S the venv)
# Environment: BENCH_SCALE_DIR (cache folder, default .bench-scale in the repository, git-ignored),
#   JAVA (a java ≥ 21; default $JAVA_HOME/bin/java, else /usr/lib/jvm/temurin-25-jdk-amd64/bin/java, else java),
#   PYTHON (default third_party/python/bin/python). Heavy: run it on a quiet machine, e.g. `nice` off.
# Example: scripts/bench-scale.sh 100000; scripts/bench-scale.sh 1000000 --only ragbench,anserini
set -euo pipefail

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage 0 ;; esac
N=$1; shift
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "bench-scale: N must be a positive integer, got '$N'" >&2; exit 2; }
THREADS=1
ONLY=ragbench,bm25pkg,anserini,bm25s
while [ $# -gt 0 ]; do
	case "$1" in
	--threads) THREADS=${2:?--threads needs a value}; shift 2 ;;
	--only) ONLY=${2:?--only needs a list}; shift 2 ;;
	-h|--help) usage ;;
	*) echo "bench-scale: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
want() { [[ ",$ONLY," == *",$1,"* ]]; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${BENCH_SCALE_DIR:-$ROOT/.bench-scale}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
PY=${PYTHON:-$ROOT/third_party/python/bin/python}
DATA=$DIR/data-$N
WORK=$DIR/run-$N-t$THREADS
rm -rf "$WORK"
mkdir -p "$WORK"
OUT=$DIR/results-$N-t$THREADS.md
TIMEV=/usr/bin/time
[ -x "$TIMEV" ] || { echo "bench-scale: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }

log() { echo "bench-scale: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# field FILE NAME: a value of /usr/bin/time -v's report.
field() { grep -F "$2" "$1" | head -1 | sed 's/.*: //'; }
secs() { # h:mm:ss or m:ss.ss → seconds
	awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }' <<<"$1"
}
cpu() { awk -v u="$(field "$1" 'User time')" -v s="$(field "$1" 'System time')" 'BEGIN { printf "%.1f", u + s }'; }
rss() { awk -v k="$(field "$1" 'Maximum resident set size')" 'BEGIN { printf "%.2f", k / 1048576 }'; }
# sample_rss PID OUT: every 0.5 s while PID runs, the largest RssAnon and RssFile of the process PID started
# (PID is /usr/bin/time; its child is the measured program), written to OUT as "anon_GiB file_GiB" at the end.
sample_rss() {
	local pid=$1 out=$2 child="" a=0 f=0 st
	while kill -0 "$pid" 2>/dev/null; do
		[ -n "$child" ] || child=$(pgrep -P "$pid" | head -1 || true)
		if [ -n "$child" ] && st=$(cat "/proc/$child/status" 2>/dev/null); then
			read -r a f < <(awk -v a="$a" -v f="$f" '$1 == "RssAnon:" && $2 > a { a = $2 } $1 == "RssFile:" && $2 > f { f = $2 }
				END { print a, f }' <<<"$st")
		fi
		sleep 0.5
	done
	awk -v a="$a" -v f="$f" 'BEGIN { printf "%.2f %.2f\n", a / 1048576, f / 1048576 }' >"$out"
}
score() { # score RUN → "ndcg recall"
	"$ROOT/bin/bench" eval --format csv -m ndcg_cut.10 -m recall.100 "$DATA/qrels/test.tsv" "$1" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "all" { printf "%.4f %.4f\n", $c["ndcg_cut_10"], $c["recall_100"] }'
}

log "building bin/bench and bin/synthcorpus"
(cd "$ROOT" && go build -buildvcs=auto -o bin/bench ./cmd/bench && go build -o bin/synthcorpus ./cmd/synthcorpus)

if [ ! -f "$DATA/.complete" ]; then
	log "generating $N documents into $DATA"
	rm -rf "$DATA"
	"$ROOT/bin/synthcorpus" -docs "$N" -out "$DATA"
	touch "$DATA/.complete"
fi

ROWS=()   # "tool|index s|query s|index process wall s|peak RSS GiB|peak RssAnon GiB|peak RssFile GiB|CPU s|nDCG@10|recall@100|load"
NOTES=()

if want ragbench; then
	log "ragbench: bench run (GOMAXPROCS=$THREADS), load $(load)"
	l0=$(load)
	cat >"$WORK/scale.yaml" <<EOF
name: scale-$N
dataset:
  beir: $DATA
  split: test
  title: true
chunking:
  - strategy: doc
retrievers:
  - name: bm25
    type: bm25
    k1: 0.9
    b: 0.4
    analyzer: lucene-en
k: [10, 100]
metrics: [ndcg, recall]
prompt_k: 10
EOF
	GOMAXPROCS=$THREADS "$TIMEV" -v "$ROOT/bin/bench" run --no-history --progress plain \
		--cache-dir "$WORK/ragbench-cache" --output "$WORK/ragbench-out" "$WORK/scale.yaml" \
		>"$WORK/ragbench.log" 2>"$WORK/ragbench.time" &
	tpid=$!
	sample_rss "$tpid" "$WORK/ragbench.rss" &
	spid=$!
	wait "$tpid" || { wait "$spid"; tail -20 "$WORK/ragbench.time" >&2; exit 1; }
	wait "$spid"
	read -r anon file <"$WORK/ragbench.rss"
	read -r build search < <("$PY" -c '
import json, sys
t = json.load(open(sys.argv[1]))["timings"][0]
print("%.1f %.1f" % (t["build_s"], t["search_s"]))' "$WORK/ragbench-out/results.json")
	wall=$(secs "$(field "$WORK/ragbench.time" 'Elapsed (wall clock)')")
	read -r nd rc < <(score "$WORK/ragbench-out/runs/doc__bm25.trec")
	ROWS+=("ragbench \`bench run\`|$build|$search|$wall (whole run)|$(rss "$WORK/ragbench.time")|$anon|$file|$(cpu "$WORK/ragbench.time")|$nd|$rc|$l0 → $(load)")
fi

if want bm25pkg; then
	log "ragbench bm25 package alone (BenchmarkScaleBEIR, GOMAXPROCS=$THREADS), load $(load)"
	l0=$(load)
	(cd "$ROOT" && go test -c -o "$WORK/bm25.test" ./retrievers/bm25)
	RAGBENCH_SCALE_DATA=$DATA RAGBENCH_SCALE_RUN=$WORK/bm25pkg.trec GOMAXPROCS=$THREADS "$TIMEV" -v \
		"$WORK/bm25.test" -test.run '^$' -test.bench '^BenchmarkScaleBEIR$' -test.benchtime 1x \
		>"$WORK/bm25pkg.log" 2>"$WORK/bm25pkg.time" || { cat "$WORK/bm25pkg.log" "$WORK/bm25pkg.time" >&2; exit 1; }
	line=$(grep BenchmarkScaleBEIR "$WORK/bm25pkg.log" | tail -1)
	build=$(awk '{ for (i = 1; i < NF; i++) if ($(i+1) == "index-s") print $i }' <<<"$line")
	search=$(awk '{ for (i = 1; i < NF; i++) if ($(i+1) == "search-s") print $i }' <<<"$line")
	wall=$(secs "$(field "$WORK/bm25pkg.time" 'Elapsed (wall clock)')")
	read -r nd rc < <(score "$WORK/bm25pkg.trec")
	ROWS+=("ragbench bm25 package|$build|$search|$wall (whole test)|$(rss "$WORK/bm25pkg.time")|—|—|$(cpu "$WORK/bm25pkg.time")|$nd|$rc|$l0 → $(load)")
fi

# java ≥ 21 or nothing.
find_java() {
	for j in "${JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/temurin-25-jdk-amd64/bin/java "$(command -v java || true)"; do
		if [ -z "$j" ] || [ ! -x "$j" ]; then continue; fi
		v=$("$j" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
		[ "${v:-0}" -ge 21 ] && { echo "$j"; return; }
	done
}

if want anserini; then
	JAVA_BIN=$(find_java)
	JAR=$DIR/anserini/anserini-1.7.1-fatjar.jar
	if [ -n "$JAVA_BIN" ] && [ ! -f "$JAR" ]; then
		log "fetching Anserini's fat jar from PyPI's pyserini 1.6.0 sdist into $DIR/anserini"
		mkdir -p "$DIR/anserini"
		if "$PY" -m pip download 'pyserini==1.6.0' --no-deps --no-binary :all: -d "$DIR/anserini" >"$DIR/anserini/pip.log" 2>&1; then
			tar xzf "$DIR/anserini/pyserini-1.6.0.tar.gz" -C "$DIR/anserini" --strip-components=4 \
				pyserini-1.6.0/pyserini/resources/jars/anserini-1.7.1-fatjar.jar
		fi
	fi
	if [ -z "$JAVA_BIN" ] || [ ! -f "$JAR" ]; then
		NOTES+=("Anserini skipped: $([ -z "$JAVA_BIN" ] && echo 'no Java 21+' || echo "no $JAR (see $DIR/anserini/pip.log)")")
	else
		log "Anserini: IndexCollection -threads $THREADS, load $(load)"
		l0=$(load)
		mkdir -p "$WORK/anserini-in"
		ln -s "$DATA/corpus.jsonl" "$WORK/anserini-in/corpus.jsonl"
		"$PY" -c '
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        q = json.loads(line); o.write(q["_id"] + "\t" + q["text"] + "\n")' "$DATA/queries.jsonl" "$WORK/queries.tsv"
		"$TIMEV" -v "$JAVA_BIN" -cp "$JAR" io.anserini.index.IndexCollection -collection BeirFlatCollection \
			-input "$WORK/anserini-in" -index "$WORK/anserini-index" -generator DefaultLuceneDocumentGenerator \
			-threads "$THREADS" >"$WORK/anserini-index.log" 2>"$WORK/anserini-index.time"
		log "Anserini: SearchCollection -threads $THREADS, load $(load)"
		"$TIMEV" -v "$JAVA_BIN" -cp "$JAR" io.anserini.search.SearchCollection -index "$WORK/anserini-index" \
			-topics "$WORK/queries.tsv" -topicReader TsvString -output "$WORK/anserini.trec" \
			-bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 100 -threads "$THREADS" \
			>"$WORK/anserini-search.log" 2>"$WORK/anserini-search.time"
		iw=$(secs "$(field "$WORK/anserini-index.time" 'Elapsed (wall clock)')")
		sw=$(secs "$(field "$WORK/anserini-search.time" 'Elapsed (wall clock)')")
		ir=$(rss "$WORK/anserini-index.time")
		sr=$(rss "$WORK/anserini-search.time")
		ic=$(cpu "$WORK/anserini-index.time")
		sc=$(cpu "$WORK/anserini-search.time")
		read -r nd rc < <(score "$WORK/anserini.trec")
		ROWS+=("Anserini 1.7.1 (two JVM processes)|$iw|$sw|$iw|$ir / $sr|—|—|$ic / $sc|$nd|$rc|$l0 → $(load)")
	fi
fi

if want bm25s; then
	if ! "$PY" -c 'import bm25s' 2>/dev/null; then
		NOTES+=("BM25S skipped: no bm25s in $PY (scripts/setup-python.sh)")
	else
		log "BM25S (n_threads=$THREADS), load $(load)"
		l0=$(load)
		"$TIMEV" -v "$PY" - "$DATA" "$WORK/bm25s.trec" "$THREADS" >"$WORK/bm25s.log" 2>"$WORK/bm25s.time" <<'PYEOF'
import json, sys, time
import bm25s
data, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
ids, texts = [], []
with open(data + "/corpus.jsonl") as f:
    for line in f:
        d = json.loads(line)
        ids.append(d["_id"]); texts.append((d.get("title") or "") + " " + d["text"])
t1 = time.perf_counter()
retriever = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
del texts
t2 = time.perf_counter()
qids, qtexts = [], []
with open(data + "/queries.jsonl") as f:
    for line in f:
        q = json.loads(line); qids.append(q["_id"]); qtexts.append(q["text"])
t3 = time.perf_counter()
docs, scores = retriever.retrieve(bm25s.tokenize(qtexts, stopwords="en", show_progress=False), k=100,
                                  n_threads=threads, show_progress=False)
t4 = time.perf_counter()
with open(out, "w") as o:
    for qi, qid in enumerate(qids):
        for r in range(docs.shape[1]):
            o.write(f"{qid} Q0 {ids[docs[qi, r]]} {r + 1} {scores[qi, r]:.6f} bm25s\n")
print(f"read {t1 - t0:.2f} index {t2 - t1:.2f} query {t4 - t3:.2f}")
PYEOF
		read -r _ rd _ ix _ qy <"$WORK/bm25s.log"
		wall=$(secs "$(field "$WORK/bm25s.time" 'Elapsed (wall clock)')")
		read -r nd rc < <(score "$WORK/bm25s.trec")
		ROWS+=("BM25S $("$PY" -c 'import bm25s; print(bm25s.__version__)') (corpus read: ${rd} s)|$ix|$qy|$wall (whole process)|$(rss "$WORK/bm25s.time")|—|—|$(cpu "$WORK/bm25s.time")|$nd|$rc|$l0 → $(load)")
	fi
fi

{
	echo "### $N documents, $THREADS thread(s), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load before/after each tool"
	echo
	echo "| tool | index s | 1,000 queries s | whole process s | peak RSS GiB | peak RssAnon GiB | peak RssFile GiB | CPU s | nDCG@10 | recall@100 | load (1/5/15 min) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	for r in "${ROWS[@]}"; do echo "| ${r//|/ | } |"; done
	echo
	echo "Index and query times: ragbench's own (results.json build_s, search_s; the benchmark's index-s, search-s),"
	echo "Anserini's whole JVM processes (IndexCollection, SearchCollection; RSS and CPU: index / search),"
	echo "BM25S's in-process timers (tokenize + index, tokenize + retrieve). Scores: \`bench eval\` on each run."
	echo "Whole process: ragbench's \`bench run\` from start to exit (loading, chunking, index, queries and scoring, which"
	echo "includes judged coverage's holes; results.json's timings has each step); memory in GiB (2^30 bytes)."
	for n in "${NOTES[@]+"${NOTES[@]}"}"; do echo "- $n"; done
} | tee "$OUT"
log "table written to $OUT; logs in $WORK"
