package sweep

import (
	"encoding/base64"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/results"
)

// TestCheckEngines: bench run --check's engine check against the fake
// engine (basic auth): the right credentials give each node's health,
// once per connection shared by two retrievers; a wrong password and an
// unreachable node fail with the config's file:line, the retrievers and
// the node, never the password.
func TestCheckEngines(t *testing.T) {
	const user, secret = "rb-user-1c2d", "s3cr3t-PW-4e5f"
	srv := httptest.NewServer(newFakeEngine(user, secret))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // nothing listens there now
	notEngine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) }))
	defer notEngine.Close()
	t.Setenv("RB_TEST_USER", user)
	conn := func(url string) string {
		return "    urls: [" + url + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n"
	}
	yaml := engineConfig("  - name: es\n    type: elasticsearch\n    query: bm25\n" + conn(srv.URL) +
		"  - name: prod\n    type: elasticsearch\n    mode: existing\n    index: prod\n    id_field: _id\n    template: '{\"query\": {\"match\": {\"body\": \"{{query}}\"}}}'\n" + conn(srv.URL))
	load := func(yaml string) *Config {
		t.Helper()
		cfg, err := Load(writeConfig(t, yaml), LoadOptions{DataDir: "/data"})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	t.Setenv("RB_TEST_PASS", secret)
	h, err := CheckEngines(t.Context(), load(yaml), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || strings.Join(h[0].Retrievers, ",") != "es,prod" || len(h[0].Nodes) != 1 ||
		h[0].Nodes[0].URL != srv.URL || h[0].Nodes[0].Cluster != "fake" || h[0].Nodes[0].Status != "yellow" || h[0].Nodes[0].Nodes != 1 {
		t.Fatalf("health %+v: want one connection (es, prod), node %s of cluster fake, yellow, 1 node", h, srv.URL)
	}

	noSecret := func(err error) {
		t.Helper()
		for _, s := range []string{secret, base64.StdEncoding.EncodeToString([]byte(user + ":" + secret))} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("error shows a credential: %v", err)
			}
		}
	}
	// The urls line of retriever es is line 10 of engineConfig's file.
	t.Setenv("RB_TEST_PASS", "wrong-"+secret)
	_, err = CheckEngines(t.Context(), load(yaml), 0)
	want := `:10: retrievers[1].urls: retrievers "es", "prod": engine: node ` + srv.URL + `: GET /_cluster/health: HTTP 401: security_exception: unable to authenticate user (authentication failed: check the credentials' environment variables)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("wrong password: %v\nwant %q", err, want)
	}
	if err != nil {
		noSecret(err)
	}

	// Two nodes, one down, one not an engine, with a 1 s timeout: both
	// named, the reachable node's answer kept.
	t.Setenv("RB_TEST_PASS", secret)
	start := time.Now()
	cfg := load(engineConfig("  - name: es\n    type: opensearch\n    query: bm25\n    timeout: 1s\n" +
		"    urls: [" + srv.URL + ", " + downURL + ", " + notEngine.URL + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n"))
	h, err = CheckEngines(t.Context(), cfg, 0)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("check took %v; want no retry and a short timeout", el)
	}
	if err == nil || !strings.Contains(err.Error(), `:11: retrievers[1].urls: retriever "es": engine: node `+downURL+` unreachable: `) ||
		!strings.Contains(err.Error(), "; engine: node "+notEngine.URL+": GET /_cluster/health: the answer is not a cluster health") {
		t.Errorf("a node down and one not an engine: %v", err)
	}
	if len(h) != 1 || len(h[0].Nodes) != 1 || h[0].Nodes[0].URL != srv.URL {
		t.Errorf("health %+v: want the reachable node's answer", h)
	}
}

// TestEngineQueryErrorMiss: with on_query_error: miss, a query the engine
// keeps refusing (HTTP 503 after the retries) scores as a miss instead of
// failing the run: the cell's hit_rate@1 drops by exactly that query's
// share (q1 is a hit without the fault; 4 answerable queries: −0.25), the
// count and the id are in results.json and report.md, and the cell is not
// cached. An unknown policy is a config error with file:line.
func TestEngineQueryErrorMiss(t *testing.T) {
	fe := newFakeEngine("u", "p")
	fe.failMatch = "eiffel" // q1 "eiffel tower"
	srv := httptest.NewServer(fe)
	defer srv.Close()
	t.Setenv("RB_TEST_USER", "u")
	t.Setenv("RB_TEST_PASS", "p")
	retr := func(policy string) string {
		return "  - name: es\n    type: elasticsearch\n    query: bm25\n    urls: [" + srv.URL + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n    retries: 1\n    backoff: 1ms\n" + policy
	}
	abs, _ := filepath.Abs("testdata/small")
	dir := t.TempDir()
	run := func(policy, out string) (*results.Results, error) {
		p := writeConfig(t, engineConfig(retr(policy)))
		cfg, err := Load(p, LoadOptions{DataDir: abs, Output: filepath.Join(dir, out), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "h.csv")})
		if err != nil {
			t.Fatal(err)
		}
		return Run(t.Context(), cfg, Options{Stderr: io.Discard, NoHistory: true})
	}
	if _, err := run("", "fail"); err == nil || !strings.Contains(err.Error(), `query "q1"`) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("default policy: %v; want the run failed naming q1 and HTTP 503", err)
	}
	res, err := run("    on_query_error: miss\n", "miss")
	if err != nil {
		t.Fatal(err)
	}
	timing := map[string]results.Timing{}
	for _, tm := range res.Timings {
		timing[tm.Cell] = tm
	}
	if tm := timing["doc/es"]; tm.QueryErrors != 1 || strings.Join(tm.FailedQueries, ",") != "q1" {
		t.Errorf("doc/es timing: %d query errors %v; want 1, [q1]", tm.QueryErrors, tm.FailedQueries)
	}
	if tm := timing["doc/bm25"]; tm.QueryErrors != 0 {
		t.Errorf("doc/bm25: %d query errors, want 0", tm.QueryErrors)
	}
	missed := cellMean(res, "doc/es", "hit_rate@1")
	fe.mu.Lock() // the handlers read it under mu
	fe.failMatch = ""
	fe.mu.Unlock()
	res0, err := run("    on_query_error: miss\n", "clean")
	if err != nil {
		t.Fatal(err)
	}
	clean := cellMean(res0, "doc/es", "hit_rate@1")
	for _, tm := range res0.Timings {
		if tm.Cell == "doc/es" && (tm.Cached || tm.QueryErrors != 0) {
			t.Errorf("run after the fault: doc/es cached %v, %d query errors; want searched again (a run with misses is not cached), 0", tm.Cached, tm.QueryErrors)
		}
	}
	if math.Abs(clean-missed-0.25) > 1e-12 {
		t.Errorf("hit_rate@1 %.4f with q1 a miss, %.4f without: want a drop of exactly 0.25", missed, clean)
	}
	b, err := os.ReadFile(filepath.Join(dir, "miss", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"query_errors": 1,`) || !strings.Contains(string(b), `"failed_queries": [`+"\n"+`        "q1"`) {
		t.Errorf("results.json lacks query_errors 1 and failed_queries [q1]")
	}
	md, err := os.ReadFile(filepath.Join(dir, "miss", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "**doc/es: 1 query failed after the retries and scored as misses** (on_query_error: miss): q1."; !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks %q", want)
	}
	p := writeConfig(t, engineConfig(retr("    on_query_error: skip\n")))
	if _, err := Load(p, LoadOptions{DataDir: abs}); err == nil || !strings.Contains(err.Error(), `:15: retrievers[1].on_query_error: unknown policy "skip"`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// cellMean is cell's mean of metric over all answerable queries.
func cellMean(res *results.Results, cell, metric string) float64 {
	for _, c := range res.Cells {
		if c.Name == cell {
			return c.Means[results.GroupAll][metric]
		}
	}
	return math.NaN()
}
