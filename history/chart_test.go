package history

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func chartRows() []Row {
	ts := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	return []Row{
		{Run: 1, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.6789}, "whole/dense": {"ndcg@10": 0.6451}}},
		{Run: 2, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.68}, "w128/hybrid": {"ndcg@10": 0.7}}},
		{Run: 3, Time: ts, Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.7}, "whole/dense": {"ndcg@10": 0.65}}},
		{Run: 4, Time: ts, DatasetHash: "new", Metrics: map[string]map[string]float64{"whole/bm25": {"ndcg@10": 0.5, "recall@100": 0.9}}},
	}
}

// TestWriteSVG checks the chart drawn by package chart (gonum plot) by its
// SVG: colours are assigned to the cells in name order (w128/hybrid
// #0072B2, whole/bm25 #D55E00, whole/dense #009E73); whole/bm25 is in all 4
// runs, so one polyline of 4 points, whose coordinates must be a linear
// map of (run, value) — equal x steps, and y differences in the ratio of
// the values' differences; whole/dense misses run 2, so its two points are
// not joined; w128/hybrid has one point. Points: 4 + 2 + 1 = 7. Run 4 is on
// another dataset: one dashed marker halfway between the x of runs 3 and 4.
func TestWriteSVG(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, chartRows(), "ndcg@10", ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	count := func(s string) int { return strings.Count(svg, s) }
	// Each line once in the plot and once in the legend.
	if got := [3]int{count("stroke:#0072B2;"), count("stroke:#D55E00;"), count("stroke:#009E73;")}; got != [3]int{1, 2, 1} {
		t.Errorf("line strokes (hybrid, bm25, dense) = %v, want [1 2 1] (one joined line: bm25's)", got)
	}
	if got := [3]int{count(`style="fill:#0072B2"`), count(`style="fill:#D55E00"`), count(`style="fill:#009E73"`)}; got != [3]int{1, 4, 2} {
		t.Errorf("points (hybrid, bm25, dense) = %v, want [1 4 2]", got)
	}
	m := regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)" style="fill:none;stroke:#D55E00`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no 4-point line for whole/bm25 in:\n%s", svg)
	}
	var x, y [4]float64
	for i := range 4 {
		x[i], _ = strconv.ParseFloat(m[1+2*i], 64)
		y[i], _ = strconv.ParseFloat(m[2+2*i], 64)
	}
	v := [4]float64{0.6789, 0.68, 0.7, 0.5}
	for i := 1; i < 4; i++ {
		if math.Abs((x[i]-x[i-1])-(x[1]-x[0])) > 0.01 {
			t.Errorf("x steps %v are not equal", x)
		}
		if want := (v[i] - v[0]) / (v[3] - v[0]); math.Abs((y[i]-y[0])/(y[3]-y[0])-want) > 1e-3 {
			t.Errorf("y %v not linear in the values %v", y, v)
		}
	}
	mk := regexp.MustCompile(`<path d="M([0-9.]+),[0-9.]+L([0-9.]+),[0-9.]+" style="fill:none;stroke:#999999;stroke-dasharray`).FindAllStringSubmatch(svg, -1)
	if len(mk) != 1 || count(">new dataset</text>") != 1 {
		t.Fatalf("%d dataset-change markers, want 1", len(mk))
	}
	if mx, _ := strconv.ParseFloat(mk[0][1], 64); math.Abs(mx-(x[2]+x[3])/2) > 0.01 {
		t.Errorf("marker at x = %v, want halfway between runs 3 and 4 (%v)", mx, (x[2]+x[3])/2)
	}
	for _, want := range []string{">w128/hybrid</text>", ">whole/bm25</text>", ">whole/dense</text>", ">ndcg@10 over runs</text>", ">ndcg@10</text>"} {
		if count(want) != 1 {
			t.Errorf("SVG lacks %q (once)", want)
		}
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
