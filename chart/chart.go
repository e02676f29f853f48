// Package chart draws ragbench's charts — line charts (the history of a
// metric over runs, recall@k curves) and horizontal bar charts with
// confidence intervals — as standalone SVG documents, with
// gonum.org/v1/plot and its SVG backend (vg/vgsvg). It is the one owner of
// how ragbench draws: colours, fonts, sizes, legends.
//
// Conventions:
//   - Colours are Okabe & Ito's colour-blind-safe palette (2008), in series
//     order; past the palette's eight colours a line chart's series repeat
//     them with another dash pattern and marker (Style), so that up to
//     forty series all look different.
//   - Text is Liberation Sans as gonum measures it; the SVG names it with
//     its metric twins Arial and Helvetica, then sans-serif, and fonts are
//     not embedded, so a chart stays a few kilobytes and opens anywhere.
//     (A machine with none of the three draws labels in a wider face that
//     may overlap; Debian's fonts-liberation provides the first.)
//   - Every text (titles, labels, series names) is HTML-escaped by vgsvg.
//   - The legend is drawn in its own column right of the plot area, never
//     over the data; entries that do not fit the chart's height go to
//     further columns, so no entry is drawn outside the chart.
//   - Output is deterministic: the same chart gives the same bytes.
//   - The SVG has no XML prolog, so it can be inlined into HTML as is; it
//     carries role="img" and an aria-label with the title.
//
// Errors: no series or no finite point, or a panic of gonum plot on data
// it cannot draw (each naming the chart), or a write error. A NaN value
// breaks a line (a gap) and draws no bar.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Palette is Okabe & Ito's colour-blind-safe palette (black last).
var Palette = []color.Color{
	rgb(0x0072B2), rgb(0xD55E00), rgb(0x009E73), rgb(0xCC79A7),
	rgb(0xE69F00), rgb(0x56B4E9), rgb(0xF0E442), rgb(0x000000),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Color returns the colour of series i (Palette, repeated).
func Color(i int) color.Color { return Palette[i%len(Palette)] }

// dashes are the line patterns of series past the palette, one per round
// of its colours: solid, dashed, dotted, dash-dot, long dash.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}, {vg.Points(11), vg.Points(3)}}

// glyphs are the markers of the same rounds.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// Style is the look of a line chart's series i when it has no colour of
// its own: Color(i), and the dash pattern and marker of its round of the
// palette (solid lines and dots for the first eight series), so the first
// len(Palette)·5 = 40 series each differ in colour or pattern.
func Style(i int) (color.Color, []vg.Length, draw.GlyphDrawer) {
	round := (i / len(Palette)) % len(dashes)
	return Color(i), dashes[round], glyphs[round]
}

// Point is one point of a line: X and Y in data units. A NaN Y is a gap.
type Point struct{ X, Y float64 }

// Series is one line of a Line chart.
type Series struct {
	// Name is the legend entry ("" for none).
	Name   string
	Points []Point
	// Dashed draws the line dashed (for a reference such as a ceiling).
	Dashed bool
	// Color is the series' colour; nil means Color(i) for series i.
	Color color.Color
	// NoMarkers leaves the points unmarked (by default each is a dot).
	NoMarkers bool
}

// Marker is a dashed vertical line at X with a small label above it.
type Marker struct {
	X     float64
	Label string
}

// Line is a line chart.
type Line struct {
	Title, XLabel, YLabel string
	Series                []Series
	// XTicks, when set, are the labelled x values (for example the k grid
	// or run numbers); otherwise gonum's default ticks.
	XTicks []float64
	// LogX draws x on a log scale (values must be > 0).
	LogX bool
	// YMin and YMax, when YMin < YMax, fix the y range (for example 0, 1).
	YMin, YMax float64
	// Markers are dashed vertical lines (a change of dataset, say).
	Markers []Marker
	// Width and Height of the whole chart in points (1/72 in); 0 means
	// 540 × 270.
	Width, Height float64
}

// Bar is one bar of a Bars chart: its value with a confidence interval
// [Low, High] (NaN bounds: no interval drawn).
type Bar struct {
	Label     string
	Value     float64
	Low, High float64
	Color     color.Color // nil: Color(0)
}

// Bars is a horizontal bar chart, one bar per row from top to bottom, with
// error bars for the intervals.
type Bars struct {
	Title, XLabel string
	Bars          []Bar
	// XMin and XMax, when XMin < XMax, fix the value range.
	XMin, XMax float64
	// Width in points (0 means 540); the height follows the number of bars.
	Width float64
}

const legendGap = 8 // points between the plot area and the legend

// SVG writes the chart as a standalone SVG document.
func (l Line) SVG(w io.Writer) (err error) {
	defer recoverPlot(l.Title, &err)
	if len(l.Series) == 0 {
		return fmt.Errorf("chart %q: no series", l.Title)
	}
	p := newPlot(l.Title, l.XLabel, l.YLabel)
	if l.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if len(l.XTicks) > 0 {
		var ticks plot.ConstantTicks
		for _, x := range l.XTicks {
			ticks = append(ticks, plot.Tick{Value: x, Label: trimFloat(x)})
		}
		p.X.Tick.Marker = ticks
	}
	p.Add(plotter.NewGrid())
	var legend legendItems
	for i, s := range l.Series {
		if err := l.addSeries(p, &legend, i, s); err != nil {
			return err
		}
	}
	if finite := countFinite(l.Series); finite == 0 {
		return fmt.Errorf("chart %q: no finite point", l.Title)
	}
	l.fixRanges(p)
	if err := l.addMarkers(p); err != nil {
		return err
	}
	return render(w, p, legend, l.Title, orDefault(l.Width, defaultWidth), orDefault(l.Height, 270))
}

// addSeries draws series s, the i-th of l: a line per run of finite points
// (segments), a dot per point unless NoMarkers (a lone point always), and
// its legend entry.
func (l Line) addSeries(p *plot.Plot, legend *legendItems, i int, s Series) error {
	col, dash, glyph := s.Color, []vg.Length(nil), draw.GlyphDrawer(draw.CircleGlyph{})
	if col == nil {
		col, dash, glyph = Style(i)
	}
	style := draw.LineStyle{Color: col, Width: vg.Points(1.6), Dashes: dash}
	if s.Dashed {
		style.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	for _, seg := range segments(s.Points) {
		if len(seg) > 1 {
			ln, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("chart %q: %s: %w", l.Title, s.Name, err)
			}
			ln.LineStyle = style
			p.Add(ln)
		}
		if !s.NoMarkers || len(seg) == 1 {
			sc, err := plotter.NewScatter(seg)
			if err != nil {
				return fmt.Errorf("chart %q: %s: %w", l.Title, s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.2), Shape: glyph}
			p.Add(sc)
		}
	}
	if s.Name != "" {
		thumb, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}})
		thumb.LineStyle = style
		*legend = append(*legend, legendItem{s.Name, thumb})
	}
	return nil
}

