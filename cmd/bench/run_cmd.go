package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/gate"
	"github.com/ragbench/ragbench/internal/gcpace"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/sweep"
)

const runUsage = `usage: bench run [flags] CONFIG

Sweeps every chunking × retriever cell of CONFIG (YAML, see docs/config.md)
against the same qrels, evaluates each at every k of the grid, and writes
into the output folder: report.md, report.html, results.json, runs/<cell>.trec,
misses.jsonl and manifest.json; one row is appended to the history CSV.
Indexes, embeddings and runs are cached under the cache folder and reused
across cells and runs. Ctrl-C stops after the current step, cleans up and exits
130 (finished embedding batches stay cached); a second Ctrl-C quits at once
(exit 130). Caches and earlier outputs stay intact.

Relative dataset paths are resolved against the data root: --data-dir,
else $RAGBENCH_DATA_DIR, else ../shared beside the repository. Relative
model folders are looked up, in order, in each --models-dir (repeatable,
or a path list; else $RAGBENCH_MODELS_DIR), then the models/ of the
checkout holding the config, then of the one holding this binary, then
<data root>/models: --models-dir adds a root, it does not hide the others.

--baseline PATH gates the run against an earlier one (its results.json, or
the output folder holding it, with its manifest.json): each cell present in
both (or mapped: --gate-map fixed-128=fixed-256 compares a changed chunk
size cell by cell) is compared with its baseline counterpart on the primary
metric at prompt_k (and each --gate-metric) with the config's paired test,
interval and correction, over the queries both share. Cells whose
per-query scores are identical to the baseline's are "unchanged
(identical)" and not counted in the correction; --equivalence δ shows "no
regression" (equivalent within ±δ). The Markdown summary goes to stdout
(and is appended to $GITHUB_STEP_SUMMARY when set); the exit status is 3
when a cell regressed (significantly worse, or a fall larger than
--max-drop), 0 otherwise; an improvement never fails. A changed queries or
qrels file is an error (exit 1). See docs/ci.md.

--check loads and checks everything the run checks before its first cell
(config, dataset files and gold ids, model kinds, output/cache/history
writable), prints the cells and the dataset summary, and stops. For
elasticsearch and opensearch retrievers it also asks each node for
GET /_cluster/health with the configured credentials (5 s per node, no
retry): an unreachable node or refused credentials fail the check (exit 1);
credentials are never printed. --check --offline skips that step (a config
checked where its cluster is not reachable, e.g. a lint job) and says so;
the credential variables need not be set then.

Examples:

  bench run configs/scifact.yaml
  bench run --data-dir /data/beir --models-dir ./models configs/scifact.yaml
  bench run --check configs/scifact.yaml          # validate only, no work
  bench run --check --offline configs/scifact-engines.yaml   # same, engines not dialled
  bench run --baseline main-results/ --max-drop 0.01 configs/scifact.yaml   # CI gate (exit 3 on regression)
  bench run --baseline main-results/ --gate-map fixed-128=fixed-256 configs/x.yaml   # gate a chunk-size change
  bench run --output /tmp/out --cache-dir /tmp/ragbench-cache --no-history --data-dir sweep/testdata/small sweep/testdata/small.yaml

flags:
`

// runFlags are bench run's flags.
type runFlags struct {
	dataDir, output, cacheDir, histPath, progress, ortLib, baseline string
	modelsDirs                                                      measureList // a repeatable string flag
	offline, check, noHistory                                       bool
	gate                                                            gateFlags
}

