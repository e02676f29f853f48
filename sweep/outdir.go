package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/internal/fileutil"
)

// outputNames are the entries bench run writes into its output folder.
// Only these (and its own staging folders, stagePrefix*) are ever
// replaced or removed there; anything else a user keeps beside them stays.
var outputNames = []string{"runs", "misses.jsonl", "results.json", "report.md", "report.html", "manifest.json"}

// stagePrefix names the staging folder writeOutputs creates inside the
// output folder (removed when it returns; a leftover from a killed run is
// removed by the next run).
const stagePrefix = ".ragbench-tmp-"

// checkOutputDir returns an error unless dir may receive bench run's
// outputs: it does not exist yet, is an empty folder, holds a manifest.json
// written by bench run (JSON with config_sha256 and dataset_sha256), or
// holds only names bench run writes (outputNames, stagePrefix*: a first
// run that was killed before its manifest). A non-empty folder of other
// files is refused, so that a mistyped --output never mixes our files into
// someone else's folder.
func checkOutputDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("output folder: %w", err)
	}
	var others []string
	for _, e := range entries {
		if !contains(outputNames, e.Name()) && !strings.HasPrefix(e.Name(), stagePrefix) {
			others = append(others, e.Name())
		}
	}
	if len(others) == 0 {
		return nil
	}
	foreign := others[0]
	if len(others) > 1 {
		foreign += fmt.Sprintf(" and %d more", len(others)-1)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		var m struct {
			ConfigSHA string `json:"config_sha256"`
			Dataset   string `json:"dataset_sha256"`
		}
		if json.Unmarshal(b, &m) == nil && m.ConfigSHA != "" && m.Dataset != "" {
			return nil
		}
		return fmt.Errorf("output folder %s: manifest.json is not a bench run manifest (no config_sha256/dataset_sha256) and the folder holds other files (%s): refusing to write into it; choose a new or empty folder with --output", dir, foreign)
	}
	return fmt.Errorf("output folder %s is not empty (it holds %s) and has no manifest.json from an earlier bench run: refusing to write into it; choose a new or empty folder with --output", dir, foreign)
}

// testHookStaged, when set (tests only), is called after each file is
// written to the staging folder, before the swap.
var testHookStaged func(name string)

// writeOutputs writes report.md, report.html, results.json, runs/<cell>.trec,
// misses.jsonl and manifest.json into cfg.Output, then appends the history
// row. Everything is first written (fsynced) into a staging folder inside
// cfg.Output; only when all of it is complete, and ctx is not cancelled,
// is it moved in: runs/ is swapped with the old runs/ in one atomic step
// (renameat2 RENAME_EXCHANGE on Linux; elsewhere, or on file systems
// without it, two renames) and each file replaces its old version by a
// rename. So runs/ holds exactly the cells of results.json (no stale
// .trec files of an earlier, larger sweep), and an error or Ctrl-C before
// the swap leaves the earlier outputs complete and untouched. The folder
// is checked with checkOutputDir first.
func writeOutputs(ctx context.Context, cfg *Config, ds *dataset, res *Results, opts Options) error {
	out := cfg.Output
	if err := checkOutputDir(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if old, _ := filepath.Glob(filepath.Join(out, stagePrefix+"*")); len(old) > 0 {
		for _, p := range old {
			os.RemoveAll(p) // a leftover of a killed run: ours by name
		}
	}
	stage, err := os.MkdirTemp(out, stagePrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	put := func(rel string, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fileutil.WriteAtomic(filepath.Join(stage, rel), data); err != nil {
			return err
		}
		if testHookStaged != nil {
			testHookStaged(rel)
		}
		return nil
	}
	if err := os.Mkdir(filepath.Join(stage, "runs"), 0o755); err != nil {
		return err
	}
	for _, c := range res.Cells {
		var buf bytes.Buffer
		if err := eval.WriteRunTREC(&buf, c.run, cellFile(c.Name)); err != nil {
			return fmt.Errorf("runs/%s.trec: %w", cellFile(c.Name), err)
		}
		if err := put(filepath.Join("runs", cellFile(c.Name)+".trec"), buf.Bytes()); err != nil {
			return err
		}
	}
	man, err := manifest(cfg, ds)
	if err != nil {
		return err
	}
	row := historyRow(cfg, ds, res, opts.Now())
	appended := &row // report.html charts the history with this run in it
	if opts.NoHistory {
		appended = nil
	}
	misses := missesJSONL(cfg, ds, res)
	page, err := reportHTML(cfg, ds, res, misses, historyRows(cfg, appended))
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"misses.jsonl", misses},
		{"results.json", ResultsJSON(res)},
		{"report.md", []byte(Report(res))},
		{"report.html", page},
		{"manifest.json", man},
	}
	for _, f := range files {
		if err := put(f.name, f.data); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Commit: from here on only renames, and ctx is no longer consulted,
	// so the outputs are not left half old, half new.
	if err := fileutil.SwapDir(filepath.Join(stage, "runs"), filepath.Join(out, "runs")); err != nil {
		return fmt.Errorf("output folder: runs: %w", err)
	}
	for _, f := range files {
		if err := os.Rename(filepath.Join(stage, f.name), filepath.Join(out, f.name)); err != nil {
			return fmt.Errorf("output folder: %w", err)
		}
	}
	fileutil.SyncDir(out)
	if opts.NoHistory {
		return nil
	}
	return history.Append(cfg.History, row) // its errors start "history: "
}

// headlineMetrics are the history CSV's metrics: every family at prompt_k
// plus recall at the largest k.
func headlineMetrics(cfg *Config) []string {
	var out []string
	for _, f := range cfg.Metrics {
		out = append(out, metricName(f, cfg.PromptK))
	}
	if maxK := cfg.K[len(cfg.K)-1]; maxK != cfg.PromptK && contains(cfg.Metrics, "recall") {
		out = append(out, metricName("recall", maxK))
	}
	return out
}

func cellFile(name string) string { return strings.ReplaceAll(name, "/", "__") }
