//go:build e2e

package engine_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// enginesDir is where scripts/engines/fetch.sh installs the engines.
func enginesDir() string {
	if d := os.Getenv("RAGBENCH_ENGINES_DIR"); d != "" {
		return d
	}
	return filepath.Join(testenv.RepoRoot(), "third_party", "engines")
}

var homes = map[engine.Dialect]string{
	engine.Elasticsearch: "elasticsearch-8.19.21",
	engine.OpenSearch:    "opensearch-3.5.0",
}

// ctl runs scripts/engines/ctl.sh with args and the given HTTP port and
// extra settings; its output is logged. An error fails the test.
func ctl(t testing.TB, port int, settings string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "scripts", "engines", "ctl.sh"), args...)
	cmd.Env = append(os.Environ(), "RAGBENCH_ENGINE_PORT="+strconv.Itoa(port), "RAGBENCH_ENGINES_DIR="+enginesDir(),
		"RAGBENCH_ENGINE_SETTINGS="+settings)
	out, err := cmd.CombinedOutput()
	t.Logf("ctl.sh %s: %s", strings.Join(args, " "), bytes.TrimSpace(out))
	if err != nil {
		t.Fatalf("ctl.sh %s: %v", strings.Join(args, " "), err)
	}
}

// cluster is a running engine the test started.
type cluster struct {
	dialect  engine.Dialect
	topo     string
	port     int
	settings string
	urls     []string
}

// start starts dialect's engine (topology "single" or "cluster") on port
// (the second node on port+10) with a fresh data folder, and stops it when
// the test ends. The engine tests run only when RAGBENCH_ENGINE_TESTS=1
// (scripts/engines/test.sh sets it after installing the engines): they take
// 7–25 minutes per engine and a 300 MB download, so `go test -tags e2e
// ./...` skips them, saying how to run them; CI runs them last, through
// scripts/engines/test.sh --ci from scripts/test.sh. With RAGBENCH_ENGINE_TESTS=1 the test is skipped when the
// engine is not installed, except under CI=true, where that fails it.
func start(t *testing.T, d engine.Dialect, topo string, port int, settings string) *cluster {
	t.Helper()
	if os.Getenv("RAGBENCH_ENGINE_TESTS") != "1" {
		t.Skip("engine tests run with RAGBENCH_ENGINE_TESTS=1: scripts/engines/test.sh installs the engines and runs them")
	}
	if _, err := os.Stat(filepath.Join(enginesDir(), homes[d], "bin", string(d))); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed under CI: %v", d, err)
		}
		t.Skipf("%s not installed (run scripts/engines/fetch.sh): %v", d, err)
	}
	// Fresh data: the suite measures a cold load.
	os.RemoveAll(filepath.Join(enginesDir(), "run", string(d)+"-"+topo+"-"+strconv.Itoa(port)))
	c := &cluster{dialect: d, topo: topo, port: port, settings: settings}
	ctl(t, port, settings, "start", string(d), topo)
	t.Cleanup(func() { ctl(t, port, "", "stop", string(d), topo) })
	c.urls = []string{"http://127.0.0.1:" + strconv.Itoa(port)}
	if topo == "cluster" {
		c.urls = append(c.urls, "http://127.0.0.1:"+strconv.Itoa(port+10))
	}
	return c
}

func (c *cluster) conn() engine.Conn {
	return engine.Conn{URLs: c.urls, Retries: 3, Backoff: engine.DefaultBackoff, Concurrency: 2}
}

// sciFact is SciFact test as the other end-to-end tests use it, and a
// query embedder (all-MiniLM-L6-v2 on the shared embedding cache).
type sciFact struct {
	chunks  []corpus.Chunk
	queries []retrievers.Query
	qrels   eval.Qrels
	embed   dense.EmbedFunc
}

var (
	sciOnce sync.Once
	sci     *sciFact
	vecOnce sync.Once
	vecs    [][]float32
)

// loadSciFact loads SciFact once per test binary, with an embedder that
// lives as long as the binary (it serves every test). Skipped without the
// dataset or the model (failed under CI).
func loadSciFact(t *testing.T) *sciFact {
	t.Helper()
	ds := testenv.Shared(t, "datasets/scifact")
	model := filepath.Join(testenv.RepoRoot(), "models", "all-minilm-l6-v2")
	if _, err := os.Stat(filepath.Join(model, "model.onnx")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("all-minilm-l6-v2 not in models/ (scripts/fetch-models.sh): %v", err)
	}
	sciOnce.Do(func() {
		if err := encoder.Init(""); err != nil {
			t.Fatal(err)
		}
		chunks, qs, qrels := beir.WholeDocsTest(t, ds)
		e, err := encoder.LoadEmbedder(model, encoder.Options{IntraOpThreads: runtime.GOMAXPROCS(0)})
		if err != nil {
			t.Fatal(err)
		}
		ce, err := encoder.NewCachedEmbedder(e, testenv.EmbeddingCache())
		if err != nil {
			t.Fatal(err)
		}
		sci = &sciFact{chunks: chunks, queries: qs, qrels: qrels, embed: ce.Embed}
	})
	if sci == nil {
		t.Fatal("SciFact set-up failed in an earlier test")
	}
	return sci
}

// vectors embeds the SciFact chunks (IndexText, passages) once per binary:
// minutes the first time, then read from the cache.
func vectors(t *testing.T) [][]float32 {
	t.Helper()
	vecOnce.Do(func() {
		texts := make([]string, len(sci.chunks))
		for i, c := range sci.chunks {
			texts[i] = c.IndexText()
		}
		start := time.Now()
		v, err := sci.embed(context.Background(), texts, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("embedded %d chunks in %v (cache %s)", len(v), time.Since(start).Round(time.Millisecond), testenv.EmbeddingCache())
		vecs = v
	})
	if vecs == nil {
		t.Fatal("embedding failed in an earlier test")
	}
	return vecs
}