// register adds the flags to fs.
func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataDir, "data-dir", "", "data root for relative dataset paths (default $RAGBENCH_DATA_DIR, else ../shared beside the repo)")
	fs.Var(&f.modelsDirs, "models-dir", "a model root `DIR` searched first for relative model folders (repeatable, or a path list; default $RAGBENCH_MODELS_DIR); the models/ of the checkout holding the config, then of the one holding this binary, then <data root>/models are searched after it")
	fs.StringVar(&f.output, "output", "", "output folder (default: the config's output, else results/<name> beside the config)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "cache folder (default: the config's cache_dir, else $RAGBENCH_CACHE_DIR, else .ragbench-cache beside the config)")
	fs.BoolVar(&f.offline, "offline", false, "with --check: do not dial the engine retrievers' clusters (the one step that needs the network); their credential variables need not be set")
	fs.BoolVar(&f.check, "check", false, "load and validate the config and every file it names (dataset read and checked, model kinds, output/cache/history writable), dial each engine retriever's nodes (/_cluster/health, credentials), print the cells, and stop")
	fs.StringVar(&f.histPath, "history", "", "history CSV to append the run's row to (default: the config's history, else bench-history.csv beside the config)")
	fs.BoolVar(&f.noHistory, "no-history", false, "do not append a row to the history CSV")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (bar when stderr is a terminal, else plain), bar (one bar per stage), plain (one line per stage start and end), none")
	fs.StringVar(&f.ortLib, "onnxruntime", "", "ONNX Runtime shared library for dense and rerank retrievers (default $ONNXRUNTIME_LIB, else third_party/onnxruntime/libonnxruntime.so)")
	fs.StringVar(&f.baseline, "baseline", "", "gate against an earlier run at `PATH`: its results.json (or output folder), with manifest.json beside it; exit 3 when a cell regressed")
	f.gate.register(fs)
	f.gate.registerRun(fs)
}

// loadOptions are config.Load's overrides from the flags.
func (f *runFlags) loadOptions() config.LoadOptions {
	return config.LoadOptions{DataDir: f.dataDir, ModelsDir: strings.Join(f.modelsDirs, string(os.PathListSeparator)),
		Output: f.output, CacheDir: f.cacheDir, History: f.histPath}
}

// cmdRun implements 'bench run CONFIG'.
func cmdRun(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("run")
	var f runFlags
	f.register(fs)
	pos, err := parseInterspersed(fs, args) // 'bench run CONFIG --check' works too
	if err != nil {
		return flagErr(fs, stdout, stderr, runUsage, err)
	}
	if len(pos) != 1 {
		return usagef("want exactly one CONFIG file, got %d argument(s); see 'bench run --help'", len(pos))
	}
	if f.offline && !f.check {
		return usagef("--offline goes with --check (a run needs its engines); see 'bench run --help'")
	}
	if f.baseline == "" && (len(f.gate.maps) > 0 || f.gate.useEquiv) {
		return usagef("--gate-map and --equivalence go with --baseline (they say how to gate this run against it); see 'bench run --help'")
	}
	ctx, stop := interruptContext("stopping after the current step (" + quitAgain + " quits now; caches and earlier outputs stay intact)")
	defer stop()
	// The corpus lives as long as the run: bound the collector's headroom
	// rather than let it grow with the corpus (internal/gcpace).
	defer gcpace.Start(gcpace.Headroom, gcpace.Floor)()
	progressMode, err := runProgressMode(f.progress, stderr)
	if err != nil {
		return err
	}
	cfg, err := config.Load(pos[0], f.loadOptions())
	if err != nil {
		return err
	}
	if err := sweep.Validate(cfg, f.offline); err != nil {
		return err
	}
	var base *gate.Run
	if f.baseline != "" { // read before the sweep: a wrong path fails at once
		if baselineIsOutput(f.baseline, cfg.Output) {
			return usagef("--baseline %s is this run's output folder %s: the run would replace the baseline it is gated against; write the run elsewhere (--output) or keep the baseline in another folder", f.baseline, cfg.Output)
		}
		if base, err = gate.ReadRun(f.baseline); err != nil {
			return err
		}
		// A mapping naming a chunking neither run has fails now, not
		// after the sweep.
		if err := gate.CheckMappings(base, cfg.Cells(), f.gate.maps); err != nil {
			return err
		}
	}
	if f.check {
		return runCheck(ctx, stdout, cfg, f)
	}
	return runSweep(ctx, stdout, stderr, cfg, base, f, progressMode)
}

// baselineIsOutput reports whether the baseline at path (a results.json,
// or the folder holding it, as gate.ReadRun reads it) is in the folder out
// that the run writes: the same path, or the same folder by another name
// (a symbolic link).
func baselineIsOutput(path, out string) bool {
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() || err != nil && strings.HasSuffix(path, ".json") {
		dir = filepath.Dir(path)
	}
	a, errA := filepath.Abs(dir)
	b, errB := filepath.Abs(out)
	if errA == nil && errB == nil && a == b {
		return true
	}
	fa, errA := os.Stat(dir)
	fb, errB := os.Stat(out)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// runSweep is bench run without --check: the sweep (sweep.Run, which
// runs the preflight first), its summary on stdout, then the gate against
// base when there is one.
func runSweep(ctx context.Context, stdout, stderr io.Writer, cfg *config.Config, base *gate.Run, f runFlags, mode sweep.ProgressMode) error {
	start := time.Now()
	fmt.Fprintf(stderr, "bench run: %s: %s → %s\n", cfg.Path(), plural.Count(len(cfg.Cells()), "cell", "cells"), cfg.Output)
	opts := sweep.Options{Stderr: stderr, Progress: mode, NoHistory: f.noHistory, ONNXRuntime: f.ortLib}
	if base != nil {
		// Changed queries or qrels fail before the first cell, not after
		// the whole sweep (runGate checks the finished run again).
		opts.CheckInputs = base.SameJudgments
	}
	res, err := sweep.Run(ctx, cfg, opts)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted after %s; caches and earlier outputs are intact", time.Since(start).Round(time.Second))
		}
		return err
	}
	printRunSummary(stdout, cfg, res, time.Since(start), !f.noHistory)
	if base == nil {
		return nil
	}
	fmt.Fprintln(stdout)
	return runGate(stdout, base, cfg, f.gate)
}

