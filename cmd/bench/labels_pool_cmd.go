package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/labels"
)

// poolFlags are the flags of bench labels pool and merge.
type poolFlags struct {
	depth   int
	results string
	review  string
	set     map[string]bool
}

func (pf *poolFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&pf.depth, "depth", labels.DefaultPoolDepth, "pool: how deep into each cell's ranking to pool")
	fs.StringVar(&pf.results, "results", "", "pool: the run's output `folder` (default: the config's output)")
	fs.StringVar(&pf.review, "review", "", "merge: the review `file` (bench labels pool's, with the reviewer's grades)")
}

// validate checks the flags of pool and merge, and refuses theirs to the
// other subcommands.
func (pf *poolFlags) validate(lf *labelsFlags, isConfig bool) error {
	pf.set = map[string]bool{}
	lf.fs.Visit(func(f *flag.Flag) { pf.set[f.Name] = true })
	switch {
	case lf.sub != "pool" && (pf.set["depth"] || pf.set["results"]):
		return usagef("%s: --depth and --results are for pool", lf.sub)
	case lf.sub != "merge" && pf.review != "":
		return usagef("%s: --review is for merge", lf.sub)
	case lf.sub == "pool" && !isConfig:
		return usagef("pool: give the config (CONFIG.yaml): its last run is pooled")
	case lf.sub == "pool" && pf.depth < 1:
		return usagef("pool: --depth %d: want ≥ 1", pf.depth)
	case lf.sub == "pool" && (lf.chunking != "" || lf.queries != "" || lf.fixSet || lf.all || lf.thresholdSet):
		return usagef("pool: --chunking, --queries, --fix, --all and --threshold are for other subcommands")
	case lf.sub == "merge" && pf.review == "":
		return usagef("merge: --review FILE (the review file with the reviewer's grades) is required")
	case lf.sub == "merge" && (lf.chunking != "" || lf.queries != ""):
		return usagef("merge: --chunking and --queries are for record and convert")
	}
	return nil
}

// labelsPool runs bench labels pool CONFIG.
func labelsPool(stdout io.Writer, lf *labelsFlags, opt labels.Options) error {
	cfg, err := config.Load(lf.arg, config.LoadOptions{DataDir: lf.dataDir})
	if err != nil {
		return err
	}
	path, docs, err := lf.inputs(&opt)
	if err != nil {
		return err
	}
	r, err := labels.Check(path, docs, opt)
	if err != nil {
		return err
	}
	if r.Spans == nil {
		return fmt.Errorf("%s: pooling gathers unjudged passages of span labels; these are id labels (convert chunk-id labels with 'bench labels convert')", path)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: the labels do not check (a stale label would make its passage look unjudged): fix them first ('bench labels check --fix %s'):\n%w", path, lf.arg, err)
	}
	dir := cfg.Output
	if lf.pool.results != "" {
		dir = lf.pool.results
	}
	runs, err := labels.ReadPoolRuns(dir, docs)
	if err != nil {
		return err
	}
	items, err := labels.Pool(r.Spans.Queries, docs, runs, lf.pool.depth)
	if err != nil {
		return err
	}
	out := lf.output
	if out == "" {
		out = path + ".pool.jsonl"
	}
	bak, err := labels.ReplaceFile(out, lf.force, path, r.Spans.Queries)
	if err != nil {
		return err
	}
	if err := fileutil.WriteStream(out, func(w io.Writer) error { return labels.WritePool(w, items) }); err != nil {
		return err
	}
	if bak != "" {
		fmt.Fprintf(stdout, "the review file it replaced is kept as %s\n", bak)
	}
	pairs, queries := 0, map[string]bool{}
	for _, it := range items {
		pairs += len(it.Queries)
		for _, q := range it.Queries {
			queries[q.ID] = true
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %s unjudged in the top %d of %s (%s of %s), most returned first\n",
		out, plural.Count(len(items), "passage", "passages"), lf.pool.depth, plural.Count(len(runs), "cell", "cells"), plural.Count(pairs, "passage–query pair", "passage–query pairs"), plural.Count(len(queries), "query", "queries"))
	if len(items) > 0 {
		fmt.Fprintf(stdout, "review: set each query's \"grade\" (1 or more: relevant, with that grade; 0: not relevant; null: not reviewed), then\n  %s\n", mergeCommand(lf, out))
	}
	return nil
}

// mergeCommand is the bench labels merge command that follows pool, to be
// run as printed from the same folder: the review file, the flags merge
// shares with pool that were given (--data-dir, which resolves the
// config's dataset), and the config, each quoted for a POSIX shell when
// needed.
func mergeCommand(lf *labelsFlags, review string) string {
	args := []string{"bench", "labels", "merge", "--review", review}
	if lf.dataDir != "" {
		args = append(args, "--data-dir", lf.dataDir)
	}
	args = append(args, lf.arg)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and _ . / : = @ % + , - (single quotes, a ' written '\”).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// labelsMerge runs bench labels merge.
func labelsMerge(stdout io.Writer, lf *labelsFlags, path string, docs []corpus.Document, opt labels.Options) error {
	m, err := labels.Merge(path, lf.pool.review, docs, lf.output, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %s into %s", lf.pool.review, m.Path)
	if m.Backup != "" {
		fmt.Fprintf(stdout, " (the original kept as %s)", m.Backup)
	}
	fmt.Fprintf(stdout, ": %d relevant, %d not relevant; %d already judged, %d not reviewed\n", m.Relevant, m.NotRelevant, m.Already, m.Unreviewed)
	if len(m.Cleared) > 0 {
		fmt.Fprintf(stdout, "no longer marked unanswerable (a relevant passage was merged): %s\n", strings.Join(m.Cleared, ", "))
	}
	switch {
	case len(m.After.Problems) == 0 && m.Recorded:
		fmt.Fprintf(stdout, "%s checks clean; its anchor record is written\n", m.Path)
	case len(m.After.Problems) > 0:
		fmt.Fprintf(stdout, "%s has %s in rows the review did not change (bench labels check lists them)\n", m.Path, plural.Count(len(m.After.Problems), "label problem", "label problems"))
	}
	return nil
}
