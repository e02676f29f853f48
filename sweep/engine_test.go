package sweep

import (
	"bytes"
	"encoding/base64"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
)

// engineConfig is a config over testdata/small with retrievers given as
// YAML list items (indented by four spaces).
func engineConfig(retrievers string) string {
	return `dataset:
  corpus: corpus.jsonl
  queries: queries.jsonl
  slice_field: kind
retrievers:
  - {name: bm25, type: bm25}
` + retrievers + `k: [1, 3]
prompt_k: 3
significance:
  permutations: 100
`
}

// TestEngineConfigFields checks every field rule of the engine types, each
// error naming file:line and the retriever's field.
func TestEngineConfigFields(t *testing.T) {
	const es = "  - name: es\n    type: elasticsearch\n    urls: [http://127.0.0.1:9200]\n"
	const ex = "  - name: ex\n    type: opensearch\n    mode: existing\n    urls: [http://127.0.0.1:9200]\n    index: prod\n    id_field: doc_id\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"no urls", "  - {name: es, type: elasticsearch}\n", ":7: retrievers[1].urls: missing"},
		{"credentials in url", "  - name: es\n    type: elasticsearch\n    urls: [\"http://elastic:hunter2@127.0.0.1:9200\"]\n", ":9: retrievers[1].urls[0]: http://REDACTED@127.0.0.1:9200 carries credentials"},
		{"bad scheme", "  - name: es\n    type: elasticsearch\n    urls: [ftp://h]\n", "retrievers[1].urls[0]: ftp://h: want http(s)"},
		{"user without password", es + "    user_env: ES_USER\n", "retrievers[1].password_env: missing: basic auth needs both"},
		{"password without user", es + "    password_env: ES_PASS\n", "retrievers[1].user_env: missing"},
		{"both schemes", es + "    user_env: U\n    password_env: P\n    api_key_env: K\n", ":12: retrievers[1].api_key_env: give basic auth"},
		{"env value, not name", es + "    api_key_env: \"abc=def\"\n", "retrievers[1].api_key_env: \"abc=def\" is not an environment variable name"},
		{"timeout not a duration", es + "    timeout: 5\n", ":10: retrievers[1].timeout: \"5\" is not a duration"},
		{"timeout zero", es + "    timeout: 0s\n", "retrievers[1].timeout: 0s must be > 0"},
		{"backoff negative", es + "    backoff: -1s\n", "retrievers[1].backoff: -1s must be ≥ 0"},
		{"concurrency 0", es + "    concurrency: 0\n", "retrievers[1].concurrency: concurrency 0: must be ≥ 1"},
		{"concurrency negative", es + "    concurrency: -2\n", "retrievers[1].concurrency: -2 must be > 0"},
		{"retries negative", es + "    retries: -1\n", "retrievers[1].retries: -1 must be ≥ 0"},
		{"retries fractional", es + "    retries: 1.5\n", "retrievers[1].retries: not an integer: 1.5"},
		{"unknown mode", es + "    mode: live\n", "retrievers[1].mode: unknown mode \"live\""},
		{"unknown query", es + "    query: sparse\n", "retrievers[1].query: unknown query \"sparse\""},
		{"k1 without b", es + "    k1: 0.9\n", "retrievers[1].k1: give both k1 and b"},
		{"b out of range", es + "    k1: 0.9\n    b: 1.5\n", "retrievers[1].b: 1.5 must be in [0, 1]"},
		{"k1 negative", es + "    k1: -1\n    b: 0.4\n", "retrievers[1].k1: -1 must be finite and ≥ 0"},
		{"shards 0", es + "    shards: 0\n", "retrievers[1].shards: shards 0"},
		{"shards negative", es + "    shards: -1\n", "retrievers[1].shards: -1 must be ≥ 1"},
		{"replicas negative", es + "    replicas: -1\n", "retrievers[1].replicas: -1 must be ≥ 0"},
		{"prefix", es + "    prefix: Prod_Index\n", "retrievers[1].prefix: \"Prod_Index\": want lowercase"},
		{"bulk_docs 0", es + "    bulk_docs: 0\n", "retrievers[1].bulk_docs: bulk_docs 0"},
		{"hnsw_m alone", es + "    hnsw_m: 16\n", "retrievers[1].hnsw_m: give both hnsw_m and ef_construction"},
		{"hnsw_m negative", es + "    hnsw_m: -1\n    ef_construction: 100\n", "retrievers[1].hnsw_m: -1 must be > 0"},
		{"knn without model", es + "    query: knn\n", "retrievers[1].model: missing: query knn needs an embedding model"},
		{"hybrid without model", es + "    query: hybrid\n    bm25_boost: 1\n    knn_boost: 1\n", "retrievers[1].model: missing: query hybrid"},
		{"hybrid without boosts", es + "    query: hybrid\n", "retrievers[1].bm25_boost: missing: query hybrid needs bm25_boost and knn_boost"},
		{"hybrid zero boost", es + "    query: hybrid\n    bm25_boost: 1\n    knn_boost: 0\n", "retrievers[1].knn_boost: 0: a hybrid query needs both boosts"},
		{"boost on bm25", es + "    bm25_boost: 1\n", "retrievers[1].bm25_boost: applies to query hybrid only"},
		{"k on bm25", es + "    query: bm25\n    k: 10\n", "retrievers[1].k: applies to query knn and hybrid only"},
		{"k negative", es + "    query: knn\n    model: m\n    k: -1\n", "retrievers[1].k: -1 must be > 0"},
		{"num_candidates 0", es + "    query: knn\n    model: m\n    num_candidates: 0\n", "retrievers[1].num_candidates: num_candidates 0"},
		{"existing field on managed", es + "    index: prod\n", "retrievers[1].index: applies to mode existing only"},
		{"managed field on existing", ex + "    template: '{\"query\": {\"match\": {\"body\": \"{{query}}\"}}}'\n    shards: 2\n", "retrievers[1].shards: applies to mode managed only"},
		{"existing without index", "  - name: ex\n    type: opensearch\n    mode: existing\n    urls: [http://h:1]\n    id_field: _id\n    template: '{\"query\": {\"match\": {\"b\": \"{{query}}\"}}}'\n", "retrievers[1].index: missing"},
		{"existing without id_field", "  - name: ex\n    type: opensearch\n    mode: existing\n    urls: [http://h:1]\n    index: prod\n    template: '{\"query\": {\"match\": {\"b\": \"{{query}}\"}}}'\n", "retrievers[1].id_field: missing"},
		{"existing without template", ex, "retrievers[1].template: missing"},
		{"template without placeholder", ex + "    template: '{\"query\": {\"match_all\": {}}}'\n", "retrievers[1].template: holds neither"},
		{"template not JSON", ex + "    template: '{\"query\": \"{{query}}\"'\n", "retrievers[1].template: not a JSON object"},
		{"vector template without model", ex + "    template: '{\"knn\": {\"field\": \"v\", \"query_vector\": \"{{vector}}\", \"k\": \"{{k}}\"}}'\n", "retrievers[1].model: missing: the template holds \"{{vector}}\""},
		{"filter not an object", ex + "    template: '{\"query\": {\"match\": {\"b\": \"{{query}}\"}}}'\n    filters: [{}]\n", "retrievers[1].filters[0]: not a JSON object"},
		{"engine field on bm25", "  - {name: b2, type: bm25, urls: [http://h:1]}\n", "retrievers[1].urls: does not apply to type bm25"},
		{"unknown field", es + "    uri: http://h:1\n", "uri: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, engineConfig(tc.yaml))
			_, err := Load(p, LoadOptions{DataDir: "/data"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// TestEngineConfigDefaults checks the defaults check fills and the
// options handed to package engine.
func TestEngineConfigDefaults(t *testing.T) {
	p := writeConfig(t, engineConfig("  - name: es\n    type: elasticsearch\n    urls: [http://127.0.0.1:9200]\n    query: bm25\n    k1: 0.9\n    b: 0.4\n    analyzer: english\n    retries: 0\n    ca_file: ca.pem\n"))
	cfg, err := Load(p, LoadOptions{DataDir: "/data"})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Retrievers[1].Settings.(*kinds.Engine)
	c := r.Conn()
	if r.Mode != "managed" || c.Retries != 0 || c.Timeout.String() != "1m0s" || c.Backoff.String() != "500ms" || c.CAFile != filepath.Join(filepath.Dir(p), "ca.pem") {
		t.Errorf("mode %q, conn %+v", r.Mode, c)
	}
	m := r.Managed()
	if m.BM25 == nil || m.BM25.K1 != 0.9 || m.BM25.B != 0.4 || m.Analyzer != "english" || m.HNSW != nil {
		t.Errorf("managed %+v", m)
	}
	p = writeConfig(t, engineConfig("  - {name: es, type: elasticsearch, urls: [http://127.0.0.1:9200], query: bm25}\n"))
	if cfg, err = Load(p, LoadOptions{DataDir: "/data"}); err != nil {
		t.Fatal(err)
	}
	if c := cfg.Retrievers[1].Settings.(*kinds.Engine).Conn(); c.Retries != 3 {
		t.Errorf("default retries %d, want engine.DefaultRetries 3", c.Retries)
	}
	// A bm25 config's JSON (and so its run-cache key and config hash) is
	// unchanged by the engine fields.
	if s := string(hashkey.JSON(withoutName(cfg.Retrievers[0]))); strings.Contains(s, "urls") || strings.Contains(s, "retries") {
		t.Errorf("bm25 retriever JSON holds engine fields: %s", s)
	}
}

// TestEngineSweepNoSecrets runs a tiny sweep against a fake engine that
// requires basic auth — a managed BM25 cell, an existing-index cell, and a
// ragbench RRF over an engine input — and greps every written file and the
// captured stderr for the credentials.
func TestEngineSweepNoSecrets(t *testing.T) {
	const user, secret = "rb-user-7f3a", "s3cr3t-PW-9b1c"
	fe := newFakeEngine(user, secret)
	fe.seed("prod", map[string]string{"p-1": "Eiffel tower Paris", "p-2": "Brandenburg gate Berlin", "p-4": "Shibuya crossing Tokyo"})
	srv := httptest.NewServer(fe)
	defer srv.Close()
	t.Setenv("RB_TEST_USER", user)
	t.Setenv("RB_TEST_PASS", secret)
	conn := "    urls: [" + srv.URL + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n    retries: 0\n"
	yaml := engineConfig("  - name: es\n    type: elasticsearch\n    query: bm25\n    k1: 0.9\n    b: 0.4\n" + conn +
		"  - name: prod\n    type: elasticsearch\n    mode: existing\n    index: prod\n    id_field: _id\n    template: '{\"query\": {\"match\": {\"body\": \"{{query}}\"}}}'\n" + conn +
		"  - {name: rrf, type: hybrid, inputs: [bm25, es]}\n" +
		"  - {name: rrf-prod, type: hybrid, inputs: [bm25, prod]}\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/small")
	load := func() *Config {
		cfg, err := Load(p, LoadOptions{DataDir: abs, Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "history.csv")})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	var stderr bytes.Buffer
	res, err := Run(t.Context(), load(), Options{Stderr: &stderr, Progress: ProgressPlain})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	checkEngineCells(t, res)

	// A second run reads the managed cell (and the RRF over it) from the
	// run cache but queries the existing index again.
	before := fe.searches.Load()
	res2, err := Run(t.Context(), load(), Options{Stderr: &stderr, Progress: ProgressPlain})
	if err != nil {
		t.Fatal(err)
	}
	cached := map[string]bool{}
	for _, tm := range res2.Timings {
		cached[tm.Cell] = tm.Cached
	}
	if !cached["doc/es"] || !cached["doc/rrf"] || cached["doc/prod"] {
		t.Errorf("cached %v: want doc/es and doc/rrf cached, doc/prod queried again", cached)
	}
	if got := fe.searches.Load() - before; got != 6 {
		t.Errorf("second run sent %d searches, want 6 (the existing-index cell's queries)", got)
	}

	secrets := []string{secret, base64.StdEncoding.EncodeToString([]byte(user + ":" + secret))}
	check := func(where string, b []byte) {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a credential", where)
			}
		}
	}
	check("stderr", stderr.Bytes())
	checkEngineOutputs(t, dir, check)

	checkEngineFailures(t, fe, load, check, secret)
}

// checkEngineCells checks the first engine sweep's cells: every engine
// cell scored the fake's hits (it scores by shared words, as bm25 ranks
// this corpus: q1 finds p-1), and the managed cell's timing counts the 6
// documents loaded, the index's 4096 bytes and a latency.
func checkEngineCells(t *testing.T, res *results.Results) {
	t.Helper()
	byName := map[string]results.CellResult{}
	for _, c := range res.Cells {
		byName[c.Name] = c
	}
	for _, name := range []string{"doc/es", "doc/prod", "doc/rrf"} {
		if got := byName[name].Means["all"]["hit_rate@1"]; got == 0 {
			t.Errorf("%s: hit_rate@1 = 0; want the engine's hits scored", name)
		}
	}
	var esTiming results.Timing
	for _, tm := range res.Timings {
		if tm.Cell == "doc/es" {
			esTiming = tm
		}
	}
	if esTiming.IndexDocs != 6 || esTiming.IndexBytes != 4096 || esTiming.LatencyP50 == 0 {
		t.Errorf("doc/es timing %+v: want 6 docs loaded, 4096 bytes, a latency", esTiming)
	}
}

// checkEngineOutputs checks that the sweep wrote its outputs under dir
// (results, manifest, report, history: at least 5 files) and passes each
// file to check (no credential in it).
func checkEngineOutputs(t *testing.T, dir string, check func(where string, b []byte)) {
	t.Helper()
	n := 0
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		check(path, b)
		return nil
	})
	for _, f := range []string{"out/results.json", "out/manifest.json", "out/report.md", "history.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if n < 5 {
		t.Errorf("only %d files written", n)
	}
}

