package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// TestSpanSweep runs testdata/spans.yaml (span labels over a folder corpus)
// and checks the numbers against values worked by hand.
//
// Documents (code points; each file ends in a newline, outside every
// chunk):
//
//	a = "alpha bravo charlie delta echo foxtrot golf hotel"
//	     alpha [0,5) bravo [6,11) charlie [12,19) delta [20,25)
//	     echo [26,30) foxtrot [31,38) golf [39,43) hotel [44,49)
//	b = "india juliet kilo lima mike november oscar papa"
//	     lima ends at 22; mike [23,27) … oscar [37,42) papa [43,47)
//
// Gold spans: q1 "delta echo" = a[20,30) (located from its text, 10);
// q2 b[37,47) "oscar papa" (10) and a[0,11) "alpha bravo" (11), Σ = 21;
// q3 none (unanswerable, not averaged).
//
// fixed-4: a#0 = [0,25) (25), a#1 = [26,49) (23), b#0 = [0,22),
// b#1 = [23,47) (24). BM25 returns the chunks sharing a query word:
// q1 "charlie delta" → [a#0]; q2 "hotel golf papa" → [a#1 (two words),
// b#1]. Covering (half of a span): a#0 holds 5 of q1's 10 → covers; a#1
// holds 4 → not. Derived judgements: q1 {a#0}, q2 {b#1, a#0}.
//
//	q1, k = 1 and 2: I = 5: recall 5/10, precision 5/25, IoU 5/30; nDCG 1.
//	q2, k = 1: a#1 holds no gold: all 0.
//	q2, k = 2: I = 10 (b#1 ⊃ oscar papa): recall 10/21, precision
//	   10/(23 + 24) = 10/47, IoU 10/(21 + 47 − 10) = 10/58; span recall
//	   1/2, span MRR 1/2; nDCG@2 = (1/log2 3) / (1 + 1/log2 3) = 0.386853.
//
// fixed-8: a#0 = [0,49) (49), b#0 = [0,47) (47); q1 → [a#0]; q2 → [a#0,
// b#0]. q1: recall 1, precision = IoU = 10/49. q2, k = 1: I = 11: recall
// 11/21; k = 2: I = 21: recall 1, precision = IoU = 21/96.
func TestSpanSweep(t *testing.T) {
	dir := t.TempDir()
	cfg := loadConfig(t, "testdata/spans.yaml", "testdata/spans", dir)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Dataset; d.Documents != 2 || d.Queries != 3 || d.Answerable != 2 || d.Unanswerable != 1 || d.Level != "chunk" {
		t.Errorf("dataset %+v: want 2 documents, 3 queries (2 answerable), chunk-level", d)
	}
	checkSpanCells(t, res)

	checkSpanFiles(t, cfg.Output)

	report, err := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Span measures at prompt_k = 2", "| fixed-4/bm25 | 4      | 0.3061      | 0.4881         | 0.2064            | 0.1695      | 0.7500",
		"The winning chunking on ndcg@2 is `fixed-8`", "derived for each chunking from span labels",
		"| fixed-4/bm25 | 1 / 3                |", "| fixed-8/bm25 | 0 / 3                |",
		"span_recall across the k grid", "| fixed-4/bm25 | 0.5000 | 0.7500 |"} {
		if !bytes.Contains(report, []byte(w)) {
			t.Errorf("report.md lacks %s", w)
		}
	}
}

