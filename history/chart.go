package history

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/chart"
)

// ChartOptions configures WriteSVG. The zero value gives a 540×270 pt chart
// (plus its legend column).
type ChartOptions struct {
	Width, Height int    // points; 0 means 540 and 270
	Title         string // "" means "<metric> over runs"
}

// WriteSVG writes Chart(rows, metric, opt) as SVG: a line chart (package
// chart, on gonum.org/v1/plot), one line per cell (cells sorted by name, each with
// its own colour and a legend entry). The x axis is the run number (at
// most ~10 labelled runs), the y axis the metric's value. A cell missing
// from a run leaves a gap in its line; a dashed vertical line labelled
// "new dataset" marks each change of dataset_hash between consecutive runs.
// The SVG is self-contained (no scripts, no external fonts) and
// deterministic for the same rows.
//
// Errors: no row has metric (the error lists the metrics present), or a
// write error.
func WriteSVG(w io.Writer, rows []Row, metric string, opt ChartOptions) error {
	l, err := Chart(rows, metric, opt)
	if err != nil {
		return err
	}
	return l.SVG(w)
}

// Chart is the chart WriteSVG draws, for pages that draw it themselves
// (report.html). Errors: no row has metric (listing the metrics present).
func Chart(rows []Row, metric string, opt ChartOptions) (chart.Line, error) {
	title := opt.Title
	if title == "" {
		title = metric + " over runs"
	}
	byRun := append([]Row(nil), rows...)
	sort.SliceStable(byRun, func(i, j int) bool { return byRun[i].Run < byRun[j].Run })
	cellSet := map[string]bool{}
	for _, r := range byRun {
		for cell, ms := range r.Metrics {
			if _, ok := ms[metric]; ok {
				cellSet[cell] = true
			}
		}
	}
	if len(cellSet) == 0 {
		return chart.Line{}, fmt.Errorf("history: no run has metric %q (metrics present: %s)", metric, strings.Join(Metrics(rows), ", "))
	}
	cells := slices.Sorted(maps.Keys(cellSet))
	line := chart.Line{Title: title, XLabel: "run", YLabel: metric, Width: float64(opt.Width), Height: float64(opt.Height)}
	for _, c := range cells {
		// One point per run, NaN where the cell is missing: a gap.
		s := chart.Series{Name: c}
		for _, r := range byRun {
			v, ok := r.Metrics[c][metric]
			if !ok {
				v = math.NaN()
			}
			s.Points = append(s.Points, chart.Point{X: float64(r.Run), Y: v})
		}
		line.Series = append(line.Series, s)
	}
	every := (len(byRun) + 9) / 10
	for i, r := range byRun {
		if i%every == 0 || i == len(byRun)-1 {
			line.XTicks = append(line.XTicks, float64(r.Run))
		}
		// Values on the two sides of a change of dataset are not comparable.
		if i > 0 && r.DatasetHash != byRun[i-1].DatasetHash {
			line.Markers = append(line.Markers, chart.Marker{X: float64(byRun[i-1].Run+r.Run) / 2, Label: "new dataset"})
		}
	}
	return line, nil
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
	return slices.Sorted(maps.Keys(set))
}
