package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/pipetest"
)

// This file tests the type run and type http retrievers of bench run for
// real (issue 22): against the reference pipelines of pipelines/ and the
// fault server pipelines/faultserver, on the shared chunking-chroma
// corpus. The full report beside BM25 and dense is TestE2EPipelinesReport
// (pipelines_e2e_test.go).

// sweepResults is what these tests read of results.json.
type sweepResults struct {
	Cells []struct {
		Name     string                        `json:"name"`
		Chunks   int                           `json:"chunks"`
		Means    map[string]map[string]float64 `json:"means"`
		PerQuery map[string]map[string]float64 `json:"per_query"`
		Omega    *float64                      `json:"precision_omega"`
	} `json:"cells"`
	Timings []struct {
		Cell          string   `json:"cell"`
		QueryErrors   int      `json:"query_errors"`
		FailedQueries []string `json:"failed_queries"`
	} `json:"timings"`
	Warnings     []string `json:"warnings"`
	Significance struct {
		Baseline string `json:"baseline"`
		Pairs    []struct {
			A, B string
		} `json:"pairs"`
	} `json:"significance"`
}

// cell returns the cell named name ("recursive-1000o150/ok").
func (r *sweepResults) cell(t *testing.T, name string) (means, perQuery map[string]map[string]float64) {
	t.Helper()
	for _, c := range r.Cells {
		if c.Name == name {
			return c.Means, c.PerQuery
		}
	}
	t.Fatalf("no cell %s in results.json", name)
	return nil, nil
}

// queryErrors is cell name's count of queries scored as misses after
// errors.
func (r *sweepResults) queryErrors(name string) int {
	for _, tm := range r.Timings {
		if tm.Cell == name {
			return tm.QueryErrors
		}
	}
	return -1
}

// sweepDir is one bench run's folders and its config.
type sweepDir struct {
	dir, out, cache, cfg string
}

