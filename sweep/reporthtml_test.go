package sweep

import (
	"math"
	"testing"
	"time"

	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/report"
)

// TestHTMLReportNumbers checks report.html's numbers on the small fixture
// against the hand values of TestSmallSweep: nDCG@3 per query q1..q4 = 1,
// 1, 0.613147, 0 (all), slice single = {q1, q4} = {1, 0}, slice multi =
// {q2, q3}. Confidence intervals are mean ± t(0.975, n−1)·sd/√n with
// t(0.975, 3) = 3.182446 and t(0.975, 1) = 12.706205 (Student's t table).
// A rerank cell's ceiling is its input's recall at its depth: doc/rrf made
// a rerank of doc/bm25 at depth 3 gets doc/bm25's recall@3 = 0.625. The
// history chart has this run after the file's rows; the misses are those
// of misses.jsonl (q3 and q4 miss a gold passage at k = 3 in every cell).
func TestHTMLReportNumbers(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := loadDataset(cfg, defaultBackend())
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Cells {
		if res.Cells[i].Name == "doc/rrf" {
			res.Cells[i].Retriever.Type, res.Cells[i].Retriever.Settings = "rerank", &kinds.Rerank{Input: "bm25", Depth: 3}
		}
	}
	row := historyRow(cfg, ds, res, time.Now())
	r, err := report.Page(res, []history.Row{{Run: 7, Metrics: row.Metrics}, {Run: 8, Metrics: row.Metrics}})
	if err != nil {
		t.Fatal(err)
	}
	q3 := 1 / (1 + 1/math.Log2(3))
	ci := func(v []float64, tq float64) (mean, lo, hi float64) {
		n := float64(len(v))
		for _, x := range v {
			mean += x / n
		}
		ss := 0.0
		for _, x := range v {
			ss += (x - mean) * (x - mean)
		}
		h := tq * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
		return mean, mean - h, mean + h
	}
	want := map[string][3]float64{}
	want["all queries"] = func() [3]float64 { m, l, h := ci([]float64{1, 1, q3, 0}, 3.182446); return [3]float64{m, l, h} }()
	want["slice single"] = func() [3]float64 { m, l, h := ci([]float64{1, 0}, 12.706205); return [3]float64{m, l, h} }()
	want["slice multi"] = func() [3]float64 { m, l, h := ci([]float64{1, q3}, 12.706205); return [3]float64{m, l, h} }()
	if len(r.Slices) != 3 {
		t.Fatalf("%d slice charts, want 3 (all, multi, single)", len(r.Slices))
	}
	for _, sc := range r.Slices {
		w, ok := want[sc.Group]
		if !ok || sc.Metric != "ndcg@3" || len(sc.Bars) != 6 {
			t.Errorf("slice chart %q on %s with %d bars", sc.Group, sc.Metric, len(sc.Bars))
			continue
		}
		for _, b := range sc.Bars {
			if math.Abs(b.Value-w[0]) > 1e-9 || math.Abs(b.Low-w[1]) > 1e-5 || math.Abs(b.High-w[2]) > 1e-5 {
				t.Errorf("%s %s: %v [%v, %v], want %v [%v, %v]", sc.Group, b.Label, b.Value, b.Low, b.High, w[0], w[1], w[2])
			}
		}
	}
	var ceiling *float64
	for _, rc := range r.Recall {
		for _, l := range rc.Lines {
			if rc.Chunking == "doc" && l.Retriever == "rrf" && l.Ceiling != nil {
				ceiling = &l.Ceiling.Recall
			}
		}
	}
	if ceiling == nil || *ceiling != 0.625 {
		t.Errorf("doc/rrf ceiling %v, want doc/bm25's recall@3 = 0.625", ceiling)
	}
	if r.History == nil || len(r.History.Series) != 6 || len(r.History.Series[0].Points) != 2 {
		t.Errorf("history chart %+v, want 6 cells × 2 runs", r.History)
	}
	if len(r.Misses.List) != 12 || r.Misses.Queries["q4"] != "pyramids giza" {
		t.Errorf("%d misses (want q3, q4 × 6 cells = 12), q4 text %q", len(r.Misses.List), r.Misses.Queries["q4"])
	}
	// The significance view: each cell against the baseline doc/bm25 (the
	// best BM25 cell; all six tie), every cell identical to it on every
	// query: five rows, interval [0, 0], "unchanged (identical)", not
	// counted. The all-pairs matrix only on request.
	if c := r.Comparisons; c == nil || c.Title != "Each cell against the baseline doc/bm25" || c.Metric != "ndcg@3" || len(c.Rows) != 5 {
		t.Errorf("comparisons %+v", c)
	} else {
		for _, row := range c.Rows {
			if row.B != "doc/bm25" || row.Diff != 0 || row.Low != 0 || row.High != 0 || row.P != "–" || row.Verdict != "unchanged (identical)" {
				t.Errorf("comparison row %+v", row)
			}
		}
	}
	if r.Matrix != nil {
		t.Errorf("matrix %+v without significance.matrix", r.Matrix)
	}
	cfg = loadSmall(t, t.TempDir())
	cfg.Significance.Matrix = true
	if res, err = Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	if r, err = report.Page(res, nil); err != nil {
		t.Fatal(err)
	}
	if r.Matrix == nil || len(r.Matrix.Cells) != 6 || r.Matrix.Comparisons != 0 || !math.IsNaN(r.Matrix.P[0][0]) || r.Matrix.P[0][1] != r.Matrix.P[1][0] || r.Matrix.Diff[0][1] != 0 {
		t.Errorf("matrix %+v", r.Matrix)
	}
}
