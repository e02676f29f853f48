package sweep

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file holds the sweep's label checks (issue 20, docs/labelling.md),
// all run by Check before any work: span labels read through the one
// check of bench labels (every problem at once, with its hint; moved labels
// placed at their new offsets with a counted note), and chunk-id labels
// held to the chunking recorded beside them (corpus.CheckLabelChunkings).

// readCheckedSpans reads the span labels at path against ds.docs as
// bench run accepts them: spans.ReadChecked with anchor.DefaultThreshold,
// the anchor record beside the labels when there is one (so messages say
// whether a document changed since), and moved labels (their exact text
// found once elsewhere in their document) placed at their new place and
// counted in ds.labelNotes. Every other problem of the file — changed and
// lost labels included — is the error, all at once. It sets
// ds.labelsDigest (spans.Digest, for the manifest) and returns the note on
// moved labels ("" when none moved).
func (ds *dataset) readCheckedSpans(path string) ([]spans.Query, string, error) {
	rec, err := spans.ReadAnchorRecord(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	c, err := spans.ReadChecked(path, ds.docs, spans.CheckOptions{Threshold: anchor.DefaultThreshold, AcceptMoved: true, Recorded: rec.Documents})
	if err != nil {
		return nil, "", err
	}
	if err := c.Err(); err != nil {
		return nil, "", fmt.Errorf("%w\n(bench labels check --corpus CORPUS %s lists these with the repairs it can make; docs/labelling.md)", err, path)
	}
	ds.labelsDigest = spans.Digest(c.Queries)
	notes := &results.LabelNotes{Moved: len(c.Moved)}
	for _, q := range c.Queries {
		notes.Judgements += len(q.Gold) + len(q.NonRelevant)
		notes.NotRelevant += len(q.NonRelevant)
	}
	ds.labelNotes = notes
	if len(c.Moved) == 0 {
		return c.Queries, "", nil
	}
	m := c.Moved[0]
	verb := "s moved and were placed at their new offsets (their exact text found once elsewhere in its document; e.g. "
	if len(c.Moved) == 1 {
		verb = " moved and was placed at its new offsets (its exact text found once elsewhere in its document: "
	}
	return c.Queries, fmt.Sprintf("%d span label%s%s:%d: query %q, doc %q, code points [%d, %d) → [%d, %d)); `bench labels check --corpus CORPUS --fix %s` writes them into the file",
		len(c.Moved), verb, path, m.Line, m.Query, m.Doc, m.From.Start, m.From.End, m.To.Start, m.To.End, path), nil
}

// idLabelNotes counts the judgements of id labels (ds.qrels) for the
// report: all of them, and those of grade 0 (judged not relevant, kept).
func (ds *dataset) idLabelNotes() *results.LabelNotes {
	n := &results.LabelNotes{}
	for _, m := range ds.qrels {
		for _, g := range m {
			if g >= 0 {
				n.Judgements++
			}
			if g == 0 {
				n.NotRelevant++
			}
		}
	}
	return n
}

// checkChunkLabels is the rule of chunk-id labels (issue 20 item 3,
// corpus.CheckLabelChunkings) over the sweep's chunkings, before any work:
// chunk ids such as "d1#1" exist under every chunking but name other text,
// so labels of chunk ids score only the chunking they were made on. With
// none recorded beside them (bench labels record --chunking NAME) a sweep
// of more than one chunking is refused; with one recorded, a sweep holding
// any other chunking is refused, naming those chunkings
// (corpus.ChunkLabelsError.Refused) and both fixes: remove them from the
// sweep, or convert the labels to span labels, which score every
// chunking. The run fails rather than skipping the refused cells: the
// config asks for cells the labels cannot score, and a sweep reporting
// fewer cells than it was given, with a warning at the end of the report,
// is a comparison quietly not made (docs/labelling.md).
func checkChunkLabels(cfg *Config, ds *dataset) error {
	if ds.spanQueries != nil {
		return nil
	}
	var specs []corpus.Spec
	for _, ch := range cfg.Chunkings() {
		specs = append(specs, ch.Spec())
	}
	return corpus.CheckLabelChunkings(ds.judged, ds.qrels, ds.docs, specs)
}
