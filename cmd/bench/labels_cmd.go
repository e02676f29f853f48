package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/labels"
	"github.com/ragbench/ragbench/sweep"
)

const labelsUsage = `usage: bench labels <check|record|convert|pool|merge> [flags] LABELS | CONFIG

Check, repair, record, convert, pool and merge labels files (docs/labelling.md).

  check LABELS --corpus PATH   check every label against the corpus and list
                               every problem at once: file:line, field, query
                               and doc, a hint (the text found with other
                               white space, quote marks, dashes or case and
                               where; the nearest passage and how similar; a
                               doc id without its extension; each place of a
                               repeated text as doc:line:col) and the sure
                               repair; passage labels are counted unchanged,
                               moved, changed or lost.
  check CONFIG.yaml            the labels and corpus of a bench run config, and
                               its chunkings for chunk-id labels.
      --fix                    write the sure repairs (offsets, the document's
                               spelling of a quote, a doc id) into LABELS,
                               keeping the original as LABELS.bak, and the
                               anchor record of the result when it checks clean
      --output FILE            with --fix: write the repaired labels to FILE
      --all                    list every moved label (default: the first ten)
  record LABELS --corpus PATH  write the anchor record (each labelled document's
                               digest) beside span labels, once they check clean
      --chunking NAME          chunk-id labels: record the chunking they were
                               made on (LABELS.chunking.json); a sweep then
                               scores that chunking only
  convert LABELS --corpus PATH --chunking NAME --output FILE
                               turn chunk-id labels of chunking NAME into span
                               labels (code points), which score every chunking
      --queries FILE           TREC or BEIR qrels: the query texts (BEIR
                               queries.jsonl)
      --force                  overwrite an --output review file holding
                               grades (any file replaced is kept as FILE.bak)
  pool CONFIG.yaml             write a review file of the unjudged passages in
                               the top --depth of every cell of the config's
                               last run (its output folder: results.json and
                               runs/), one per text span, with the queries,
                               cells and ranks that returned it, most returned
                               first; a person sets each query's "grade"
      --depth N                how deep into each cell's ranking (default 10)
      --results DIR            the run's output folder (default: the config's)
      --output FILE            the review file (default: LABELS.pool.jsonl);
                               one holding a reviewer's grades is not
                               overwritten without --force (kept as FILE.bak)
  merge --review FILE CONFIG.yaml | --review FILE LABELS --corpus PATH
                               read the reviewer's decisions back into the
                               labels: grade >= 1 adds a gold passage, grade 0 a
                               judgement "not relevant"; the rows changed are
                               checked as bench run checks them, and nothing is
                               written unless they pass (in place, the original
                               kept as LABELS.bak, or --output FILE)

Exit codes of check: 0 every label checks; 4 problems, each with a sure
repair (--fix writes them all); 1 a problem a person must look at, or input
that cannot be read; 2 usage. With --fix: 0 when the file written checks
clean, else 1. record and convert: 0 done, 1 not done (problems listed).

Examples:
  bench labels check --corpus ../shared/datasets/chunking-chroma/corpora labels.jsonl
  bench labels check configs/chunking.yaml
  bench labels check --corpus docs/ --fix labels.jsonl
  bench labels record --corpus docs/ labels.jsonl
  bench labels record --corpus corpus.jsonl --chunking fixed-5 qrels.jsonl
  bench labels convert --corpus corpus.jsonl --chunking fixed-5 --output spans.jsonl qrels.jsonl
  bench labels pool --depth 10 --output review.jsonl configs/chunking.yaml
  bench labels merge --review review.jsonl configs/chunking.yaml

Flags:
`

// labelsFlags are bench labels' flags.
type labelsFlags struct {
	sub                  string
	corpus, dataDir      string
	fix, all, force      bool
	output, chunking     string
	queries              string
	threshold            float64
	arg                  string
	corpusPath           string // the corpus read: --corpus, else the config's (inputs)
	fs                   *flag.FlagSet
	thresholdSet, fixSet bool
	pool                 poolFlags
}

