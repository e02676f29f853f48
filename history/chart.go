package history

import (
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"
)

// ChartOptions configures WriteSVG. The zero value gives a 720×360 chart.
type ChartOptions struct {
	Width, Height int    // pixels; 0 means 720 and 360
	Title         string // "" means "<metric> over runs"
}

// palette holds colour-blind-safe line colours (Okabe & Ito 2008), used in
// cell order and repeated when there are more cells.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// WriteSVG draws metric over runs as an SVG line chart, one line per cell
// (cells sorted by name, each with its own colour and a legend entry). The x
// axis is the run number, the y axis the metric's value with ticks at
// "nice" steps (1, 2 or 5 × 10^k) spanning the observed range. A cell
// missing from a run leaves a gap in its line; a dashed vertical line marks
// each change of dataset_hash between consecutive runs. The SVG is self-contained
// (no scripts, no external fonts) and deterministic for the same rows.
//
// Errors: no row has metric (the error lists the metrics present), or a
// write error.
func WriteSVG(w io.Writer, rows []Row, metric string, opt ChartOptions) error {
	width, height := opt.Width, opt.Height
	if width <= 0 {
		width = 720
	}
	if height <= 0 {
		height = 360
	}
	title := opt.Title
	if title == "" {
		title = metric + " over runs"
	}
	type point struct {
		run int
		v   float64
	}
	series := map[string][]point{}
	var runs []int
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		runs = append(runs, r.Run)
		for cell, ms := range r.Metrics {
			if v, ok := ms[metric]; ok {
				series[cell] = append(series[cell], point{r.Run, v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if len(series) == 0 {
		return fmt.Errorf("history: no run has metric %q (metrics present: %s)", metric, strings.Join(Metrics(rows), ", "))
	}
	if len(runs) == 0 {
		return errors.New("history: no runs")
	}
	sort.Ints(runs)
	cells := make([]string, 0, len(series))
	for c := range series {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	yTicks := niceTicks(lo, hi)
	ymin, ymax := yTicks[0], yTicks[len(yTicks)-1]
	xmin, xmax := runs[0], runs[len(runs)-1]

	legendW := 0
	for _, c := range cells {
		legendW = max(legendW, 7*len([]rune(c)))
	}
	left, right, top, bottom := 60.0, float64(legendW+50), 40.0, 45.0
	pw, ph := float64(width)-left-right, float64(height)-top-bottom
	if pw < 100 {
		pw = 100
		width = int(left + right + pw)
	}
	x := func(run int) float64 {
		if xmax == xmin {
			return left + pw/2
		}
		return left + pw*float64(run-xmin)/float64(xmax-xmin)
	}
	y := func(v float64) float64 { return top + ph*(1-(v-ymin)/(ymax-ymin)) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	for _, t := range yTicks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", left, y(t), left+pw, y(t))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(t)+4, fmtTick(t, yTicks))
	}
	for _, r := range xTicks(runs) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888888"/>`+"\n", x(r), top+ph, x(r), top+ph+4)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(r), top+ph+17, r)
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888888"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">run</text>`+"\n", left+pw/2, top+ph+36)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`+"\n", top+ph/2, top+ph/2, html.EscapeString(metric))
	// A dashed line between two runs on different datasets: values on its
	// two sides are not comparable.
	byRun := append([]Row(nil), rows...)
	sort.SliceStable(byRun, func(i, j int) bool { return byRun[i].Run < byRun[j].Run })
	for k := 1; k < len(byRun); k++ {
		if byRun[k].DatasetHash != byRun[k-1].DatasetHash {
			xm := (x(byRun[k-1].Run) + x(byRun[k].Run)) / 2
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999999" stroke-dasharray="4 3"><title>dataset changed</title></line>`+"\n", xm, top, xm, top+ph)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#666666">new dataset</text>`+"\n", xm, top-4)
		}
	}
	for i, c := range cells {
		col := palette[i%len(palette)]
		pts := series[c]
		sort.Slice(pts, func(a, b int) bool { return pts[a].run < pts[b].run })
		// Break the line where the cell is missing from a run in between.
		idx := map[int]int{} // run number → position among all runs
		for k, r := range runs {
			idx[r] = k
		}
		var seg []string
		flush := func() {
			if len(seg) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, strings.Join(seg, " "))
			}
			seg = seg[:0]
		}
		for k, p := range pts {
			if k > 0 && idx[p.run] != idx[pts[k-1].run]+1 {
				flush()
			}
			seg = append(seg, fmt.Sprintf("%.1f,%.1f", x(p.run), y(p.v)))
		}
		flush()
		for _, p := range pts {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s run %d: %s</title></circle>`+"\n",
				x(p.run), y(p.v), col, html.EscapeString(c), p.run, fmt.Sprintf("%.4f", p.v))
		}
		ly := top + 10 + 18*float64(i)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", left+pw+12, ly, left+pw+32, ly, col)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", left+pw+38, ly+4, html.EscapeString(c))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Metrics returns the metric names present in rows, sorted.
func Metrics(rows []Row) []string {
	set := map[string]bool{}
	for _, r := range rows {
		for _, ms := range r.Metrics {
			for m := range ms {
				set[m] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// niceTicks returns 3 to ~8 ticks at a step of 1, 2 or 5 × 10^k covering
// [lo, hi]; a degenerate range is widened by ±5% (±0.05 around 0).
func niceTicks(lo, hi float64) []float64 {
	if hi == lo {
		d := math.Abs(lo) * 0.05
		if d == 0 {
			d = 0.05
		}
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-9) { // tolerate rounding in hi − lo
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	var ticks []float64
	for v := start; v < hi+step*1e-9; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	if ticks[len(ticks)-1] < hi-step*1e-9 {
		ticks = append(ticks, ticks[len(ticks)-1]+step)
	}
	if len(ticks) < 2 {
		ticks = append(ticks, ticks[0]+step)
	}
	return ticks
}

// fmtTick prints a tick with as many decimals as the step needs.
func fmtTick(v float64, ticks []float64) string {
	step := ticks[1] - ticks[0]
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	return fmt.Sprintf("%.*f", dec, v)
}

// xTicks returns at most ~10 run numbers to label, evenly thinned.
func xTicks(runs []int) []int {
	every := (len(runs) + 9) / 10
	var out []int
	for i, r := range runs {
		if i%every == 0 || i == len(runs)-1 {
			out = append(out, r)
		}
	}
	return out
}