// countFinite is the number of points of series drawn (segments).
func countFinite(series []Series) int {
	n := 0
	for _, s := range series {
		for _, seg := range segments(s.Points) {
			n += len(seg)
		}
	}
	return n
}

// fixRanges sets p's ranges where gonum's would not do: a log x axis over
// one x value, l's fixed y range, or a y range of one value.
func (l Line) fixRanges(p *plot.Plot) {
	if l.LogX && p.X.Min > 0 && p.X.Max-p.X.Min < 1e-9*p.X.Max {
		// One x value only (a sweep with a single k): gonum would pad the
		// range by ±1, below 0 for x ≤ 1, which a log axis cannot draw.
		// A factor of 2 either side keeps the point centred.
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	if l.YMin < l.YMax {
		p.Y.Min, p.Y.Max = l.YMin, l.YMax
	} else if p.Y.Max-p.Y.Min < 1e-9*math.Max(1, math.Abs(p.Y.Max)) {
		// One value only: ±5% around it (±0.05 around 0), not gonum's ±1.
		d := 0.05 * math.Abs(p.Y.Max)
		if d == 0 {
			d = 0.05
		}
		p.Y.Min, p.Y.Max = p.Y.Max-d, p.Y.Max+d
	}
}

// addMarkers draws l's markers over p's final y range: a dashed grey
// vertical line each, with its label above it.
func (l Line) addMarkers(p *plot.Plot) error {
	for _, m := range l.Markers {
		ln, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}})
		if err != nil {
			return fmt.Errorf("chart %q: marker: %w", l.Title, err)
		}
		ln.LineStyle = draw.LineStyle{Color: rgb(0x999999), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(ln)
		if m.Label == "" {
			continue
		}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.X, Y: p.Y.Max}}, Labels: []string{m.Label}})
		if err != nil {
			continue
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font = sans(8)
			lb.TextStyle[i].Color = rgb(0x666666)
			lb.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(lb)
	}
	return nil
}

// SVG writes the chart as a standalone SVG document.
func (b Bars) SVG(w io.Writer) (err error) {
	defer recoverPlot(b.Title, &err)
	if len(b.Bars) == 0 {
		return fmt.Errorf("chart %q: no bars", b.Title)
	}
	p := newPlot(b.Title, b.XLabel, "")
	p.Add(plotter.NewGrid())
	n := len(b.Bars)
	names := make([]string, n)
	// Bars are drawn bottom-up by gonum: row 0 (top) is at y = n−1.
	for i, bar := range b.Bars {
		names[n-1-i] = bar.Label
		if math.IsNaN(bar.Value) {
			continue
		}
		col := bar.Color
		if col == nil {
			col = Color(0)
		}
		bc, err := plotter.NewBarChart(plotter.Values{bar.Value}, vg.Points(11))
		if err != nil {
			return fmt.Errorf("chart %q: %s: %w", b.Title, bar.Label, err)
		}
		bc.XMin = float64(n - 1 - i)
		bc.Horizontal = true
		bc.Color = col
		bc.LineStyle.Width = 0
		p.Add(bc)
		if !math.IsNaN(bar.Low) && !math.IsNaN(bar.High) {
			eb, err := plotter.NewXErrorBars(errPoint{x: bar.Value, y: float64(n - 1 - i), lo: bar.Value - bar.Low, hi: bar.High - bar.Value})
			if err != nil {
				return fmt.Errorf("chart %q: %s: %w", b.Title, bar.Label, err)
			}
			eb.LineStyle.Width = vg.Points(1.2)
			eb.CapWidth = vg.Points(6)
			p.Add(eb)
		}
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5 // every row, with or without a bar
	p.Y.Tick.Label.Font = sans(9)
	if b.XMin < b.XMax {
		p.X.Min, p.X.Max = b.XMin, b.XMax
	}
	return render(w, p, nil, b.Title, orDefault(b.Width, defaultWidth), float64(60+16*n))
}

// recoverPlot turns a panic inside gonum plot (it panics on some invalid
// inputs, such as a non-positive value on a log axis) into an error naming
// the chart, so that bad data never crashes a sweep at its last step.
func recoverPlot(title string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("chart %q: %v", title, r)
	}
}

