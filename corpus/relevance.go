package corpus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ragbench/ragbench/eval"
)

// MaxP turns a chunk ranking into a document ranking by max-pooling: each
// document scores the maximum score of its chunks in the query's list (Dai &
// Callan 2019, "MaxP"). docOf maps a chunk id to its doc id; when it returns
// "" the id is taken to be a doc id already (whole-document chunks).
//
// Duplicates are removed before any cutoff: the returned lists hold every
// document that had a chunk in the input, once, in rank order: score
// descending, then doc id descending (trec_eval's order, eval.Sort with
// TieDocIDDesc, as every ragbench ranking), so that a cut to k afterwards
// keeps the documents the evaluation ranks first. To get k documents from a
// chunk retriever, search deeper than k chunks. Every query of run is kept
// (an empty list stays empty and non-nil). run is not modified.
func MaxP(run eval.Run, docOf func(chunkID string) string) eval.Run {
	out := make(eval.Run, len(run))
	for qid, results := range run {
		best := make(map[string]float64, len(results))
		for _, r := range results {
			doc := docOf(r.DocID)
			if doc == "" {
				doc = r.DocID
			}
			if s, ok := best[doc]; !ok || r.Score > s {
				best[doc] = r.Score
			}
		}
		list := make([]eval.Result, 0, len(best))
		for doc, s := range best {
			list = append(list, eval.Result{DocID: doc, Score: s})
		}
		eval.Sort(list, eval.TieDocIDDesc)
		out[qid] = list
	}
	return out
}

// DocOf returns a docOf function for MaxP over chunks: chunk id → doc id,
// "" for ids not among chunks. It holds a map of every chunk id; a caller
// that has the chunks' IDIndex uses DocOfIndex instead.
func DocOf(chunks Chunks) func(chunkID string) string {
	m := make(map[string]string, chunks.Len())
	for _, c := range chunks.All() {
		m[c.ID] = c.DocID
	}
	return func(id string) string { return m[id] }
}

// DocOfIndex is DocOf over chunks indexed by byID (chunk id → position in
// chunks), without a map of its own: a caller holding that index saves a
// second map of every chunk id.
func DocOfIndex(chunks Chunks, byID *IDIndex) func(chunkID string) string {
	return func(id string) string {
		if i, ok := byID.Get(id); ok {
			return chunks.At(i).DocID
		}
		return ""
	}
}

// ChunksAreDocs reports whether chunks are docs one for one, in order and
// with the same ids (whole-document chunking): an index of the documents by
// id is then one of the chunks. O(1) for the view DocChunks(docs, …), else
// one comparison of ids per chunk.
func ChunksAreDocs(chunks Chunks, docs []Document) bool {
	if chunks.IsDocs(docs) {
		return true
	}
	if chunks.Len() != len(docs) {
		return false
	}
	for i := range docs {
		if chunks.ID(i) != docs[i].ID {
			return false
		}
	}
	return true
}

// Level says what the ids in a set of qrels name.
type Level int

const (
	// DocLevel qrels judge documents: rank documents by MaxP over chunks.
	DocLevel Level = iota
	// ChunkLevel qrels judge chunks of the current chunking: score chunk
	// rankings directly.
	ChunkLevel
)

func (l Level) String() string {
	if l == ChunkLevel {
		return "chunk"
	}
	return "document"
}

// StaleLabelsError reports qrels that name chunk ids the current chunking
// does not produce: the labels were made with another chunking (or another
// version of the corpus) and cannot be scored against this one.
type StaleLabelsError struct {
	Chunking      string   // the current chunking's Key
	Missing       []string // judged ids not produced, sorted (CheckLabels)
	Total         int      // judged ids in the qrels (CheckLabels)
	Recorded      string   // the chunking recorded with the labels (LabelInfo.Check)
	CorpusChanged bool     // the recorded corpus hash differs (LabelInfo.Check)
}

func (e *StaleLabelsError) Error() string {
	if e.Recorded != "" {
		if e.CorpusChanged {
			return fmt.Sprintf("stale chunk labels: they were made on another version of the corpus (chunking %s); re-label", e.Recorded)
		}
		return fmt.Sprintf("stale chunk labels: they were made with chunking %s, not %s; use chunking %s or re-label",
			e.Recorded, e.Chunking, e.Recorded)
	}
	ids := e.Missing
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(", … (%d more)", len(e.Missing)-5)
	}
	return fmt.Sprintf("stale chunk labels: %d of %d judged ids are not chunks of chunking %s (%s%s); "+
		"the qrels were labelled with another chunking or corpus — use the chunking recorded with them or re-label",
		len(e.Missing), e.Total, e.Chunking, strings.Join(ids, ", "), more)
}

// CheckLabels decides whether qrels are document-level or chunk-level for
// docs cut by spec into chunks, and refuses stale chunk labels. A judged id
// (any grade, any query) "looks like a chunk" when it is a chunk id of chunks
// but not a doc id, or has the form "docid#i" (i a decimal integer) for a doc
// id of docs.
//
//   - No judged id looks like a chunk → DocLevel. (Judged doc ids missing
//     from the corpus stay relevant-but-unretrieved, as in trec_eval.)
//   - Otherwise every judged id must be a chunk id of chunks → ChunkLevel;
//     if some are not, the error is a *StaleLabelsError listing them, so
//     they are never scored as silent misses.
//
// For "document" chunking chunk ids equal doc ids and the answer is
// DocLevel.
func CheckLabels(qrels eval.Qrels, docs []Document, spec Spec, chunks Chunks) (Level, error) {
	judged := map[string]bool{}
	for _, m := range qrels {
		for id := range m {
			judged[id] = true
		}
	}
	// Which judged ids (and the doc parts of chunk ids) are documents and
	// chunks: one pass over each list, looking up the few judged ids,
	// instead of a set of every document and chunk id.
	marks := markIDs(judged, docs, chunks)
	docIDs := func(id string) bool { return marks[id].doc }
	chunkIDs := func(id string) bool { return marks[id].chunk }
	chunky := false
	for id := range judged {
		if docIDs(id) {
			continue
		}
		if chunkIDs(id) {
			chunky = true
			break
		}
		if doc, _, ok := ParseChunkID(id); ok && docIDs(doc) {
			chunky = true
			break
		}
	}
	if !chunky {
		return DocLevel, nil
	}
	var missing []string
	for id := range judged {
		if !chunkIDs(id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return ChunkLevel, nil
	}
	sort.Strings(missing)
	return ChunkLevel, &StaleLabelsError{Chunking: spec.Key(), Missing: missing, Total: len(judged)}
}

// idMarks say whether an id names a document and a chunk.
type idMarks struct{ doc, chunk bool }

// markIDs marks each of ids, and the document part of each chunk id among
// them (ParseChunkID), as a document id of docs and a chunk id of chunks.
func markIDs(ids map[string]bool, docs []Document, chunks Chunks) map[string]idMarks {
	marks := make(map[string]idMarks, 2*len(ids))
	for id := range ids {
		marks[id] = idMarks{}
		if doc, _, ok := ParseChunkID(id); ok {
			marks[doc] = idMarks{}
		}
	}
	for _, d := range docs {
		if m, ok := marks[d.ID]; ok {
			m.doc = true
			marks[d.ID] = m
		}
	}
	for i := range chunks.Len() {
		id := chunks.ID(i)
		if m, ok := marks[id]; ok {
			m.chunk = true
			marks[id] = m
		}
	}
	return marks
}
