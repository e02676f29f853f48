package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbench/ragbench/retrievers"
)

// knnTemplate is an OpenSearch kNN query with method_parameters.ef_search,
// the parameter the k-NN plugin's first-use race refuses.
const knnTemplate = `{"query":{"knn":{"v":{"vector":"{{vector}}","k":"{{k}}","method_parameters":{"ef_search":100}}}}}`

// unitEmbed embeds every text as the 2-d vector (1, 0).
func unitEmbed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

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
	r, err := Open(context.Background(), Conn{URLs: urls, Concurrency: 4}, OpenSearch, Existing{
		Index: "ix", IDField: "_id", Embed: unitEmbed, Template: knnTemplate,
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

// hangFirstNode holds its first _search (the warm-up) until the request's
// context ends, then serves everything through next.
type hangFirstNode struct {
	next    http.Handler
	started chan struct{} // closed when the first _search arrives
	release chan struct{} // closed at the test's end
	seen    atomic.Int32
}

func newHangFirstNode(next http.Handler) *hangFirstNode {
	return &hangFirstNode{next: next, started: make(chan struct{}), release: make(chan struct{})}
}

func (n *hangFirstNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ix/_search" && n.seen.Add(1) == 1 {
		close(n.started)
		io.Copy(io.Discard, r.Body) //nolint:errcheck // read, so the server notices the client leaving
		select {
		case <-r.Context().Done():
		case <-n.release:
		}
		return
	}
	n.next.ServeHTTP(w, r)
}

// openWarmTest opens an OpenSearch vector retriever on one node h.
func openWarmTest(t *testing.T, h http.Handler, timeout time.Duration) *Retriever {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	r, err := Open(context.Background(), Conn{URLs: []string{s.URL}, Concurrency: 4, Timeout: timeout}, OpenSearch, Existing{
		Index: "ix", IDField: "_id", Embed: unitEmbed, Template: knnTemplate,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func warmQueries(n int) []retrievers.Query {
	var qs []retrievers.Query
	for i := range n {
		qs = append(qs, retrievers.Query{ID: fmt.Sprint(i), Text: "q"})
	}
	return qs
}

// TestWarmUpWaitHonoursCancel: a Search waiting for another Search's
// warm-up (here held by a hanging node for the 5 s request timeout)
// returns as soon as its own context is cancelled, not after the warm-up.
func TestWarmUpWaitHonoursCancel(t *testing.T) {
	node := newHangFirstNode(&knnRaceNode{})
	r := openWarmTest(t, node, 5*time.Second)
	t.Cleanup(func() { close(node.release) })
	go r.Search(context.Background(), warmQueries(2), 2) //nolint:errcheck // holds the warm-up
	<-node.started
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := r.Search(ctx, warmQueries(2), 2)
	if el := time.Since(t0); el > time.Second || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Search returned after %v with %v; want < 1 s and context.Canceled", el, err)
	}
}

// TestWarmUpRetriedAfterCancel: a warm-up cut short by the first Search's
// cancellation did not warm the node, so the next Search warms it before
// its concurrent searches (which a fresh k-NN node would refuse).
func TestWarmUpRetriedAfterCancel(t *testing.T) {
	knn := &knnRaceNode{}
	node := newHangFirstNode(knn)
	r := openWarmTest(t, node, 5*time.Second)
	t.Cleanup(func() { close(node.release) })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-node.started; cancel() }()
	if _, err := r.Search(ctx, warmQueries(2), 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("first Search: %v, want context.Canceled", err)
	}
	if _, err := r.Search(context.Background(), warmQueries(8), 2); err != nil || knn.refused.Load() != 0 {
		t.Errorf("second Search: %v, %d searches refused; want no error and 0", err, knn.refused.Load())
	}
}

// TestWarmUpRetriesBusyNode: a node answering its warm-up with 503 (as a
// freshly started one can while its shards recover) ran no k-NN search,
// so the warm-up retries it with the Conn's backoff before the concurrent
// searches, which the fresh plugin would otherwise refuse.
func TestWarmUpRetriesBusyNode(t *testing.T) {
	knn := &knnRaceNode{}
	var n atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ix/_search" && n.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"type":"search_phase_execution_exception","reason":"all shards failed"},"status":503}`)
			return
		}
		knn.ServeHTTP(w, r)
	})
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	r, err := Open(context.Background(), Conn{URLs: []string{s.URL}, Concurrency: 4, Retries: 3, Backoff: time.Millisecond}, OpenSearch, Existing{
		Index: "ix", IDField: "_id", Embed: unitEmbed, Template: knnTemplate,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Search(context.Background(), warmQueries(8), 2); err != nil || knn.refused.Load() != 0 {
		t.Errorf("Search: %v, %d searches refused; want no error and 0", err, knn.refused.Load())
	}
	// 2 refused warm-ups, the third answered, then the 8 queries.
	if got := n.Load(); got != 11 {
		t.Errorf("%d searches sent, want 11", got)
	}
}
