// Package labels checks, repairs, records and converts labels files — the
// work of `bench labels` (docs/labelling.md) — over the rules of the
// packages that own them: eval reads labelled-query rows
// (eval.ReadLabelRows) and qrels, spans places passage labels in a corpus
// (spans.CheckJSONL: all problems in one pass, with hints and sure
// repairs) and records the documents they were checked against
// (spans.AnchorRecord), anchor finds text and doc ids, corpus records the
// chunking of chunk-id labels (corpus.LabelInfo) and refuses them for other
// chunkings (corpus.CheckLabelChunkings).
//
//   - Check reads a labels file of any kind (span labels as JSONL or
//     Chroma's questions.csv; id labels as labelled-query JSONL, TREC,
//     BEIR or ranx qrels) and reports every problem, the status of each
//     passage label against the corpus (unchanged, moved, changed, lost),
//     the documents changed since the labels were recorded, judgements of
//     grade 0 and groups of alternatives.
//   - Fix writes the sure repairs of a report into a JSONL labels file
//     (a new file, or the same with a backup), and the anchor record of
//     the result when it checks clean.
//   - Record writes the record beside a labels file: the documents' digests
//     for span labels, the chunking for chunk-id labels.
//   - Convert turns chunk-id labels of a known chunking into span labels.
package labels

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/spans"
)

// Formats of labels files (Report.Format).
const (
	FormatSpans  = "span labels (JSONL)"
	FormatChroma = "span labels (Chroma's questions.csv)"
	FormatIDs    = "id labels"
)

// Options configure Check.
type Options struct {
	// Threshold is the least similarity of an approximate match for a
	// changed label (anchor.DefaultThreshold is the usual value), in
	// [0, 1].
	Threshold float64
	// Chunkings are the chunkings the labels will score (a sweep's), for
	// the rule of chunk-id labels (corpus.CheckLabelChunkings); nil when
	// not known (the rule is then a warning).
	Chunkings []corpus.Spec
}

// DefaultOptions are Check's defaults: anchor.DefaultThreshold, no
// chunkings known.
func DefaultOptions() Options { return Options{Threshold: anchor.DefaultThreshold} }

// Report is a labels file checked against a corpus.
type Report struct {
	Path   string
	Format string
	// Queries counts the queries read, Unanswerable those with no gold.
	Queries, Unanswerable int
	// Spans is the check of span labels (nil for id labels).
	Spans *spans.Checked
	// Record is the anchor record beside span labels, nil when none;
	// LabelsEdited says the labels file changed since it was recorded,
	// ChangedDocs lists the labelled documents whose text changed since
	// (or that are gone), sorted.
	Record       *spans.AnchorRecord
	LabelsEdited bool
	ChangedDocs  []string
	// RecordCommand is the command that records the labels anew, shown
	// when LabelsEdited (set by the caller, which knows the corpus path;
	// default "bench labels record --corpus CORPUS " and the labels path).
	RecordCommand string
	// Judged counts the judgements of id labels, ChunkIDs those naming
	// chunks (corpus.ChunkIDs); Chunking is the chunking recorded beside
	// them (corpus.LabelInfo), "" when none.
	Judged   int
	ChunkIDs []string
	Chunking string
	// NotRelevant counts judgements of grade 0 ("looked at, not
	// relevant"), kept; Groups counts groups of alternatives.
	NotRelevant, Groups int
	// Problems are every problem, in file order; Warnings say what is not
	// wrong but worth knowing.
	Problems []spans.Problem
	Warnings []string
}

// Exit codes of bench labels check (Report.ExitCode), documented in
// docs/labelling.md for CI jobs.
const (
	ExitClean    = 0 // every label checks
	ExitProblems = 1 // a problem a person must look at (or bad input)
	ExitFixable  = 4 // problems, each with a sure repair: --fix writes them all
)

// ExitCode is ExitClean, ExitFixable or ExitProblems for r's problems.
func (r *Report) ExitCode() int {
	if len(r.Problems) == 0 {
		return ExitClean
	}
	for _, p := range r.Problems {
		if p.Repair == nil {
			return ExitProblems
		}
	}
	return ExitFixable
}

// Fixable counts the problems with a sure repair.
func (r *Report) Fixable() int {
	n := 0
	for _, p := range r.Problems {
		if p.Repair != nil {
			n++
		}
	}
	return n
}

// Err is every problem as one error (errors.Join of *eval.SyntaxError, in
// file order), nil when there is none: what bench run refuses labels with.
func (r *Report) Err() error { return spans.ProblemsErr(r.Path, r.Problems) }

// Check reads the labels file at path and checks it against docs (see the
// package comment). The error is for a file that cannot be read at all;
// bad rows and labels are Problems.
func Check(path string, docs []corpus.Document, opt Options) (*Report, error) {
	format, err := spans.Detect(path)
	if err != nil {
		return nil, err
	}
	if format == "" {
		return checkIDs(path, docs, opt)
	}
	r := &Report{Path: path, Format: FormatSpans}
	if format == spans.FormatChromaCSV {
		r.Format = FormatChroma
	}
	copt := spans.CheckOptions{Threshold: opt.Threshold}
	if err := r.readRecord(docs); err != nil {
		return nil, err
	}
	if r.Record != nil {
		copt.Recorded = r.Record.Documents
	}
	if r.Spans, err = spans.ReadChecked(path, docs, copt); err != nil {
		return nil, err
	}
	r.Problems = r.Spans.Problems
	for _, q := range r.Spans.Queries {
		r.NotRelevant += len(q.NonRelevant)
		groups := map[int]bool{}
		for _, g := range q.Gold {
			if g.Group != 0 {
				groups[g.Group] = true
			}
		}
		r.Groups += len(groups)
	}
	r.Queries, r.Unanswerable = len(r.Spans.Queries), r.Spans.Unanswerable
	return r, nil
}

// count sets Queries and Unanswerable.
func (r *Report) count(n int, unanswerable func(i int) bool) {
	r.Queries = n
	for i := range n {
		if unanswerable(i) {
			r.Unanswerable++
		}
	}
}

// readRecord reads the anchor record beside span labels, if any, and
// compares it with the file and the corpus.
func (r *Report) readRecord(docs []corpus.Document) error {
	rec, err := spans.ReadAnchorRecord(r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	r.Record = &rec
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return err
	}
	r.LabelsEdited = spans.NewAnchorRecord(data, &spans.Checked{}, nil).Labels != rec.Labels
	now := map[string]string{}
	for _, d := range docs {
		now[d.ID] = d.Text
	}
	for _, id := range slices.Sorted(maps.Keys(rec.Documents)) {
		if text, ok := now[id]; !ok || spans.DocDigest(text) != rec.Documents[id] {
			r.ChangedDocs = append(r.ChangedDocs, id)
		}
	}
	return nil
}

// sortProblems orders problems by line, then field, then doc.
func sortProblems(ps []spans.Problem) {
	slices.SortStableFunc(ps, func(a, b spans.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Field != b.Field {
			return strings.Compare(a.Field, b.Field)
		}
		return strings.Compare(a.Doc, b.Doc)
	})
}
