//go:build e2e

package sweep

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/results"
)

// TestE2EEngineSweep runs `bench run`'s sweep on SciFact test (whole
// documents) against a real single-node Elasticsearch and OpenSearch it
// starts with scripts/engines/ctl.sh: a managed BM25 cell (k1 0.9, b 0.4,
// English analysis), a managed kNN cell sharing its index, a ragbench RRF
// over the two, and an existing-index cell querying the same index through
// a template. It checks nDCG@10 against Pyserini's BM25 (0.6789, within
// 0.002) and the built-in exact dense result (0.6451, within 0.005), that
// the existing-index cell equals the managed BM25 cell, that the index was
// loaded once, and that a second run reads the managed cells from the run
// cache while it queries the existing index again.
//
// It runs only when RAGBENCH_ENGINES_DIR is set (scripts/engines/test.sh
// sets it, and CI runs that script from scripts/test.sh); then an engine that is
// not installed skips it, except under CI=true, where that fails it. Ports:
// $RAGBENCH_ENGINE_PORT (default 9250) for Elasticsearch, +20 for OpenSearch.
func TestE2EEngineSweep(t *testing.T) {
	dir := os.Getenv("RAGBENCH_ENGINES_DIR")
	if dir == "" {
		t.Skip("RAGBENCH_ENGINES_DIR not set (scripts/engines/test.sh sets it and installs the engines)")
	}
	base := 9250
	if p, err := strconv.Atoi(os.Getenv("RAGBENCH_ENGINE_PORT")); err == nil {
		base = p
	}
	for i, d := range []struct{ dialect, home, analyzer string }{
		{"elasticsearch", "elasticsearch-8.19.21", "lucene_english"},
		{"opensearch", "opensearch-3.5.0", "english"},
	} {
		t.Run(d.dialect, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, d.home, "bin", d.dialect)); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s not installed under CI: %v", d.dialect, err)
				}
				t.Skipf("%s not installed (run scripts/engines/fetch.sh): %v", d.dialect, err)
			}
			port := base + 20*i
			ctl := func(args ...string) {
				cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "scripts", "engines", "ctl.sh"), args...)
				cmd.Env = append(os.Environ(), "RAGBENCH_ENGINE_PORT="+strconv.Itoa(port))
				out, err := cmd.CombinedOutput()
				t.Logf("ctl.sh %s: %s", strings.Join(args, " "), bytes.TrimSpace(out))
				if err != nil {
					t.Fatalf("ctl.sh %s: %v", strings.Join(args, " "), err)
				}
			}
			os.RemoveAll(filepath.Join(dir, "run", d.dialect+"-single-"+strconv.Itoa(port)))
			ctl("start", d.dialect, "single")
			t.Cleanup(func() { ctl("stop", d.dialect, "single") })
			testEngineSweep(t, d.dialect, d.analyzer, fmt.Sprintf("http://127.0.0.1:%d", port))
		})
	}
}

func testEngineSweep(t *testing.T, dialect, analyzer, url string) {
	managed := fmt.Sprintf("    type: %s\n    urls: [%s]\n    analyzer: %s\n    k1: 0.9\n    b: 0.4\n    model: all-minilm-l6-v2\n    prefix: e2e\n    concurrency: 2\n", dialect, url, analyzer)
	yaml := `dataset:
  beir: datasets/scifact
  split: test
chunking:
  - strategy: doc
retrievers:
  - name: bm25
` + managed + `    query: bm25
  - name: knn
` + managed + `    query: knn
    num_candidates: 400
  - {name: rrf, type: hybrid, inputs: [bm25, knn]}
  - name: existing
    type: ` + dialect + `
    mode: existing
    urls: [` + url + `]
    index: "e2e-*"
    id_field: id
    template: '{"query": {"match": {"text": "{{query}}"}}}'
k: [10, 100]
significance:
  permutations: 1000
`
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	// The shared embedding cache: the SciFact vectors are read, not computed.
	testenv.LinkEmbeddingCache(t, filepath.Join(cache, "embeddings"))
	cfg, err := Load(p, LoadOptions{DataDir: testenv.Shared(t, ""), ModelsDir: filepath.Join(testenv.RepoRoot(), "models"),
		Output: filepath.Join(dir, "out"), CacheDir: cache, History: filepath.Join(dir, "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	lib := cmp.Or(os.Getenv("ONNXRUNTIME_LIB"), filepath.Join(testenv.RepoRoot(), "third_party", "onnxruntime", "libonnxruntime.so"))
	res, err := Run(t.Context(), cfg, Options{ONNXRuntime: lib})
	if err != nil {
		t.Fatal(err)
	}
	ndcg := map[string]float64{}
	for _, c := range res.Cells {
		ndcg[c.Name] = c.Means[results.GroupAll]["ndcg@10"]
	}
	t.Logf("%s nDCG@10: %v", dialect, ndcg)
	if v := ndcg["doc/bm25"]; math.Abs(v-0.6789) > 0.002 {
		t.Errorf("bm25 nDCG@10 %.4f, want within 0.002 of Pyserini's 0.6789", v)
	}
	if v := ndcg["doc/knn"]; math.Abs(v-0.6451) > 0.005 {
		t.Errorf("knn nDCG@10 %.4f, want within 0.005 of the exact built-in 0.6451", v)
	}
	if a, b := ndcg["doc/existing"], ndcg["doc/bm25"]; math.Abs(a-b) > 1e-9 {
		t.Errorf("existing-index nDCG@10 %.6f, managed %.6f: want equal", a, b)
	}
	tm := map[string]results.Timing{}
	for _, x := range res.Timings {
		tm[x.Cell] = x
	}
	if tm["doc/bm25"].IndexDocs != 5183 || tm["doc/knn"].IndexDocs != 0 || tm["doc/bm25"].IndexBytes == 0 || tm["doc/knn"].LatencyP50 == 0 {
		t.Errorf("timings %+v / %+v: want the index loaded once by doc/bm25, sizes and latencies", tm["doc/bm25"], tm["doc/knn"])
	}
	res2, err := Run(t.Context(), cfg, Options{ONNXRuntime: lib})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res2.Timings {
		if want := x.Cell != "doc/existing"; x.Cached != want {
			t.Errorf("second run: %s cached %v, want %v", x.Cell, x.Cached, want)
		}
	}
}
