package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/eval"
)

// ChunkIDs returns the judged ids of qrels (any grade) that name chunks
// rather than documents: "docid#i" for a document of docs, when the id is
// not itself a document's; sorted. None: the labels judge documents.
func ChunkIDs(qrels eval.Qrels, docs []Document) []string {
	judged := map[string]bool{}
	for _, m := range qrels {
		for id := range m {
			judged[id] = true
		}
	}
	marks := markIDs(judged, docs, Chunks{}) // no set of every doc id (issue 27)
	seen := map[string]bool{}
	var out []string
	for _, m := range qrels {
		for id := range m {
			if seen[id] || marks[id].doc {
				continue
			}
			seen[id] = true
			if doc, _, ok := ParseChunkID(id); ok && marks[doc].doc {
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ChunkLabelsError refuses chunk-id labels for chunkings they cannot score
// (CheckLabelChunkings).
type ChunkLabelsError struct {
	Labels   string   // the labels file
	IDs      []string // its chunk ids, sorted (ChunkIDs)
	Recorded string   // the chunking recorded beside it, "" when none
	Refused  []string // the chunkings refused, by Spec.Name, in the order given
	Err      error    // with a record: the first LabelInfo.Check error
}

func (e *ChunkLabelsError) Error() string {
	name := "NAME"
	if e.Recorded != "" {
		name = e.Recorded
	}
	// A command that runs as printed once CORPUS (and NAME) are filled in:
	// convert requires --output.
	convert := fmt.Sprintf("convert them to span labels, which score every chunking: 'bench labels convert --corpus CORPUS --chunking %s --output %s %s' (docs/labelling.md)", name, SpanLabelsPath(e.Labels), e.Labels)
	if e.Recorded == "" {
		return fmt.Sprintf("%s: chunk-id labels (%d judged %s, e.g. %q) belong to the one chunking they were made on, and the sweep has %d chunkings (%s) with none recorded beside the labels: record theirs with 'bench labels record --corpus CORPUS --chunking NAME %s' (the sweep may then have that chunking only), or %s",
			e.Labels, len(e.IDs), plural(len(e.IDs), "id", "ids"), e.IDs[0], len(e.Refused), strings.Join(e.Refused, ", "), e.Labels, convert)
	}
	return fmt.Sprintf("%s: chunk-id labels recorded for chunking %s (%s) cannot score chunking %s (%v): remove %s from the sweep, or %s",
		e.Labels, e.Recorded, LabelInfoPath(e.Labels), strings.Join(e.Refused, ", "), e.Err, plural(len(e.Refused), "it", "them"), convert)
}

// SpanLabelsPath is where the hints suggest converting the chunk-id labels
// at path to: beside them, ".spans.jsonl" in place of their extension
// (qrels.jsonl → qrels.spans.jsonl), never the labels themselves.
func SpanLabelsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".spans.jsonl"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CheckLabelChunkings is the rule for labels of chunk ids (issue 20)
// before a sweep over the chunkings specs: chunk ids name other text under
// every other chunking ("d1#1" exists under fixed-5 and fixed-10), so such
// labels can score only the chunking they were made on. With a record
// beside qrelsPath (LabelInfo) every spec must be the recorded one
// (LabelInfo.Check, the corpus too when recorded); without one, a sweep of
// more than one chunking is refused, since nothing says which is theirs.
// Labels of documents (no ChunkIDs) always pass. A refusal is a
// *ChunkLabelsError naming the chunkings refused and the fixes (record the
// chunking, or convert to span labels); a malformed record is its read
// error. qrelsPath "" (labels not from a file) has no record.
func CheckLabelChunkings(qrelsPath string, qrels eval.Qrels, docs []Document, specs []Spec) error {
	ids := ChunkIDs(qrels, docs)
	if len(ids) == 0 {
		return nil
	}
	e := &ChunkLabelsError{Labels: qrelsPath, IDs: ids}
	info, err := ReadLabelInfo(qrelsPath)
	switch {
	case qrelsPath == "" || errors.Is(err, fs.ErrNotExist):
		if len(specs) <= 1 {
			return nil
		}
		for _, s := range specs {
			e.Refused = append(e.Refused, s.Name())
		}
		return e
	case err != nil:
		return err
	}
	e.Recorded = info.Chunking
	for _, s := range specs {
		if cerr := info.Check(s, docs); cerr != nil {
			e.Refused = append(e.Refused, s.Name())
			if e.Err == nil {
				e.Err = cerr
			}
		}
	}
	if len(e.Refused) == 0 {
		return nil
	}
	return e
}
