package engine

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/retrievers"
)

// TestSearchMissOnError: a query the engine refuses (HTTP 400, not
// retried) fails the whole Search by default; with SetMissOnError it gets
// an empty list, the other queries keep their hits, and Failed names it.
func TestSearchMissOnError(t *testing.T) {
	qs := []retrievers.Query{{ID: "q1", Text: "a"}, {ID: "q2", Text: "b"}, {ID: "q3", Text: "c"}}
	hits := func(size int) string { return hitsJSON(min(size, 3), func(i int) float64 { return float64(10 - i) }) }
	// Concurrency 1: the first request is q1's.
	f := &fake{status: http.StatusBadRequest, hits: hits}
	f.failures.Store(1)
	r := openFake(t, f, Conn{Concurrency: 1})
	if _, err := r.Search(context.Background(), qs, 2); err == nil || !strings.Contains(err.Error(), `query "q1"`) || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("default policy: %v; want the search failed naming q1", err)
	}
	f = &fake{status: http.StatusBadRequest, hits: hits}
	f.failures.Store(1)
	r = openFake(t, f, Conn{Concurrency: 1})
	r.SetMissOnError()
	run, err := r.Search(context.Background(), qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := run["q1"]; !ok || len(l) != 0 || len(run["q2"]) != 2 || len(run["q3"]) != 2 {
		t.Errorf("run %v: want q1 present and empty, q2 and q3 with 2 hits", run)
	}
	fl := r.Failed()
	if len(fl) != 1 || fl[0].ID != "q1" || !strings.Contains(fl[0].Err, "HTTP 400") {
		t.Errorf("Failed() = %+v, want q1 with its HTTP 400", fl)
	}
}
