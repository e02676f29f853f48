package labels

import (
	"errors"
	"fmt"
	"os"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// Record writes the record beside the labels file at path (docs/labelling.md):
//
//   - chunking "" (span labels): the anchor record, the digest of every
//     labelled document (spans.AnchorRecord), once the labels check clean
//     against docs, so that a later check can tell a document edited since
//     from a label wrong from the start;
//   - chunking a chunking's name ("fixed-5"; chunk-id labels): the chunking
//     record (corpus.LabelInfo, with the corpus's hash), once every judged
//     chunk id is a chunk of that chunking of docs; a sweep then scores
//     that chunking only (corpus.CheckLabelChunkings).
//
// It returns the path written. Errors: labels with problems (the report's
// Err), span labels given a chunking or id labels given none, an unknown
// chunking name.
func Record(path string, docs []corpus.Document, chunking string, opt Options) (string, error) {
	r, err := Check(path, docs, opt)
	if err != nil {
		return "", err
	}
	if err := r.Err(); err != nil {
		return "", fmt.Errorf("not recorded: fix these first (bench labels check --fix):\n%w", err)
	}
	if r.Spans != nil {
		if chunking != "" {
			return "", fmt.Errorf("%s: span labels score every chunking: record them without --chunking", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		return spans.AnchorRecordPath(path), spans.WriteAnchorRecord(path, spans.NewAnchorRecord(data, r.Spans, docs))
	}
	if chunking == "" {
		return "", fmt.Errorf("%s: id labels: give the chunking their chunk ids belong to (--chunking fixed-5); labels of documents need no record", path)
	}
	spec, err := corpus.ParseSpec(chunking)
	if err != nil {
		return "", fmt.Errorf("--chunking: %w", err)
	}
	if len(r.ChunkIDs) == 0 {
		return "", fmt.Errorf("%s: no judged id names a chunk (\"docid#i\"): labels of documents score every chunking and need no record", path)
	}
	chunks, err := spec.Chunk(docs)
	if err != nil {
		return "", err
	}
	qrels, _, err := eval.ReadQrels(path)
	if err != nil {
		return "", err
	}
	if _, err := corpus.CheckLabels(qrels, docs, spec, chunks); err != nil {
		var stale *corpus.StaleLabelsError
		if errors.As(err, &stale) {
			return "", fmt.Errorf("%s: not chunks of chunking %s: %w", path, spec.Name(), err)
		}
		return "", err
	}
	return corpus.LabelInfoPath(path), corpus.WriteLabelInfo(path, corpus.NewLabelInfo(spec, docs))
}
