package passages

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/srcpos"
	"github.com/ragbench/ragbench/spans"
)

// ChunkMap places a pipeline's own chunk ids in the corpus: chunk id → its
// passage (placed, or unmapped).
type ChunkMap struct {
	// Name is the file's name, for messages.
	Name   string
	Chunks map[string]Passage
}

// ReadChunkMap reads the chunk map at path (see ParseChunkMap).
func ReadChunkMap(path string, loc *Locator) (*ChunkMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseChunkMap(f, path, loc)
}

// ParseChunkMap reads a chunk map: UTF-8 JSONL (a byte order mark dropped,
// LF or CRLF, blank lines skipped), one chunk per line, a result of a
// passage run (docs/pipelines.md) with a required "id" and no "score":
//
//	{"id": "act-17", "doc": "leases/act", "start": 1204, "end": 1388}
//	{"id": "act-18", "text": "Rent is due monthly, in advance."}
//
// Text is placed by loc (unmapped text is kept, and counted when a run
// names the chunk). Errors: every problem of the file (up to 100, then
// their count), each an *srcpos.Error naming name, line and field: the
// result rules of Parse, a missing or non-string id, a score, an id given
// twice (naming both lines); a file with no chunk.
func ParseChunkMap(r io.Reader, name string, loc *Locator) (*ChunkMap, error) {
	cm := &ChunkMap{Name: name, Chunks: map[string]Passage{}}
	lineOf := map[string]int{}
	var el errorList
	err := scanJSONL(r, name, func(line int, b []byte) bool {
		obj, ok := lineObject(b, name, line, &el)
		if !ok {
			return true
		}
		p, _, errs := parseResult(b, "", loc)
		for _, e := range errs {
			el.add(name, line, strings.TrimPrefix(e.field, "."), "%s", e.msg)
		}
		if _, has := obj["score"]; has {
			el.add(name, line, "score", "a chunk map places chunks: scores belong in the TREC run")
			ok = false
		}
		raw, has := obj["id"]
		switch {
		case !has:
			el.add(name, line, "id", "missing: the chunk id the TREC run names")
			return true
		case p.ID == "":
			if isString(raw) {
				el.add(name, line, "id", "empty")
			}
			return true
		}
		if first, dup := lineOf[p.ID]; dup {
			el.add(name, line, "id", "chunk %q given twice (first at line %d)", p.ID, first)
			return true
		}
		lineOf[p.ID] = line
		if ok && len(errs) == 0 {
			cm.Chunks[p.ID] = p
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := el.err(); err != nil {
		return nil, err
	}
	if len(lineOf) == 0 {
		return nil, &srcpos.Error{File: name, Msg: "empty chunk map (no chunk)"}
	}
	return cm, nil
}

func isString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }

// FromTREC turns run (a TREC run of the pipeline's own chunk ids, read by
// eval.ReadRun from the file name) into a passage Run: each query's results
// ranked as eval.Sort ranks them with tb (trec_eval's order:
// eval.TieDocIDDesc; or the run's order: eval.TieInputOrder), each chunk id
// replaced by its passage of cm (Passage.ID keeps the chunk id, Score the
// run's score); unmapped chunks are counted per result. Queries are in id
// order. Errors: every chunk id the run names that cm lacks (up to 100,
// then their count), naming the query.
func FromTREC(run eval.Run, name string, cm *ChunkMap, tb eval.TieBreak) (*Run, error) {
	out := NewRun(name)
	var el errorList
	qids := make([]string, 0, len(run))
	for q := range run {
		qids = append(qids, q)
	}
	slices.Sort(qids)
	for _, q := range qids {
		res := slices.Clone(run[q])
		eval.Sort(res, tb)
		ps := make([]Passage, 0, len(res))
		ok := true
		for _, r := range res {
			p, found := cm.Chunks[r.DocID]
			if !found {
				el.add(name, 0, "", "query %q: chunk %q is not in the chunk map %s", q, r.DocID, cm.Name)
				ok = false
				continue
			}
			p.ID, p.Score, p.HasScore = r.DocID, r.Score, true
			ps = append(ps, p)
		}
		if ok {
			out.add(q, 0, ps)
		}
	}
	if err := el.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ChunkMapOf is the chunk map of a ragbench chunking: each chunk of chunks
// (corpus.Spec.Chunk of docs; byte offsets) as the passage it is, so that a
// TREC run of ragbench's own chunk ids reads as passages. name names it in
// messages. Errors: a chunk of a document docs lack, or whose offsets fall
// inside a character.
func ChunkMapOf(name string, docs []corpus.Document, chunks corpus.Chunks) (*ChunkMap, error) {
	ch, err := spans.NewChunking(docs, chunks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cm := &ChunkMap{Name: name, Chunks: make(map[string]Passage, chunks.Len())}
	for _, id := range ch.IDs {
		iv := ch.Intervals[id]
		cm.Chunks[id] = Passage{Doc: iv.Doc, Start: iv.Start, End: iv.End, Length: iv.Len(), Placing: Offsets, ID: id}
	}
	return cm, nil
}