// checkEngineFailures runs the engine sweep in each failure a user meets
// (queries failing after the retries, wrong, unset and CRLF-damaged
// credentials): each fails with a clear error, the password in none of
// them (check).
func checkEngineFailures(t *testing.T, fe *fakeEngine, load func() *Config, check func(where string, b []byte), secret string) {
	t.Helper()
	var stderr bytes.Buffer
	// A query failing after the retries fails the run, naming the query.
	fe.failQueries.Store(true)
	_, err := Run(t.Context(), load(), Options{Stderr: &stderr, Progress: ProgressPlain})
	if err == nil || !strings.Contains(err.Error(), "cell doc/prod") || !strings.Contains(err.Error(), "503") {
		t.Errorf("run with failing queries: %v; want an error of cell doc/prod with HTTP 503", err)
	}
	if err != nil {
		check("error", []byte(err.Error()))
	}
	check("stderr", stderr.Bytes())

	// Wrong credentials: a clear error, the password in no output.
	t.Setenv("RB_TEST_PASS", "wrong-"+secret)
	fe.failQueries.Store(false)
	_, err = Run(t.Context(), load(), Options{Stderr: &stderr, Progress: ProgressPlain})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("run with wrong credentials: %v; want HTTP 401", err)
	}
	if err != nil {
		check("error", []byte(err.Error()))
		if strings.Contains(err.Error(), "wrong-") {
			t.Errorf("error shows the password: %v", err)
		}
	}

	// An unset credential variable stops the run before any work, naming
	// the variable only.
	t.Setenv("RB_TEST_PASS", "")
	_, err = Run(t.Context(), load(), Options{})
	if err == nil || !strings.Contains(err.Error(), "retrievers[1].password_env: retriever \"es\": environment variable RB_TEST_PASS is unset or empty") {
		t.Errorf("run with an unset variable: %v", err)
	}

	// A credential with a control character (a trailing "\r" from a CRLF
	// .env file) stops the run before any work too, its value not shown
	// (it was sent, and answered 401 after retries, or for an API key
	// refused by net/http as "node unreachable").
	t.Setenv("RB_TEST_PASS", secret+"\r")
	_, err = Run(t.Context(), load(), Options{})
	if err == nil || !strings.Contains(err.Error(), "retrievers[1].password_env: retriever \"es\": environment variable RB_TEST_PASS holds a control character") {
		t.Errorf("run with a control character in a variable: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the password: %v", err)
	}
}
