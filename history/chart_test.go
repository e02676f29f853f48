package history

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNiceTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   []float64
	}{
		// range .0549 → raw step .011 → 2×10⁻² → .64 … .70
		{0.6451, 0.7, []float64{0.64, 0.66, 0.68, 0.70}},
		// range .2 → raw .04 → 5×10⁻²
		{0.5, 0.7, []float64{0.5, 0.55, 0.6, 0.65, 0.7}},
		// degenerate: widened by ±5% to [.475, .525], step .01
		{0.5, 0.5, []float64{0.47, 0.48, 0.49, 0.5, 0.51, 0.52, 0.53}},
		// large values (BM25-like scores)
		{3, 47, []float64{0, 10, 20, 30, 40, 50}},
	}
	for _, c := range cases {
		got := niceTicks(c.lo, c.hi)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("niceTicks(%v, %v) (-want +got):\n%s", c.lo, c.hi, diff)
		}
	}
}

func chartRows() []Row {
	ts := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	return []Row{
		{Run: 1, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.6789}, "whole/dense": {"ndcg@10": 0.6451}}},
		{Run: 2, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.68}, "w128/hybrid": {"ndcg@10": 0.7}}},
		{Run: 3, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.7}, "whole/dense": {"ndcg@10": 0.65}}},
		{Run: 4, Time: ts, DatasetHash: "new", Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.5, "recall@100": 0.9}}},
	}
}

func TestWriteSVG(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, chartRows(), "ndcg@10", ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// whole/bm25 is in all 4 runs: one line. whole/dense misses run 2, so
	// its two points are not joined; w128/hybrid has one point. Points:
	// 4 + 2 + 1 = 7, one legend line per cell.
	if n := strings.Count(svg, "<polyline"); n != 1 {
		t.Errorf("%d polylines, want 1", n)
	}
	if n := strings.Count(svg, "<circle"); n != 7 {
		t.Errorf("%d points, want 7", n)
	}
	// Geometry: plot from x=60 to 720−60−(7·11+50)=533 px wide → runs 1..4 at
	// x = 60 … 593; y ticks .5 … .7 (step .05) over 40 … 315 px. whole/bm25
	// at run 1 (.6789): y = 40 + 275·(1 − .1789/.2) = 69.0; run 4 (.5): 315.0.
	for _, want := range []string{
		`points="60.0,69.0 `, `593.0,315.0"/>`,
		`<title>whole/bm25 run 4: 0.5000</title>`,
		`>0.70</text>`, `>0.50</text>`,
		`>w128/hybrid</text>`, `>ndcg@10 over runs</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// Run 4 is on another dataset: one dashed line halfway between runs 3
	// and 4, at x = (415.33 + 593) / 2 = 504.17 (run 3 at 60 + 533·2/3).
	if n := strings.Count(svg, "dataset changed"); n != 1 || !strings.Contains(svg, `<line x1="504.2"`) {
		t.Errorf("%d dataset-change markers, want 1 at x=504.2", n)
	}
	if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>\n") {
		t.Error("not a complete SVG document")
	}
	var again bytes.Buffer
	WriteSVG(&again, chartRows(), "ndcg@10", ChartOptions{})
	if again.String() != svg {
		t.Error("two renderings of the same rows differ")
	}
}

func TestWriteSVGUnknownMetric(t *testing.T) {
	err := WriteSVG(&bytes.Buffer{}, chartRows(), "mrr@10", ChartOptions{})
	if err == nil || !strings.Contains(err.Error(), `no run has metric "mrr@10" (metrics present: ndcg@10, recall@100)`) {
		t.Errorf("err = %v", err)
	}
}

func TestWriteSVGEscapesNames(t *testing.T) {
	rows := []Row{{Run: 1, Metrics: map[string]map[string]float64{"a<b&c": {"m": 1}}}}
	var b bytes.Buffer
	if err := WriteSVG(&b, rows, "m", ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "a<b") || !strings.Contains(b.String(), "a&lt;b&amp;c") {
		t.Error("cell name not escaped")
	}
}
