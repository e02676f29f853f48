package sweep

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/retrievers"
)

// TestZeroIsAValue: k1: 0 and alpha: 0 run as 0, not as bm25's and
// rerank's defaults 0.9 and 0.4 (before the fix both were read as "use the
// default" while results.json and the run cache said 0).
//
// With k1 = 0 BM25's term-frequency factor tf/(tf + 0) is 1, so both items
// score idf(x) = ln(1 + (N − n + 0.5)/(n + 0.5)) = ln(1 + 0.5/2.5) = ln 1.2
// (N = n = 2) although "a" holds x four times; with k1 = 0.9 "a" scores
// higher.
func TestZeroIsAValue(t *testing.T) {
	p := writeConfig(t, `dataset: {corpus: c, queries: q}
retrievers:
  - {name: bin, type: bm25, k1: 0}
  - {name: ce, type: rerank, input: bin, model: m, mode: interpolate, alpha: 0}
`)
	cfg, err := Load(p, LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	chunks := []corpus.Chunk{{ID: "a", DocID: "a", Text: "x x x x y", End: 9}, {ID: "b", DocID: "b", Text: "x z", End: 3}}
	c := &kinds.Cell{Retriever: "bin", Chunks: corpus.ChunkList(chunks), Queries: []retrievers.Query{{ID: "q", Text: "x"}}, Depth: 2,
		Env: kinds.NewEnv(t.TempDir(), ""), Progress: kinds.NoProgress{}}
	if err := cfg.Retrievers[0].Settings.Run(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	want := math.Log(1.2)
	if l := c.Run["q"]; len(l) != 2 || math.Abs(l[0].Score-want) > 1e-6 || math.Abs(l[1].Score-want) > 1e-6 {
		t.Errorf("k1: 0 run %v, want both items at ln 1.2 = %.6f", l, want)
	}
	if o := cfg.Retrievers[1].Settings.(*kinds.Rerank).Options(); o.Alpha != 0 || o.Validate() != nil {
		t.Errorf("alpha: 0 gives rerank options %+v (Validate %v), want Alpha 0, valid", o, o.Validate())
	}
}

// TestHybridValidatedAtLoad: the hybrid options the sweep fuses with are
// checked by hybrid.Options.Validate when the config loads, and its field
// names map back to the config's (k → rrf_k, weights[1] → weights[1]).
func TestHybridValidatedAtLoad(t *testing.T) {
	const head = "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: b, type: bm25, k1: 1.2}\n"
	for _, tc := range []struct{ hybrid, want string }{
		{"  - {name: h, type: hybrid, inputs: [a, b], fusion: combsum, weights: [1, -0.5]}\n", ":5: retrievers[2].weights[1]: must be finite and ≥ 0, got -0.5"},
		{"  - {name: h, type: hybrid, inputs: [a, b], fusion: combsum, weights: [1]}\n", ":5: retrievers[2].weights: 1 weights for 2 inputs"},
	} {
		_, err := Load(writeConfig(t, head+tc.hybrid), LoadOptions{DataDir: "/d"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", strings.TrimSpace(tc.hybrid), err, tc.want)
		}
	}
}

// TestEmbedTimeReachesTiming: the embedding time a first-stage builder
// reports through kinds.Cell.AddEmbedTime (dense's embed calls) is the
// cell's embed_s, and what is reported while searching is its
// query_embed_s. The builder here reports 2 s while building and 0.5 s
// while searching.
func TestEmbedTimeReachesTiming(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	be := defaultBackend()
	be.wrapSearch = func(c *kinds.Cell, _ kinds.Settings, build func() (retrievers.Retriever, error)) (retrievers.Retriever, error) {
		r, err := build()
		c.AddEmbedTime(2 * time.Second)
		return embedReporter{r, c.AddEmbedTime}, err
	}
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range res.Timings {
		if tm.Cell != "doc/bm25" {
			continue
		}
		if tm.Embed != 2 || tm.QueryEmbed != 0.5 {
			t.Errorf("%s: embed_s %v, query_embed_s %v; want 2 and 0.5", tm.Cell, tm.Embed, tm.QueryEmbed)
		}
		return
	}
	t.Fatal("no doc/bm25 timing")
}

// embedReporter reports 0.5 s of query embedding per Search call (the
// small sweep's 6 queries fit in one block: one call).
type embedReporter struct {
	retrievers.Retriever
	embedded func(time.Duration)
}

func (e embedReporter) Search(ctx context.Context, qs []retrievers.Query, k int) (eval.Run, error) {
	e.embedded(500 * time.Millisecond)
	return e.Retriever.Search(ctx, qs, k)
}
