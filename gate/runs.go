package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/results"
)

// Run is one bench run's outputs as the gate reads them: results.json and
// the manifest.json beside it.
type Run struct {
	// Path is the results.json read.
	Path     string
	Results  *results.Results
	Manifest *results.Manifest
}

// notJSON refuses, naming the file, a file that does not start as a JSON
// object: a history CSV (bench-history.csv, by its header) or anything
// else. A history row holds means only, not the per-query values the
// paired test needs, so it cannot be a baseline (docs/ci.md). Unreadable
// files are left to ReadResults.
func notJSON(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n\ufeff")
	if len(head) > 0 && head[0] == '{' {
		return nil
	}
	const why = "a history file (bench-history.csv) cannot be a baseline: it holds means only, not the per-query values the gate's paired test needs (docs/ci.md); give an earlier run's results.json, or the output folder holding it with its manifest.json"
	if history.HasHeader(head) {
		return fmt.Errorf("baseline: %s is a history file of bench run, not a results.json: %s", path, why)
	}
	return fmt.Errorf("baseline: %s is not JSON, so not a results.json of bench run (%s)", path, why)
}

// ReadRun reads a bench run's results.json, given its path or the output
// folder holding it, and the manifest.json beside it (both required: the
// manifest's dataset hashes are what make two runs comparable). Errors name
// the file.
func ReadRun(path string) (*Run, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	if err := notJSON(path); err != nil {
		return nil, err
	}
	res, err := results.ReadResults(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	manPath := filepath.Join(filepath.Dir(path), "manifest.json")
	man, err := results.ReadManifest(manPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("baseline: %s has no manifest.json beside it: the gate needs the manifest's dataset hashes to check that both runs used the same queries and qrels; copy the run's whole output folder", path)
		}
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return &Run{Path: path, Results: res, Manifest: man}, nil
}

// label describes a run in the summary: its path, and its commit when the
// manifest has one (12 hex digits, "+dirty" for uncommitted changes).
func (r *Run) label() string {
	s := r.Path
	if c := r.Manifest.GitCommit; c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		if r.Manifest.GitDirty {
			c += "+dirty"
		}
		s += " @ " + c
	}
	return s
}

// RunOptions says what FromRuns gates.
type RunOptions struct {
	// Metrics are the gated metrics as the user names them ("recall@100",
	// or a family such as "recall", read at prompt_k). The current run's
	// primary metric at prompt_k (Config.GateMetric) always comes first.
	Metrics []string
	// Texts maps query id → text (sweep.QueryTexts); optional.
	Texts map[string]string
	// Map maps baseline cells to this run's (bench run --gate-map): a
	// changed chunking is gated cell by cell against the old one.
	Map []Mapping
}

// Mapping maps baseline cells to this run's cells: From and To are both
// chunking names — every cell of chunking From in the baseline is
// compared with the cell of the same retriever in chunking To
// (fixed-128=fixed-256: fixed-128/bm25 → fixed-256/bm25, …) — or both
// cell names (fixed-128/bm25=fixed-256/bm25).
type Mapping struct{ From, To string }

// ParseMapping reads a mapping as bench run --gate-map takes it:
// "OLD=NEW", two chunking names or two cell names
// ("<chunking>/<retriever>"). Errors say what is expected.
func ParseMapping(s string) (Mapping, error) {
	from, to, ok := strings.Cut(s, "=")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	switch {
	case !ok || from == "" || to == "":
		return Mapping{}, fmt.Errorf("want OLD=NEW (baseline chunking or cell = this run's, e.g. fixed-128=fixed-256 or fixed-128/bm25=fixed-256/bm25), got %q", s)
	case strings.Contains(from, "/") != strings.Contains(to, "/"):
		return Mapping{}, fmt.Errorf("%q maps a chunking to a cell: give two chunking names (fixed-128=fixed-256) or two cell names (fixed-128/bm25=fixed-256/bm25)", s)
	case from == to:
		return Mapping{}, fmt.Errorf("%q maps %s to itself: cells of the same name are compared anyway", s, from)
	}
	return Mapping{From: from, To: to}, nil
}

// String is the mapping as written: "OLD=NEW".
func (m Mapping) String() string { return m.From + "=" + m.To }

// CheckMappings checks the mappings of bench run --gate-map against the
// baseline base and the cells the config will run (config.Config.Cells),
// before the sweep: pairCells' rule (a chunking or cell absent from the
// run it names, a cell given two baseline cells), so that --gate-map
// doc=nope fails in the preflight, not after the whole sweep ran.
func CheckMappings(base *Run, cells []config.Cell, maps []Mapping) error {
	if len(maps) == 0 {
		return nil
	}
	cur := make([]results.CellResult, len(cells))
	for i, c := range cells {
		cur[i] = results.CellResult{Name: c.Name, Chunking: c.Chunking, Retriever: c.Retriever}
	}
	_, _, _, err := pairCells(base.Results.Cells, cur, maps)
	return err
}

