package labels

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// checkIDs checks id labels (labelled-query JSONL with "gold", TREC, BEIR
// or ranx qrels): every judged id must name a document of docs or a chunk
// ("docid#i") of one; chunk-id labels need their chunking recorded
// (corpus.CheckLabelChunkings against opt.Chunkings, a warning when those
// are not known).
func checkIDs(path string, docs []corpus.Document, opt Options) (*Report, error) {
	r := &Report{Path: path, Format: FormatIDs}
	qrels, _, lines, err := eval.ReadQrelsLines(path)
	if err != nil {
		var se *eval.SyntaxError
		if !errors.As(err, &se) {
			return nil, err
		}
		r.Problems = append(r.Problems, spans.Problem{Line: se.Line, Field: se.Field, Msg: se.Msg})
		return r, nil
	}
	qids := slices.Sorted(maps.Keys(qrels))
	r.count(len(qids), func(i int) bool { return !qrels.Answerable(qids[i]) })
	ix := anchor.NewIndex(docs)
	for _, q := range qids {
		for _, id := range slices.Sorted(maps.Keys(qrels[q])) {
			r.Judged++
			if qrels[q][id] == 0 {
				r.NotRelevant++
			}
			if p, bad := unknownID(ix, q, id); bad {
				p.Line = lines[eval.Judgement{Query: q, Doc: id}]
				r.Problems = append(r.Problems, p)
			}
		}
	}
	sortProblems(r.Problems)
	r.ChunkIDs = corpus.ChunkIDs(qrels, docs)
	if len(r.ChunkIDs) > 0 {
		if err := r.chunkRule(qrels, docs, opt); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// unknownID is the problem of judged id of query q when it names neither a
// document nor a chunk of one, with the id it probably meant.
func unknownID(ix *anchor.Index, q, id string) (spans.Problem, bool) {
	if _, ok := ix.Doc(id); ok {
		return spans.Problem{}, false
	}
	doc, _, chunk := corpus.ParseChunkID(id)
	if _, ok := ix.Doc(doc); chunk && ok {
		return spans.Problem{}, false
	}
	p := spans.Problem{Field: "gold", Query: q, Doc: id, Who: fmt.Sprintf("query %q", q),
		Msg: fmt.Sprintf("doc %q: no such document (or chunk of one) in the corpus", id)}
	cand, sure := ix.SuggestID(id)
	if chunk && cand == "" {
		if d, s := ix.SuggestID(doc); d != "" {
			cand, sure = fmt.Sprintf("%s%s", d, id[len(doc):]), s
		}
	}
	switch {
	case sure:
		p.Hint = fmt.Sprintf("the corpus has %q (doc ids are file paths inside the corpus folder, without the extension, case as on disk)", cand)
		p.Repair = &spans.Repair{Doc: cand, Note: fmt.Sprintf("doc %q → %q", id, cand)}
	case cand != "":
		p.Hint = fmt.Sprintf("the nearest doc id is %q", cand)
	}
	return p, true
}

// chunkRule applies the rule of chunk-id labels: a problem when it refuses
// opt.Chunkings, a warning when no chunking is recorded and none is known.
func (r *Report) chunkRule(qrels eval.Qrels, docs []corpus.Document, opt Options) error {
	info, err := corpus.ReadLabelInfo(r.Path)
	switch {
	case err == nil:
		r.Chunking = info.Chunking
		if info.Corpus != "" && info.Corpus != corpus.Hash(docs) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the corpus changed since the chunking %s was recorded (%s): chunk ids may name other text", info.Chunking, corpus.LabelInfoPath(r.Path)))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if opt.Chunkings != nil {
		if err := corpus.CheckLabelChunkings(r.Path, qrels, docs, opt.Chunkings); err != nil {
			var ce *corpus.ChunkLabelsError
			if !errors.As(err, &ce) {
				return err
			}
			r.Problems = append(r.Problems, spans.Problem{Msg: strings.TrimPrefix(ce.Error(), r.Path+": ")})
		}
		return nil
	}
	if r.Chunking == "" {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d judged ids name chunks (e.g. %q) and no chunking is recorded beside the labels: they score one chunking only, and nothing says which; record it ('bench labels record --corpus CORPUS --chunking NAME %s') or convert them to span labels ('bench labels convert')",
			len(r.ChunkIDs), r.ChunkIDs[0], r.Path))
	}
	return nil
}