// printRunSummary is the finished run's lines on stdout: the cells (how
// many read from the run cache) and the time taken, the report's path and,
// when a row was appended, the history's.
func printRunSummary(stdout io.Writer, cfg *config.Config, res *results.Results, took time.Duration, history bool) {
	cached := 0
	for _, t := range res.Timings {
		if t.Cached {
			cached++
		}
	}
	fmt.Fprintf(stdout, "%s (%d from the run cache) in %s\n", plural.Count(len(res.Cells), "cell", "cells"), cached, took.Round(100*time.Millisecond))
	for _, l := range planSummary(&res.Significance) {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "report: %s\n", shownPath(filepath.Join(cfg.Output, "report.md")))
	if history {
		fmt.Fprintf(stdout, "history: %s\n", shownPath(cfg.History))
	}
}

// planSummary is the run summary's significance lines: the plan and its
// number of comparisons (compare's sentence), the baseline and how it was
// chosen, and per tested metric how many comparisons got each verdict.
func planSummary(sig *results.Significance) []string {
	if sig.Plan == "" || len(sig.Notes) == 0 || !strings.HasPrefix(sig.Notes[0], "Plan: ") {
		return nil
	}
	out := []string{sig.Notes[0]}
	if sig.Baseline != "" {
		out = append(out, fmt.Sprintf("Baseline %s: %s.", sig.Baseline, sig.BaselineRule))
	}
	for _, m := range sig.Metrics {
		count := map[string]int{}
		var order []string
		for _, p := range sig.Pairs {
			if p.Metric != m {
				continue
			}
			if count[p.Verdict] == 0 {
				order = append(order, p.Verdict)
			}
			count[p.Verdict]++
		}
		slices.Sort(order)
		var parts []string
		for _, v := range order {
			parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("Verdicts on %s: %s.", m, strings.Join(parts, ", ")))
		}
	}
	return out
}

