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

	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
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
	if bytes.HasPrefix(head, []byte(strings.Join(history.Header, ","))) {
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
}

// FromRuns builds the gate's Input and Options from a baseline run and the
// current one: the cells present in both (in the current run's order), the
// gated metrics' per-query values (results.json cells[].per_query), and the
// current config's significance test, correction, alpha, permutations and
// seed. Errors: the queries or qrels file differs between the manifests (a
// changed query set or changed judgments make the comparison meaningless;
// the error names both files and hashes), the qrels level differs, or a
// gated metric was not evaluated by both runs. A changed corpus is allowed
// (it may be the change under test) and noted.
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
	baseCells := map[string]*results.CellResult{}
	for i := range base.Results.Cells {
		baseCells[base.Results.Cells[i].Name] = &base.Results.Cells[i]
	}
	seen := map[string]bool{}
	for _, c := range cur.Results.Cells {
		seen[c.Name] = true
		b, ok := baseCells[c.Name]
		if !ok {
			in.OnlyCurrent = append(in.OnlyCurrent, c.Name)
			continue
		}
		in.Cells = append(in.Cells, Cell{Name: c.Name, Baseline: byMetric(b.PerQuery, in.Metrics), Current: byMetric(c.PerQuery, in.Metrics)})
	}
	for _, c := range base.Results.Cells {
		if !seen[c.Name] {
			in.OnlyBaseline = append(in.OnlyBaseline, c.Name)
		}
	}
	if fb, fc := fileHash(base.Manifest, "corpus"), fileHash(cur.Manifest, "corpus"); fb != fc {
		in.Notes = append(in.Notes, "The corpus differs from the baseline's (manifest sha256): the change under test includes it.")
	}
	in.Baseline, in.Current, in.Texts = base.label(), cur.label(), ro.Texts
	s := cfg.Significance
	test, err := stats.ParseTest(s.Test)
	if err != nil {
		return in, Options{}, fmt.Errorf("%s: significance.test: %w", cur.Path, err)
	}
	corr, err := stats.ParseCorrection(s.Correction)
	if err != nil {
		return in, Options{}, fmt.Errorf("%s: significance.correction: %w", cur.Path, err)
	}
	opt := Options{Test: test, Correction: corr, Alpha: s.Alpha, Permutations: s.Permutations, Resamples: s.Permutations}
	if s.Seed != nil {
		opt.Seed = uint64(*s.Seed)
	}
	return in, opt, nil
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