func parseLabelsFlags(stdout, stderr io.Writer, args []string) (*labelsFlags, error) {
	if len(args) == 0 {
		return nil, usagef("missing subcommand (check, record, convert, pool or merge); see 'bench labels --help'")
	}
	lf := &labelsFlags{sub: args[0], fs: newFlagSet("labels")}
	fs := lf.fs
	fs.StringVar(&lf.corpus, "corpus", "", "the corpus `path` (a folder of .md/.txt files, or a corpus file)")
	fs.StringVar(&lf.dataDir, "data-dir", "", "with a CONFIG: the data root `folder` its dataset paths are relative to (as bench run's)")
	fs.BoolVar(&lf.fix, "fix", false, "check: write the sure repairs")
	fs.BoolVar(&lf.all, "all", false, "check: list every moved label (default: the first ten)")
	fs.BoolVar(&lf.force, "force", false, "pool, convert: overwrite an --output review file that holds a reviewer's grades (a .bak copy is kept)")
	fs.StringVar(&lf.output, "output", "", "check --fix, convert: the `file` to write")
	fs.StringVar(&lf.chunking, "chunking", "", "record, convert: the chunking `name` of chunk-id labels (e.g. fixed-5)")
	fs.StringVar(&lf.queries, "queries", "", "convert: query texts for TREC or BEIR qrels (a BEIR queries.jsonl `file`)")
	fs.Float64Var(&lf.threshold, "threshold", 0.75, "check: the least similarity of a changed label's nearest passage (below: lost)")
	lf.pool.register(fs)
	switch lf.sub {
	case "-h", "-help", "--help", "help":
		printFlagUsage(stdout, fs, labelsUsage)
		return nil, errHelp
	case "check", "record", "convert", "pool", "merge":
	default:
		if strings.HasPrefix(lf.sub, "-") { // a flag before the subcommand: flag's own error
			if err := fs.Parse(args); err != nil {
				return nil, flagErr(fs, stdout, stderr, labelsUsage, err)
			}
		}
		return nil, usagef("unknown subcommand %q (want check, record, convert, pool or merge); see 'bench labels --help'", lf.sub)
	}
	var pos []string
	for rest := args[1:]; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, flagErr(fs, stdout, stderr, labelsUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 1 {
		return nil, usagef("%s: want one labels file (or, for check, pool and merge, a config), got %d arguments; see 'bench labels --help'", lf.sub, len(pos))
	}
	lf.arg = pos[0]
	fs.Visit(func(f *flag.Flag) {
		lf.thresholdSet = lf.thresholdSet || f.Name == "threshold"
		lf.fixSet = lf.fixSet || f.Name == "fix"
	})
	return lf, lf.validate()
}

// validate checks the flags each subcommand needs or refuses.
func (lf *labelsFlags) validate() error {
	isConfig := strings.HasSuffix(lf.arg, ".yaml") || strings.HasSuffix(lf.arg, ".yml")
	if err := lf.pool.validate(lf, isConfig); err != nil {
		return err
	}
	switch {
	case !(lf.threshold >= 0 && lf.threshold <= 1):
		return usagef("--threshold %v: want a similarity in [0, 1]", lf.threshold)
	case lf.sub != "check" && lf.sub != "pool" && lf.sub != "merge" && isConfig:
		return usagef("%s: give the labels file and --corpus (a config is for check, pool and merge)", lf.sub)
	case lf.corpus == "" && !isConfig:
		return usagef("%s: --corpus is required (the corpus the labels are checked against)", lf.sub)
	case lf.corpus != "" && isConfig:
		return usagef("check: a config names its corpus: drop --corpus")
	case lf.sub == "check" && (lf.chunking != "" || lf.queries != ""):
		return usagef("check: --chunking and --queries are for record and convert")
	case lf.sub == "check" && lf.output != "" && !lf.fix:
		return usagef("check: --output is where --fix writes: add --fix")
	case lf.sub != "check" && (lf.fixSet || lf.thresholdSet || lf.all):
		return usagef("%s: --fix, --all and --threshold are for check", lf.sub)
	case lf.sub == "record" && (lf.output != "" || lf.queries != ""):
		return usagef("record: writes beside LABELS: --output and --queries are for convert")
	case lf.force && lf.sub != "pool" && lf.sub != "convert":
		return usagef("%s: --force is for pool and convert (overwriting a review file that holds grades)", lf.sub)
	case lf.sub == "convert" && (lf.chunking == "" || lf.output == ""):
		return usagef("convert: --chunking (the chunking of the chunk ids) and --output (the span labels to write) are required")
	}
	return nil
}

// cmdLabels implements 'bench labels'.
func cmdLabels(stdout, stderr io.Writer, args []string) error {
	lf, err := parseLabelsFlags(stdout, stderr, args)
	if err != nil {
		return err
	}
	opt := labels.DefaultOptions()
	opt.Threshold = lf.threshold
	if lf.sub == "pool" {
		return labelsPool(stdout, lf, opt)
	}
	path, docs, err := lf.inputs(&opt)
	if err != nil {
		return err
	}
	switch lf.sub {
	case "merge":
		return labelsMerge(stdout, lf, path, docs, opt)
	case "record":
		written, err := labels.Record(path, docs, lf.chunking, opt)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", written)
		return nil
	case "convert":
		spec, err := corpus.ParseSpec(lf.chunking)
		if err != nil {
			return usagef("convert: --chunking: %v", err)
		}
		n, bak, err := labels.Convert(path, docs, spec, lf.queries, lf.output, lf.force)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %d queries as span labels (chunking %s), and %s\n", lf.output, n, spec.Name(), filepath.Base(lf.output)+".anchors.json")
		if bak != "" {
			fmt.Fprintf(stdout, "the file it replaced is kept as %s\n", bak)
		}
		return nil
	}
	return labelsCheck(stdout, lf, path, docs, opt)
}

// inputs loads the labels path and the corpus: from the flags, or from a
// config (its chunkings then go into opt).
func (lf *labelsFlags) inputs(opt *labels.Options) (string, []corpus.Document, error) {
	if lf.corpus != "" {
		lf.corpusPath = lf.corpus
		docs, err := corpus.Load(lf.corpus)
		return lf.arg, docs, err
	}
	cfg, err := sweep.Load(lf.arg, sweep.LoadOptions{DataDir: lf.dataDir})
	if err != nil {
		return "", nil, err
	}
	if err := sweep.ValidateDataset(cfg, true); err != nil { // bench run's check and --data-dir hint
		return "", nil, err
	}
	d := cfg.Dataset
	corpusPath, path := d.Corpus, d.Queries
	if d.Qrels != "" {
		path = d.Qrels
	}
	if d.BEIR != "" {
		split := d.Split
		if split == "" {
			split = "test"
		}
		corpusPath, path = filepath.Join(d.BEIR, "corpus.jsonl"), filepath.Join(d.BEIR, "qrels", split+".tsv")
	}
	for _, ch := range cfg.Chunkings() {
		opt.Chunkings = append(opt.Chunkings, ch.Spec())
	}
	lf.corpusPath = corpusPath
	docs, err := corpus.Load(corpusPath)
	return path, docs, err
}

// labelsCheck runs bench labels check (and --fix) and maps the result to
// the exit code.
func labelsCheck(stdout io.Writer, lf *labelsFlags, path string, docs []corpus.Document, opt labels.Options) error {
	r, err := labels.Check(path, docs, opt)
	if err != nil {
		return err
	}
	r.RecordCommand = "bench labels record --corpus " + shellQuote(lf.corpusPath) + " " + shellQuote(path)
	if err := r.WriteText(stdout, lf.all); err != nil {
		return err
	}
	if lf.fix {
		return labelsFix(stdout, r, docs, lf.output, opt)
	}
	switch code := r.ExitCode(); code {
	case labels.ExitFixable:
		return exitError{code, fmt.Errorf("%s, each with a sure repair: 'bench labels check --fix' writes %s", plural.Count(len(r.Problems), "label problem", "label problems"), plural.Word(len(r.Problems), "it", "them"))}
	case labels.ExitProblems:
		return exitError{code, fmt.Errorf("%s (%d with a sure repair)", plural.Count(len(r.Problems), "label problem", "label problems"), r.Fixable())}
	}
	return nil
}

// labelsFix writes the sure repairs of r and reports what changed and what
// is left.
func labelsFix(stdout io.Writer, r *labels.Report, docs []corpus.Document, out string, opt labels.Options) error {
	if len(r.Problems) == 0 {
		fmt.Fprintln(stdout, "\nnothing to fix")
		return nil
	}
	f, err := labels.Fix(r, docs, out, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n--fix wrote %s", f.Path)
	if f.Backup != "" {
		fmt.Fprintf(stdout, " (the original kept as %s)", f.Backup)
	}
	fmt.Fprintf(stdout, ": %d repairs\n", len(f.Changes))
	for _, c := range f.Changes {
		fmt.Fprintf(stdout, "  %s:%d: %s: query %q: %s\n", f.Path, c.Line, c.Field, c.Query, c.Note)
	}
	left := len(f.After.Problems)
	if left == 0 {
		if f.Recorded {
			fmt.Fprintf(stdout, "%s checks clean; its anchor record is written\n", f.Path)
		} else {
			fmt.Fprintf(stdout, "%s checks clean\n", f.Path)
		}
		return nil
	}
	fmt.Fprintf(stdout, "\nleft for a person (%d):\n", left)
	for _, p := range f.After.Problems {
		fmt.Fprintf(stdout, "%v\n", p.Error(f.Path))
	}
	return exitError{labels.ExitProblems, errors.New(plural.Count(left, "label problem", "label problems") + " left after --fix")}
}
