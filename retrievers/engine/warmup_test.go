package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbench/ragbench/retrievers"
)

// knnRaceNode mimics OpenSearch k-NN's lazily filled method_parameters
// table (MethodParameter.enumOf, unsynchronised): a search that reaches a
// node while that node's first search is still running is refused with the
// plugin's HTTP 400, as CI saw on a freshly started OpenSearch 3.5.
type knnRaceNode struct {
	filled   atomic.Bool
	inFlight atomic.Int32
	refused  atomic.Int32
	searches atomic.Int32
}

func (n *knnRaceNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ix/_mapping":
		io.WriteString(w, `{"ix":{"mappings":{"properties":{"v":{"type":"knn_vector"}}}}}`)
		return
	case "/ix/_stats/store":
		io.WriteString(w, `{"_all":{"primaries":{"store":{"size_in_bytes":1}}}}`)
		return
	}
	n.searches.Add(1)
	if n.inFlight.Add(1) > 1 && !n.filled.Load() {
		n.inFlight.Add(-1)
		n.refused.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"root_cause":[{"type":"parsing_exception","reason":"[knn] unknown method parameter found [ef_search]"}],"type":"x_content_parse_exception","reason":"[1:88] [knn] failed to parse field [method_parameters]"},"status":400}`)
		return
	}
	if !n.filled.Load() {
		time.Sleep(30 * time.Millisecond) // the first search fills the table
	}
	n.filled.Store(true)
	n.inFlight.Add(-1)
	io.WriteString(w, hitsJSON(3, func(i int) float64 { return float64(3 - i) }))
}

// TestOpenSearchVectorSearchWarmsEachNode: the first Search of an
// OpenSearch vector retriever sends one search alone to every node before
// its concurrent ones, so no query meets the k-NN plugin's first-use race.
// Without the warm-up, 8 queries at concurrency 4 are refused here.
func TestOpenSearchVectorSearchWarmsEachNode(t *testing.T) {
	nodes := []*knnRaceNode{{}, {}}
	var urls []string
	for _, n := range nodes {
		s := httptest.NewServer(n)
		t.Cleanup(s.Close)
		urls = append(urls, s.URL)
	}
	embed := func(_ context.Context, texts []string, _ bool) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 0}
		}
		return out, nil
	}
	r, err := Open(context.Background(), Conn{URLs: urls, Concurrency: 4}, OpenSearch, Existing{
		Index: "ix", IDField: "_id", Embed: embed,
		Template: `{"query":{"knn":{"v":{"vector":"{{vector}}","k":"{{k}}","method_parameters":{"ef_search":100}}}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	var qs []retrievers.Query
	for i := range 8 {
		qs = append(qs, retrievers.Query{ID: fmt.Sprint(i), Text: "q"})
	}
	run, err := r.Search(context.Background(), qs, 2)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(run) != 8 {
		t.Errorf("run has %d queries, want 8", len(run))
	}
	for i, n := range nodes {
		if n.refused.Load() != 0 || !n.filled.Load() {
			t.Errorf("node %d: %d searches refused, warmed %v; want 0 and true", i, n.refused.Load(), n.filled.Load())
		}
	}
	// 8 queries + 1 warm-up per node; a second Search sends no warm-up.
	if got := nodes[0].searches.Load() + nodes[1].searches.Load(); got != 10 {
		t.Errorf("%d searches sent, want 10", got)
	}
	if _, err := r.Search(context.Background(), qs, 2); err != nil {
		t.Fatal(err)
	}
	if got := nodes[0].searches.Load() + nodes[1].searches.Load(); got != 18 {
		t.Errorf("after a second Search, %d searches sent, want 18", got)
	}
}
