package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

const fuseUsage = `usage: bench fuse --method METHOD [flags] RUN RUN... > fused.trec

Fuse the runs of several systems on the same queries into one run, as ranx's
fuse() does, with retrievers/hybrid (the fusion the sweep uses). The fused run
is written to stdout in TREC format ("qid Q0 docid rank score TAG"), queries
in byte order, each list by fused score descending, ties by doc id descending
(trec_eval's order).

RUN is a TREC run or ranx JSON file (see 'bench eval --help'; gzip is
decompressed); "-" reads one run from stdin (not gzip). Each run's lists are ranked the same way and cut to --depth
before fusing (ranx fuses whole lists: give --depth at least the longest
list to match it; a note on stderr says when lists were cut); a query
missing from a run counts as an empty list there.

Methods (--method):
  rrf        reciprocal rank fusion, Σ w / (K + rank) (Cormack et al. 2009)
  combsum    weighted sum of normalised scores (Fox & Shaw 1994; ranx wsum)
  combmnz    combsum × the number of runs returning the doc (Fox & Shaw 1994)
  dbsf       Qdrant's distribution-based score fusion (mean ± 3σ limits)
  harmonic   OpenSearch's weighted harmonic mean of normalised scores
  geometric  OpenSearch's weighted geometric mean of normalised scores
Normalisations (--norm, required for combsum, combmnz, harmonic, geometric):
  minmax zscore max sum rank borda none (ranx's min-max zmuv max sum rank borda)
  harmonic and geometric take minmax, sum, rank or borda only (non-negative,
  as OpenSearch defines them). A list of one result or equal scores is flat:
  minmax, zscore and sum give its documents 0 (as ranx), dbsf 0.5; a note on
  stderr counts such lists per run.
Missing-document policy (--missing; default: borda for --norm borda, else zero):
  zero   a doc a run did not return counts 0 there (ranx, Fox & Shaw)
  min    it gets that run's lowest normalised score (score methods)
  rank   it counts as rank depth + 1 (rrf)
  borda  it gets the mean of the Borda points that run did not award (borda)
docs/fusion.md defines each and says where engines differ.

Examples:
  bench fuse --method rrf bm25.trec dense.trec > rrf.trec
  bench fuse --method rrf --rrf-k 20 --weights 1,2 --depth 50 bm25.trec dense.trec > rrf.trec
  bench fuse --method combsum --norm minmax --weights 0.3,0.7 bm25.trec dense.json > wsum.trec
  bench fuse --method combmnz --norm zscore --tag mnz a.trec b.trec c.trec.gz > mnz.trec
  other-engine-export | bench fuse --method rrf bm25.trec - > rrf.trec

Flags:
`

// cmdFuse implements 'bench fuse'.
func cmdFuse(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("fuse")
	d := hybrid.DefaultOptions()
	var (
		method  = fs.String("method", "", "fusion `method`: "+joinNames(hybrid.Methods)+" (required)")
		norm    = fs.String("norm", "", "score `normalization`: "+joinNames(hybrid.Normalizations))
		missing = fs.String("missing", "", "missing-document `policy`: zero, min, rank or borda (default: the method's)")
		weights = fs.String("weights", "", "per-run weights `W,...`, finite and ≥ 0, one per RUN (default all 1; 0 drops that run)")
		rrfK    = fs.Float64("rrf-k", d.K, "RRF rank constant `K` (≥ 0; rrf only)")
		depth   = fs.Int("depth", d.Depth, "top `D` results of each run fused per query (≥ 1)")
		tag     = fs.String("tag", "", "run tag written in the 6th column (default: the method)")
	)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, stdout, stderr, fuseUsage, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *method == "" {
		return usagef("--method is required (%s); see 'bench fuse --help'", joinNames(hybrid.Methods))
	}
	if len(paths) < 2 {
		return usagef("need at least two runs to fuse, got %d; see 'bench fuse --help'", len(paths))
	}
	if i := slices.Index(paths, "-"); i >= 0 && slices.Contains(paths[i+1:], "-") {
		return usagef(`"-" (stdin) given twice: stdin holds one run`)
	}
	o := hybrid.Options{
		Method:  hybrid.Method(*method),
		Norm:    hybrid.Normalization(*norm),
		Missing: hybrid.Missing(*missing),
		K:       *rrfK,
		Depth:   *depth,
	}
	if set["rrf-k"] && o.Method != hybrid.RRF {
		return usagef("--rrf-k applies to --method rrf only, not %s", o.Method)
	}
	if *weights != "" {
		for i, s := range strings.Split(*weights, ",") {
			w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return usagef("--weights: weight %d %q is not a number", i+1, s)
			}
			o.Weights = append(o.Weights, w)
		}
	}
	if err := o.Validate(len(paths)); err != nil {
		return usagef("%v", strings.TrimPrefix(err.Error(), "hybrid: "))
	}
	if *tag == "" {
		*tag = *method
	}
	if strings.ContainsAny(*tag, " \t\r\n") {
		return usagef("--tag %q: must contain no white space", *tag)
	}

	runs, names, err := readFuseRuns(stderr, paths, o.Depth)
	if err != nil {
		return err
	}
	fused, notes, err := hybrid.FuseWithNotes(runs, o)
	if err != nil {
		return fuseError(err, names, *method, *norm)
	}
	for _, line := range notes.Lines(names) {
		fmt.Fprintf(stderr, "note: %s\n", line)
	}
	return eval.WriteRunTREC(stdout, fused, *tag)
}

