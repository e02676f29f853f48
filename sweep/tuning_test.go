package sweep

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/ranxfuse"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

const tuneHead = "dataset: {corpus: c, queries: q}\nretrievers:\n  - {name: a, type: bm25}\n  - {name: b, type: bm25, k1: 1.2}\n"

// TestTuneGridErrors: bad grids fail at load with file:line: field: message,
// before any work (issue 15's bad input).
func TestTuneGridErrors(t *testing.T) {
	var big []string
	for i := range hybrid.MaxGridSettings + 1 {
		big = append(big, fmt.Sprint(i+1))
	}
	cases := []struct{ name, yaml, want string }{
		{"too many settings", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    rrf_k: [" + strings.Join(big, ", ") + "]\n",
			":5: retrievers[2]: grid: more than 1000 settings (MaxGridSettings); narrow the grid"},
		{"negative weight", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    fusion: combsum\n    weights:\n      - [0.5, 0.5]\n      - [1, -1]\n",
			":11: retrievers[2].weights[1][1]: must be finite and ≥ 0, got -1"},
		{"infinite weight", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    fusion: combsum\n    weights: [[.inf, 1]]\n",
			":9: retrievers[2].weights[0][0]: must be finite and ≥ 0, got +Inf"},
		{"NaN weight", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    fusion: combsum\n    weights: [[1, 1], [1, .nan]]\n",
			":9: retrievers[2].weights[1][1]: must be finite and ≥ 0, got NaN"},
		{"weight count", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    weights: [[1, 1], [1, 2, 3]]\n",
			":8: retrievers[2].weights[1]: 3 weights for 2 inputs"},
		{"unknown method", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    fusion: [rrf, borda]\n",
			":8: retrievers[2].fusion[1]: unknown fusion method \"borda\""},
		{"negative rrf_k", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    rrf_k: [20, -1]\n",
			":8: retrievers[2].rrf_k[1]: RRF rank constant must be a finite number ≥ 0, got -1"},
		{"fractional depth", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    depth: [50, 99.5]\n",
			":8: retrievers[2].depth[1]: not an integer: 99.5"},
		{"empty grid", tuneHead + "  - name: h\n    type: hybrid\n    inputs: [a, b]\n    fusion: []\n",
			":8: retrievers[2].fusion: empty grid"},
		{"grid on bm25", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: a\n    type: bm25\n    k1: [0.9, 1.2]\n",
			":5: retrievers[0].k1: a list here is a grid, and type bm25 is not tuned: give one value"},
		{"grid on dense", "dataset: {corpus: c, queries: q}\nretrievers:\n  - name: d\n    type: dense\n    model: m\n    batch_size: [16, 32]\n",
			":6: retrievers[0].batch_size: a list here is a grid, and type dense is not tuned"},
		{"grid on a rerank field not tuned", tuneHead + "  - {name: r, type: rerank, input: a, model: m, mode: interpolate, alpha: 0.4, batch_size: [8, 16]}\n",
			":5: retrievers[2].batch_size: a list here is a grid, and rerank does not tune batch_size"},
		{"alpha grid in mode ce", tuneHead + "  - {name: r, type: rerank, input: a, model: m, alpha: [0.2, 0.4]}\n",
			":5: retrievers[2].alpha: "},
		{"alpha out of range", tuneHead + "  - name: r\n    type: rerank\n    input: a\n    model: m\n    mode: interpolate\n    alpha: [0.2, 1.5]\n",
			":10: retrievers[2].alpha[1]: must be in [0, 1], got 1.5"},
		{"unknown field beside a grid", tuneHead + "  - {name: h, type: hybrid, inputs: [a, b], fusion: [rrf, combsum], fuson: rrf}\n",
			":5: fuson: unknown field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tc.yaml), LoadOptions{DataDir: "/d"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestTuneGridExpands: fusion × normalization × weights (a list of lists)
// expand by hybrid.Grid.Expand: weights apply to rrf (weighted RRF) and
// combsum, normalisations to combsum only: 2 + 2 × 2 settings. A flat
// weights list stays one value.
func TestTuneGridExpands(t *testing.T) {
	cfg, err := Load(writeConfig(t, tuneHead+`  - name: h
    type: hybrid
    inputs: [a, b]
    fusion: [rrf, combsum]
    normalization: [minmax, zscore]
    weights: [[1, 1], [0.3, 0.7]]
  - {name: flat, type: hybrid, inputs: [a, b], fusion: combsum, weights: [0.3, 0.7]}
  - {name: r, type: rerank, input: h, model: m, mode: interpolate, alpha: [0, 0.5, 1]}
`), LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Retrievers[2].Settings.(kinds.Tunable).TuneSettings() {
		names = append(names, s.Name)
	}
	want := []string{
		"rrf k=60 missing=zero weights=1,1 depth=100", "rrf k=60 missing=zero weights=0.3,0.7 depth=100",
		"combsum norm=minmax missing=zero weights=1,1 depth=100", "combsum norm=minmax missing=zero weights=0.3,0.7 depth=100",
		"combsum norm=zscore missing=zero weights=1,1 depth=100", "combsum norm=zscore missing=zero weights=0.3,0.7 depth=100",
	}
	if !slices.Equal(names, want) {
		t.Errorf("settings\n%q\nwant\n%q", names, want)
	}
	if f := cfg.Retrievers[3].Settings.(*kinds.Hybrid); f.Tune != nil || len(f.TuneSettings()) != 0 || !slices.Equal(f.Weights, []float64{0.3, 0.7}) {
		t.Errorf("flat weights: tune %v, weights %v; want one value", f.Tune, f.Weights)
	}
	if r := cfg.Retrievers[4].Settings.(*kinds.Rerank).TuneSettings(); len(r) != 3 || r[0].Name != "interpolate alpha=0 depth=100" {
		t.Errorf("alpha grid settings %+v", r)
	}
	if got := cfg.Retrievers[2].Settings.(kinds.Tunable).TuneDefault().Name; got != hybrid.DefaultOptions().String() {
		t.Errorf("default %q", got)
	}
}

// TestUntunedCacheKeysUnchanged: a retriever without grids keeps its
// run-cache key material: no "tune" or "missing" member, and the hybrid
// defaults filled as before (rrf_k 60, depth 100; combsum's minmax).
func TestUntunedCacheKeysUnchanged(t *testing.T) {
	cfg, err := Load(writeConfig(t, tuneHead+`  - {name: h, type: hybrid, inputs: [a, b], fusion: rrf, rrf_k: 60, depth: 100}
  - {name: s, type: hybrid, inputs: [a, b], fusion: combsum}
`), LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{
		2: `{"name":"","type":"hybrid","fusion":"rrf","rrf_k":60,"depth":100}`,
		3: `{"name":"","type":"hybrid","fusion":"combsum","normalization":"minmax","depth":100}`,
	} {
		if got := string(hashkey.JSON(withoutName(cfg.Retrievers[i]))); got != want {
			t.Errorf("retriever %d key material %s, want %s", i, got, want)
		}
	}
	// rrf_k: 0 is RRF without a constant (hybrid.Options.Validate), no
	// longer an error.
	if _, err := Load(writeConfig(t, tuneHead+"  - {name: h, type: hybrid, inputs: [a, b], rrf_k: 0}\n"), LoadOptions{DataDir: "/d"}); err != nil {
		t.Errorf("rrf_k: 0: %v", err)
	}
}

// tuneFixture writes a corpus (every doc id of runs) and labelled queries
// (gold: gold[q]) and returns a config file over them with the given
// retrievers section, plus a backend whose first stages serve runs by
// retriever name.
func tuneFixture(t *testing.T, runs map[string]eval.Run, gold map[string][]string, rest string) (string, backend) {
	t.Helper()
	dir := t.TempDir()
	docs := map[string]bool{}
	for _, run := range runs {
		for _, l := range run {
			for _, r := range l {
				docs[r.DocID] = true
			}
		}
	}
	for _, g := range gold {
		for _, d := range g {
			docs[d] = true
		}
	}
	var cb, qb strings.Builder
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		fmt.Fprintf(&cb, `{"_id": %q, "title": "", "text": "text of %s"}`+"\n", id, id)
	}
	for _, q := range slices.Sorted(maps.Keys(gold)) {
		b, _ := json.Marshal(map[string]any{"id": q, "question": "question " + q, "gold": gold[q]})
		qb.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(cb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(qb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgText := fmt.Sprintf("dataset: {corpus: %s, queries: %s, title: false}\n%s", filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "queries.jsonl"), rest)
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	be := defaultBackend()
	be.wrapSearch = func(c *kinds.Cell, _ kinds.Settings, _ func() (retrievers.Retriever, error)) (retrievers.Retriever, error) {
		run, ok := runs[c.Retriever]
		if !ok {
			return nil, fmt.Errorf("no run for %s", c.Retriever)
		}
		return kinds.StaticRetriever{Run: run}, nil
	}
	return p, be
}

// loadFixture loads config file p over the data beside it, every output
// there too.
func loadFixture(t *testing.T, p string) *Config {
	t.Helper()
	return loadConfig(t, p, filepath.Dir(p), filepath.Dir(p))
}

// TestTuningPicksOnTuningQueries: a hand-worked grid where the setting best
// on the tuning queries is not the best on the held-out ones, so the test
// fails if selection looks at held-out (or all) queries.
//
// Twelve queries qNN, each with gold gNN and a distractor xNN; heldout
// fraction 0.5 (seed 7) splits them. Input A ranks [g, x] on tuning queries
// and returns only [x] on held-out ones; input B ranks [x, g] on tuning
// queries and [g, x] on held-out ones. combsum minmax with weights [1, 0]
// is A alone, [0, 1] B alone; at k = 3:
//
//	setting          tuning nDCG@3   held-out nDCG@3
//	weights=1,0      1               0 (A alone returns [x]; B's g takes no part)
//	weights=0,1      1/log2(3)       1
//
// So the tuning pick is weights=1,0 (also the earlier), its held-out mean
// 0 < 1; the cell's numbers are its; the default (RRF) is evaluated
// and tested against it on the held-out queries.
func TestTuningPicksOnTuningQueries(t *testing.T) {
	a, b := eval.Run{}, eval.Run{}
	gold := map[string][]string{}
	nHeld := 0
	for i := range 12 {
		q := fmt.Sprintf("q%02d", i)
		g, x := "g"+q[1:], "x"+q[1:]
		gold[q] = []string{g}
		if IsHeldOut(q, 7, 0.5) {
			nHeld++
			a[q] = []eval.Result{{DocID: x, Score: 2}}
			b[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
		} else {
			a[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
			b[q] = []eval.Result{{DocID: x, Score: 2}, {DocID: g, Score: 1}}
		}
	}
	if nHeld == 0 || nHeld == 12 {
		t.Fatalf("split %d held out of 12: pick another seed", nHeld)
	}
	p, be := tuneFixture(t, map[string]eval.Run{"a": a, "b": b}, gold, `retrievers:
  - {name: a, type: bm25}
  - {name: b, type: bm25, k1: 1.2}
  - name: tuned
    type: hybrid
    inputs: [a, b]
    fusion: combsum
    normalization: minmax
    weights: [[1, 0], [0, 1]]
k: [1, 3]
prompt_k: 3
significance: {permutations: 1000}
heldout: {fraction: 0.5, seed: 7}
`)
	cfg := loadFixture(t, p)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[2]
	tu := c.Tuning
	if tu == nil {
		t.Fatal("no tuning result")
	}
	ndcg2 := 1 / math.Log2(3)
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	if len(tu.Settings) != 2 || !near(tu.Settings[0].Tuning, 1) || !near(tu.Settings[0].HeldOut, 0) ||
		!near(tu.Settings[1].Tuning, ndcg2) || !near(tu.Settings[1].HeldOut, 1) {
		t.Fatalf("grid %+v, want (1, 0) and (%.4f, 1)", tu.Settings, ndcg2)
	}
	if want := "combsum norm=minmax missing=zero weights=1,0 depth=100"; tu.Chosen.Name != want {
		t.Errorf("chosen %q, want %q (the tuning best)", tu.Chosen.Name, want)
	}
	if !near(c.Means[results.GroupTuning]["ndcg@3"], 1) || !near(c.Means[results.GroupHeldOut]["ndcg@3"], 0) {
		t.Errorf("cell means tuning %v held-out %v, want the chosen setting's 1 and 0", c.Means[results.GroupTuning]["ndcg@3"], c.Means[results.GroupHeldOut]["ndcg@3"])
	}
	if tu.Default.Name != hybrid.DefaultOptions().String() || tu.Test == nil || tu.Test.A != tu.Chosen.Name || tu.Test.B != tu.Default.Name {
		t.Errorf("default %q, test %+v", tu.Default.Name, tu.Test)
	}
	if tu.TuningQueries != 12-nHeld || tu.HeldOutQueries != nHeld {
		t.Errorf("queries %d/%d, want %d/%d", tu.TuningQueries, tu.HeldOutQueries, 12-nHeld, nHeld)
	}
	md := report.Markdown(res)
	page, err := report.Page(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	tuned := 0
	for _, s := range page.Summary {
		if strings.HasPrefix(s, "Tuned ") {
			tuned++
		}
	}
	if !strings.Contains(md, "## Tuning") || !strings.Contains(md, "weights=1,0") || tuned != 1 {
		t.Errorf("report has no tuning section:\n%s", md)
	}
	// A second run reads the chosen run and the grid from the run cache.
	res2, err := Run(t.Context(), loadFixture(t, p), Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Timings[2].Cached || res2.Cells[2].Tuning == nil || res2.Cells[2].Tuning.Chosen != tu.Chosen {
		t.Errorf("second run: cached %v, tuning %+v", res2.Timings[2].Cached, res2.Cells[2].Tuning)
	}
}

// TestSweepFusionMatchesRanx: the hybrid cells of a sweep over the SciFact
// BM25 and all-MiniLM-L6-v2 runs of retrievers/hybrid/testdata/scifact
// (served through the backend seam as the inputs' runs) equal ranx
// 0.3.21's fuse() for every reference setting, untuned and as a tuned
// cell's chosen setting.
func TestSweepFusionMatchesRanx(t *testing.T) {
	ref, err := ranxfuse.Load()
	if err != nil {
		t.Fatal(err)
	}
	bm25, dense, err := ranxfuse.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string][]string{}
	for q, l := range bm25 {
		gold[q] = []string{l[0].DocID}
	}
	names := slices.Sorted(maps.Keys(ref))
	var rs strings.Builder
	rs.WriteString("retrievers:\n  - {name: bm25, type: bm25}\n  - {name: dense, type: bm25, k1: 1.2}\n")
	for _, n := range names {
		c := ref[n]
		fmt.Fprintf(&rs, "  - {name: %s, type: hybrid, inputs: [bm25, dense], fusion: %s", n, c.Method)
		if c.Norm != "" {
			fmt.Fprintf(&rs, ", normalization: %s", c.Norm)
		}
		if c.Weights != nil {
			fmt.Fprintf(&rs, ", weights: [%g, %g]", c.Weights[0], c.Weights[1])
		}
		rs.WriteString("}\n")
	}
	// A tuned cell: its chosen setting's run is the cell's.
	rs.WriteString("  - {name: tuned, type: hybrid, inputs: [bm25, dense], fusion: [rrf, combsum, combmnz], normalization: [minmax, max, sum, zscore, rank, borda]}\n")
	rs.WriteString("k: [10]\ndepth: 200\nsignificance: {permutations: 100}\n")
	p, be := tuneFixture(t, map[string]eval.Run{"bm25": bm25, "dense": dense}, gold, rs.String())
	cfg := loadFixture(t, p)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ranxfuse.Config{}
	for _, n := range names {
		c := ref[n]
		if c.Weights == nil {
			o := hybrid.Options{Method: hybrid.Method(c.Method), Norm: hybrid.Normalization(c.Norm), K: hybrid.DefaultK, Depth: hybrid.DefaultDepth}
			byName[o.String()] = c
		}
	}
	checked := 0
	for _, cell := range res.Cells {
		var c ranxfuse.Config
		switch {
		case cell.Tuning != nil:
			var ok bool
			if c, ok = byName[cell.Tuning.Chosen.Name]; !ok {
				t.Fatalf("tuned cell chose %q, which no reference covers", cell.Tuning.Chosen.Name)
			}
			t.Logf("tuned cell chose %s", cell.Tuning.Chosen.Name)
		case cell.Retriever.Type == "hybrid": // a tuned hybrid's untuned sibling
			c = ref[cell.Retriever.Name]
		default:
			continue
		}
		run, err := eval.ReadRun(filepath.Join(cfg.Output, "runs", cellFile(cell.Name)+".trec"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compare(c.Subset(run)); err != nil {
			t.Errorf("%s: differs from ranx:\n%v", cell.Name, err)
		}
		checked++
	}
	if checked != len(ref)+1 {
		t.Errorf("%d cells checked, want %d", checked, len(ref)+1)
	}
}

// TestRerankAlphaTuning: an alpha grid is tuned like a hybrid grid, through
// the backend's rerank seam (here a fake: alpha < 0.5 ranks [g, x] on
// tuning queries and [x] only on held-out ones, alpha ≥ 0.5 the reverse of
// TestTuningPicksOnTuningQueries' B). The tuning pick is alpha 0.2 although
// 0.8 is the held-out best; the default (alpha 0.4, not in the grid) is
// evaluated apart and, scoring as 0.2 does, ties it on every query.
func TestRerankAlphaTuning(t *testing.T) {
	if err := encoder.Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
	model := testenv.Shared(t, "models/ce-scifact-tiny")
	low, high, first := eval.Run{}, eval.Run{}, eval.Run{}
	gold := map[string][]string{}
	for i := range 12 {
		q := fmt.Sprintf("q%02d", i)
		g, x := "g"+q[1:], "x"+q[1:]
		gold[q] = []string{g}
		first[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
		if IsHeldOut(q, 7, 0.5) {
			low[q] = []eval.Result{{DocID: x, Score: 2}}
			high[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
		} else {
			low[q] = []eval.Result{{DocID: g, Score: 2}, {DocID: x, Score: 1}}
			high[q] = []eval.Result{{DocID: x, Score: 2}, {DocID: g, Score: 1}}
		}
	}
	p, be := tuneFixture(t, map[string]eval.Run{"a": first}, gold, fmt.Sprintf(`retrievers:
  - {name: a, type: bm25}
  - {name: r, type: rerank, input: a, model: %s, mode: interpolate, alpha: [0.2, 0.8]}
k: [1, 3]
prompt_k: 3
significance: {permutations: 1000}
heldout: {fraction: 0.5, seed: 7}
`, model))
	var alphas []float64
	be.wrapRerank = func(_ *kinds.Cell, rc *kinds.Rerank, _ func() (eval.Run, error)) (eval.Run, error) {
		alphas = append(alphas, *rc.Alpha)
		if *rc.Alpha < 0.5 {
			return low, nil
		}
		return high, nil
	}
	res, err := Run(t.Context(), loadFixture(t, p), Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	tu := res.Cells[1].Tuning
	if tu == nil {
		t.Fatal("no tuning result")
	}
	if !slices.Equal(alphas, []float64{0.2, 0.8, 0.4}) {
		t.Errorf("reranked with alphas %v, want the grid then the default", alphas)
	}
	if tu.Chosen.Name != "interpolate alpha=0.2 depth=100" || tu.Default.Name != "interpolate alpha=0.4 depth=100" {
		t.Errorf("chosen %q, default %q", tu.Chosen.Name, tu.Default.Name)
	}
	if tu.Settings[1].HeldOut <= tu.Chosen.HeldOut || tu.Test == nil || tu.Test.P != 1 {
		t.Errorf("grid %+v, test %+v: want alpha 0.8 better held out, and chosen = default per query (p 1)", tu.Settings, tu.Test)
	}
}

// TestFuseOverflowNamesInputs: a hybrid over raw scores (normalization:
// none) whose sum overflows float64 stops the run with an error naming
// the query, the doc and the input retrievers by name (hybrid.Fuse names
// them by index).
func TestFuseOverflowNamesInputs(t *testing.T) {
	a := eval.Run{"q1": {{DocID: "g1", Score: 1e308}, {DocID: "x1", Score: 1}}}
	b := eval.Run{"q1": {{DocID: "g1", Score: 1e308}}}
	p, be := tuneFixture(t, map[string]eval.Run{"a": a, "b": b}, map[string][]string{"q1": {"g1"}}, `retrievers:
  - {name: a, type: bm25}
  - {name: b, type: bm25, k1: 1.2}
  - {name: h, type: hybrid, inputs: [a, b], fusion: combsum, normalization: none}
k: [1]
`)
	_, err := Run(t.Context(), loadFixture(t, p), Options{NoHistory: true, backend: &be})
	want := `query "q1": doc "g1": the fused score is +Inf: the scores of inputs "a" and "b" overflow float64 when combined`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run error %v, want one containing %q", err, want)
	}
}