// errPoint is one error bar: at (x, y), from x − lo to x + hi.
type errPoint struct{ x, y, lo, hi float64 }

func (e errPoint) Len() int                       { return 1 }
func (e errPoint) XY(int) (float64, float64)      { return e.x, e.y }
func (e errPoint) XError(int) (low, high float64) { return e.lo, e.hi }

// segments splits points at NaN (or infinite) values.
func segments(pts []Point) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for _, pt := range pts {
		if math.IsNaN(pt.Y) || math.IsInf(pt.Y, 0) || math.IsNaN(pt.X) || math.IsInf(pt.X, 0) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: pt.X, Y: pt.Y})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// newPlot returns a plot with ragbench's fonts and labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
		a.LineStyle.Color = rgb(0x888888)
		a.Tick.LineStyle.Color = rgb(0x888888)
	}
	return p
}

func styleLegend(l *plot.Legend) {
	l.TextStyle.Font = sans(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
}

// legendItem is one legend entry: its name and thumbnail.
type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// legendItems are a chart's legend entries, in order.
type legendItems []legendItem

// legendTop is the room above the legend (the title's height).
const legendTop = 28

// columns splits the entries into legends of at most as many rows as the
// height h (points) holds below legendTop, in order: one column when they
// fit.
func (items legendItems) columns(c draw.Canvas, h float64) []*plot.Legend {
	if len(items) == 0 {
		return nil
	}
	one := plot.NewLegend()
	styleLegend(&one)
	one.Add(items[0].name, items[0].thumb)
	row := float64(one.Rectangle(c).Size().Y)
	rows := len(items)
	if row > 0 {
		rows = max(1, min(len(items), int((h-legendTop-legendGap)/row)))
	}
	var out []*plot.Legend
	for i := 0; i < len(items); i += rows {
		l := plot.NewLegend()
		styleLegend(&l)
		for _, it := range items[i:min(i+rows, len(items))] {
			l.Add(it.name, it.thumb)
		}
		out = append(out, &l)
	}
	return out
}

// defaultWidth is every chart's width in points when its Width is 0.
const defaultWidth = 540

// orDefault is size v, or def when v is 0 (or negative): the one rule for
// a chart's Width and Height.
func orDefault(v, def float64) float64 {
	if v <= 0 {
		return def
	}
	return v
}

// render draws p (and the legend in columns on the right) on an SVG
// canvas of width × height points, plus the legend's width, and writes it
// without the XML prolog.
func render(w io.Writer, p *plot.Plot, legend legendItems, title string, width, height float64) error {
	probe := draw.New(vgsvg.New(vg.Points(width), vg.Points(height)))
	cols := legend.columns(probe, height)
	var colW []vg.Length
	legendW := vg.Length(0)
	for _, l := range cols {
		// 15% slack: a browser without Liberation Sans (or Arial, its
		// metric twin) falls back to a wider face such as DejaVu Sans.
		cw := l.Rectangle(probe).Size().X * 1.15
		colW = append(colW, cw)
		legendW += cw + legendGap
	}
	if legendW > 0 {
		legendW += legendGap
	}
	c := vgsvg.New(vg.Points(width)+legendW, vg.Points(height))
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	x := vg.Points(width) + legendGap
	for i, l := range cols {
		lc := draw.Crop(dc, x, 0, 0, -vg.Points(legendTop))
		lc.Max.X = lc.Min.X + colW[i]
		l.Draw(lc)
		x += colW[i] + legendGap
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	svg := buf.String()
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	} else {
		return errors.New("chart: vgsvg wrote no <svg> element")
	}
	svg = strings.Replace(svg, "<svg ", `<svg role="img" aria-label="`+html.EscapeString(title)+`" class="chart" `, 1)
	svg = fontFamily.Replace(svg)
	_, err := io.WriteString(w, svg)
	return err
}

// fontFamily adds generic fall-backs to the family vgsvg names.
var fontFamily = strings.NewReplacer("font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")

// trimFloat prints a tick value without trailing zeros (1, 10, 0.5).
func trimFloat(x float64) string { return fmt.Sprintf("%.6g", x) }
