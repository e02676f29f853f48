package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/internal/texttab"
	"github.com/ragbench/ragbench/sweep"
)

const historyUsage = `usage: bench history [flags] [FILE | CONFIG]

Show the history CSV that 'bench run CONFIG' appends one run to: one row per
run and cell, each metric with its change against the previous run of the
same cell. A change marked † compares runs on different datasets
(dataset_hash differs), and one marked * runs with a different config.
--chart draws a metric over runs, one line per cell, as SVG.

Which file: FILE; or, given a CONFIG (.yaml or .yml), the history that
'bench run CONFIG' writes (the config's history:, else bench-history.csv
beside the config); with no argument, the first of ./bench-history.csv and
./configs/bench-history.csv that exists.

Examples:
  bench history
  bench history configs/scifact.yaml
  bench history configs/bench-history.csv --metric ndcg@10
  bench history --metric recall@100 --chart recall.svg --format md bench-history.csv

Flags:
`

// historyDefaults are the files 'bench history' without an argument reads,
// the first that exists: bench run writes the history beside its config,
// and the repository's configs live in configs/.
var historyDefaults = []string{"bench-history.csv", filepath.Join("configs", "bench-history.csv")}

// historyPath resolves the history file argument (see historyUsage): arg
// itself, the history of a .yaml/.yml config, or with arg "" the first of
// historyDefaults that exists. Errors say where it looked.
func historyPath(arg string) (string, error) {
	switch {
	case arg == "":
		for _, p := range historyDefaults {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("no history file given, and none in the current folder: looked for ./%s and ./%s ('bench run CONFIG' appends to bench-history.csv beside CONFIG, or to the config's history:); give the file or the config, e.g. 'bench history configs/scifact.yaml'",
			historyDefaults[0], historyDefaults[1])
	case strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml"):
		cfg, err := sweep.Load(arg, sweep.LoadOptions{})
		if err != nil {
			return "", err
		}
		p := cfg.History
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
				p = r
			}
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: no such history file: the history of %s, written by 'bench run %s' (none has run yet without --no-history)", p, arg, arg)
		}
		return p, nil
	}
	return arg, nil
}

// cmdHistory implements 'bench history'.
func cmdHistory(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("history")
	metric := fs.String("metric", "", "show only this `metric` (and chart it); default all metrics, chart ndcg@10 if present")
	chart := fs.String("chart", "", "write an SVG chart of the metric over runs, one line per cell, to `file`")
	format := fs.String("format", "table", "output `format`: table or md")
	last := fs.Int("last", 0, "show only the last `n` runs (0: all)")
	// Accept FILE before or after the flags.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return flagErr(fs, stdout, stderr, historyUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) > 1 {
		return usagef("one history file at most, got %d: %s", len(files), strings.Join(files, " "))
	}
	if *format != "table" && *format != "md" {
		return usagef("--format must be table or md, got %q", *format)
	}
	if *last < 0 {
		return usagef("--last must be ≥ 0, got %d", *last)
	}
	if *chart != "" {
		if err := checkChartPath(*chart); err != nil {
			return err
		}
	}
	path, err := historyPath(strings.Join(files, ""))
	if err != nil {
		return err
	}
	rows, err := history.Read(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: no such history file ('bench run' writes one beside its config; give its path)", path)
		}
		return withoutPrefix{err, "history: "} // bench prints "bench history: " before it
	}
	if len(rows) == 0 {
		fmt.Fprintf(stdout, "%s: no runs yet\n", path)
		return nil
	}
	all := history.Metrics(rows)
	metrics := all
	if *metric != "" {
		if !slices.Contains(all, *metric) {
			return fmt.Errorf("%s: no run has metric %q (metrics present: %s)", path, *metric, strings.Join(all, ", "))
		}
		metrics = []string{*metric}
	}

	header := append([]string{"run", "time (UTC)", "config", "dataset", "cell"}, metrics...)
	table, marks := historyTable(rows, metrics, *last)
	if err := writeHistoryTable(stdout, *format, path, len(rows), header, table, marks); err != nil {
		return err
	}
	if *chart != "" {
		return writeHistoryChart(stderr, *chart, *metric, all, rows)
	}
	return nil
}

// histShort abbreviates a hash to its first 8 characters.
func histShort(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	if h == "" {
		return "-"
	}
	return h
}

// histTable is the history table: the first five columns (run, time,
// hashes, cell) left-aligned, the metric columns right-aligned.
func histTable(header []string, rows [][]string) *texttab.Table {
	align, markup := make([]texttab.Align, len(header)), make([]bool, len(header))
	for i := 5; i < len(align); i++ {
		align[i], markup[i] = texttab.Right, true // values with their * and † marks: ours, not a user's text
	}
	return &texttab.Table{Header: header, Rows: rows, Align: align, Markup: markup}
}