// checkSpanCells checks each cell's span and chunk measures and its
// precision Ω against the values worked by hand in TestSpanSweep's
// comment.
func checkSpanCells(t *testing.T, res *results.Results) {
	t.Helper()
	want := map[string]map[string]float64{
		"fixed-4/bm25": {
			"token_recall@1": (0.5 + 0) / 2, "token_precision@1": (0.2 + 0) / 2, "token_iou@1": (1.0/6 + 0) / 2,
			"token_recall@2": (0.5 + 10.0/21) / 2, "token_precision@2": (0.2 + 10.0/47) / 2, "token_iou@2": (1.0/6 + 10.0/58) / 2,
			"span_recall@1": 0.5, "span_recall@2": (1 + 0.5) / 2, "span_mrr@2": (1 + 0.5) / 2, "span_hit_rate@2": 1,
			"ndcg@1": 0.5, "ndcg@2": (1 + 0.386853) / 2, "hit_rate@2": 1, "recall@2": (1 + 0.5) / 2, "mrr@2": (1 + 0.5) / 2,
		},
		"fixed-8/bm25": {
			"token_recall@1": (1 + 11.0/21) / 2, "token_precision@1": (10.0/49 + 11.0/49) / 2, "token_iou@1": (10.0/49 + 11.0/59) / 2,
			"token_recall@2": 1, "token_iou@2": (10.0/49 + 21.0/96) / 2,
			"span_recall@1": (1 + 0.5) / 2, "span_recall@2": 1, "ndcg@2": 1,
		},
	}
	for _, c := range res.Cells {
		for m, v := range want[c.Name] {
			got, ok := c.Means[results.GroupAll][m]
			if !ok || math.Abs(got-v) > 1e-6 {
				t.Errorf("%s %s = %v (present %v), want %.6f", c.Name, m, got, ok, v)
			}
		}
		// Ω (gold text in the chunks meeting a gold span, over the union of
		// those chunks and the spans): fixed-4: q1 a#0, a#1 meet [20,30),
		// holding 5 + 4 (the space at 25 is in no chunk) of [0,49): 9/49;
		// q2 b#1 and a#0: (10 + 11)/(24 + 25). fixed-8: q1 10/49; q2
		// 21/(49 + 47).
		omega := map[string]float64{"fixed-4/bm25": (9.0/49 + 21.0/49) / 2, "fixed-8/bm25": (10.0/49 + 21.0/96) / 2}[c.Name]
		if c.PrecisionOmega == nil || math.Abs(*c.PrecisionOmega-omega) > 1e-6 {
			t.Errorf("%s: precision Ω %v, want %.6f", c.Name, fmtPtr(c.PrecisionOmega), omega)
		}
		delete(want, c.Name)
		if c.Chunking.Strategy != "fixed" || c.Chunking.Size == 0 {
			t.Errorf("%s: chunking %+v", c.Name, c.Chunking)
		}
		if s := c.Means["slice:multi"]["token_recall@2"]; c.Name == "fixed-4/bm25" && math.Abs(s-10.0/21) > 1e-6 {
			t.Errorf("%s: multi slice token_recall@2 = %v, want 10/21", c.Name, s)
		}
	}
	if len(want) > 0 {
		t.Errorf("cells missing: %v", want)
	}
}