// pairCells matches this run's cells with the baseline's: by name, and by
// the mappings (a mapped cell takes its baseline cell from the mapping).
// It returns, in this run's order, each current cell with the baseline
// cell it is compared with, and the cells of each run left without a
// counterpart. Errors: a mapping naming a chunking or cell absent from
// the run it names (listing those present), or two mappings giving one
// cell two baseline cells.
func pairCells(base, cur []results.CellResult, maps []Mapping) (pairs [][2]*results.CellResult, onlyBase, onlyCur []string, err error) {
	byName := func(cells []results.CellResult) map[string]*results.CellResult {
		m := map[string]*results.CellResult{}
		for i := range cells {
			m[cells[i].Name] = &cells[i]
		}
		return m
	}
	baseBy, curBy := byName(base), byName(cur)
	from := map[string]string{} // current cell → baseline cell, by the mappings
	names := func(cells []results.CellResult, chunkings bool) string {
		var out []string
		for _, c := range cells {
			n := c.Name
			if chunkings {
				n = c.Chunking.Name
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return strings.Join(out, ", ")
	}
	var problems []string
	for _, m := range maps {
		chunking := !strings.Contains(m.From, "/")
		var found int
		for _, b := range base {
			var to string
			switch {
			case chunking && b.Chunking.Name == m.From:
				to = m.To + "/" + b.Retriever.Name
			case !chunking && b.Name == m.From:
				to = m.To
			default:
				continue
			}
			found++
			if curBy[to] == nil {
				if !chunking {
					problems = append(problems, fmt.Sprintf("--gate-map %s: this run has no cell %s (its cells: %s)", m, to, names(cur, false)))
				}
				continue
			}
			if prev, ok := from[to]; ok && prev != b.Name {
				problems = append(problems, fmt.Sprintf("--gate-map %s: %s is already compared with %s", m, to, prev))
				continue
			}
			from[to] = b.Name
		}
		switch {
		case found == 0 && chunking:
			problems = append(problems, fmt.Sprintf("--gate-map %s: the baseline has no chunking %s (its chunkings: %s)", m, m.From, names(base, true)))
		case found == 0:
			problems = append(problems, fmt.Sprintf("--gate-map %s: the baseline has no cell %s (its cells: %s)", m, m.From, names(base, false)))
		case chunking && !slices.ContainsFunc(cur, func(c results.CellResult) bool { return c.Chunking.Name == m.To }):
			problems = append(problems, fmt.Sprintf("--gate-map %s: this run has no chunking %s (its chunkings: %s)", m, m.To, names(cur, true)))
		}
	}
	if len(problems) > 0 {
		return nil, nil, nil, errors.New("gate: " + strings.Join(problems, "; "))
	}
	used := map[string]bool{}
	for i := range cur {
		c := &cur[i]
		b := baseBy[c.Name]
		if f, ok := from[c.Name]; ok {
			b = baseBy[f]
		}
		if b == nil {
			onlyCur = append(onlyCur, c.Name)
			continue
		}
		used[b.Name] = true
		pairs = append(pairs, [2]*results.CellResult{b, c})
	}
	for _, b := range base {
		if !used[b.Name] {
			onlyBase = append(onlyBase, b.Name)
		}
	}
	return pairs, onlyBase, onlyCur, nil
}

// FromRuns builds the gate's Input and Options from a baseline run and the
// current one: the cells present in both (in the current run's order), or
// mapped (RunOptions.Map), the gated metrics' per-query values
// (results.json cells[].per_query), and the current config's significance
// settings (config.SignificanceConfig.CompareOptions: test, correction,
// alpha, permutations and resamples, seed, interval, equivalence margin,
// difference to detect). Errors: the queries or qrels file differs between
// the manifests (a changed query set or changed judgments make the
// comparison meaningless; the error names both files and hashes), the
// qrels level differs, a gated metric was not evaluated by both runs, or
// a mapping names what a run lacks. A changed corpus is allowed (it may be
// the change under test) and noted.
func FromRuns(base, cur *Run, ro RunOptions) (Input, Options, error) {
	var in Input
	cfg := &cur.Results.Config
	if err := sameJudgments(base, cur); err != nil {
		return in, Options{}, err
	}
	if lb, lc := base.Results.Dataset.Level, cur.Results.Dataset.Level; lb != lc {
		return in, Options{}, fmt.Errorf("baseline %s has %s-level qrels, this run %s-level: the runs are not comparable", base.Path, lb, lc)
	}
	in.Metrics = []string{cfg.GateMetric()}
	for _, m := range ro.Metrics {
		if m = cfg.MetricAt(m); !slices.Contains(in.Metrics, m) {
			in.Metrics = append(in.Metrics, m)
		}
	}
	for _, m := range in.Metrics {
		for _, r := range []*Run{base, cur} {
			if !slices.Contains(r.Results.Metrics, m) {
				return in, Options{}, fmt.Errorf("gate metric %s: %s did not evaluate it (its metrics: %s)", m, r.Path, strings.Join(r.Results.Metrics, ", "))
			}
		}
	}
	pairs, onlyBase, onlyCur, err := pairCells(base.Results.Cells, cur.Results.Cells, ro.Map)
	if err != nil {
		return in, Options{}, err
	}
	in.OnlyBaseline, in.OnlyCurrent = onlyBase, onlyCur
	for _, p := range pairs {
		cell := Cell{Name: p[1].Name, Baseline: byMetric(p[0].PerQuery, in.Metrics), Current: byMetric(p[1].PerQuery, in.Metrics)}
		if p[0].Name != p[1].Name {
			cell.From = p[0].Name
		}
		in.Cells = append(in.Cells, cell)
	}
	if fb, fc := fileHash(base.Manifest, "corpus"), fileHash(cur.Manifest, "corpus"); fb != fc {
		in.Notes = append(in.Notes, "The corpus differs from the baseline's (manifest sha256): the change under test includes it.")
	}
	in.Baseline, in.Current, in.Texts = base.label(), cur.label(), ro.Texts
	co, err := cfg.Significance.CompareOptions()
	if err != nil {
		return in, Options{}, fmt.Errorf("%s: significance: %w", cur.Path, err)
	}
	return in, Options{Test: co.Test, Correction: co.Correction, Alpha: co.Alpha, Permutations: co.Permutations, Resamples: co.Resamples,
		Seed: co.Seed, Interval: co.Interval, Equivalence: co.Equivalence, Detect: co.Detect}, nil
}

// byMetric turns results.json's query id → metric → value into metric →
// query id → value for the metrics given.
func byMetric(perQuery map[string]map[string]float64, metrics []string) map[string]map[string]float64 {
	out := make(map[string]map[string]float64, len(metrics))
	for _, m := range metrics {
		col := make(map[string]float64, len(perQuery))
		for q, vals := range perQuery {
			if v, ok := vals[m]; ok {
				col[q] = v
			}
		}
		out[m] = col
	}
	return out
}

// sameJudgments checks that the two manifests name the same queries and
// qrels content (sha256 of the files of role "queries" and "qrels").
func sameJudgments(base, cur *Run) error {
	return base.SameJudgments(cur.Manifest.Files)
}

// SameJudgments checks that files — a run's hashed input files, as its
// manifest lists them (sweep.Options.CheckInputs gives them before the
// first cell) — hold the same queries and qrels as the baseline r (sha256
// of the files of role "queries" and "qrels"). The error names both files
// and hashes: a changed query set or changed judgements make the
// comparison meaningless. FromRuns applies the same check to the finished
// run; bench run --baseline calls this before the sweep, so that it fails
// at once.
func (r *Run) SameJudgments(files []results.FileHash) error {
	for _, role := range []string{"queries", "qrels"} {
		fb, fc := file(r.Manifest.Files, role), file(files, role)
		switch {
		case fb == nil && fc == nil:
			continue
		case fb == nil || fc == nil:
			return fmt.Errorf("the %s file differs: the baseline (%s) read %s, this run %s; the gate compares runs on the same queries and qrels only", role, r.Path, name(fb), name(fc))
		case fb.SHA256 != fc.SHA256:
			return fmt.Errorf("the %s changed since the baseline: %s (sha256 %.12s, baseline %s) vs %s (sha256 %.12s, this run); the gate compares runs on the same queries and qrels only: make a new baseline", role, fb.Path, fb.SHA256, r.Path, fc.Path, fc.SHA256)
		}
	}
	return nil
}

func name(f *results.FileHash) string {
	if f == nil {
		return "none"
	}
	return f.Path
}

func file(files []results.FileHash, role string) *results.FileHash {
	for i := range files {
		if files[i].Role == role {
			return &files[i]
		}
	}
	return nil
}

func fileHash(m *results.Manifest, role string) string {
	if f := file(m.Files, role); f != nil {
		return f.SHA256
	}
	return ""
}
