package chart

import (
	"bytes"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// svgOf returns what draw (a chart's SVG method) writes.
func svgOf(t *testing.T, draw func(io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := draw(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A NaN breaks a line: 1, 2, NaN, 4, 5 is two 2-point lines; a dashed
// series is dashed; names and titles are escaped; the SVG is inlinable
// (no XML prolog) and labelled for screen readers.
func TestLine(t *testing.T) {
	svg := svgOf(t, Line{Title: "a<b & c", XLabel: "k", YLabel: "recall", LogX: true, XTicks: []float64{1, 10, 100},
		Series: []Series{
			{Name: "s<1>", Points: []Point{{1, 0.1}, {2, 0.2}, {3, math.NaN()}, {4, 0.4}, {5, 0.5}}},
			{Name: "ceiling", Dashed: true, NoMarkers: true, Points: []Point{{1, 0.9}, {100, 0.9}}},
		}}.SVG)
	if n := len(regexp.MustCompile(`<path d="M[0-9.]+,[0-9.]+L[0-9.]+,[0-9.]+" style="fill:none;stroke:#0072B2`).FindAllString(svg, -1)); n != 3 {
		t.Errorf("%d two-point lines of the first series, want 3 (two segments + legend)", n)
	}
	if n := strings.Count(svg, `style="fill:#0072B2"`); n != 4 {
		t.Errorf("%d markers, want 4 (the NaN has none)", n)
	}
	if !strings.Contains(svg, "stroke:#D55E00;stroke-width:1.6;stroke-dasharray:5,3") {
		t.Error("the dashed series is not dashed")
	}
	if strings.Count(svg, `style="fill:#D55E00"`) != 0 {
		t.Error("NoMarkers series has markers")
	}
	for _, want := range []string{">a&lt;b &amp; c</text>", ">s&lt;1&gt;</text>", `aria-label="a&lt;b &amp; c"`, ">100</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if !strings.HasPrefix(svg, "<svg ") || strings.Contains(svg, "<?xml") {
		t.Error("SVG does not start with <svg (an XML prolog cannot be inlined into HTML)")
	}
	for _, bad := range []Line{{Title: "empty"}, {Title: "nan", Series: []Series{{Points: []Point{{1, math.NaN()}}}}}} {
		if err := bad.SVG(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), bad.Title) {
			t.Errorf("%s: error %v, want one naming the chart", bad.Title, err)
		}
	}
}

// Bars on a fixed 0..1 axis: the bar lengths are in the ratio of the
// values (0.25 : 0.5) and the error bar of the second spans 0.4..0.6,
// i.e. from 0.8 to 1.2 of its bar's length; a NaN value draws no bar but
// keeps its row label.
func TestBars(t *testing.T) {
	svg := svgOf(t, Bars{Title: "ndcg@10", XMin: 0, XMax: 1, Bars: []Bar{
		{Label: "a", Value: 0.25, Low: math.NaN(), High: math.NaN()},
		{Label: "b", Value: 0.5, Low: 0.4, High: 0.6, Color: Color(1)},
		{Label: "c<", Value: math.NaN()},
	}}.SVG)
	bar := func(col string) (x0, x1 float64) {
		m := regexp.MustCompile(`<path d="M([0-9.]+),[0-9.]+L[0-9.]+,[0-9.]+L([0-9.]+),[0-9.]+L[0-9.]+,[0-9.]+Z" style="fill:` + col).FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("no bar of colour %s", col)
		}
		x0, _ = strconv.ParseFloat(m[1], 64)
		x1, _ = strconv.ParseFloat(m[2], 64)
		return
	}
	a0, a1 := bar("#0072B2")
	b0, b1 := bar("#D55E00")
	if a0 != b0 || math.Abs((b1-b0)/(a1-a0)-2) > 1e-3 {
		t.Errorf("bars [%v, %v] and [%v, %v]: want a common origin and lengths 1:2", a0, a1, b0, b1)
	}
	eb := regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)" style="fill:none;stroke:#000000`).FindStringSubmatch(svg)
	if eb == nil {
		t.Fatal("no error bar")
	}
	lo, _ := strconv.ParseFloat(eb[1], 64)
	hi, _ := strconv.ParseFloat(eb[3], 64)
	if l := b1 - b0; math.Abs((lo-b0)/l-0.8) > 1e-3 || math.Abs((hi-b0)/l-1.2) > 1e-3 {
		t.Errorf("error bar %v..%v for bar %v..%v, want 0.8 and 1.2 of its length", lo, hi, b0, b1)
	}
	if n := strings.Count(svg, "stroke:#000000"); n != 3 {
		t.Errorf("%d error-bar strokes, want 3 (one bar and its two caps)", n)
	}
	if !strings.Contains(svg, ">c&lt;</text>") {
		t.Error("the NaN row lost its (escaped) label")
	}
}

// gonum panics on a non-positive value on a log axis; SVG returns an error
// naming the chart instead.
func TestLogAxisPanicIsAnError(t *testing.T) {
	err := Line{Title: "logk", LogX: true, Series: []Series{{Points: []Point{{X: 0, Y: 1}, {X: 1, Y: 2}}}}}.SVG(io.Discard)
	if err == nil || !strings.Contains(err.Error(), `chart "logk"`) {
		t.Errorf("error %v, want one naming the chart", err)
	}
}

// A log x axis with one x value (a sweep whose k grid is [1]) draws the
// point; gonum's default padding of ±1 put the range below 0 and failed.
func TestLogAxisSinglePoint(t *testing.T) {
	for _, x := range []float64{1, 10} {
		var b strings.Builder
		err := Line{Title: "one k", LogX: true, Series: []Series{{Name: "bm25", Points: []Point{{X: x, Y: 0.5}}}}}.SVG(&b)
		if err != nil {
			t.Fatalf("x = %v: %v", x, err)
		}
		if !strings.Contains(b.String(), "<svg") {
			t.Errorf("x = %v: no SVG written", x)
		}
	}
}
