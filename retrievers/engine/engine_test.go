package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

func TestDialRefusesBadConns(t *testing.T) {
	t.Setenv("RB_EMPTY", "")
	t.Setenv("RB_NEWLINE", "hunter2\n")
	for _, tc := range []struct {
		conn Conn
		want string
	}{
		{Conn{}, "urls: missing: at least one node URL"},
		{Conn{URLs: []string{"http://u:hunter2@127.0.0.1:9200"}}, "carries credentials"},
		{Conn{URLs: []string{"ftp://127.0.0.1"}}, "want http(s)"},
		{Conn{URLs: []string{"http://127.0.0.1:9200/?api_key=hunter2"}}, "want http(s)"},
		{Conn{URLs: []string{"http://127.0.0.1:9200/#hunter2"}}, "want http(s)"},
		{Conn{URLs: []string{"ftp://u:hunter2@127.0.0.1/?token=hunter2"}}, "carries credentials"},
		{Conn{URLs: []string{"http://u:hunter2%zz@127.0.0.1"}}, "not a URL"},
		{Conn{URLs: []string{"http:u:hunter2@127.0.0.1"}}, "want http(s)"},
		{Conn{URLs: []string{"http://127.0.0.1:9200/\x7fhunter2"}}, "not a URL"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, Timeout: -1}, "timeout"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, Concurrency: -1}, "concurrency"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, Retries: -1}, "retries"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, UserEnv: "RB_EMPTY", PasswordEnv: "RB_EMPTY"}, "RB_EMPTY is unset or empty"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, UserEnv: "RB_EMPTY"}, "needs both"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, UserEnv: "A", PasswordEnv: "B", APIKeyEnv: "C"}, "not both"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, CAFile: "/nonexistent.pem"}, "CA file"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, APIKeyEnv: "RB_NEWLINE"}, "RB_NEWLINE holds a control character"},
		{Conn{URLs: []string{"http://127.0.0.1:9200"}, UserEnv: "RB_NEWLINE", PasswordEnv: "RB_NEWLINE"}, "RB_NEWLINE holds a control character"},
	} {
		_, err := dial(tc.conn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dial(%+v) = %v, want an error with %q", tc.conn, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

// fake is an engine stand-in: it answers _search with hits from hits(body)
// and fails the first failures requests with status.
type fake struct {
	failures atomic.Int32
	status   int
	auth     atomic.Value // last Authorization header
	hits     func(size int) string
	requests atomic.Int32
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	f.auth.Store(r.Header.Get("Authorization"))
	if f.failures.Add(-1) >= 0 {
		w.WriteHeader(f.status)
		io.WriteString(w, `{"error":{"type":"es_rejected_execution_exception","reason":"queue full"},"status":429}`)
		return
	}
	var body struct {
		Size int `json:"size"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	io.WriteString(w, f.hits(body.Size))
}

func hitsJSON(n int, score func(i int) float64) string {
	var b strings.Builder
	b.WriteString(`{"timed_out":false,"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"_id":"d%02d","_score":%g}`, i, score(i))
	}
	b.WriteString(`]}}`)
	return b.String()
}

func openFake(t *testing.T, f *fake, conn Conn) *Retriever {
	t.Helper()
	return openSearchHandler(t, f, conn)
}

// openSearchHandler opens the existing index "ix" on a fake engine whose
// _search is h (its _mapping and _stats answer as an index with a text
// field).
func openSearchHandler(t *testing.T, h http.Handler, conn Conn) *Retriever {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ix/_mapping", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ix":{"mappings":{"properties":{"text":{"type":"text"}}}}}`)
	})
	mux.HandleFunc("GET /ix/_stats/store", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"_all":{"primaries":{"store":{"size_in_bytes":1234}}}}`)
	})
	mux.Handle("POST /ix/_search", h)
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	conn.URLs = []string{s.URL}
	r, err := Open(context.Background(), conn, Elasticsearch, Existing{Index: "ix", IDField: "_id", Template: `{"query":{"match":{"text":"{{query}}"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTiesAcrossTheCut: 20 hits all tied; the engine returns them in its
// order (d00, d01, ...), trec_eval keeps the highest ids (d19 ... d15) at
// k = 5: the retriever widens the search until the tie ends and cuts as
// trec_eval does.
func TestTiesAcrossTheCut(t *testing.T) {
	f := &fake{hits: func(size int) string { return hitsJSON(min(size, 20), func(int) float64 { return 1.5 }) }}
	r := openFake(t, f, Conn{})
	run, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range run["q"] {
		ids = append(ids, h.DocID)
	}
	if got, want := strings.Join(ids, " "), "d19 d18 d17 d16 d15"; got != want {
		t.Fatalf("top 5 of 20 tied hits: %s, want trec_eval's %s", got, want)
	}
	// Sizes 6, 12, 24: the third answer holds all 20 hits.
	if n := f.requests.Load(); n != 3 {
		t.Errorf("%d searches, want 3 (sizes 6, 12, 24)", n)
	}
	if st := r.Stats(); st.IndexBytes != 1234 || st.Queries != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestRetriesThen429Fails: two 503s are retried; with more failures than
// retries the query fails the Search, naming the query, never an empty run.
func TestRetries(t *testing.T) {
	f := &fake{status: http.StatusServiceUnavailable, hits: func(size int) string {
		return hitsJSON(min(size, 3), func(i int) float64 { return float64(10 - i) })
	}}
	f.failures.Store(2)
	t.Setenv("RB_KEY", "c2VjcmV0OmtleQ==")
	r := openFake(t, f, Conn{Retries: 2, Backoff: time.Millisecond, APIKeyEnv: "RB_KEY"})
	qs := []retrievers.Query{{ID: "q1", Text: "a"}, {ID: "q2", Text: "b"}}
	run, err := r.Search(context.Background(), qs, 10)
	if err != nil {
		t.Fatalf("2 failures with 2 retries: %v", err)
	}
	if len(run["q1"]) != 3 || run["q1"][0] != (eval.Result{DocID: "d00", Score: 10}) {
		t.Errorf("run %v", run)
	}
	if got := f.auth.Load(); got != "ApiKey c2VjcmV0OmtleQ==" {
		t.Errorf("Authorization %q", got)
	}
	f.failures.Store(100)
	f.status = http.StatusTooManyRequests
	_, err = r.Search(context.Background(), qs, 10)
	if err == nil || !strings.Contains(err.Error(), "HTTP 429") || !strings.Contains(err.Error(), "after 2 retries") || !strings.Contains(err.Error(), `query "q`) {
		t.Fatalf("persistent 429: got %v", err)
	}
	if strings.Contains(err.Error(), "c2VjcmV0") {
		t.Errorf("error shows the API key: %v", err)
	}
}