// withoutPrefix is err with prefix removed from the start of its message:
// the history package names itself ("history: "), and bench already prints
// "bench history: " before an error (it read "bench history: history: ...").
type withoutPrefix struct {
	err    error
	prefix string
}

func (e withoutPrefix) Error() string { return strings.TrimPrefix(e.err.Error(), e.prefix) }
func (e withoutPrefix) Unwrap() error { return e.err }

// checkChartPath refuses a --chart path that cannot become the SVG file,
// before anything is read or printed: a folder (the atomic write would
// report a rename of its temporary file), a path whose folder is missing,
// or one under a file ("d/qrels.txt/x.svg": d/qrels.txt is a file, which was
// reported as a folder that does not exist).
func checkChartPath(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--chart %s: is a folder; give the SVG file to write, e.g. %s", path, filepath.Join(path, "history.svg"))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	// The nearest existing ancestor says why: a file where a folder
	// should be, or nothing there.
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil {
			if !st.IsDir() {
				return usagef("--chart %s: %s is a file, not a folder", path, d)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return usagef("--chart %s: folder %s does not exist", path, dir)
}

// historyTable is the history's table body, a line per (run, cell) of the
// last n runs (0: all) with each metric's value and its change since the
// cell's previous run holding it (changes are computed over all runs, then
// the last n are shown): "†" marks a change across a dataset change, "*"
// one across a config change; marks says which of the two the shown lines
// hold. A run without cells is one "(no cells)" line.
func historyTable(rows []history.Row, metrics []string, last int) (table [][]string, marks map[string]bool) {
	type key struct{ cell, metric string }
	prev := map[key]history.Row{} // previous run holding (cell, metric)
	marks = map[string]bool{}
	for i, r := range rows {
		// The last n runs (rows), whatever their numbers: lines deleted by
		// hand leave gaps in the run numbers.
		shown := last == 0 || i >= len(rows)-last
		for _, cell := range r.Cells() {
			line := []string{fmt.Sprint(r.Run), r.Time.UTC().Format(time.DateTime), histShort(r.ConfigHash), histShort(r.DatasetHash), cell}
			for _, m := range metrics {
				v, ok := r.Value(cell, m)
				if !ok {
					line = append(line, "-")
					continue
				}
				s := fmt.Sprintf("%.4f", v)
				if p, seen := prev[key{cell, m}]; seen {
					pv, _ := p.Value(cell, m)
					s += fmt.Sprintf(" (%+.4f", v-pv)
					switch {
					case p.DatasetHash != r.DatasetHash:
						s += "†"
						marks["†"] = marks["†"] || shown
					case p.ConfigHash != r.ConfigHash:
						s += "*"
						marks["*"] = marks["*"] || shown
					}
					s += ")"
				}
				prev[key{cell, m}] = r
				line = append(line, s)
			}
			if shown {
				table = append(table, line)
			}
		}
		if len(r.Metrics) == 0 && shown {
			line := []string{fmt.Sprint(r.Run), r.Time.UTC().Format(time.DateTime), histShort(r.ConfigHash), histShort(r.DatasetHash), "(no cells)"}
			for range metrics {
				line = append(line, "-")
			}
			table = append(table, line)
		}
	}
	return table, marks
}

// writeHistoryTable writes the table (text or Markdown format) under its
// heading, naming the history file and its nRuns runs, then the notes for
// the marks shown.
func writeHistoryTable(stdout io.Writer, format, path string, nRuns int, header []string, table [][]string, marks map[string]bool) error {
	var b strings.Builder
	if format == "md" {
		fmt.Fprintf(&b, "## Run history: `%s`\n\n", path)
		histTable(header, table).WriteMarkdown(&b)
	} else {
		fmt.Fprintf(&b, "Run history: %s (%s)\n\n", path, plural.Count(nRuns, "run", "runs"))
		histTable(header, table).WriteText(&b)
	}
	if marks["†"] || marks["*"] {
		b.WriteString("\n")
	}
	if marks["†"] {
		b.WriteString("† the dataset changed since the previous run of this cell: the change is not comparable.\n")
	}
	if marks["*"] {
		b.WriteString("* the config changed since the previous run of this cell.\n")
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

// writeHistoryChart writes the SVG chart of metric (default ndcg@10 when a
// run has it, else the first of all) over rows to file chart, atomically,
// and says so on stderr. Errors: history.WriteSVG's, or the write's.
func writeHistoryChart(stderr io.Writer, chart, metric string, all []string, rows []history.Row) error {
	cm := metric
	if cm == "" {
		cm = all[0]
		if slices.Contains(all, "ndcg@10") {
			cm = "ndcg@10"
		}
	}
	var svg bytes.Buffer
	if err := history.WriteSVG(&svg, rows, cm, history.ChartOptions{}); err != nil {
		return withoutPrefix{err, "history: "}
	}
	if err := fileutil.WriteAtomic(chart, svg.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s (%s over %d runs)\n", chart, cm, len(rows))
	return nil
}
