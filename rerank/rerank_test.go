package rerank

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// first is a fake first stage returning a fixed run cut to k.
type first struct {
	run  eval.Run
	gotK int
}

func (f *first) Search(_ context.Context, qs []retrievers.Query, k int) (eval.Run, error) {
	f.gotK = k
	out := eval.Run{}
	for _, q := range qs {
		l := f.run[q.ID]
		out[q.ID] = l[:min(k, len(l))]
	}
	return out, nil
}

func (f *first) Stats() retrievers.Stats {
	return retrievers.Stats{Build: time.Second, IndexBytes: 42}
}

// fakeCE scores a passage "text-dN" by a fixed table and records batch sizes.
type fakeCE struct {
	scores  map[string]float32
	batches []int
	queries []string
}

func (c *fakeCE) score(_ context.Context, q string, ps []string) ([]float32, error) {
	c.batches = append(c.batches, len(ps))
	c.queries = append(c.queries, q)
	out := make([]float32, len(ps))
	for i, p := range ps {
		out[i] = c.scores[p]
	}
	return out, nil
}

var (
	firstRun = eval.Run{"q": {
		{DocID: "d1", Score: 10}, {DocID: "d2", Score: 8}, {DocID: "d3", Score: 6},
		{DocID: "d4", Score: 4}, {DocID: "d5", Score: 2},
	}}
	passages = PassagesFromMap(map[string]string{
		"d1": "text-d1", "d2": "text-d2", "d3": "text-d3", "d4": "text-d4", "d5": "text-d5",
	})
	ceScores = map[string]float32{"text-d1": 0, "text-d2": 3, "text-d3": 1, "text-d4": 5, "text-d5": 9}
	approx   = cmpopts.EquateApprox(0, 1e-12)
)