// TestPartialShardsAreErrors: a search that some shards failed is an error.
func TestPartialShardsAreErrors(t *testing.T) {
	f := &fake{hits: func(int) string {
		return `{"timed_out":false,"_shards":{"total":2,"successful":1,"failed":1,"failures":[{"reason":{"type":"node_not_connected_exception","reason":"n2 gone"}}]},"hits":{"hits":[]}}`
	}}
	r := openFake(t, f, Conn{})
	_, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}}, 10)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 shards failed: node_not_connected_exception: n2 gone") {
		t.Fatalf("got %v", err)
	}
	// With retries, a partial answer is asked again (a node that left is
	// replaced by its replicas); still partial, it says how often.
	f2 := &fake{hits: f.hits}
	r2 := openFake(t, f2, Conn{Retries: 2, Backoff: time.Millisecond})
	_, err = r2.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}}, 10)
	if err == nil || !strings.Contains(err.Error(), "shards failed") || !strings.Contains(err.Error(), "after 2 retries") || f2.requests.Load() != 3 {
		t.Fatalf("got %v after %d requests, want 3 requests", err, f2.requests.Load())
	}
}

// TestNodeLeftIsRetried: OpenSearch fails a search whose node stopped
// mid-fetch with HTTP 500, no reason and caused_by
// node_not_connected_exception (seen in the two-node e2e test). That is
// asked again like a partial answer, and the error, when the retries run
// out, names the cause; any other 500 is not retried.
func TestNodeLeftIsRetried(t *testing.T) {
	nodeLost := `{"error":{"root_cause":[],"type":"search_phase_execution_exception","reason":"","phase":"fetch","grouped":true,"failed_shards":[],"caused_by":{"type":"node_not_connected_exception","reason":"[n2][127.0.0.1:9310] Node not connected"}},"status":500}`
	for _, tc := range []struct {
		body     string
		failures int32
		requests int32
		want     string // "" for success
	}{
		{nodeLost, 1, 2, ""},
		{nodeLost, 5, 3, "node_not_connected_exception: [n2][127.0.0.1:9310] Node not connected (after 2 retries)"},
		{`{"error":{"type":"illegal_state_exception","reason":"boom"},"status":500}`, 1, 1, "HTTP 500: illegal_state_exception: boom"},
	} {
		var n atomic.Int32
		f := &fake{hits: func(int) string { return hitsJSON(3, func(i int) float64 { return float64(3 - i) }) }}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) <= tc.failures {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, tc.body)
				return
			}
			f.ServeHTTP(w, r)
		})
		mux := http.NewServeMux()
		mux.HandleFunc("GET /ix/_mapping", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"ix":{"mappings":{"properties":{"text":{"type":"text"}}}}}`)
		})
		mux.HandleFunc("GET /ix/_stats/store", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
		mux.Handle("POST /ix/_search", h)
		s := httptest.NewServer(mux)
		r, err := Open(context.Background(), Conn{URLs: []string{s.URL}, Retries: 2, Backoff: time.Millisecond}, OpenSearch,
			Existing{Index: "ix", IDField: "_id", Template: `{"query":{"match":{"text":"{{query}}"}}}`})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}}, 2)
		s.Close()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d node-left failures, 2 retries: %v", tc.failures, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%.40s… ×%d: got %v, want an error with %q", tc.body, tc.failures, err, tc.want)
		}
		if got := n.Load(); got != tc.requests {
			t.Errorf("%.40s… ×%d: %d search requests, want %d", tc.body, tc.failures, got, tc.requests)
		}
	}
}

func TestTemplateAndFilters(t *testing.T) {
	var got []byte
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ix/_mapping", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ix":{"mappings":{"properties":{"meta":{"properties":{"doc":{"type":"keyword"}}}}}}}`)
	})
	mux.HandleFunc("GET /ix/_stats/store", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	mux.HandleFunc("POST /ix/_search", func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		io.WriteString(w, `{"_shards":{"total":1,"successful":1},"hits":{"hits":[{"_id":"x","_score":2,"_source":{"meta.doc":"D1"}}]}}`)
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	embed := func(_ context.Context, texts []string, q bool) ([][]float32, error) {
		return [][]float32{{0.5, -1}}, nil
	}
	r, err := Open(context.Background(), Conn{URLs: []string{s.URL}}, Elasticsearch, Existing{
		Index: "ix", IDField: "meta.doc", Embed: embed,
		Template: `{"query":{"match":{"t":"{{query}}"}},"knn":{"field":"v","query_vector":"{{vector}}","k":"{{k}}","num_candidates":100}}`,
		Filters:  []json.RawMessage{json.RawMessage(`{"term":{"lang":"en"}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: `say "hi"`}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if run["q"][0].DocID != "D1" {
		t.Errorf("id field: %v", run)
	}
	want := `{"_source":["meta.doc"],"knn":{"field":"v","filter":[{"term":{"lang":"en"}}],"k":4,"num_candidates":100,"query_vector":[0.5,-1]},"query":{"bool":{"filter":[{"term":{"lang":"en"}}],"must":[{"match":{"t":"say \"hi\""}}]}},"size":4}`
	if string(got) != want {
		t.Errorf("request body\n got %s\nwant %s", got, want)
	}
	_, err = Open(context.Background(), Conn{URLs: []string{s.URL}}, Elasticsearch, Existing{Index: "ix", IDField: "doc", Template: `{"query":{"match":{"t":"{{query}}"}}}`})
	if err == nil || !strings.Contains(err.Error(), `no field "doc"`) {
		t.Errorf("missing id field: %v", err)
	}
}

func TestLoadRefusesBadInput(t *testing.T) {
	conn := Conn{URLs: []string{"http://127.0.0.1:1"}}
	ch := []corpus.Chunk{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}}
	for _, tc := range []struct {
		vecs [][]float32
		opts Managed
		want string
	}{
		{[][]float32{{1}}, Managed{}, "1 vectors for 2 chunks"},
		{[][]float32{{1, 0}, {1}}, Managed{}, "dimension 1, want 2"},
		{[][]float32{{1, 0}, {0, 0}}, Managed{}, "zero vector"},
		{nil, Managed{Shards: -1}, "shards"},
		{nil, Managed{Replicas: -1}, "replicas"},
		{nil, Managed{Prefix: "Bad"}, "prefix"},
		{nil, Managed{BM25: &BM25{K1: 1, B: 2}}, "engine: b: 2 must be in [0, 1]"},
		{nil, Managed{HNSW: &HNSW{}}, "hnsw"},
	} {
		_, err := Load(context.Background(), conn, Elasticsearch, ch, tc.vecs, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%v, %+v) = %v, want %q", tc.vecs, tc.opts, err, tc.want)
		}
	}
	if _, err := Load(context.Background(), conn, "solr", ch, nil, Managed{}); err == nil || !strings.Contains(err.Error(), "dialect") {
		t.Errorf("dialect: %v", err)
	}
}
