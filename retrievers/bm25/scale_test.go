package bm25

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv/beir"
)

// BenchmarkScaleBEIR is the bm25 package alone on a BEIR-layout dataset
// (scripts/bench-scale.sh's synthetic corpus, or any BEIR folder) named by
// $RAGBENCH_SCALE_DATA: the corpus is streamed from corpus.jsonl into Build
// (whole documents, title prepended, lucene-en, an on-disk index in a
// temporary folder as the sweep builds it), so no chunk text is held, then
// every judged query of queries.jsonl is searched for the top 100; the run is
// written to $RAGBENCH_SCALE_RUN when set. Metrics: index-s, search-s (wall
// seconds), index-peak-RSS-MB (VmHWM once built), peak-RSS-MB (VmHWM at
// the end), and the largest anonymous and file-backed resident memory
// sampled while indexing and while searching (index-anon-MB, index-file-MB,
// search-anon-MB, search-file-MB; see rssSampler). $RAGBENCH_SCALE_BATCH sets Options.BatchSize,
// $RAGBENCH_SCALE_INDEX a folder to keep the index in (a second run opens it
// instead of building, to profile the search alone), $RAGBENCH_SCALE_BLOCK
// the queries per Search call (default all of them in one call; bench run
// calls with kinds.SearchBlock = 256).
// Skipped without $RAGBENCH_SCALE_DATA.
//
//	RAGBENCH_SCALE_DATA=.bench-scale/data-1000000 GOMAXPROCS=1 \
//	  go test ./retrievers/bm25 -run '^$' -bench ScaleBEIR -benchtime 1x
func BenchmarkScaleBEIR(b *testing.B) {
	data := os.Getenv("RAGBENCH_SCALE_DATA")
	if data == "" {
		b.Skip("set RAGBENCH_SCALE_DATA to a BEIR folder (scripts/bench-scale.sh writes one)")
	}
	qrels, _, err := eval.ReadQrels(filepath.Join(data, "qrels", "test.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	queries := beir.Queries(b, filepath.Join(data, "queries.jsonl"), qrels)
	batch, _ := strconv.Atoi(os.Getenv("RAGBENCH_SCALE_BATCH")) // 0: the default
	block, _ := strconv.Atoi(os.Getenv("RAGBENCH_SCALE_BLOCK")) // 0: one call
	for b.Loop() {
		stopIndex := rssSampler()
		t0 := time.Now()
		dir := os.Getenv("RAGBENCH_SCALE_INDEX") // a kept index folder, to profile search alone
		if dir == "" {
			dir = b.TempDir()
		}
		r, err := Build(context.Background(), jsonlChunks(filepath.Join(data, "corpus.jsonl")),
			Options{Analyzer: AnalyzerLuceneEn, Dir: dir, BatchSize: batch})
		if err != nil {
			b.Fatal(err)
		}
		index := time.Since(t0)
		indexRSS := vmHWM()
		indexAnon, indexFile := stopIndex()
		stopSearch := rssSampler()
		t1 := time.Now()
		run := eval.Run{}
		for rest := queries; len(rest) > 0; {
			n := len(rest)
			if block > 0 {
				n = min(n, block)
			}
			part, err := r.Search(context.Background(), rest[:n], 100)
			if err != nil {
				b.Fatal(err)
			}
			maps.Copy(run, part)
			rest = rest[n:]
		}
		search := time.Since(t1)
		searchAnon, searchFile := stopSearch()
		r.Close()
		b.ReportMetric(index.Seconds(), "index-s")
		b.ReportMetric(search.Seconds(), "search-s")
		b.ReportMetric(indexRSS, "index-peak-RSS-MB")
		b.ReportMetric(indexAnon, "index-anon-MB")
		b.ReportMetric(indexFile, "index-file-MB")
		b.ReportMetric(searchAnon, "search-anon-MB")
		b.ReportMetric(searchFile, "search-file-MB")
		b.ReportMetric(vmHWM(), "peak-RSS-MB")
		if out := os.Getenv("RAGBENCH_SCALE_RUN"); out != "" {
			writeRun(b, out, run)
		}
	}
}

// jsonlChunks streams a BEIR corpus.jsonl as whole-document chunks with
// their titles, reopening the file at each range.
func jsonlChunks(path string) iter.Seq2[corpus.Chunk, error] {
	return func(yield func(corpus.Chunk, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(corpus.Chunk{}, err)
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for line := 1; sc.Scan(); line++ {
			var d struct {
				ID    string `json:"_id"`
				Title string `json:"title"`
				Text  string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				yield(corpus.Chunk{}, fmt.Errorf("%s:%d: %w", path, line, err))
				return
			}
			c := corpus.Chunk{ID: d.ID, DocID: d.ID, Title: d.Title, TitlePrepended: true, Text: d.Text, End: len(d.Text)}
			if !yield(c, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(corpus.Chunk{}, err)
		}
	}
}

func writeRun(t testing.TB, path string, run eval.Run) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	qids := make([]string, 0, len(run))
	for q := range run {
		qids = append(qids, q)
	}
	slices.Sort(qids)
	for _, q := range qids {
		for i, r := range run[q] {
			fmt.Fprintf(w, "%s Q0 %s %d %.17g ragbench\n", q, r.DocID, i+1, r.Score)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
