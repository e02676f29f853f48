package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// TestScatter: points coloured by group with the groups and the front in
// the legend; the front's points ringed and labelled (escaped), the others
// unlabelled; NaN points left out; no finite point is an error.
func TestScatter(t *testing.T) {
	svg := svgOf(t, Scatter{Title: "quality <vs> cost", XLabel: "tokens", YLabel: "span_recall@5", YMin: 0, YMax: 1,
		Groups: []string{"bm25", "dense"}, FrontName: "Pareto front",
		Points: []ScatterPoint{
			{X: 100, Y: 0.5, Label: "a/bm25", Group: 0, Front: true},
			{X: 300, Y: 0.8, Label: "b/<dense>", Group: 1, Front: true},
			{X: 400, Y: 0.6, Label: "c/dense", Group: 1},
			{X: math.NaN(), Y: 0.9, Label: "nan", Group: 0},
		}}.SVG)
	for _, s := range []string{"quality &lt;vs&gt; cost", "a/bm25", "b/&lt;dense&gt;", ">bm25<", ">dense<", ">Pareto front<"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the chart lacks %q", s)
		}
	}
	if strings.Contains(svg, "c/dense") || strings.Contains(svg, ">nan<") {
		t.Error("a point off the front is labelled")
	}
	if n := strings.Count(svg, `style="fill:#0072B2"`) + strings.Count(svg, `style="fill:#D55E00"`); n < 3 {
		t.Errorf("%d coloured points, want the 3 finite ones (and the legend's)", n)
	}
	if err := (Scatter{Title: "none", Points: []ScatterPoint{{X: math.NaN(), Y: 1}}}).SVG(io.Discard); err == nil || !strings.Contains(err.Error(), "no finite point") {
		t.Errorf("error %v, want no finite point", err)
	}
}

// TestStyleDistinct: the first 40 series of a line chart each differ in
// colour or dash pattern (8 colours × 5 patterns); the first 8 are solid.
func TestStyleDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := range 40 {
		c, dash, _ := Style(i)
		if i < 8 && dash != nil {
			t.Errorf("series %d dashed, want the first eight solid", i)
		}
		key := fmt.Sprint(c, dash)
		if seen[key] {
			t.Errorf("series %d repeats style %s", i, key)
		}
		seen[key] = true
	}
}