func TestRerankCEHandComputed(t *testing.T) {
	f := &first{run: firstRun}
	ce := &fakeCE{scores: ceScores}
	r, err := New(f, ce.score, passages, Options{Depth: 3, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "what?"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Top 3 by CE: d2 3, d3 1, d1 0; then d4, d5 in first-stage order at
	// min − 1 = −1 and min − 2 = −2 (d4 and d5 are never scored: depth 3).
	want := eval.Run{"q": {
		{DocID: "d2", Score: 3}, {DocID: "d3", Score: 1}, {DocID: "d1", Score: 0},
		{DocID: "d4", Score: -1}, {DocID: "d5", Score: -2},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2, 1}, ce.batches); d != "" {
		t.Errorf("batch sizes (-want +got):\n%s", d)
	}
	if ce.queries[0] != "what?" {
		t.Errorf("query text %q", ce.queries[0])
	}
	if f.gotK != 5 {
		t.Errorf("first stage asked for %d, want max(k, depth) = 5", f.gotK)
	}
}

func TestRerankInterpolateHandComputed(t *testing.T) {
	f := &first{run: firstRun}
	ce := &fakeCE{scores: ceScores}
	r, err := New(f, ce.score, passages, Options{Depth: 3, Mode: ModeInterpolate, Alpha: DefaultAlpha})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "what?"}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// CE over d1, d2, d3 = 0, 3, 1: mean 4/3, population σ = √14/3, so
	// z = −4/√14, 5/√14, −1/√14. First stage 10, 8, 6: mean 8, σ = √(8/3), so
	// z = √1.5, 0, −√1.5. α = 0.4:
	//   d1 = 0.4·(−4/√14) + 0.6·√1.5 =  0.307228936…
	//   d2 = 0.4·( 5/√14)            =  0.534522483…
	//   d3 = 0.4·(−1/√14) − 0.6·√1.5 = −0.841751420…
	s14, s15 := math.Sqrt(14), math.Sqrt(1.5)
	d1, d2, d3 := 0.4*(-4/s14)+0.6*s15, 0.4*(5/s14), 0.4*(-1/s14)-0.6*s15
	want := eval.Run{"q": {
		{DocID: "d2", Score: d2}, {DocID: "d1", Score: d1}, {DocID: "d3", Score: d3},
		{DocID: "d4", Score: d3 - 1},
	}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for i, w := range []float64{0.534522483, 0.307228936, -0.841751420} {
		if math.Abs(got["q"][i].Score-w) > 1e-9 {
			t.Errorf("rank %d: %.10f, want %.9f", i+1, got["q"][i].Score, w)
		}
	}
	// α = 1 orders like ModeCE.
	r1, _ := New(f, ce.score, passages, Options{Depth: 3, Mode: ModeInterpolate, Alpha: 1})
	got1, err := r1.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "what?"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range got1["q"] {
		ids = append(ids, x.DocID)
	}
	if d := cmp.Diff([]string{"d2", "d3", "d1"}, ids); d != "" {
		t.Errorf("alpha 1 order (-want +got):\n%s", d)
	}
	// α = 0 is a weight like any other, not "the default": the score is the
	// first stage's z-score alone, √1.5, 0, −√1.5 for d1, d2, d3 (before the
	// fix α = 0 ran as 0.4 and ranked d2 first).
	r0, _ := New(f, ce.score, passages, Options{Depth: 3, Mode: ModeInterpolate, Alpha: 0})
	got0, err := r0.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "what?"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want0 := eval.Run{"q": {{DocID: "d1", Score: s15}, {DocID: "d2", Score: 0}, {DocID: "d3", Score: -s15}}}
	if d := cmp.Diff(want0, got0, approx); d != "" {
		t.Errorf("alpha 0 (-want +got):\n%s", d)
	}
}

func TestRerankTiesEmptyAndCut(t *testing.T) {
	f := &first{run: eval.Run{
		"q": {{DocID: "b", Score: 2}, {DocID: "a", Score: 1}, {DocID: "c", Score: 0.5}},
		"e": {},
	}}
	flat := func(_ context.Context, _ string, ps []string) ([]float32, error) {
		return make([]float32, len(ps)), nil // every CE score 0: ties by id
	}
	// All three tie at 0; trec_eval ranks ties by doc id descending
	// (strcmp of the docno), so the cut at k = 2 keeps c and b, not a.
	r, err := New(f, flat, PassagesFromMap(map[string]string{"a": "A", "b": "B", "c": "C"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}, {ID: "e", Text: "x"}, {ID: "missing", Text: "x"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {{DocID: "c", Score: 0}, {DocID: "b", Score: 0}}, "e": {}, "missing": {}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	s := r.Stats()
	if s.Build != time.Second || s.IndexBytes != 42 || s.Queries != 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestRerankErrors(t *testing.T) {
	f := &first{run: firstRun}
	ctx := context.Background()
	qs := []retrievers.Query{{ID: "q", Text: "what?"}}
	for _, tc := range []struct {
		name  string
		score ScoreFunc
		want  string
	}{
		{"count", func(context.Context, string, []string) ([]float32, error) { return []float32{1}, nil }, "returned 1 scores for 5 passages"},
		{"NaN", func(_ context.Context, _ string, ps []string) ([]float32, error) {
			s := make([]float32, len(ps))
			s[1] = float32(math.NaN())
			return s, nil
		}, `query "q": doc "d2": cross-encoder score is NaN`},
		{"error", func(context.Context, string, []string) ([]float32, error) { return nil, errors.New("boom") }, `query "q": boom`},
	} {
		r, err := New(f, tc.score, passages, Options{Depth: 5, BatchSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Search(ctx, qs, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	ce := (&fakeCE{scores: ceScores}).score
	for _, o := range []Options{{Depth: -1}, {BatchSize: -2}, {Mode: "rrf"}, {Alpha: 1.5}, {Alpha: -0.2}} {
		if _, err := New(f, ce, passages, o); err == nil {
			t.Errorf("options %+v: want an error", o)
		}
	}
	for _, tc := range []struct {
		o     Options
		field string
	}{{Options{Depth: -1}, "depth: "}, {Options{BatchSize: -2}, "batch_size: "}, {Options{Mode: "rrf"}, "mode: "}, {Options{Alpha: math.NaN()}, "alpha: "}} {
		if err := tc.o.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("Validate(%+v) = %v, want an error starting %q", tc.o, err, tc.field)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions().Validate() = %v", err)
	}
	if _, err := New(nil, ce, passages, Options{}); err == nil {
		t.Error("nil first stage: want an error")
	}
	r, _ := New(f, ce, passages, Options{})
	if _, err := r.Search(ctx, qs, 0); err == nil {
		t.Error("k = 0: want an error")
	}
}

func TestRerankEmptyTextPolicies(t *testing.T) {
	f := &first{run: firstRun}
	ce := &fakeCE{scores: ceScores}
	texts := PassagesFromMap(map[string]string{"d1": "text-d1", "d2": "  ", "d3": "text-d3", "d4": "text-d4", "d5": "text-d5"})
	r, err := New(f, ce.score, texts, Options{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "x"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Top 3 = d1, d2, d3; d2's passage is blank: d3 (CE 1) and d1 (CE 0) are
	// rescored, then d2, d4, d5 in first-stage order at 0 − 1, − 2, − 3.
	want := eval.Run{"q": {
		{DocID: "d3", Score: 1}, {DocID: "d1", Score: 0},
		{DocID: "d2", Score: -1}, {DocID: "d4", Score: -2}, {DocID: "d5", Score: -3},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, p := range ce.batches {
		if p != 2 {
			t.Errorf("scored a batch of %d, want only the 2 non-blank passages", p)
		}
	}
	// A blank query keeps the first-stage list and is never sent to the model.
	n := len(ce.batches)
	got, err = r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: " "}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(eval.Run{"q": firstRun["q"][:2]}, got); d != "" {
		t.Errorf("blank query (-want +got):\n%s", d)
	}
	if len(ce.batches) != n {
		t.Error("blank query reached the cross-encoder")
	}
	w := r.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "1 queries with empty text") || !strings.Contains(w[1], "1 results with empty passage text") {
		t.Errorf("warnings %q", w)
	}
}