// runCheck is 'bench run --check': the run's preflight (sweep.Check, every
// chunking's labels included), then the cells, roots, models, outputs and
// dataset summary on stdout, and last each engine cluster dialled
// (checkEngines, the one step that needs the network; skipped, with a line
// per engine connection saying so, when offline). Errors: the first check
// that fails.
func runCheck(ctx context.Context, stdout io.Writer, cfg *config.Config, f runFlags) error {
	rep, err := sweep.Check(ctx, cfg, sweep.CheckOptions{History: !f.noHistory, ONNXRuntime: f.ortLib, Offline: f.offline, Chunkings: true})
	if err != nil {
		return err
	}
	cells := cfg.Cells()
	fmt.Fprintf(stdout, "config %s is valid: %s × %s = %s\n", cfg.Path(), plural.Count(len(cfg.Chunkings()), "chunking", "chunkings"),
		plural.Count(len(cfg.Retrievers), "retriever", "retrievers"), plural.Count(len(cells), "cell", "cells"))
	for _, c := range cells {
		fmt.Fprintf(stdout, "  %s\n", c.Name)
	}
	fmt.Fprintf(stdout, "data root   %s\nmodel roots %s\n", cfg.DataDir(), strings.Join(cfg.ModelRoots(), ", "))
	for _, r := range cfg.Retrievers {
		if m := r.Model(); m != "" {
			fmt.Fprintf(stdout, "model of %-12s %s\n", r.Name, m)
		}
	}
	fmt.Fprintf(stdout, "output      %s\ncache       %s\nhistory     %s\n", cfg.Output, cfg.CacheDir, cfg.History)
	if rep.Recovered != "" {
		fmt.Fprintf(stdout, "recovered   %s\n", rep.Recovered)
	}
	printDataset(stdout, rep.Dataset)
	// The warnings are report.md's (one owner), so --check says what the
	// run will.
	for _, w := range rep.Warnings {
		fmt.Fprintf(stdout, "warning     %s\n", w)
	}
	// Last, as it is the one check that needs the network.
	if f.offline {
		for _, c := range sweep.EngineConnections(cfg) {
			fmt.Fprintf(stdout, "engine      %s (%s): not contacted (--offline)\n", strings.Join(c.URLs, ", "), strings.Join(c.Retrievers, ", "))
		}
		return nil
	}
	return checkEngines(ctx, stdout, cfg)
}

// printDataset is --check's dataset line.
func printDataset(stdout io.Writer, sum results.DatasetSummary) {
	slices := "none"
	if len(sum.Slices) > 0 {
		slices = strings.Join(sum.Slices, ", ")
	}
	level := sum.Level + "-level qrels"
	if sum.Labels == results.LabelsSpans {
		level = "span labels (chunk judgements derived per chunking)"
	}
	fmt.Fprintf(stdout, "dataset     %s: %s, %s (%d answerable: %d tuning, %d held out; %d unanswerable), %s, slices: %s\n",
		sum.Name, plural.Count(sum.Documents, "document", "documents"), plural.Count(sum.Queries, "query", "queries"), sum.Answerable, sum.Tuning, sum.HeldOut, sum.Unanswerable, level, slices)
}

// checkEngines is --check's engine step: each engine retriever's cluster
// answers /_cluster/health and accepts the credentials
// (sweep.CheckEngines); one line per node that answered, and a warning
// for a red one, before the error naming those that did not.
func checkEngines(ctx context.Context, stdout io.Writer, cfg *sweep.Config) error {
	health, err := sweep.CheckEngines(ctx, cfg, 0)
	for _, h := range health {
		for _, n := range h.Nodes {
			fmt.Fprintf(stdout, "engine      %s (%s): cluster %s, status %s, %d nodes\n", n.URL, strings.Join(h.Retrievers, ", "), n.Cluster, n.Status, n.Nodes)
			if n.Status == "red" {
				fmt.Fprintf(stdout, "warning     engine %s is red: some primary shards are unassigned; searches on them fail\n", n.URL)
			}
		}
	}
	return err
}

// shownPath is how bench run prints an output path: relative to the working
// folder when it is inside it, else absolute (never "../../tmp/out").
func shownPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return abs
}

// runProgressMode resolves --progress: "auto" is a bar when stderr is a
// terminal and plain lines otherwise (logs, CI, pipes); "bar", "plain" and
// "none" force a mode ("always" and "never", the flag's former values, stay
// accepted as "bar" and "none"). Anything else is a usage error.
func runProgressMode(flagValue string, stderr io.Writer) (sweep.ProgressMode, error) {
	switch flagValue {
	case "auto":
		if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return sweep.ProgressBar, nil
		}
		return sweep.ProgressPlain, nil
	case "always":
		return sweep.ProgressBar, nil
	case "never":
		return sweep.ProgressNone, nil
	}
	m, err := sweep.ParseProgressMode(flagValue)
	if err != nil {
		return 0, usagef("--progress %q: want auto, bar, plain or none", flagValue)
	}
	return m, nil
}
