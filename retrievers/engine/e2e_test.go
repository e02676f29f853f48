//go:build e2e

package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// References, both independent of ragbench:
//   - Pyserini's BEIR flat index of SciFact (title + text in one field, Lucene's
//     English analyzer, BM25 k1 0.9, b 0.4): nDCG@10 0.6789
//     (../shared/datasets/README.md). Elasticsearch and OpenSearch are Lucene:
//     the issue asks for 0.002.
//   - MTEB's all-MiniLM-L6-v2 on SciFact: nDCG@10 0.6451 (exact search, as
//     ragbench's built-in dense retriever reproduces); HNSW with
//     num_candidates 400 must stay within 0.005 (100 is logged).
const (
	pyseriniBM25 = 0.6789
	mtebMiniLM   = 0.6451
)

var sciBM25 = engine.Managed{Analyzer: "english", BM25: &engine.BM25{K1: 0.9, B: 0.4}}

// englishAnalyzer returns the cluster's analyzer for Lucene's English
// analysis: "english" when it has one (OpenSearch's integ-test zip, every
// real distribution), else "lucene_english" from scripts/engines/lucene-english
// (the Elasticsearch integ-test zip on Maven Central lacks the
// analysis-common module that defines "english"), else "".
func englishAnalyzer(t *testing.T, url string) string {
	for _, a := range []string{"english", "lucene_english"} {
		resp, err := http.Post(url+"/_analyze", "application/json", strings.NewReader(`{"analyzer":"`+a+`","text":"running"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return a
		}
	}
	return ""
}

func TestE2EElasticsearch(t *testing.T) { suite(t, engine.Elasticsearch) }
func TestE2EOpenSearch(t *testing.T)    { suite(t, engine.OpenSearch) }

// suite runs every end-to-end check against one engine: a single node
// first, then a two-node cluster.
func suite(t *testing.T, d engine.Dialect) {
	sf := loadSciFact(t)
	ctx := context.Background()
	var single float64 // BM25 nDCG@10 on the single node
	var bm25Run eval.Run
	sciBM25 := sciBM25
	const bm25Ref = pyseriniBM25
	t.Run("single", func(t *testing.T) {
		c := start(t, d, "single", 9200, "")
		sciBM25.Analyzer = englishAnalyzer(t, c.urls[0])
		if sciBM25.Analyzer == "" {
			t.Fatalf("%s has neither english nor lucene_english (scripts/engines/fetch.sh installs the latter)", d)
		}
		t.Logf("analyzer %s", sciBM25.Analyzer)
		ix, err := engine.Load(ctx, c.conn(), d, sf.chunks, nil, sciBM25)
		if err != nil {
			t.Fatal(err)
		}
		logLoad(t, d, ix, "text only")
		bm25Run, single = check(t, ix, engine.QueryOptions{Kind: engine.KindBM25}, "bm25", bm25Ref, 0.002)
		t.Run("reuse", func(t *testing.T) {
			again, err := engine.Load(ctx, c.conn(), d, sf.chunks, nil, sciBM25)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Reused() || again.Name() != ix.Name() {
				t.Fatalf("second Load: reused %v, name %s; want the index %s reused", again.Reused(), again.Name(), ix.Name())
			}
			t.Logf("reused in %v", again.Build().Round(time.Millisecond))
		})
		t.Run("existing", func(t *testing.T) { testExisting(t, c, sf, sciBM25.Analyzer, bm25Run) })
		t.Run("faults", func(t *testing.T) { testFaults(t, c, sf) })
		t.Run("vectors", func(t *testing.T) {
			vecs := vectors(t)
			ix, err := engine.Load(ctx, c.conn(), d, sf.chunks, vecs, sciBM25)
			if err != nil {
				t.Fatal(err)
			}
			logLoad(t, d, ix, "text + 384-d vectors")
			check(t, ix, engine.QueryOptions{Kind: engine.KindBM25}, "bm25 (vector index)", bm25Ref, 0.002)
			// num_candidates 100 is logged only: the HNSW graph a
			// concurrent bulk load builds differs from run to run, and at
			// 100 it gave 0.6417–0.6451 (0.0034 from the bound's edge); at
			// 400 (still "≥ 100", the condition) search is closer
			// to exact, so the asserted check is not a coin toss in CI.
			check(t, ix, engine.QueryOptions{Kind: engine.KindKNN, NumCandidates: 100, Embed: sf.embed}, "knn nc=100", 0, 0)
			check(t, ix, engine.QueryOptions{Kind: engine.KindKNN, NumCandidates: 400, Embed: sf.embed}, "knn nc=400", mtebMiniLM, 0.005)
			check(t, ix, engine.QueryOptions{Kind: engine.KindHybrid, BM25Boost: 0.1, KNNBoost: 1, Embed: sf.embed}, "hybrid 0.1·bm25 + knn", 0, 0)
		})
	})
	t.Run("cluster", func(t *testing.T) {
		c := start(t, d, "cluster", 9200, "")
		if sciBM25.Analyzer = englishAnalyzer(t, c.urls[0]); sciBM25.Analyzer == "" {
			t.Fatalf("%s has neither english nor lucene_english", d)
		}
		opts := sciBM25
		opts.Shards, opts.Replicas = 2, 1
		ix, err := engine.Load(ctx, c.conn(), d, sf.chunks, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		waitGreen(t, c)
		_, two := check(t, ix, engine.QueryOptions{Kind: engine.KindBM25}, "bm25 2 shards × 1 replica, dfs", bm25Ref, 0.002)
		if single == 0 {
			t.Log("no single-node nDCG@10 to compare with (subtest single not run or failed)")
		} else if fmt.Sprintf("%.4f", two) != fmt.Sprintf("%.4f", single) {
			t.Errorf("two-node nDCG@10 with dfs %.4f, single node %.4f: want equal to 4 decimals", two, single)
		}
		check(t, ix, engine.QueryOptions{Kind: engine.KindBM25, NoDFS: true}, "bm25 2 shards, per-shard statistics (no dfs)", 0, 0)
		t.Run("node-down", func(t *testing.T) { testNodeDown(t, c, ix, sf, two) })
	})
}

func logLoad(t *testing.T, d engine.Dialect, ix *engine.Index, what string) {
	t.Logf("%s: index %s (%s): %d docs loaded in %v (%.0f docs/s), %.1f MB", d, ix.Name(), what, ix.Docs(),
		ix.Build().Round(time.Millisecond), float64(ix.Docs())/ix.Build().Seconds(), float64(ix.Bytes())/1e6)
}

// check searches SciFact test (k = 100) with q on ix, logs nDCG@10, R@100,
// MRR@10 and latencies, and, when ref > 0, asserts nDCG@10 within tol of
// ref. It returns the run and its nDCG@10.
func check(t *testing.T, ix *engine.Index, q engine.QueryOptions, name string, ref, tol float64) (eval.Run, float64) {
	t.Helper()
	sf := sci
	r, err := ix.Retriever(q)
	if err != nil {
		t.Fatal(err)
	}
	run, el := beir.TimedSearch(t, context.Background(), r, sf.queries, 100)
	ev := beir.Evaluate(t, sf.qrels, run)
	ndcg := beir.Mean(t, ev, "ndcg_cut_10")
	st := r.Stats()
	t.Logf("%s: %s; %d queries in %v (%.1f q/s), latency p50 %v p95 %v", name, beir.Summary(t, ev), len(sf.queries),
		el.Round(time.Millisecond), float64(len(sf.queries))/el.Seconds(), st.LatencyP50.Round(time.Microsecond), st.LatencyP95.Round(time.Microsecond))
	// kNN always finds 100 neighbours; a match query can match fewer
	// documents (SciFact query 768 matches 66).
	for _, qq := range sf.queries {
		if n := len(run[qq.ID]); n > 100 || (q.Kind != engine.KindBM25 && n != 100) {
			t.Errorf("%s: query %s: %d results, want 100", name, qq.ID, n)
			break
		}
	}
	if ref > 0 && math.Abs(ndcg-ref) > tol {
		t.Errorf("%s: nDCG@10 %.4f, want %.4f ± %.3f", name, ndcg, ref, tol)
	}
	return run, ndcg
}

// waitGreen waits until every replica is allocated.
func waitGreen(t *testing.T, c *cluster) {
	t.Helper()
	resp, err := http.Get(c.urls[0] + "/_cluster/health?wait_for_status=green&timeout=120s")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Status string }
	json.NewDecoder(resp.Body).Decode(&h)
	if h.Status != "green" {
		t.Fatalf("cluster %s after 120 s, want green", h.Status)
	}
}

// plainBulk creates index name with its own mapping (not Load's) and bulk
// loads the chunks with doc_id and body fields, over plain HTTP: the
// "existing index" a team would have.
func plainBulk(t *testing.T, url, name string, mapping string, sf *sciFact, withID bool) {
	t.Helper()
	req := func(method, path, ctype string, body []byte) []byte {
		r, _ := http.NewRequest(method, url+path, bytes.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		if resp.StatusCode >= 300 || bytes.Contains(b.Bytes(), []byte(`"errors":true`)) {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b.String()[:min(b.Len(), 500)])
		}
		return b.Bytes()
	}
	req(http.MethodPut, "/"+name, "application/json", []byte(mapping))
	var buf bytes.Buffer
	for i, c := range sf.chunks {
		fmt.Fprintf(&buf, `{"index":{"_index":%q}}`+"\n", name)
		doc := map[string]any{"body": c.IndexText()}
		if withID {
			doc["doc_id"] = c.ID
		}
		b, _ := json.Marshal(doc)
		buf.Write(b)
		buf.WriteByte('\n')
		if (i+1)%1000 == 0 || i == len(sf.chunks)-1 {
			req(http.MethodPost, "/_bulk", "application/x-ndjson", buf.Bytes())
			buf.Reset()
		}
	}
	req(http.MethodPost, "/"+name+"/_refresh", "application/json", nil)
}

// testExisting: an index made by other means (its own mapping and field
// names, auto-generated _ids), searched through a query template and the
// doc_id field, gives the managed BM25 run for the same query.
func testExisting(t *testing.T, c *cluster, sf *sciFact, analyzer string, managed eval.Run) {
	mapping := `{"settings":{"index":{"number_of_shards":1,"number_of_replicas":0,
	  "similarity":{"pyserini":{"type":"BM25","k1":0.9,"b":0.4}}}},
	  "mappings":{"properties":{"doc_id":{"type":"keyword"},"body":{"type":"text","analyzer":"` + analyzer + `","similarity":"pyserini"}}}}`
	plainBulk(t, c.urls[0], "team-scifact", mapping, sf, true)
	r, err := engine.Open(context.Background(), c.conn(), c.dialect, engine.Existing{
		Index: "team-scifact", IDField: "doc_id", Template: `{"query": {"match": {"body": "{{query}}"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Search(context.Background(), sf.queries, 100)
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for _, q := range sf.queries {
		a, b := managed[q.ID], run[q.ID]
		if len(a) != len(b) {
			t.Fatalf("query %s: %d results in existing-index mode, %d managed", q.ID, len(b), len(a))
		}
		for i := range a {
			if a[i].DocID != b[i].DocID || math.Abs(a[i].Score-b[i].Score) > 1e-4 {
				diff++
				if diff <= 3 {
					t.Errorf("query %s rank %d: existing %v, managed %v", q.ID, i+1, b[i], a[i])
				}
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d results differ between existing-index and managed mode", diff)
	}
	ev := beir.Evaluate(t, sf.qrels, run)
	t.Logf("existing index, template match on body, id field doc_id: %s", beir.Summary(t, ev))

	// A filter every hit must match: only documents whose doc_id is in a
	// small set come back.
	keep := []string{sf.chunks[0].ID, sf.chunks[1].ID, sf.chunks[2].ID}
	fb, _ := json.Marshal(map[string]any{"terms": map[string]any{"doc_id": keep}})
	rf, err := engine.Open(context.Background(), c.conn(), c.dialect, engine.Existing{
		Index: "team-scifact", IDField: "doc_id", Template: `{"query": {"match": {"body": "{{query}}"}}}`, Filters: []json.RawMessage{fb}})
	if err != nil {
		t.Fatal(err)
	}
	frun, err := rf.Search(context.Background(), sf.queries[:20], 10)
	if err != nil {
		t.Fatal(err)
	}
	for q, res := range frun {
		for _, h := range res {
			if h.DocID != keep[0] && h.DocID != keep[1] && h.DocID != keep[2] {
				t.Fatalf("query %s: filtered search returned %s, not in %v", q, h.DocID, keep)
			}
		}
	}
}

// testNodeDown stops the second node of a 2 shards × 1 replica cluster
// while queries run: the search must either finish with the same ranking
// (the replicas on node 1 answer) or fail with an error naming the cause —
// never return a run with results missing.
func testNodeDown(t *testing.T, c *cluster, ix *engine.Index, sf *sciFact, want float64) {
	r, err := ix.Retriever(engine.QueryOptions{Kind: engine.KindBM25})
	if err != nil {
		t.Fatal(err)
	}
	queries := append(append(append([]retrievers.Query{}, sf.queries...), sf.queries...), sf.queries...)
	for i := range queries {
		queries[i].ID = fmt.Sprintf("%s#%d", queries[i].ID, i/len(sf.queries))
	}
	// Stop the node that is not the elected master: a two-node cluster
	// keeps one node in its voting configuration, and losing that one
	// leaves no master (that is a lost cluster, not a lost replica).
	resp, err := http.Get(c.urls[0] + "/_cat/master?h=node")
	if err != nil {
		t.Fatal(err)
	}
	var master bytes.Buffer
	master.ReadFrom(resp.Body)
	resp.Body.Close()
	victim := "2"
	if strings.TrimSpace(master.String()) == "n2" {
		victim = "1"
	}
	t.Logf("master %s; stopping node n%s mid-run", strings.TrimSpace(master.String()), victim)
	done := make(chan struct{})
	go func() {
		time.Sleep(500 * time.Millisecond)
		ctl(t, c.port, "", "stop", string(c.dialect), "cluster", victim)
		close(done)
	}()
	run, err := r.Search(context.Background(), queries, 100)
	<-done
	if err != nil {
		t.Logf("search with a node stopped mid-run failed: %v", err)
		if !strings.Contains(err.Error(), "shards failed") && !strings.Contains(err.Error(), "unreachable") &&
			!strings.Contains(err.Error(), "HTTP 503") {
			t.Errorf("error does not say what failed: %v", err)
		}
	} else {
		checkCopies(t, run, sf, want)
	}
	// After the node is gone the replicas on node 1 are primaries: the run
	// completes, equal to the two-node one.
	alive := c.urls[0]
	if victim == "1" {
		alive = c.urls[1]
	}
	health(t, alive+"/_cluster/health?wait_for_status=yellow&timeout=60s")
	run, err = r.Search(context.Background(), sf.queries, 100)
	if err != nil {
		t.Fatalf("search on the surviving node: %v", err)
	}
	ev := beir.Evaluate(t, sf.qrels, run)
	if got := beir.Mean(t, ev, "ndcg_cut_10"); fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", want) {
		t.Errorf("one node left: nDCG@10 %.4f, want the two-node %.4f", got, want)
	}
}

func checkCopies(t *testing.T, run eval.Run, sf *sciFact, want float64) {
	for copyN := 0; copyN < 3; copyN++ {
		one := eval.Run{}
		for _, q := range sf.queries {
			one[q.ID] = run[fmt.Sprintf("%s#%d", q.ID, copyN)]
		}
		got := beir.Mean(t, beir.Evaluate(t, sf.qrels, one), "ndcg_cut_10")
		if fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", want) {
			t.Errorf("node stopped mid-run, pass %d: nDCG@10 %.4f, want %.4f (results silently lost?)", copyN, got, want)
		}
	}
	t.Logf("a node stopped mid-run: the search finished on the replicas, nDCG@10 unchanged")
}

func health(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