// checkSpanFiles checks results.json (the chunking object, the span means
// as fractions) and misses.jsonl (one span miss, worked by hand) in the
// span sweep's output folder out.
func checkSpanFiles(t *testing.T, out string) {
	t.Helper()
	// results.json: the chunking object and the span means as fractions.
	var rj struct {
		Cells []struct {
			Chunking map[string]any                `json:"chunking"`
			Means    map[string]map[string]float64 `json:"means"`
		} `json:"cells"`
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rj); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"strategy", "tokenizer", "size", "overlap"} {
		if _, ok := rj.Cells[0].Chunking[key]; !ok {
			t.Errorf("results.json cells[0].chunking lacks %q: %v", key, rj.Cells[0].Chunking)
		}
	}
	if v := rj.Cells[0].Means["all"]["token_recall@1"]; math.Abs(v-0.25) > 1e-6 {
		t.Errorf("results.json token_recall@1 = %v, want 0.25", v)
	}

	// misses.jsonl: fixed-4 misses q2's "alpha bravo" at k = 2 (b#1 came
	// back and covers the other span); fixed-8 misses nothing.
	f, err := os.Open(filepath.Join(out, "misses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []results.SpanMiss
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m results.SpanMiss
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	if len(rows) != 1 {
		t.Fatalf("misses.jsonl has %d rows, want 1: %+v", len(rows), rows)
	}
	m := rows[0]
	if m.Cell != "fixed-4/bm25" || m.QueryID != "q2" || m.Doc != "a" || m.Start != 0 || m.End != 11 || m.Text != "alpha bravo" ||
		len(m.Returned) != 2 || m.Returned[0].ID != "a#1" || m.Returned[1].ID != "b#1" || m.Returned[0].Relevant || !m.Returned[1].Relevant ||
		m.Returned[1].Snippet != "mike november oscar papa" {
		t.Errorf("miss %+v", m)
	}
}

// TestSpanConfigErrors: the span-label fields of the config fail with
// file:line: field like the rest of the config.
func TestSpanConfigErrors(t *testing.T) {
	const head = "dataset: {corpus: c, queries: q}\nretrievers: [{name: a, type: bm25}]\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"tokens without tokenizer", head + "chunking:\n  - strategy: tokens\n    sizes: [200]\n", ":4: chunking[0].tokenizer: strategy tokens needs a tokenizer: tokenizer: cl100k_base"},
		{"unknown tokenizer", head + "chunking:\n  - strategy: tokens\n    tokenizer: gpt2\n    sizes: [200]\n", ":5: chunking[0].tokenizer: unknown tokenizer \"gpt2\""},
		{"tokenizer on fixed", head + "chunking:\n  - strategy: fixed\n    tokenizer: cl100k_base\n    sizes: [20]\n", ":5: chunking[0].tokenizer: strategy fixed counts words"},
		{"tokens overlap = size", head + "chunking:\n  - {strategy: tokens, tokenizer: cl100k_base, sizes: [100], overlaps: [100]}\n", ":4: chunking[0].overlaps[0]: overlap 100 must be in [0, size 100) tokens"},
		{"recursive overlap > size", head + "chunking:\n  - strategy: recursive\n    sizes: [100]\n    overlaps: [101]\n", ":6: chunking[0].overlaps[0]: overlap 101 must be in [0, size 100] characters"},
		{"recursive without sizes", head + "chunking:\n  - strategy: recursive\n", ":4: chunking[0].sizes: strategy recursive needs sizes (characters per chunk)"},
		{"unknown strategy", head + "chunking:\n  - strategy: semantic\n", ":4: chunking[0].strategy: unknown strategy \"semantic\": one of doc, fixed, sentence, tokens, recursive"},
		{"cover share 0", "dataset: {corpus: c, queries: q, span_cover_share: 0}\nretrievers: [{name: a, type: bm25}]\n", ":1: dataset.span_cover_share: share 0 must be in (0, 1]"},
		{"cover share > 1", "dataset:\n  corpus: c\n  queries: q\n  span_cover_share: 1.5\nretrievers: [{name: a, type: bm25}]\n", ":4: dataset.span_cover_share: share 1.5 must be in (0, 1]"},
		{"unknown span metric", head + "metrics: [token_recal]\n", ":3: metrics[0]: unknown metric \"token_recal\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			_, err := Load(p, LoadOptions{DataDir: "/d"})
			if err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file %s", err, p)
			}
		})
	}

	// A span family without span labels: an error at the metric's line
	// when the dataset is read (small's labels are chunk/doc ids).
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfgPath, []byte("dataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nretrievers: [{name: a, type: bm25}]\nmetrics: [ndcg, token_iou]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(cfgPath, LoadOptions{DataDir: "testdata/small", Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), cfg, Options{NoHistory: true})
	if want := cfgPath + ":3: metrics[1]: metric token_iou needs span labels"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("span metric without span labels: error %v, want %q", err, want)
	}

	// primary_metric a span family, no metrics: line: the default holds
	// the span families (docs/config.md), so the config loads; the same
	// on labels that are not spans is one error, at primary_metric's line,
	// saying the metric needs span labels.
	for _, tc := range []struct{ data, want string }{
		{"testdata/spans", ""},
		{"testdata/small", ":3: primary_metric: metric span_recall needs span labels"},
	} {
		p := filepath.Join(dir, "primary.yaml")
		queries := map[string]string{"testdata/spans": "labels.jsonl", "testdata/small": "queries.jsonl"}[tc.data]
		corpus := map[string]string{"testdata/spans": "corpus", "testdata/small": "corpus.jsonl"}[tc.data]
		if err := os.WriteFile(p, []byte("dataset: {corpus: "+corpus+", queries: "+queries+"}\nretrievers: [{name: a, type: bm25}]\nprimary_metric: span_recall\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p, LoadOptions{DataDir: tc.data})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: primary_metric span_recall with span labels: %v", tc.data, err)
			} else if want := append(append([]string(nil), config.MetricFamilies...), config.SpanMetricFamilies...); !slices.Equal(cfg.Metrics, want) || !slices.Equal(cfg.Significance.Metrics, []string{"span_recall"}) {
				t.Errorf("%s: metrics %v, significance.metrics %v; want %v, [span_recall]", tc.data, cfg.Metrics, cfg.Significance.Metrics, want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), p+tc.want) || strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%s: error %v, want the one error %q", tc.data, err, tc.want)
		}
	}

	// slice_field with span labels: their slice is "kind"/"slice"
	// (corpus_id for Chroma's CSV), so the field is an error at its line.
	spansCfg := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spansCfg, []byte("dataset:\n  corpus: corpus\n  queries: labels.jsonl\n  slice_field: topic\nretrievers: [{name: a, type: bm25}]\nk: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(spansCfg, LoadOptions{DataDir: "testdata/spans", Output: filepath.Join(dir, "out3"), CacheDir: filepath.Join(dir, "cache3")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), cfg, Options{NoHistory: true})
	if want := spansCfg + ":4: dataset.slice_field: span labels carry their slice"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("slice_field with span labels: error %v, want %q", err, want)
	}

	// Span families alone (no trec_eval family) run, and primary_metric
	// defaults to the first.
	cfg, err = Load("testdata/spans.yaml", LoadOptions{DataDir: "testdata/spans", Output: filepath.Join(dir, "out2"), CacheDir: filepath.Join(dir, "cache2")})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Metrics, cfg.PrimaryMetric, cfg.Significance.Metrics = []string{"token_iou"}, "token_iou", []string{"token_iou"}
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Cells[0].Means[results.GroupAll]["token_iou@1"]; math.Abs(v-1.0/12) > 1e-6 {
		t.Errorf("token_iou@1 = %v, want 1/12", v)
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'f', 6, 64)
}