// questionsSubset writes the first n questions of chunking-chroma's
// questions.csv into dir and returns its path.
func questionsSubset(t *testing.T, dir string, n int) string {
	t.Helper()
	_, questions := pipetest.Chroma(t)
	f, err := os.Open(questions)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// questions.csv has one record per line (its JSON references hold no
	// line break).
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 0; i <= n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	p := filepath.Join(dir, "questions.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newSweep writes a bench run config over the chunking-chroma corpus with
// its first n questions (all when n ≤ 0), chunked by recursive 1000/150,
// scored at k = 1, 5, 10, with retrievers (YAML list items).
func newSweep(t *testing.T, n int, retrievers string) sweepDir {
	t.Helper()
	dir := t.TempDir()
	corpusDir, questions := pipetest.Chroma(t)
	if n > 0 {
		questions = questionsSubset(t, dir, n)
	}
	s := sweepDir{dir: dir, out: filepath.Join(dir, "out"), cache: filepath.Join(dir, "cache"), cfg: filepath.Join(dir, "sweep.yaml")}
	yml := fmt.Sprintf(`name: pipelines
dataset: {corpus: %q, queries: %q, title: false}
chunking: [{strategy: recursive, sizes: [1000], overlaps: [150]}]
retrievers:
%s
k: [1, 5, 10]
metrics: [span_recall, token_recall, token_precision, hit_rate, recall, mrr, ndcg]
prompt_k: 5
primary_metric: span_recall
significance: {metrics: [span_recall]}
`, corpusDir, questions, retrievers)
	if err := os.WriteFile(s.cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs bench run on s in this process: exit code, stdout, stderr.
func (s sweepDir) run(args ...string) (int, string, string) {
	return runBench(append([]string{"run", "--no-history", "--progress", "plain", "--output", s.out, "--cache-dir", s.cache}, append(args, s.cfg)...)...)
}

// results reads s's results.json.
func (s sweepDir) results(t *testing.T) *sweepResults {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r sweepResults
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// faultStats reads the fault server's counters.
type faultStats struct {
	PerQID      map[string]map[string]int `json:"per_qid"`
	BadRequests []string                  `json:"bad_requests"`
	AuthHeaders int                       `json:"authorization_headers"`
}

func faultCounts(t *testing.T, srv *pipetest.Server) faultStats {
	t.Helper()
	resp, err := http.Get(srv.URL("/stats"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s faultStats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// httpRetriever is a YAML list item of a type http retriever named name
// at url with extra settings ("retries: 0, k: 10").
func httpRetriever(name, url, extra string) string {
	s := fmt.Sprintf("  - {name: %s, type: http, url: %q", name, url)
	if extra != "" {
		s += ", " + extra
	}
	return s + "}\n"
}

// TestRunAndHTTPCellsAgree scores the LangChain reference pipeline twice
// in one bench run, from its passage run file (type run) and by asking its
// server (type http): every query's every measure is identical; and the
// cells' span measures equal the independent Python scorer's on the same
// run file.
func TestRunAndHTTPCellsAgree(t *testing.T) {
	runFile := pipetest.Runs(t, "langchain", "offsets")["offsets"]
	srv := pipetest.Pipeline(t, nil, "langchain")
	s := newSweep(t, 40, fmt.Sprintf("  - {name: lc-run, type: run, file: %q}\n", runFile)+httpRetriever("lc-http", srv.URL("/search"), "version: lc-1000-150, k: 10"))
	if code, _, errOut := s.run(); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	r := s.results(t)
	runMeans, runPer := r.cell(t, "recursive-1000o150/lc-run")
	_, httpPer := r.cell(t, "recursive-1000o150/lc-http")
	if len(runPer) != 40 {
		t.Fatalf("%d queries scored, want 40", len(runPer))
	}
	for q, m := range runPer {
		for name, v := range m {
			if httpPer[q][name] != v {
				t.Errorf("query %s %s: run %v, http %v", q, name, v, httpPer[q][name])
			}
		}
	}
	ref := pipetest.Score(t, mustCorpus(t), filepath.Join(s.dir, "questions.csv"), runFile, 1, 5, 10)
	for _, name := range []string{"span_recall@1", "span_recall@5", "span_recall@10", "token_recall@1", "token_recall@5", "token_recall@10", "token_precision@1", "token_precision@5", "token_precision@10"} {
		if got, want := runMeans["all"][name], ref.Means[name]; got-want > 1e-9 || want-got > 1e-9 {
			t.Errorf("%s = %v, the Python scorer %v", name, got, want)
		}
	}
	// The answers are cached under the version and the request (not the
	// URL): a second sweep whose service refuses every connection reads
	// them all from the cache, with the same numbers.
	refused := pipetest.FaultServer(t, nil, "--refuse")
	cfg, err := os.ReadFile(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	s2 := s
	s2.out, s2.cfg = filepath.Join(s.dir, "out2"), filepath.Join(s.dir, "sweep2.yaml")
	if err := os.WriteFile(s2.cfg, []byte(strings.ReplaceAll(string(cfg), srv.URL("/search"), refused.URL("/search"))), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s2.run(); code != 0 {
		t.Fatalf("second run, from the cache: exit %d: %s", code, errOut)
	}
	_, cachedPer := s2.results(t).cell(t, "recursive-1000o150/lc-http")
	for q, m := range httpPer {
		for name, v := range m {
			if cachedPer[q][name] != v {
				t.Errorf("cached: query %s %s = %v, asked %v", q, name, cachedPer[q][name], v)
			}
		}
	}
}

func mustCorpus(t *testing.T) string {
	d, _ := pipetest.Chroma(t)
	return d
}

// TestHTTPFaults runs type http retrievers against the real fault server:
// each fault of docs/pipelines.md's table, with the policy it calls for.
func TestHTTPFaults(t *testing.T) {
	srv := pipetest.FaultServer(t, []string{"FAULT_TOKEN=fault-s3cret-T0ken"}, "--token-env", "FAULT_TOKEN")
	refused := pipetest.FaultServer(t, nil, "--refuse")
	const n = 12
	u := srv.URL
	fast := "retries: 2, backoff: 1ms, k: 10"

	t.Run("query errors scored as misses", func(t *testing.T) {
		// Every malformed answer, a redirect, a 404 and a 50 MB answer
		// (with and without Content-Length): query errors, not retried,
		// scored as misses under on_query_error: miss, counted per cell.
		var rs strings.Builder
		rs.WriteString(httpRetriever("ok", u("/ok"), fast))
		rs.WriteString(httpRetriever("flaky", u("/flaky/2"), "retries: 3, backoff: 1ms, k: 10"))
		kinds := []string{"notjson", "truncated", "schema", "badresult", "badspan", "unknowndoc", "nan", "mismatch", "toomany"}
		for _, k := range kinds {
			rs.WriteString(httpRetriever(k, u("/malformed/"+k), fast+", on_query_error: miss"))
		}
		rs.WriteString(httpRetriever("redirect", u("/redirect"), fast+", on_query_error: miss"))
		rs.WriteString(httpRetriever("notfound", u("/status/404"), fast+", on_query_error: miss"))
		rs.WriteString(httpRetriever("big", u("/big/50"), fast+", on_query_error: miss, concurrency: 1"))
		rs.WriteString(httpRetriever("bignolength", u("/big/50?length=none"), fast+", on_query_error: miss, concurrency: 1"))
		s := newSweep(t, n, rs.String())
		code, _, errOut := s.run()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		r := s.results(t)
		for _, c := range append(kinds, "redirect", "notfound", "big", "bignolength") {
			if got := r.queryErrors("recursive-1000o150/" + c); got != n {
				t.Errorf("%s: %d query errors, want %d", c, got, n)
			}
		}
		for _, c := range []string{"ok", "flaky"} {
			if got := r.queryErrors("recursive-1000o150/" + c); got != 0 {
				t.Errorf("%s: %d query errors, want 0", c, got)
			}
		}
		// 500s then success: retried until it answered, the same numbers
		// as /ok.
		_, okPer := r.cell(t, "recursive-1000o150/ok")
		_, flakyPer := r.cell(t, "recursive-1000o150/flaky")
		for q, m := range okPer {
			for name, v := range m {
				if flakyPer[q][name] != v {
					t.Errorf("flaky query %s %s = %v, /ok %v", q, name, flakyPer[q][name], v)
				}
			}
		}
		st := faultCounts(t, srv)
		if len(st.BadRequests) > 0 {
			t.Errorf("requests breaking the contract: %v", st.BadRequests)
		}
		for path, want := range map[string]int{"/flaky/2": 3, "/malformed/notjson": 1, "/malformed/toomany": 1, "/redirect": 1, "/status/404": 1, "/ok": 1} {
			if len(st.PerQID[path]) != n {
				t.Errorf("%s asked for %d queries, want %d", path, len(st.PerQID[path]), n)
			}
			for q, got := range st.PerQID[path] {
				if got != want {
					t.Errorf("%s query %s asked %d times, want %d", path, q, got, want)
				}
			}
		}
	})

	for _, c := range []struct {
		name, url, extra string
		code             int
		want             []string
		within           time.Duration
	}{
		{"refused connection", refused.URL("/search"), "retries: 1, backoff: 1ms", 1, []string{`retriever "svc": query "`, "connection refused", "(after 1 retries)"}, 0},
		{"slow answer", u("/slow/5"), "timeout: 300ms, retries: 1, backoff: 1ms", 1, []string{"Client.Timeout exceeded", "(after 1 retries)"}, 4 * time.Second},
		{"hang-up", u("/hangup"), "retries: 1, backoff: 1ms", 1, []string{"EOF", "(after 1 retries)"}, 0},
		{"500 forever", u("/status/500"), "retries: 2, backoff: 1ms", 1, []string{"HTTP 500: {\"error\": \"status 500 as asked\"}", "(after 2 retries)"}, 0},
		{"malformed JSON", u("/malformed/notjson"), "retries: 2, backoff: 1ms", 1, []string{`retriever "svc": query "`, `": malformed answer: not a JSON object: invalid JSON`}, 0},
		{"50 MB answer", u("/big/50"), "concurrency: 1", 1, []string{"over max_answer_bytes 8388608"}, 0},
		{"unmapped over the limit", u("/unmapped/50"), "k: 10", 1, []string{"60 of 120 results unmapped (50 %: 60 absent, 0 ambiguous) > max_unmapped 5 %"}, 0},
		{"unmapped under the limit", u("/unmapped/50"), "k: 10, max_unmapped: 0.5", 0, nil, 0},
		{"ambiguous", u("/ambiguous"), "k: 10, max_unmapped: 1", 0, nil, 0},
		{"401", u("/auth"), "bearer_env: RB_WRONG_TOKEN, on_query_error: miss", 1, []string{"HTTP 401", "authentication failed", "not counted as a miss"}, 0},
		{"403", u("/status/403"), "on_query_error: miss", 1, []string{"HTTP 403", "not counted as a miss"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("RB_WRONG_TOKEN", "not-the-token-42")
			s := newSweep(t, n, httpRetriever("svc", c.url, c.extra))
			t0 := time.Now()
			code, _, errOut := s.run()
			took := time.Since(t0)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if c.within > 0 && took > c.within {
				t.Errorf("took %v, want ≤ %v", took, c.within)
			}
			if strings.Contains(errOut, "not-the-token-42") {
				t.Errorf("stderr shows the token:\n%s", errOut)
			}
			if c.code == 0 && c.name == "unmapped under the limit" {
				r := s.results(t)
				if !containsAny(r.Warnings, "60 of 120 results unmapped (50 %: 60 absent, 0 ambiguous)") {
					t.Errorf("results.json warnings lack the unmapped count: %v", r.Warnings)
				}
				report, _ := os.ReadFile(filepath.Join(s.out, "report.md"))
				if !strings.Contains(string(report), "60 of 120 results unmapped") {
					t.Error("report.md does not say how many results are unmapped")
				}
			}
		})
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestHTTPCredentialsNeverWritten runs services that need a bearer token
// and an API key header — one answering (its answers cached), one failing
// with the request's Authorization echoed in its error text (a careless
// proxy), scored as misses — and greps every output file, the cache, and
// bench's stdout and stderr for the credentials in every form.
func TestHTTPCredentialsNeverWritten(t *testing.T) {
	const token, key = "fault-s3cret-T0ken", "api-K3y-7d1e9"
	srv := pipetest.FaultServer(t, []string{"FAULT_TOKEN=" + token}, "--token-env", "FAULT_TOKEN")
	t.Setenv("RB_TOKEN", token)
	t.Setenv("RB_KEY", key)
	s := newSweep(t, 8, httpRetriever("good", srv.URL("/auth"), "bearer_env: RB_TOKEN, headers_env: {X-Api-Key: RB_KEY}, version: v1, k: 10")+
		httpRetriever("echo", srv.URL("/status/500?echo=auth"), "bearer_env: RB_TOKEN, retries: 1, backoff: 1ms, on_query_error: miss"))
	code, out, errOut := s.run()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "[REDACTED]") {
		t.Errorf("stderr does not show the echoed header redacted:\n%s", errOut)
	}
	if r := s.results(t); r.queryErrors("recursive-1000o150/good") != 0 || r.queryErrors("recursive-1000o150/echo") != 8 {
		t.Errorf("query errors: good %d, echo %d", r.queryErrors("recursive-1000o150/good"), r.queryErrors("recursive-1000o150/echo"))
	}
	forms := []string{token, key, base64.StdEncoding.EncodeToString([]byte(token)), "Bearer " + token}
	check := func(what, text string) {
		for _, f := range forms {
			if strings.Contains(text, f) {
				t.Errorf("%s holds a credential (%q)", what, f)
			}
		}
	}
	check("stdout", out)
	check("stderr", errOut)
	files := 0
	for _, root := range []string{s.dir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
			}
			files++
			check(p, string(b))
			return nil
		})
	}
	if files < 8 {
		t.Errorf("only %d files under %s: outputs or cache missing", files, s.dir)
	}
	if st := faultCounts(t, srv); st.AuthHeaders == 0 {
		t.Error("the service saw no Authorization header")
	}
}

// TestHTTPSIGTERM stops bench run with SIGTERM while its type http cell
// waits on slow answers: exit 143 within 2 s, the earlier output folder
// intact.
func TestHTTPSIGTERM(t *testing.T) {
	srv := pipetest.FaultServer(t, nil)
	s := newSweep(t, 12, httpRetriever("slow", srv.URL("/slow/30"), "k: 10, concurrency: 4"))
	out, before := previousOutput(t)
	cmd, waited, w := startStage(t, "search", `: search 12 queries …`, []string{"run", "--no-history", "--progress", "plain", "--output", out, "--cache-dir", s.cache, s.cfg})
	time.Sleep(300 * time.Millisecond) // requests in flight
	code, took := stopStage(t, cmd, waited, w)
	t.Logf("exit %d %v after SIGTERM", code, took.Round(time.Millisecond))
	limit := stopLimitNow(t)
	if errText := w.String(); took > limit || code != 143 || !strings.Contains(errText, "bench run: interrupted after") || strings.Contains(errText, "quitting now") {
		t.Errorf("exit %d %v after SIGTERM, want 143 within %v after a clean stop; stderr:\n%s", code, took, limit, errText)
	}
	checkOutputIntact(t, "http", out, before)
}

// TestPipelineKindsConfig checks what bench run --check says of bad run
// and http retrievers — each problem at once, on its line — and that a
// hybrid cannot fuse a pipeline's passages.
func TestPipelineKindsConfig(t *testing.T) {
	t.Setenv("RB_SET", "x")
	s := newSweep(t, 4, `  - {name: bm25, type: bm25}
  - {name: svc, type: http, url: "http://user:pw@127.0.0.1:9/search", k: 0, concurrency: -1, on_query_error: skip, bearer_env: "Bearer abc", headers_env: {"X Key": RB_SET, X-Api-Key: "not a name"}, max_unmapped: 2}
  - {name: nourl, type: http}
  - {name: unset, type: http, url: "http://127.0.0.1:9/search", bearer_env: RB_UNSET_VARIABLE}
  - {name: file, type: run, max_unmapped: -0.5, depth: 3}
  - {name: fused, type: hybrid, inputs: [bm25, unset]}`)
	code, _, errOut := runBench("run", "--check", "--no-history", s.cfg)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "abc") || strings.Contains(errOut, ":pw@") {
		t.Errorf("a value that may be a credential is shown:\n%s", errOut)
	}
	for _, w := range []string{
		"retrievers[1].url: credentials in the URL are refused",
		"retrievers[1].k: k 0: must be ≥ 1",
		"retrievers[1].concurrency: -1: must be ≥ 1",
		`retrievers[1].on_query_error: unknown policy "skip"`,
		"retrievers[1].bearer_env: not an environment variable name (letters, digits, '_'; not shown",
		`retrievers[1].headers_env: "X Key" is not an HTTP header name`,
		"retrievers[1].max_unmapped: max unmapped 2: want a fraction in [0, 1]",
		"retrievers[2].url: missing",
		"retrievers[4].file: missing",
		"retrievers[4].depth: does not apply to type run",
		"retrievers[4].max_unmapped: max unmapped -0.5",
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	s = newSweep(t, 4, `  - {name: bm25, type: bm25}
  - {name: unset, type: http, url: "http://127.0.0.1:9/search", bearer_env: RB_UNSET_VARIABLE}
  - {name: fused, type: hybrid, inputs: [bm25, unset]}`)
	code, _, errOut = runBench("run", "--check", "--no-history", s.cfg)
	for _, w := range []string{`retrievers[1].bearer_env: retriever "unset": environment variable RB_UNSET_VARIABLE is unset or empty`,
		`retrievers[2].inputs: retriever "unset" is of type http: its results are a pipeline's own passages`} {
		if code != 1 || !strings.Contains(errOut, w) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, w, errOut)
		}
	}
}

// TestHTTPDocumentLabels scores a type http cell on document labels: each
// passage stands for its document (MaxP). The fault server's /ok answers
// windows of the documents in id order (chatlogs, state_of_the_union,
// wikitexts) at scores k, k−1, k−2, …: by hand, a query labelled chatlogs
// finds it at rank 1, one labelled wikitexts at rank 3.
func TestHTTPDocumentLabels(t *testing.T) {
	srv := pipetest.FaultServer(t, nil)
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(labels, []byte(`{"id": "a", "question": "what did the chat say", "gold": ["chatlogs"]}
{"id": "b", "question": "what does the wiki say", "gold": ["wikitexts"]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	corpusDir, _ := pipetest.Chroma(t)
	cfg := filepath.Join(dir, "docs.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`name: docs
dataset: {corpus: %q, queries: %q, title: false}
chunking: [{strategy: doc}]
retrievers:
  - {name: svc, type: http, url: %q, k: 9}
k: [1, 3]
metrics: [hit_rate, mrr]
`, corpusDir, labels, srv.URL("/ok"))), 0o644); err != nil {
		t.Fatal(err)
	}
	s := sweepDir{dir: dir, out: filepath.Join(dir, "out"), cache: filepath.Join(dir, "cache"), cfg: cfg}
	if code, _, errOut := s.run(); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, per := s.results(t).cell(t, "doc/svc")
	want := map[string]map[string]float64{"a": {"hit_rate@1": 1, "mrr@3": 1}, "b": {"hit_rate@1": 0, "hit_rate@3": 1, "mrr@3": 1.0 / 3}}
	for q, m := range want {
		for name, v := range m {
			if got := per[q][name]; math.Abs(got-v) > 1e-12 {
				t.Errorf("query %s %s = %v, want %v", q, name, got, v)
			}
		}
	}
}

// TestHTTPCellGateAndHistory runs a sweep with a type http cell twice: the
// second run, gated against the first (--baseline), finds the cell
// unchanged (exit 0, the cell in the summary), and both runs' rows are in
// the history CSV with the cell's numbers.
func TestHTTPCellGateAndHistory(t *testing.T) {
	srv := pipetest.FaultServer(t, nil)
	s := newSweep(t, 12, "  - {name: bm25, type: bm25}\n"+httpRetriever("svc", srv.URL("/ok"), "k: 10, version: ok-1"))
	hist := filepath.Join(s.dir, "history.csv")
	code, _, errOut := runBench("run", "--progress", "none", "--history", hist, "--output", s.out, "--cache-dir", s.cache, s.cfg)
	if code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	summary := filepath.Join(s.dir, "gate.md")
	code, _, errOut = runBench("run", "--progress", "none", "--history", hist, "--output", filepath.Join(s.dir, "out2"), "--cache-dir", s.cache,
		"--baseline", s.out, "--gate-summary", summary, s.cfg)
	if code != 0 {
		t.Fatalf("gated run: exit %d, want 0: %s", code, errOut)
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "recursive-1000o150/svc") {
		t.Errorf("gate summary lacks the http cell (%v):\n%s", err, md)
	}
	csv, err := os.ReadFile(hist)
	if err != nil || strings.Count(string(csv), "recursive-1000o150/svc") < 2 {
		t.Errorf("history lacks the http cell's two rows (%v):\n%s", err, csv)
	}
}

// TestHTTPEchoedTokensRedacted runs services that echo the request's
// Authorization header the ways a Python or Java server writes it (JSON
// without Go's HTML escaping of & < >) — in a 500's error body, as the
// answer's qid, as results[0].doc and .text, as plain text — with bearer
// tokens holding '&', '"', '<' and '\': bench quotes the echoed value
// with %q in its own messages ("qid: ..., not the query asked"), and no
// output, stdout, stderr or file, may hold the token in any form. (The
// tester's finding: `HTTP 500: {"error": "Bearer p&ss\"word1"}`.)
func TestHTTPEchoedTokensRedacted(t *testing.T) {
	tokens := map[string]string{"RB_TOK_A": `p&ss"word1`, "RB_TOK_B": `s3cr"et<tok>&\x`}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		send := func(code int, v any) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // as Python's json.dumps, Jackson, JSON.stringify
			enc.Encode(v)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			io.WriteString(w, b.String())
		}
		switch r.URL.Path {
		case "/echo500":
			send(500, map[string]string{"error": auth})
		case "/echoqid":
			send(200, map[string]any{"qid": auth, "results": []any{}})
		case "/echodoc":
			send(200, map[string]any{"results": []any{map[string]any{"doc": auth, "start": 0, "end": 1}}})
		case "/echotext":
			send(200, map[string]any{"results": []any{map[string]any{"text": auth + " not in the corpus"}}})
		case "/echo400":
			w.WriteHeader(400)
			io.WriteString(w, "bad: "+auth)
		}
	}))
	defer srv.Close()
	var retrievers string
	for _, env := range []string{"RB_TOK_A", "RB_TOK_B"} {
		t.Setenv(env, tokens[env])
		for _, p := range []string{"echo500", "echoqid", "echodoc", "echotext", "echo400"} {
			retrievers += httpRetriever(strings.ToLower(env[3:])+"-"+p, srv.URL+"/"+p, "bearer_env: "+env+", retries: 0, on_query_error: miss, max_unmapped: 1")
		}
	}
	s := newSweep(t, 3, retrievers)
	code, out, errOut := s.run()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, "[REDACTED]"); n < 8 { // echotext: in the notes, not stderr
		t.Errorf("stderr shows %d redactions, want one per failing cell at least:\n%s", n, errOut)
	}
	// Every form of a token starts with these letters, which no encoder
	// escapes.
	check := func(what, text string) {
		for _, f := range []string{"word1", "s3cr"} {
			if strings.Contains(text, f) {
				t.Errorf("%s holds a token (%q):\n%s", what, f, text)
			}
		}
	}
	check("stdout", out)
	check("stderr", errOut)
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		}
		check(p, string(b))
		return nil
	})
}