// readFuseRuns reads the runs to fuse ("-": stdin, as bench eval reads its
// run, named "stdin" in messages) and returns them with the names messages
// give them, warning on stderr of what is suspect in each file
// (eval.RunInfo.Warnings), of queries some runs lack (noteMissingQueries)
// and of runs cut to depth (noteDepthCut). Errors: a run that cannot be
// read, naming the file.
func readFuseRuns(stderr io.Writer, paths []string, depth int) ([]eval.Run, []string, error) {
	runs := make([]eval.Run, len(paths))
	names := slices.Clone(paths)
	for i, p := range paths {
		var run eval.Run
		var info eval.RunInfo
		var err error
		if p == "-" {
			names[i] = "stdin"
			run, info, err = eval.ParseRun(stdin, names[i])
		} else {
			run, info, err = eval.ReadRunInfo(p)
		}
		if err != nil {
			return nil, nil, err
		}
		for _, w := range info.Warnings() {
			fmt.Fprintf(stderr, "warning: %s: %s\n", names[i], w)
		}
		runs[i] = run
	}
	noteMissingQueries(stderr, names, runs)
	noteDepthCut(stderr, names, runs, depth)
	return runs, names, nil
}

// fuseError is hybrid.Fuse's error err with the run files named: an
// input's error names its file and query; an overflowing fused score names
// the files whose scores overflow and the flags that combined them
// (method, norm). Other errors are returned as they are.
func fuseError(err error, paths []string, method, norm string) error {
	var ie *hybrid.InputError
	if errors.As(err, &ie) && ie.Input < len(paths) {
		return fmt.Errorf("%s: query %q: %v", paths[ie.Input], ie.Query, ie.Err)
	}
	var oe *hybrid.OverflowError
	if errors.As(err, &oe) {
		files := make([]string, 0, len(oe.Inputs))
		for _, i := range oe.Inputs {
			if i < len(paths) {
				files = append(files, paths[i])
			}
		}
		how := "--method " + method
		if norm != "" {
			how += " --norm " + norm
		}
		return fmt.Errorf("query %q: doc %q: the fused score is %v: its scores in %s overflow float64 when combined (%s); normalise them (e.g. --norm minmax) or scale them down", oe.Query, oe.Doc, oe.Score, strings.Join(files, " and "), how)
	}
	return err
}

// noteMissingQueries prints, per run, how many queries of the other runs it
// lacks (they are fused as empty lists there), with the first few ids.
func noteMissingQueries(w io.Writer, paths []string, runs []eval.Run) {
	all := map[string]bool{}
	for _, r := range runs {
		for q := range r {
			all[q] = true
		}
	}
	for i, r := range runs {
		var lack []string
		for q := range all {
			if _, ok := r[q]; !ok {
				lack = append(lack, q)
			}
		}
		if len(lack) == 0 {
			continue
		}
		slices.Sort(lack)
		eg := lack[:min(3, len(lack))]
		fmt.Fprintf(w, "note: %s lacks %d queries of the other runs (fused as empty lists there), e.g. %s\n",
			paths[i], len(lack), strings.Join(eg, ", "))
	}
}

// noteDepthCut prints, per run with lists longer than depth, how many lists
// --depth cuts and the longest list's length.
func noteDepthCut(w io.Writer, paths []string, runs []eval.Run, depth int) {
	for i, r := range runs {
		cut, longest := 0, 0
		for _, l := range r {
			longest = max(longest, len(l))
			if len(l) > depth {
				cut++
			}
		}
		if cut > 0 {
			fmt.Fprintf(w, "note: %s: %d of %d queries' lists cut to --depth %d (longest %d results)\n",
				paths[i], cut, len(r), depth, longest)
		}
	}
}

// joinNames joins names with ", ".
func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}