// TestSpanUncoverable: with span_cover_share 1 a chunk must hold a whole
// span. Under fixed-4, q1's "delta echo" a[20,30) straddles a#0 [0,25)
// and a#1 [26,49): no chunk covers it, so the run warns, and q1 — all of
// whose spans are uncoverable — is still averaged, scoring 0 on the
// chunk-level measures (2 queries averaged: nDCG@1 = (0 + 0)/2, q2's top
// a#1 holding no gold). fixed-8 covers every span. The text chunkers run
// through the same path: tokens and recursive cells carry their tokenizer.
func TestSpanUncoverable(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load("testdata/spans.yaml", LoadOptions{DataDir: "testdata/spans", Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dataset.SpanCoverShare = 1
	cfg.Chunking = append(cfg.Chunking,
		config.ChunkingConfig{Strategy: "tokens", Tokenizer: "cl100k_base", Sizes: []int{4}, Overlaps: []int{2}},
		config.ChunkingConfig{Strategy: "recursive", Sizes: []int{20}, Overlaps: []int{0}})
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, "chunking fixed-4: 1 gold span in 1 query covered by no chunk") {
			warned = true
			if !strings.Contains(w, `query "q1", doc "a" [20, 30)`) {
				t.Errorf("warning %q does not name q1's span", w)
			}
		}
		if strings.HasPrefix(w, "chunking fixed-8:") {
			t.Errorf("fixed-8 covers every span, yet: %q", w)
		}
	}
	if !warned {
		t.Errorf("no uncoverable-span warning for fixed-4 in %q", res.Warnings)
	}
	names := map[string]results.CellResult{}
	for _, c := range res.Cells {
		names[c.Name] = c
	}
	c4 := names["fixed-4/bm25"]
	if c4.Counts[results.GroupAll] != 2 || c4.Means[results.GroupAll]["ndcg@1"] != 0 || c4.PerQuery["q1"]["ndcg@2"] != 0 {
		t.Errorf("fixed-4: counts %v, ndcg@1 %v, q1 ndcg@2 %v; want 2, 0, 0", c4.Counts, c4.Means[results.GroupAll]["ndcg@1"], c4.PerQuery["q1"]["ndcg@2"])
	}
	if v := names["fixed-8/bm25"].Means[results.GroupAll]["ndcg@2"]; v != 1 {
		t.Errorf("fixed-8 ndcg@2 = %v, want 1", v)
	}
	for name, tok := range map[string]string{"tokens-cl100k_base-4o2/bm25": "cl100k_base", "recursive-20/bm25": ""} {
		c, ok := names[name]
		if !ok {
			t.Errorf("no cell %s in %v", name, cfg.Chunkings())
			continue
		}
		if c.Chunking.Tokenizer != tok || c.Chunks < 4 {
			t.Errorf("%s: chunking %+v, %d chunks", name, c.Chunking, c.Chunks)
		}
		if v, ok := c.Means[results.GroupAll]["token_recall@2"]; !ok || v < 0 || v > 1 {
			t.Errorf("%s: token_recall@2 = %v (present %v)", name, v, ok)
		}
	}
}
