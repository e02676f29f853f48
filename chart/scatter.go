package chart

import (
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScatterPoint is one point of a Scatter: X and Y in data units (a NaN is
// not drawn), its Label (written beside it when it is on the front), the
// Group that colours it (Color(Group), named by Scatter.Groups) and Front,
// whether it is on the Pareto front.
type ScatterPoint struct {
	X, Y  float64
	Label string
	Group int
	Front bool
}

// Scatter is a scatter chart of points coloured by group, the points on a
// Pareto front ringed, labelled and joined by a dashed line (in x order):
// for a chart of quality against cost, the cells no other beats on both.
type Scatter struct {
	Title, XLabel, YLabel string
	Points                []ScatterPoint
	// Groups name the groups in the legend (Groups[i]: colour i).
	Groups []string
	// FrontName is the legend entry of the front line ("" for none).
	FrontName string
	// LogX draws x on a log scale (values must be > 0).
	LogX bool
	// YMin and YMax, when YMin < YMax, fix the y range (for example 0, 1).
	YMin, YMax float64
	// Width and Height in points; 0 means 540 × 320.
	Width, Height float64
}

// SVG writes the chart as a standalone SVG document. Errors: no finite
// point, a panic of gonum plot, a write error.
func (s Scatter) SVG(w io.Writer) (err error) {
	defer recoverPlot(s.Title, &err)
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	if s.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	var legend legendItems
	byGroup := map[int]plotter.XYs{}
	var front []ScatterPoint
	n := 0
	for _, pt := range s.Points {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			continue
		}
		n++
		byGroup[pt.Group] = append(byGroup[pt.Group], plotter.XY{X: pt.X, Y: pt.Y})
		if pt.Front {
			front = append(front, pt)
		}
	}
	if n == 0 {
		return fmt.Errorf("chart %q: no finite point", s.Title)
	}
	sort.SliceStable(front, func(i, j int) bool { return front[i].X < front[j].X })
	if len(front) > 1 {
		var xy plotter.XYs
		for _, pt := range front {
			xy = append(xy, plotter.XY{X: pt.X, Y: pt.Y})
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("chart %q: front: %w", s.Title, err)
		}
		ln.LineStyle = draw.LineStyle{Color: rgb(0x555555), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(ln)
		if s.FrontName != "" {
			legend = append(legend, legendItem{s.FrontName, ln})
		}
	}
	groups := make([]int, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Ints(groups)
	for _, g := range groups {
		sc, err := plotter.NewScatter(byGroup[g])
		if err != nil {
			return fmt.Errorf("chart %q: %w", s.Title, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Color(g), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		if g >= 0 && g < len(s.Groups) {
			legend = append(legend, legendItem{s.Groups[g], sc})
		}
	}
	if len(front) > 0 {
		var xy plotter.XYs
		var labels []string
		for _, pt := range front {
			xy = append(xy, plotter.XY{X: pt.X, Y: pt.Y})
			labels = append(labels, pt.Label)
		}
		ring, err := plotter.NewScatter(xy)
		if err != nil {
			return fmt.Errorf("chart %q: front: %w", s.Title, err)
		}
		ring.GlyphStyle = draw.GlyphStyle{Color: rgb(0x000000), Radius: vg.Points(5.5), Shape: draw.RingGlyph{}}
		p.Add(ring)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
		if err == nil {
			for i := range lb.TextStyle {
				lb.TextStyle[i].Font = sans(8)
				lb.TextStyle[i].Color = rgb(0x333333)
			}
			lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(3)}
			p.Add(lb)
		}
	}
	// Room around the points, so none sits on the frame (gonum's range
	// is the data's, ±1 for a single value).
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xy := range byGroup {
		for _, pt := range xy {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
		}
	}
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 0.1 * math.Max(math.Abs(hi), 1)
	}
	if s.LogX {
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
	} else {
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	if s.YMin < s.YMax {
		p.Y.Min, p.Y.Max = s.YMin, s.YMax
	}
	return render(w, p, legend, s.Title, orDefault(s.Width, defaultWidth), orDefault(s.Height, 320))
}
